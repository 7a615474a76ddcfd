"""A damaged database file is found at start: the server says so, keeps a copy, and does
not start on it (a silent start could serve games many versions behind).

Two kinds of damage: a garbled b-tree page (``quick_check`` finds it) and one flipped
byte in an index page, which leaves every page well-formed but the index no longer
matching its table: only ``integrity_check`` finds that, and it runs at start on a file
up to ``WIZARD_DB_FULL_CHECK_MB``."""

from __future__ import annotations

import asyncio
import shutil
import signal
import sqlite3
from pathlib import Path

import pytest
from websockets.asyncio.client import connect

from wizard.server.storage.errors import StoreCorruptError
from wizard.server.storage.integrity import check_file

from ...serve import free_port, start_server, stop_server
from ..driver import act_message, my_turn
from ..test_e2e_uvicorn import Client


@pytest.fixture(scope="module")
def played_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real server's database after 30 moves of a bot game (built once, copied per test)."""
    return a_database_with_a_game(tmp_path_factory.mktemp("played"))


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


def test_a_damaged_file_is_refused_with_a_copy_and_instructions(tmp_path: Path,
                                                                played_db: Path) -> None:
    db = Path(shutil.copy(played_db, tmp_path / "wizard.db"))
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


def flip_an_index_byte(db: Path) -> None:
    """Flip the lowest bit of the last byte of a leaf page of the actions' primary-key
    index: the row id of that index entry, so the page stays well-formed."""
    conn = sqlite3.connect(db)
    try:
        page_size = conn.execute("PRAGMA page_size").fetchone()[0]
        pages = [row[0] for row in conn.execute(
            "SELECT pageno FROM dbstat WHERE name = 'sqlite_autoindex_actions_1' "
            "AND pagetype = 'leaf' ORDER BY pageno")]
    finally:
        conn.close()
    assert pages, "the actions index has no leaf page"
    data = bytearray(db.read_bytes())
    data[pages[0] * page_size - 1] ^= 0x01  # pages count from 1
    db.write_bytes(bytes(data))


def check(db: Path, pragma: str) -> str:
    conn = sqlite3.connect(db)
    try:
        return str(conn.execute(f"PRAGMA {pragma}").fetchone()[0])
    finally:
        conn.close()


def test_a_flipped_index_byte_is_refused_at_start(tmp_path: Path, played_db: Path) -> None:
    db = Path(shutil.copy(played_db, tmp_path / "wizard.db"))
    flip_an_index_byte(db)
    # the damage quick_check cannot see (the silent start of issue 18)
    assert check(db, "quick_check") == "ok"
    assert check(db, "integrity_check") != "ok"
    damaged = db.read_bytes()
    with pytest.raises(RuntimeError) as refused:
        start_server(free_port(), tmp_path / "second.log", WIZARD_DB=str(db))
    log = (tmp_path / "second.log").read_text()
    assert "store_corrupt" in log and "integrity_check" in log and ".recover" in log
    copies = list(tmp_path.glob("wizard.db.corrupt-*"))
    assert len(copies) == 1 and copies[0].read_bytes() == damaged
    assert "exited" in str(refused.value)


def test_past_the_full_check_size_only_quick_check_runs(tmp_path: Path, played_db: Path) -> None:
    db = Path(shutil.copy(played_db, tmp_path / "wizard.db"))
    flip_an_index_byte(db)
    size = db.stat().st_size
    check_file(str(db), full_check_bytes=size - 1)  # too big for the full check: passes
    with pytest.raises(StoreCorruptError, match="integrity_check"):
        check_file(str(db), full_check_bytes=size)
    assert len(list(tmp_path.glob("wizard.db.corrupt-*"))) == 1
