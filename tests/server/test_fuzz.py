"""Hostile input, generated: every frame gets its ``error`` (or the close the rules say),
the server never dies, and a game played alongside goes on without a gap in ``v``.

The TestClient part fuzzes the decoder and every handler with random JSON of every
shape and valid messages with wrong field types; the real-uvicorn part sends what
only a socket can: binary frames, invalid UTF-8 in text frames, frames over the limit.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect as sync_connect

from wizard.protocol import ProtocolError, decode_client

from .conftest import Harness, WsClient
from .driver import Message, act_message, finished, my_turn, next_id
from .tables.test_table import table_id_of
from .test_e2e_uvicorn import Client, free_port, start_server, stop_server, table_of

LIMIT = 8192

# --- what the fuzzer sends -----------------------------------------------------------------

scalars = (st.none() | st.booleans() | st.floats(allow_nan=False)
           | st.integers(min_value=-(2**70), max_value=2**70) | st.text(max_size=40))
json_values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4)
                           | st.dictionaries(st.text(max_size=12), inner, max_size=4),
                           max_leaves=20)

TEMPLATES: dict[str, dict[str, Any]] = {
    "hello": {"name": "Zed"},
    "list_tables": {},
    "create_table": {"players": 3, "options": {"hidden_bids": True}, "private": True,
                     "turn_seconds": 0},
    "join_table": {"table_id": "t_x", "seat": 1},
    "leave_table": {"table_id": "t_x"},
    "spectate": {"table_id": "t_x"},
    "add_bot": {"table_id": "t_x", "level": "easy", "seat": 2},
    "remove_bot": {"table_id": "t_x", "seat": 2},
    "start_game": {"table_id": "t_x"},
    "play_bots": {"players": 3, "level": "easy", "turn_seconds": 0},
    "act": {"table_id": "t_x", "action": {"type": "bid", "value": 1}},
    "sync": {"table_id": "t_x"},
    "rematch": {"table_id": "t_x"},
    "chat": {"table_id": "t_x", "text": "hi"},
    "ping": {},
}


@st.composite
def wrong_types(draw: st.DrawFn) -> dict[str, Any]:
    """A valid message with one field (or the id) replaced by any JSON value."""
    kind = draw(st.sampled_from(sorted(TEMPLATES)))
    message: dict[str, Any] = {"type": kind, **TEMPLATES[kind]}
    field = draw(st.sampled_from([*message, "id", "extra"]))
    message[field] = draw(json_values)
    return message


def deep(depth: int, opener: str = "[", closer: str = "]") -> str:
    return opener * depth + closer * depth


frames = st.one_of(
    json_values.map(json.dumps),
    wrong_types().map(json.dumps),
    st.integers(min_value=1, max_value=4000).map(deep),
    st.integers(min_value=1, max_value=1300).map(lambda d: deep(d, '{"a":', "}")),
    st.integers(min_value=1, max_value=1300).map(
        lambda d: '{"type":"act","table_id":"t_x","action":' + deep(d, '{"a":', "}") + "}"),
    st.integers(min_value=20, max_value=LIMIT - 30).map(lambda n: '{"type":"ping","id":' + "9" * n
                                                        + "}"),
    st.text(max_size=200),
)


def expected_code(frame: str) -> str | None:
    """The error code the decoder gives ``frame``, or None if it is a valid message."""
    try:
        decode_client(frame)
    except ProtocolError as exc:
        return exc.code.value
    return None


# --- TestClient: every frame answered, a game alongside unharmed --------------------------


class Bystander:
    """A player in a game that moves once per fuzz example."""

    def __init__(self, client: WsClient, table_id: str) -> None:
        self.client, self.table_id = client, table_id
        self.turn: Message | None = client.wait_for(lambda m: my_turn(m, table_id))

    def step(self) -> None:
        if self.turn is None:
            return
        self.client.ok(act_message(self.turn))
        table_id = self.table_id
        update = self.client.wait_for(lambda m: my_turn(m, table_id) or finished(m, table_id))
        self.turn = None if finished(update, table_id) else update


def test_random_frames_get_their_error_and_a_game_alongside_is_unharmed(
        make_harness: Callable[..., Harness]) -> None:
    harness = make_harness(max_tables_per_player=2, max_tables=20)
    ben = harness.player("Ben")
    ben.ok({"type": "play_bots", "players": 3, "level": "easy", "turn_seconds": 0})
    bystander = Bystander(ben, table_id_of(ben))
    fuzzer = harness.player("Fuzz")

    @settings(max_examples=150, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(frame=frames, binary=st.booleans())
    def check(frame: str, binary: bool) -> None:
        if fuzzer.closed is not None:
            raise AssertionError(f"the fuzz connection was closed ({fuzzer.closed})")
        fuzzer.unread.clear()
        data = frame.encode()
        fuzzer.send(data if binary else frame)
        marker = next_id()
        fuzzer.send({"type": "ping", "id": marker})
        fuzzer.wait_for(lambda m: m.get("id") == marker)
        errors = [m for m in fuzzer.unread if m["type"] == "error"]
        if binary:
            assert [e["code"] for e in errors] == ["bad_json"]
        elif (code := expected_code(frame)) is not None:
            assert [e["code"] for e in errors] == [code], frame[:200]
            assert all(e["message"] for e in errors)
        else:  # a valid message: refused or done, never both, never twice
            message = json.loads(frame)
            if message.get("id") is not None:
                answers = [m for m in fuzzer.unread if m.get("id") == message["id"]
                           and m["type"] in ("ack", "error")]
                assert len(answers) == 1, answers
        bystander.step()

    check()
    while bystander.turn is not None:  # the game runs on to its end, every v in order
        bystander.step()
    versions = [m["v"] for m in ben.messages if m["type"] == "update"]
    assert versions == list(range(1, len(versions) + 1))
    assert fuzzer.request({"type": "ping"})["type"] == "ack"
    assert harness.client.get("/healthz").status_code == 200


def test_nesting_deeper_than_the_decoder_allows_is_a_bad_message(harness: Harness) -> None:
    client = harness.player("Deep")
    for frame in (deep(3000), '{"type":"act","table_id":"t","action":' + deep(1200, '{"a":', "}")
                  + "}"):
        client.send(frame)
        assert client.wait_for(lambda m: m["type"] == "error")["code"] == "bad_message"
    assert client.request({"type": "ping"})["type"] == "ack"


def test_deeply_nested_and_huge_numbers_over_the_limit_close_1009(harness: Harness) -> None:
    for frame in (deep(5000), '{"type":"ping","id":' + "9" * 9000 + "}"):
        client = harness.player("Big")
        client.send(frame)
        assert client.wait_for(lambda m: m["type"] == "error")["code"] == "too_large"
        assert client.wait_for(lambda m: m["type"] == "_closed")["code"] == 1009


# --- real uvicorn: what only a socket can send ---------------------------------------------


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    port = free_port()
    log = tmp_path_factory.mktemp("fuzz") / "server.log"
    process = start_server(port, log, WIZARD_AI_WORKERS="0")
    try:
        yield f"ws://127.0.0.1:{port}/ws", log
    finally:
        stop_server(process)


def game_alongside(url: str, done: dict[str, Any]) -> None:
    """A person and two bots play to the end (acting a little slowly) in this thread."""
    async def play() -> None:
        from websockets.asyncio.client import connect
        async with connect(url, open_timeout=10, close_timeout=2) as ws:
            ann = Client(ws, "Ann")
            await ann.hello("Ann")
            await ann.ok({"type": "play_bots", "players": 3, "turn_seconds": 0})
            done["started"].set()
            table_id = table_of(ann)
            while True:
                update = await ann.wait_for(lambda m: my_turn(m, table_id)
                                            or finished(m, table_id))
                if finished(update, table_id):
                    break
                await asyncio.sleep(0.01)
                await ann.send(act_message(update))
            done["versions"] = [m["v"] for m in ann.messages
                                if m["type"] == "update"]

    try:
        asyncio.run(asyncio.wait_for(play(), 120))
    except BaseException as exc:  # reported by the test thread
        done["error"] = exc
    finally:
        done["started"].set()


def receive_all(ws: Any) -> tuple[list[Message], int | None]:
    """Messages until the server closes (code) or goes quiet after a marker ping."""
    received: list[Message] = []
    marker = next_id()
    with contextlib.suppress(ConnectionClosed):
        ws.send(json.dumps({"type": "ping", "id": marker}))
    try:
        while True:
            message = json.loads(ws.recv(timeout=10))
            received.append(message)
            if message.get("id") == marker:
                return received, None
    except ConnectionClosed as exc:
        return received, exc.rcvd.code if exc.rcvd else 1006


def test_binary_invalid_utf8_and_oversize_frames_over_the_wire(
        live: tuple[str, Path]) -> None:
    url, log = live
    done: dict[str, Any] = {"started": threading.Event()}
    thread = threading.Thread(target=game_alongside, args=(url, done))
    thread.start()
    assert done["started"].wait(30)

    @settings(max_examples=60, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(payload=st.binary(max_size=64) | st.sampled_from([b"\xff\xfe", b'{"type":"\xc3"}']),
           kind=st.sampled_from(["binary", "text", "big", "huge"]))
    def check(payload: bytes, kind: str) -> None:
        with sync_connect(url, open_timeout=10, close_timeout=2, max_size=None) as ws:
            if kind == "binary":
                ws.send(payload)
            elif kind == "text":
                ws.send(payload, text=True)  # not checked by the client: may be invalid UTF-8
            else:
                size = LIMIT + 100 if kind == "big" else 2 * LIMIT + 100
                ws.send(payload.hex()[:16].ljust(size, "x"))
            received, closed = receive_all(ws)
        errors = [m.get("code") for m in received if m["type"] == "error"]
        if kind == "binary":
            assert (errors, closed) == (["bad_json"], None)
        elif kind == "big":
            assert (errors, closed) == (["too_large"], 1009)
        elif kind == "huge":
            assert closed == 1009  # uvicorn refuses it before the app sees it
        else:
            try:
                text = payload.decode()
            except UnicodeDecodeError:
                assert closed == 1007  # invalid UTF-8 in a text frame
            else:
                code = expected_code(text)
                assert closed is None and errors == ([code] if code else [])

    check()
    thread.join(120)
    assert "error" not in done, done.get("error")
    versions = done["versions"]
    assert versions == list(range(1, len(versions) + 1)) and len(versions) > 50
    with sync_connect(url, open_timeout=10) as ws:  # the server is alive and well
        ws.send(json.dumps({"type": "ping", "id": 1}))
        assert json.loads(ws.recv(timeout=10))["type"] == "pong"
    assert "Traceback" not in log.read_text()
