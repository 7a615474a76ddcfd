"""A game's rating is stored in the commit of its end: kill -9 of a real ``wizard serve``
right after the end, a restart on the same database, and the game is counted exactly once."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import connect

from ...serve import free_port, http_get, start_server, stop_server
from ..driver import act_message, my_turn, next_id
from ..test_e2e_uvicorn import Client, table_of


async def play_to_the_end(url: str) -> tuple[str, str]:
    """A person plays a whole game against two bots; ``(player id, table id)`` once the
    finished update arrived (stored before it was sent)."""
    async with connect(url, open_timeout=10, close_timeout=1) as ws:
        client = Client(ws, "Ann")
        await client.hello("Ann", None)
        await client.ok({"type": "play_bots", "players": 3, "level": "easy",
                         "turn_seconds": 0})
        table_id = table_of(client)
        while True:
            update = await client.wait_for(
                lambda m: m["type"] == "update" and m["table_id"] == table_id, 20)
            if update["observation"]["phase"] == "finished":
                return str(client.player_id), table_id
            if my_turn(update, table_id):
                reply = await client.request({**act_message(update), "id": next_id()}, 20)
                assert reply["type"] == "ack", reply


def profile(base: str, player: str) -> dict[str, Any]:
    status, body = http_get(f"{base}/api/players/{player}")
    assert status == 200, body
    data: dict[str, Any] = json.loads(body)
    return data


@pytest.mark.slow
def test_a_kill_9_right_after_the_end_keeps_the_rating_counted_once(tmp_path: Path) -> None:
    db = str(tmp_path / "wizard.db")
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    process = start_server(port, tmp_path / "first.log", WIZARD_DB=db, WIZARD_BOT_DELAY="0")
    try:
        player, _ = asyncio.run(asyncio.wait_for(play_to_the_end(f"ws://127.0.0.1:{port}/ws"),
                                                 120))
    finally:
        process.kill()  # SIGKILL: no shutdown, no last commit
        process.wait(timeout=10)
    process = start_server(port, tmp_path / "second.log", WIZARD_DB=db)
    try:
        after = profile(base, player)
        bot = profile(base, "bot:easy")
    finally:
        stop_server(process)
    assert after["games"] == 1 and after["rating"]["rated_games"] == 1
    assert len(after["history"]) == 1
    assert bot["rating"]["rated_games"] == 1  # two easy seats, one game
