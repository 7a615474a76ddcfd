"""The SQLite layer: migrations, group commits, durability across reopen."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from wizard.engine import GameOptions
from wizard.server.storage.db import Database, connect, load_games
from wizard.server.storage.errors import StoreError
from wizard.server.storage.records import GameStatus, TableSettings, decode_game
from wizard.server.storage.schema import SCHEMA_VERSION, migrate, schema_version


def test_a_first_version_database_opens_in_this_version(tmp_path: Path) -> None:
    path = str(tmp_path / "old.db")
    conn = connect(path)
    migrate(conn, target=1)
    conn.execute("INSERT INTO games (id, table_id, created, options, seed, seats, status) "
                 "VALUES ('g', 't', 1.0, '{}', 7, '[]', 'playing')")
    conn.execute("INSERT INTO actions VALUES ('g', 1, 0, '{\"type\":\"bid\",\"value\":1}', 2.0)")
    conn.close()

    async def reopen() -> list:
        db = Database(path)
        await db.open()
        try:
            return await db.read(lambda c: load_games(c, "status = 'playing'"))
        finally:
            await db.close()

    games = asyncio.run(reopen())
    assert schema_version(connect(path)) == SCHEMA_VERSION
    assert len(games) == 1 and games[0].seed == 7 and games[0].table_info == TableSettings()
    assert games[0].problem is None and not games[0].private
    step = games[0].actions[0]
    assert (step.seq, step.seat, step.action) == (1, 0, {"type": "bid", "value": 1})


def test_a_schema_4_database_upgrades_its_analyses_and_gives_private_tables_invites(
        tmp_path: Path) -> None:
    """Before schema 5 the analyses table was made on first use; schema 6 gives every
    stored private table (a game's, a waiting one's) an invite of its own."""
    path = str(tmp_path / "v4.db")
    conn = connect(path)
    migrate(conn, target=4)
    conn.execute("CREATE TABLE IF NOT EXISTS analyses (game_id TEXT NOT NULL, seat INTEGER "
                 "NOT NULL, worlds INTEGER NOT NULL, created REAL NOT NULL, report TEXT NOT "
                 "NULL, PRIMARY KEY (game_id, seat))")  # what builds before schema 5 did
    conn.execute("INSERT INTO analyses VALUES ('g1', 0, 32, 1.0, '{\"seat\": 0}')")
    for game_id, table_id, info in (("g1", "t_a", '{"private": true}'),
                                    ("g2", "t_a", '{"private": true}'),
                                    ("g3", "t_b", '{"private": false}'), ("g4", "t_c", "{}")):
        conn.execute("INSERT INTO games (id, table_id, created, options, seed, seats, status, "
                     "table_info) VALUES (?, ?, 1.0, '{}', 7, '[]', 'finished', ?)",
                     (game_id, table_id, info))
    conn.execute("INSERT INTO waiting_tables VALUES ('t_w', '{\"private\": true}', 1.0), "
                 "('t_p', '{\"private\": false}', 1.0)")
    conn.close()
    conn = connect(path)
    assert migrate(conn) == 4 and schema_version(conn) == SCHEMA_VERSION
    assert conn.execute("SELECT report FROM analyses").fetchall() == [('{"seat": 0}',)]
    invites = dict(conn.execute("SELECT table_id, invite FROM table_invites").fetchall())
    assert sorted(invites) == ["t_a", "t_w"]  # the private ones, one invite per table
    assert len(set(invites.values())) == 2 and all(len(i) == 32 for i in invites.values())
    games = load_games(conn, "1")
    assert {g.id: g.invite for g in games} == {"g1": invites["t_a"], "g2": invites["t_a"],
                                               "g3": None, "g4": None}


def test_a_database_newer_than_this_build_is_refused(tmp_path: Path) -> None:
    conn = connect(str(tmp_path / "new.db"))
    migrate(conn)
    conn.execute("UPDATE schema_version SET version = ?", (SCHEMA_VERSION + 1,))
    with pytest.raises(StoreError, match="newer than this build"):
        migrate(conn)


def test_writes_are_committed_in_groups_and_survive_a_reopen(tmp_path: Path) -> None:
    path = str(tmp_path / "w.db")

    async def write_many() -> int:
        db = Database(path)
        await db.open()
        await db.write(Database.insert_game("g", "t", GameOptions(), 1, [], TableSettings()))
        await asyncio.gather(*(db.write(Database.insert_action("g", seq, seq % 3, {"n": seq}))
                               for seq in range(1, 201)))
        commits = db.commits
        await db.close()
        return commits

    commits = asyncio.run(write_many())
    assert commits < 200  # queued writes shared transactions
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT count(*) FROM actions").fetchone()[0] == 200


def test_a_failing_write_does_not_fail_the_writes_queued_with_it() -> None:
    async def run() -> list[object]:
        db = Database(":memory:")
        await db.open()
        await db.write(Database.insert_game("g", "t", GameOptions(), 1, [], TableSettings()))
        await db.write(Database.insert_action("g", 1, 0, {}))
        results = await asyncio.gather(
            db.write(Database.insert_action("g", 2, 0, {})),
            db.write(Database.insert_action("g", 1, 0, {})),  # duplicate sequence number
            db.write(Database.insert_action("g", 3, 0, {})),
            return_exceptions=True,
        )
        stored = await db.read(lambda c: c.execute("SELECT seq FROM actions").fetchall())
        await db.close()
        return [results, sorted(s for (s,) in stored)]

    results, stored = asyncio.run(run())
    assert results[0] is None and results[2] is None
    assert isinstance(results[1], StoreError)
    assert stored == [1, 2, 3]


def test_writing_to_a_closed_database_is_an_error() -> None:
    async def run() -> None:
        db = Database(":memory:")
        await db.write(Database.insert_game("g", "t", GameOptions(), 1, [], TableSettings()))

    with pytest.raises(StoreError, match="not open"):
        asyncio.run(run())


def test_a_status_no_build_writes_reads_as_a_corrupt_game_with_its_problem() -> None:
    row = ("g1", "t1", 0.0, "{}", 1, "[]", "finished", None, "{}", None)
    assert decode_game(row, []).status is GameStatus.FINISHED
    odd = decode_game((*row[:6], "paused", *row[7:]), [])
    assert odd.status is GameStatus.CORRUPT
    assert odd.problem is not None and "paused" in odd.problem
