"""The store: every accepted action is durable before anyone is told about it.

A table is event-sourced: (options, seed, seats, accepted actions). The table
awaits the store at each step that must survive a crash — a game's start
(seed, seats, bot settings), every action, a seat handed to a bot mid-game, a
new player's token — and only then acknowledges or broadcasts. On start the
server rebuilds every unfinished game by replaying its actions
(`Lobby.restore`). Finished games stay for history and replay.

`SqliteStore` is the one implementation (``WIZARD_DB=:memory:`` keeps it in
memory); `db.py` holds the SQLite mechanics. Tokens are stored only as SHA-256
hashes.
"""

from __future__ import annotations

import asyncio
import hashlib
import sqlite3
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, NamedTuple

import structlog

from wizard.engine import GameOptions
from wizard.protocol import ACTION_VIEWS

from .db import Database, Statement, load_games
from .ratings import rate_game
from .records import (
    GameResult,
    GameStatus,
    StoredGame,
    StoredSeat,
    StoredWaiting,
    TableSettings,
    WaitingTable,
    decode_result,
    decode_seats,
    decode_settings,
    decode_waiting,
)
from .visibility import listed_condition

log = structlog.get_logger(__name__)

class KnownPlayer(NamedTuple):
    """A token's player as the store knows it; ``account``: their name is claimed."""

    player_id: str
    name: str
    account: bool


def token_hash(token: str) -> str:
    """What the store keeps of a token: its SHA-256, never the token itself."""
    return hashlib.sha256(token.encode()).hexdigest()


