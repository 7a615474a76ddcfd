"""When the store cannot write, nothing is half-applied and the client hears why.

The disk is filled by putting a `FullDisk` in front of the store's writing
connection: every matching statement fails with SQLite's own ``SQLITE_FULL``
error, as on a disk filled to the last byte, until it is emptied again.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from structlog.testing import capture_logs

from wizard.server.tables.seats import SeatKind

from ..conftest import Harness, wait_until
from ..driver import act_message, finished, my_turn
from .test_store import table_id_of


def _sqlite_full_error() -> sqlite3.OperationalError:
    """A genuine ``SQLITE_FULL`` from a database capped at its size."""
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE t (x)")
    conn.execute(f"PRAGMA max_page_count = {conn.execute('PRAGMA page_count').fetchone()[0]}")
    try:
        conn.executemany("INSERT INTO t VALUES (?)", [("x" * 4000,)] * 10)
    except sqlite3.OperationalError as exc:
        assert exc.sqlite_errorcode == 13
        return exc
    raise AssertionError("the capped database took the rows")


class FullDisk:
    """The store's writing connection, with a disk that fills and empties on command."""

    def __init__(self, harness: Harness, matching: str = "") -> None:
        self.db = harness.server.store.db
        self.conn = self.db._writer
        self.matching = matching
        self.full = False
        self.refused = 0
        self.db._writer = self  # type: ignore[assignment]

    def execute(self, sql: str, *params: Any) -> Any:
        if self.full and self.matching in sql and not sql.startswith(("BEGIN", "ROLLBACK")):
            self.refused += 1
            raise _sqlite_full_error()
        return self.conn.execute(sql, *params)

    def executemany(self, sql: str, rows: Any) -> Any:
        if self.full and self.matching in sql:
            self.refused += 1
            raise _sqlite_full_error()
        return self.conn.executemany(sql, rows)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.conn, name)


def events_named(logs: list[dict[str, Any]], name: str) -> int:
    return sum(1 for entry in logs if entry["event"] == name)


def test_a_full_disk_refuses_with_unavailable_logs_once_and_changes_nothing(
        harness: Harness) -> None:
    ann = harness.player("Ann")
    ann.ok({"type": "play_bots", "players": 3, "level": "easy", "turn_seconds": 0})
    table_id = table_id_of(ann)
    update = ann.wait_for(lambda m: my_turn(m, table_id))
    table = harness.server.lobby.tables[table_id]
    disk = FullDisk(harness)
    disk.full = True
    with capture_logs() as logs:
        for _ in range(5):
            reply = ann.request(act_message(update))
            assert reply["type"] == "error" and reply["code"] == "unavailable", reply
            assert "cannot save" in reply["message"]
        assert table.v == update["v"]
        # a rename is not made in memory before it is stored
        again = harness.connect("Ann's second tab")
        reply = again.request({"type": "hello", "name": "Annabel", "token": ann.token})
        assert reply["code"] == "unavailable"
        assert next(iter(harness.server.lobby.players_by_token.values())).name == "Ann"
        # nor is a new player made without their token stored
        assert harness.connect("Ben").request(
            {"type": "hello", "name": "Ben"})["code"] == "unavailable"
        disk.full = False
        ann.ok(act_message(update))
        ann.wait_for(lambda m: m["type"] == "update" and m["v"] == update["v"] + 1)
    assert events_named(logs, "store_disk_full") == 1
    assert events_named(logs, "store_writable_again") == 1
    assert events_named(logs, "handler_failed") == 0
    metrics = harness.client.get("/metrics").text
    assert 'wizard_errors_total{code="unavailable"} 7.0' in metrics


def test_the_last_move_is_stored_with_the_result_or_not_at_all(harness: Harness) -> None:
    ann = harness.player("Ann")
    ann.ok({"type": "play_bots", "players": 3, "level": "easy", "turn_seconds": 0})
    table_id = table_id_of(ann)
    table = harness.server.lobby.tables[table_id]
    disk = FullDisk(harness, matching="UPDATE games SET status")  # only the result fails
    disk.full = True
    refused_reply = None
    while disk.refused == 0:
        wait_until(harness, lambda: disk.refused > 0 or (
            table.game is not None and table.game.current_player == 0), timeout=30)
        if disk.refused:
            break  # a bot's last move was refused: it tries again
        turn = ann.wait_for(lambda m: my_turn(m, table_id) and m["v"] == table.v)
        reply = ann.request(act_message(turn))
        if reply["type"] == "error":
            refused_reply = reply
    if refused_reply is not None:  # Ann had the last move
        assert refused_reply["code"] == "unavailable"
    # the client and the server agree: the game is not over anywhere yet
    assert table.status.value == "playing"
    if refused_reply is None:  # read up to the bot's last accepted move
        ann.wait_for(lambda m: m["type"] == "update" and m["v"] == table.v)
    latest = ann.last_update(table_id)
    assert latest["v"] == table.v and not finished(latest, table_id)
    disk.full = False
    if refused_reply is not None:
        ann.ok(act_message(latest))  # the same move again, now that it can be stored
    last = ann.wait_for(lambda m: finished(m, table_id), timeout=20)
    assert last["v"] == table.v
    games = harness.client.get("/api/games", headers={"Authorization": f"Bearer {ann.token}"})
    assert games.json()["games"][0]["scores"] == last["observation"]["scores"]


def test_leaving_mid_game_when_the_store_fails_keeps_the_seat(harness: Harness) -> None:
    ann, ben = harness.player("Ann"), harness.player("Ben")
    ann.ok({"type": "create_table", "players": 3, "turn_seconds": 0})
    table_id = table_id_of(ann)
    ben.ok({"type": "join_table", "table_id": table_id})
    ann.ok({"type": "add_bot", "table_id": table_id, "level": "easy"})
    ann.ok({"type": "start_game", "table_id": table_id})
    table = harness.server.lobby.tables[table_id]
    disk = FullDisk(harness)
    disk.full = True
    reply = ben.request({"type": "leave_table", "table_id": table_id})
    assert reply["code"] == "unavailable"
    ben_seat = table.seats[1]
    assert ben_seat.kind is SeatKind.PLAYER and ben_seat.player is not None
    assert table_id in ben_seat.player.tables
    disk.full = False
    ben.ok({"type": "leave_table", "table_id": table_id})
    assert ben_seat.kind is SeatKind.BOT
    # the bot plays Ben's seat: the game moves past it
    game_v = table.v
    for _ in range(6):
        wait_until(harness, lambda: table.game is not None and table.game.current_player == 0)
        turn = ann.wait_for(lambda m: my_turn(m, table_id) and m["v"] == table.v)
        ann.ok(act_message(turn))
    assert table.v >= game_v + 12  # three seats moved each time Ann did


def test_play_bots_that_cannot_start_leaves_no_table_behind(harness: Harness) -> None:
    ann = harness.player("Ann")
    disk = FullDisk(harness)
    disk.full = True
    limit = harness.server.settings.max_tables_per_player
    for _ in range(limit + 2):
        reply = ann.request({"type": "play_bots", "players": 3, "level": "easy"})
        assert reply["code"] == "unavailable", reply
    assert harness.server.lobby.tables == {}
    disk.full = False
    ann.ok({"type": "play_bots", "players": 3, "level": "easy"})
    assert len(harness.server.lobby.tables) == 1
