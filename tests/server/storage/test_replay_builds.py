"""Replays are built off the event loop, once per game, and then served from the cache."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from wizard.server.storage import history

from ..conftest import Harness
from .test_history_privacy import play_to_the_end, table_id_of


def test_a_replay_is_built_in_a_worker_thread_once(harness: Harness,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    cleo = harness.player("Cleo")
    cleo.ok({"type": "play_bots", "players": 3, "level": "easy", "turn_seconds": 0})
    play_to_the_end(cleo, table_id_of(cleo))
    token = next(m for m in cleo.messages if m["type"] == "welcome")["token"]
    game_id = harness.client.get("/api/games", headers={
        "Authorization": f"Bearer {token}"}).json()["games"][0]["id"]
    loop_thread: list[threading.Thread] = []
    harness.client.portal.call(lambda: loop_thread.append(threading.current_thread()))
    built_on: list[threading.Thread] = []
    real_replay = history.replay

    def recording_replay(stored: Any) -> dict[str, Any]:
        built_on.append(threading.current_thread())
        return real_replay(stored)

    monkeypatch.setattr(history, "replay", recording_replay)
    bodies = [harness.client.get(f"/api/games/{game_id}/replay",
                                 headers={"Authorization": f"Bearer {token}"}) for _ in range(3)]
    assert all(b.status_code == 200 for b in bodies)
    assert bodies[0].content == bodies[2].content
    assert len(bodies[0].json()["rounds"]) == 20
    assert len(built_on) == 1 and built_on[0] is not loop_thread[0]