def iso_time(timestamp: float | None) -> str | None:
    if timestamp is None:
        return None
    return datetime.fromtimestamp(timestamp, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class SqliteStore:
    """The server's store on SQLite (WAL, one group commit per turn of the event loop)."""

    def __init__(self, path: str, *, full_check_bytes: int | None = None) -> None:
        """``full_check_bytes``: the largest file checked in full at start (`check_file`)."""
        self.db = (Database(path) if full_check_bytes is None
                   else Database(path, full_check_bytes=full_check_bytes))
        self._game_of_table: dict[str, str] = {}
        self._watchers: dict[str, set[str]] = {}  # table id -> player ids watching it

    @property
    def is_open(self) -> bool:
        return self.db.is_open

    async def open(self) -> None:
        await self.db.open()

    async def close(self) -> None:
        await self.db.close()

    async def flush(self) -> None:
        """Return once every write queued before this call is committed (shutdown)."""
        if self.db.is_open:
            await self.db.write()

    # --- a table's life -----------------------------------------------------------------

    async def game_started(self, table_id: str, game_id: str, *, options: GameOptions,
                           seed: int, seats: Sequence[StoredSeat],
                           table_info: TableSettings) -> None:
        """Record a new game (committed when this returns), and who watches it from the start."""
        await self.db.write(Database.insert_game(game_id, table_id, options, seed, seats,
                                                 table_info),
                            *(_spectator(game_id, player_id)
                              for player_id in sorted(self._watchers.get(table_id, ()))))
        self._game_of_table[table_id] = game_id

    # --- invites and spectators -----------------------------------------------------------

    async def table_invite(self, table_id: str, invite: str) -> None:
        """Keep a private table's invite (committed when this returns): it opens the table
        after a restart too, and its games' history."""
        await self.db.write(("INSERT OR REPLACE INTO table_invites (table_id, invite) "
                             "VALUES (?, ?)", (table_id, invite)))

    def table_closed(self, table_id: str, *, played: bool) -> None:
        """The table closed. The invite of one that never started a game opens nothing any
        more and is dropped (best effort); one that did keeps it for its games' history."""
        self._watchers.pop(table_id, None)
        if not played:
            self.db.write_nowait(("DELETE FROM table_invites WHERE table_id = ?", (table_id,)))

    def watching(self, table_id: str, player_id: str) -> None:
        """``player_id`` watches the table: recorded for its game now and each one it starts
        while they watch (best effort: a lost row only hides a private game from them)."""
        self._watchers.setdefault(table_id, set()).add(player_id)
        game_id = self._game_of_table.get(table_id)
        if game_id is not None:
            self.db.write_nowait(_spectator(game_id, player_id))

    def not_watching(self, table_id: str, player_id: str) -> None:
        watchers = self._watchers.get(table_id)
        if watchers is not None:
            watchers.discard(player_id)
            if not watchers:
                del self._watchers[table_id]

    def adopt(self, table_id: str, game_id: str) -> None:
        """A restored table continues its stored game."""
        self._game_of_table[table_id] = game_id

    def append(self, table_id: str, seq: int, moves: Sequence[tuple[int, int]], *,
               finish: GameResult | None = None,
               between_games: WaitingTable | None = None) -> asyncio.Future[None]:
        """Record ``moves``, ``(seat, action index)`` each, as versions ``seq``, ``seq + 1``, ….

        They are committed together (a bot's move and the bot moves that follow it at
        once). ``finish``: the result when the last of them ends the game; the moves,
        the result and the game's rating (`storage.ratings.rate_game`) are committed
        together, and with them ``between_games``, the table as it waits for a rematch
        (kept like a waiting table, with ``after_game``: this game's id), so that it
        comes back finished after a restart. Await the future: done once committed; it
        raises `StoreError` otherwise (then no move may be applied).
        """
        game_id = self._game_of_table[table_id]
        # an action is kept as the JSON a client sends for it (`ACTION_VIEWS`, built once)
        statements: list[Statement] = [
            Database.insert_action(game_id, seq + k, seat, ACTION_VIEWS[index])
            for k, (seat, index) in enumerate(moves)]
        if finish is not None:
            statements += finished_statements(game_id, finish)
            if between_games is not None:
                statements.append(Database.keep_waiting(table_id, between_games, game_id))
        committed = self.db.write(*statements)
        if finish is not None:

            def finished(done: asyncio.Future[None]) -> None:
                if not done.cancelled() and done.exception() is None:
                    self._game_of_table.pop(table_id, None)

            committed.add_done_callback(finished)
        return committed

    async def seats_changed(self, table_id: str, seats: Sequence[StoredSeat]) -> None:
        """A seat changed hands during a game (e.g. a bot took over a seat that was left)."""
        game_id = self._game_of_table.get(table_id)
        if game_id is not None:
            await self.db.write(Database.update_seats(game_id, seats))

    async def game_finished(self, table_id: str, scores: list[int] | GameResult,
                            winners: list[int] | None = None) -> None:
        """The table's game ended with ``scores`` and ``winners`` (or a whole `GameResult`):
        stored with its rating in one commit."""
        game_id = self._game_of_table.get(table_id)
        if game_id is not None:
            result = (scores if isinstance(scores, GameResult)
                      else GameResult(scores, winners or []))
            await self.db.write(*finished_statements(game_id, result))
            self._game_of_table.pop(table_id, None)

    def game_abandoned(self, table_id: str) -> None:
        """The table closed mid-game; best effort (a lost write only means a later restore)."""
        self._watchers.pop(table_id, None)
        game_id = self._game_of_table.pop(table_id, None)
        if game_id is not None:
            self.db.write_nowait(Database.finish_game(game_id, GameStatus.ABANDONED, None))

    async def mark(self, game_id: str, status: GameStatus,
                   result: GameResult | None = None) -> None:
        await self.db.write(Database.finish_game(game_id, status, result))

    # --- waiting tables -----------------------------------------------------------------

    async def table_waiting(self, table_id: str, record: WaitingTable) -> None:
        """Keep a waiting table as ``record`` (committed when this returns)."""
        await self.db.write(Database.keep_waiting(table_id, record))

    def table_not_waiting(self, table_id: str) -> None:
        """The table started a game or closed: drop its waiting record (best effort)."""
        self.db.write_nowait(("DELETE FROM waiting_tables WHERE id = ?", (table_id,)))

    async def waiting_tables(self) -> list[StoredWaiting]:
        """Every kept waiting table, oldest first (one that does not decode has ``problem``
        set: the restore drops it)."""
        rows = await self.db.read(lambda c: c.execute(
            "SELECT id, record, (SELECT invite FROM table_invites WHERE table_id = id) "
            "FROM waiting_tables ORDER BY updated").fetchall())
        return [decode_waiting(*row) for row in rows]

    # --- players ------------------------------------------------------------------------

    async def remember_player(self, token: str, player_id: str, name: str) -> None:
        await self.db.write(Database.upsert_player(token_hash(token), player_id, name))

    def player_seen(self, token: str) -> None:
        """The holder of ``token`` is back (best effort: a lost write only ages the row)."""
        self.db.write_nowait(Database.touch_player(token_hash(token)))

    async def prune_players(self, older_than: float) -> int:
        """Forget players last seen before ``older_than`` (epoch seconds) who sit in no
        stored game and have no account; returns how many. Found by the reader thread,
        deleted by key."""

        def stale(conn: sqlite3.Connection) -> list[str]:
            return [row[0] for row in conn.execute(
                "SELECT token_hash FROM players WHERE seen < ? AND NOT EXISTS ("
                "SELECT 1 FROM accounts WHERE accounts.player_id = players.player_id) "
                "AND NOT EXISTS ("
                "SELECT 1 FROM games, json_each(games.seats) AS seat "
                "WHERE json_extract(seat.value, '$.player_id') = players.player_id) "
                "LIMIT 10000", (older_than,))]

        hashes = await self.db.read(stale)
        if hashes:
            await self.db.write(*(("DELETE FROM players WHERE token_hash = ? AND seen < ?",
                                   (digest, older_than)) for digest in hashes))
            log.info("players_pruned", count=len(hashes))
        return len(hashes)

    async def known_player(self, token: str) -> KnownPlayer | None:
        """The player holding ``token``, if the store knows it."""
        digest = token_hash(token)
        row = await self.db.read(lambda c: c.execute(
            "SELECT player_id, name, EXISTS (SELECT 1 FROM accounts "
            "WHERE accounts.player_id = players.player_id) FROM players WHERE token_hash = ?",
            (digest,)).fetchone())
        return None if row is None else KnownPlayer(row[0], row[1], bool(row[2]))

    # --- reading games --------------------------------------------------------------------

    async def unfinished_games(self) -> list[StoredGame]:
        return list(await self.db.read(
            lambda c: load_games(c, "status = ?", (GameStatus.PLAYING,))))

    async def game(self, game_id: str) -> StoredGame | None:
        games = await self.db.read(lambda c: load_games(c, "id = ?", (game_id,)))
        return games[0] if games else None

    async def finished_games(self, limit: int, before: str | None, viewer_id: str | None = None
                             ) -> tuple[list[dict[str, Any]], str | None]:
        """A page of finished games, newest first, and the cursor of the next page.

        Only games ``viewer_id`` may list: public tables' and the viewer's own
        (see `wizard.server.storage.visibility`).

        ``before`` is a cursor from an earlier page; raises `ValueError` if it is malformed.
        """
        after_key: tuple[float, str] | None = None
        if before:
            stamp, _, game_id = before.partition("~")
            try:
                after_key = (float(stamp), game_id)
            except ValueError:
                raise ValueError(
                    f"before must be a cursor from an earlier page, got {before!r}") from None

        def query(conn: sqlite3.Connection) -> list[tuple[Any, ...]]:
            listed, listed_params = listed_condition(viewer_id)
            sql = ("SELECT id, table_id, seats, result, finished, table_info, "
                   "(SELECT invite FROM table_invites WHERE table_invites.table_id = "
                   f"games.table_id) FROM games WHERE status = ? AND {listed}")
            params: list[Any] = [GameStatus.FINISHED, *listed_params]
            if after_key is not None:
                sql += " AND (finished, id) < (?, ?)"
                params += list(after_key)
            sql += " ORDER BY finished DESC, id DESC LIMIT ?"
            params.append(limit + 1)
            return conn.execute(sql, params).fetchall()

        rows = await self.db.read(query)
        games = [game_summary(*row) for row in rows[:limit]]
        next_before = None
        if len(rows) > limit:
            last = rows[limit - 1]
            next_before = f"{last[4]!r}~{last[0]}"
        return games, next_before


def finished_statements(game_id: str, result: GameResult) -> list[Statement]:
    """What one commit stores at a game's end: its result, then its rating."""
    return [Database.finish_game(game_id, GameStatus.FINISHED, result), rate_game(game_id)]


def _spectator(game_id: str, player_id: str) -> tuple[str, tuple[str, str]]:
    return ("INSERT OR IGNORE INTO game_spectators (game_id, player_id) VALUES (?, ?)",
            (game_id, player_id))


def public_seats(seats: tuple[StoredSeat, ...]) -> list[dict[str, Any]]:
    """Stored seats as anyone may see them (names and bot levels; no tokens are stored)."""
    out: list[dict[str, Any]] = []
    for index, seat in enumerate(seats):
        if seat.kind == "bot":
            out.append({"seat": index, "name": seat.name or f"Bot ({seat.level})",
                        "kind": "bot", "level": seat.level, "player_id": f"bot:{seat.level}"})
        else:
            out.append({"seat": index, "name": seat.name, "kind": "player", "level": None,
                        "player_id": seat.player_id})
    return out


def game_summary(game_id: str, table_id: str, seats_json: str, result_json: str | None,
                 finished: float | None, table_info_json: str | None = None,
                 invite: str | None = None) -> dict[str, Any]:
    """One line of "Recent games" from its columns (``table_id`` ``None`` for a private
    table's game, whose ``invite`` makes its link: only its players and spectators list it)."""
    result = decode_result(result_json)
    players = public_seats(decode_seats(seats_json))
    private = decode_settings(table_info_json).private
    return {
        "id": game_id,
        "table_id": None if private else table_id,
        "num_players": len(players),
        "players": players,
        "scores": result.scores if result else [],
        "winners": result.winners if result else [],
        "finished": iso_time(finished),
        "invite": invite if private else None,
    }


__all__ = [
    "KnownPlayer",
    "SqliteStore",
    "game_summary",
    "iso_time",
    "public_seats",
    "token_hash",
]
