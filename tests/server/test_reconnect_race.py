"""One player per token, always: two ``hello`` with the same token at once after a restart.

A real ``wizard serve`` on a file database: Ann starts a bot game and leaves; the server
restarts; two sockets (two tabs, or a client's retry) say ``hello`` with her token at the
same moment. Both must be Ann with her seat, and so must every later ``hello``.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from websockets.asyncio.client import connect

from ..serve import free_port, start_server, stop_server
from .test_e2e_uvicorn import Client, table_of

TIMEOUT = 20.0


def test_two_hellos_with_one_token_after_a_restart_share_one_seated_player(
        tmp_path: Path) -> None:
    db = str(tmp_path / "wizard.db")
    port = free_port()
    url = f"ws://127.0.0.1:{port}/ws"

    async def first() -> tuple[str, str, str]:
        async with connect(url, open_timeout=10) as ws:
            ann = Client(ws, "Ann")
            await ann.hello("Ann")
            await ann.ok({"type": "play_bots", "players": 3, "level": "easy",
                          "turn_seconds": 0})
            assert ann.token is not None and ann.player_id is not None
            return ann.token, ann.player_id, table_of(ann)

    process = start_server(port, tmp_path / "first.log", WIZARD_DB=db,
                           WIZARD_DISCONNECT_GRACE="600")
    try:
        token, player_id, table_id = asyncio.run(asyncio.wait_for(first(), 60))
    finally:
        stop_server(process)

    async def race() -> None:
        sockets = [await connect(url, open_timeout=10, close_timeout=2) for _ in range(3)]
        try:
            tabs = [Client(ws, f"Ann{i}") for i, ws in enumerate(sockets)]
            replies = await asyncio.gather(*(tab.hello("Ann", token) for tab in tabs[:2]))
            assert [r["type"] for r in replies] == ["ack", "ack"]
            await tabs[2].hello("Ann", token)  # a later tab finds the same player
            for tab in tabs:
                assert tab.player_id == player_id
                reply = await tab.request({"type": "sync", "table_id": table_id})
                assert reply["type"] == "ack", reply
                assert tab.seat[table_id] is not None
        finally:
            for ws in sockets:
                await ws.close()

    for trial in range(3):
        process = start_server(port, tmp_path / f"race{trial}.log", WIZARD_DB=db,
                               WIZARD_DISCONNECT_GRACE="600")
        try:
            asyncio.run(asyncio.wait_for(race(), 60))
        finally:
            stop_server(process)
