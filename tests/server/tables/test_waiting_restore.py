"""An acknowledged table survives kill -9 before its game starts: seats, bots, host, and
the invite (what its invite link carries) all come back; the id alone still opens nothing."""

from __future__ import annotations

import asyncio
from pathlib import Path

from websockets.asyncio.client import connect

from ...serve import free_port, start_server
from ..test_e2e_uvicorn import Client, play_to_end, stop_server, table_of


def test_a_waiting_table_survives_kill_9_with_its_seats(tmp_path: Path) -> None:
    db = str(tmp_path / "wizard.db")
    port = free_port()
    url = f"ws://127.0.0.1:{port}/ws"

    async def before() -> tuple[str, str, str, str, str]:
        ann_ws, ben_ws = await connect(url), await connect(url)
        ann, ben = Client(ann_ws, "Ann"), Client(ben_ws, "Ben")
        await ann.hello("Ann")
        await ben.hello("Ben")
        await ann.ok({"type": "create_table", "players": 4, "private": True,
                      "turn_seconds": 0})
        table_id = table_of(ann)
        invite = next(m for m in ann.messages if m["type"] == "table")["invite"]
        await ben.ok({"type": "join_table", "table_id": table_id, "invite": invite})
        await ann.ok({"type": "add_bot", "table_id": table_id, "level": "easy", "seat": 3})
        assert ann.token is not None and ben.token is not None
        await ann_ws.close()
        await ben_ws.close()
        return table_id, invite, ann.token, ben.token, str(ann.player_id)

    process = start_server(port, tmp_path / "first.log", WIZARD_DB=db)
    try:
        table_id, invite, ann_token, ben_token, ann_id = asyncio.run(asyncio.wait_for(before(), 60))
    finally:
        process.kill()  # kill -9: nothing is flushed on the way out
        process.wait(timeout=10)

    async def after() -> None:
        ann_ws, ben_ws, cal_ws = await connect(url), await connect(url), await connect(url)
        ann, ben, cal = Client(ann_ws, "Ann"), Client(ben_ws, "Ben"), Client(cal_ws, "Cal")
        await ann.hello("Ann", ann_token)
        info = await ann.wait_for(lambda m: m["type"] == "table" and m["table_id"] == table_id)
        assert info["status"] == "waiting" and info["host"] == ann_id
        assert info["invite"] == invite
        assert [s["kind"] for s in info["seats"]] == ["player", "player", "empty", "bot"]
        assert info["seats"][1]["name"] == "Ben" and info["seats"][3]["level"] == "easy"
        await ben.hello("Ben", ben_token)
        await cal.hello("Cal")
        refused = await cal.request({"type": "join_table", "table_id": table_id})
        assert refused["code"] == "invite_required"
        await cal.ok({"type": "join_table", "table_id": table_id,
                      "invite": invite})  # the invite still works
        await ann.ok({"type": "start_game", "table_id": table_id})
        await play_to_end([ann, ben, cal], table_id)
        for ws in (ann_ws, ben_ws, cal_ws):
            await ws.close()

    process = start_server(port, tmp_path / "second.log", WIZARD_DB=db)
    try:
        asyncio.run(asyncio.wait_for(after(), 120))
    finally:
        stop_server(process)
