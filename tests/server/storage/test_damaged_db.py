"""A damaged database file is found at start: the server says so, keeps a copy, and does
not start on it (a silent start could serve games many versions behind)."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

import pytest
from websockets.asyncio.client import connect

from ...serve import free_port, start_server, stop_server
from ..driver import act_message, my_turn
from ..test_e2e_uvicorn import Client


def a_database_with_a_game(tmp_path: Path) -> Path:
    db = tmp_path / "wizard.db"
    port = free_port()
    process = start_server(port, tmp_path / "first.log", WIZARD_DB=str(db))
    try:
        async def play() -> None:
            async with connect(f"ws://127.0.0.1:{port}/ws") as ws:
                ann = Client(ws, "Ann")
                await ann.hello("Ann")
                await ann.ok({"type": "play_bots", "players": 4, "level": "easy",
                              "turn_seconds": 0})
                for _ in range(30):
                    update = await ann.wait_for(lambda m: my_turn(m, m.get("table_id")))
                    await ann.ok(act_message(update))

        asyncio.run(asyncio.wait_for(play(), 60))
    finally:
        process.send_signal(signal.SIGTERM)  # a clean stop: the log is checkpointed
        stop_server(process)
    return db


def test_a_damaged_file_is_refused_with_a_copy_and_instructions(tmp_path: Path) -> None:
    db = a_database_with_a_game(tmp_path)
    data = bytearray(db.read_bytes())
    page = 4096
    assert len(data) >= 4 * page
    for offset in range(2 * page, 2 * page + 64):  # garble the head of a b-tree page
        data[offset] ^= 0xA5
    db.write_bytes(bytes(data))
    with pytest.raises(RuntimeError) as refused:
        start_server(free_port(), tmp_path / "second.log", WIZARD_DB=str(db))
    log = (tmp_path / "second.log").read_text()
    assert "store_corrupt" in log and ".recover" in log
    copies = list(tmp_path.glob("wizard.db.corrupt-*"))
    assert len(copies) == 1 and copies[0].read_bytes() == bytes(data)
    assert "exited" in str(refused.value)
