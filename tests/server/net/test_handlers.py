"""The dispatcher on its own: one frame in, one handler, an ``ack`` or a stable error."""

from __future__ import annotations

import json
from typing import Any

from wizard.server.clock import ManualClockLoop

from ..conftest import fast_settings
from ..unit import lobby_and_dispatcher, open_connection, run_on_manual_clock


def replies(frames: list[str | bytes], **settings: Any) -> list[dict[str, Any]]:
    async def scenario(loop: ManualClockLoop) -> list[dict[str, Any]]:
        async with lobby_and_dispatcher(fast_settings(**settings)) as (_, dispatcher):
            connection, socket = open_connection(dispatcher)
            for frame in frames:
                await dispatcher.handle_frame(connection, frame)
            await loop.settle()  # the writer task has drained the queue
            return socket.messages

    return run_on_manual_clock(scenario)


def test_every_message_with_an_id_gets_an_ack_after_what_it_caused() -> None:
    got = replies([json.dumps({"type": "ping", "id": 1}),
                   json.dumps({"type": "hello", "name": "Ann", "id": 2}),
                   json.dumps({"type": "list_tables", "id": 3})])
    assert [m["type"] for m in got] == ["pong", "ack", "welcome", "ack", "tables", "ack"]
    assert [m["id"] for m in got if m["type"] == "ack"] == [1, 2, 3]


def test_bad_frames_get_stable_error_codes_and_change_nothing() -> None:
    got = replies(["{garbage", b"\x00binary", json.dumps({"type": "no_such", "id": 4}),
                   json.dumps({"type": "create_table", "players": 3, "id": 5}),
                   json.dumps({"type": "hello", "name": "Ann", "id": 6}),
                   json.dumps({"type": "hello", "name": "Ann", "id": 7})])
    errors = [(m.get("id"), m["code"]) for m in got if m["type"] == "error"]
    assert errors == [(None, "bad_json"), (None, "bad_json"), (4, "bad_message"),
                      (5, "not_identified"), (7, "already_identified")]


def test_a_frame_over_the_size_limit_is_refused_and_closes_the_connection() -> None:
    got = replies(["x" * 600], max_message_bytes=512)
    assert [(m["type"], m["code"]) for m in got] == [("error", "too_large")]


def test_the_message_budget_is_checked_before_decoding() -> None:
    got = replies(["{garbage"] * 4, messages_per_second=0.001, message_burst=2,
                  rate_limit_strikes=100)
    assert [m["code"] for m in got] == ["bad_json"] * 2 + ["rate_limited"] * 2
