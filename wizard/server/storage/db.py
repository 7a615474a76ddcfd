"""SQLite mechanics of the store: schema, forward migrations, batched commits, readers.

WAL mode with ``synchronous=NORMAL``: a commit is durable against a process
crash (kill -9) as soon as it returns; only a power cut can lose the last few.
Writes asked for during one turn of the event loop are committed together at
the end of it (group commit) on the loop's own thread: a commit only appends
to the write-ahead log, with no fsync, so it costs microseconds, and handing
it to a thread cost more (a GIL hand-off per batch) than it saved. The loop
never waits on disk: the checkpoints that copy the log into the database and
fsync run on a thread of their own. Reads run in a worker thread on their own
connection (WAL lets them run beside the writer).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import operator
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import msgspec
import structlog

from wizard.engine import GameOptions

from .errors import SQLITE_FULL, StoreError, StoreFullError
from .integrity import FULL_CHECK_BYTES, check_file
from .records import (
    GameResult,
    GameStatus,
    StoredGame,
    StoredSeat,
    TableSettings,
    WaitingTable,
    decode_game,
    encode_json,
)
from .schema import migrate

log = structlog.get_logger(__name__)


def connect(path: str, *, uri: bool = False) -> sqlite3.Connection:
    conn = sqlite3.connect(path, uri=uri, check_same_thread=False, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA busy_timeout=5000")
    return conn


_Write = tuple[str, Sequence[Any]]
#: a step that runs its own statements inside the transaction, reading what is there
#: (a game's rating, computed from the ratings its commit finds: `storage.ratings`)
Step = Callable[[sqlite3.Connection], None]
Statement = _Write | Step
_Job = tuple[list[Statement], "asyncio.Future[None] | None"]

CHECKPOINT_SECONDS = 1.0
#: past this the checkpoint thread restarts the log: a passive checkpoint never completes
#: while the loop keeps committing, and the log would only grow (68 MB in 60 s of load)
WAL_LIMIT_BYTES = 16 * 1024 * 1024
#: how long a restarting checkpoint waits for readers (the loop's commits wait behind it)
CHECKPOINT_BUSY_MS = 200
#: while a restart is wanted the loop commits at most this often, so the checkpoint
#: finds the gaps between commits it needs (nothing is lost: commits are only later)
QUIET_COMMIT_SECONDS = 0.01
_ENCODE = msgspec.json.encode
_sql = operator.itemgetter(0)


def _group(statement: Statement) -> object:
    """What consecutive statements share to run in one ``executemany``: their SQL (a step
    is a group of its own)."""
    return statement if callable(statement) else _sql(statement)


class Database:
    """The server's SQLite database. ``path`` ``":memory:"`` keeps it in this process only."""

    def __init__(self, path: str, *, full_check_bytes: int = FULL_CHECK_BYTES) -> None:
        self.path = path
        self.full_check_bytes = full_check_bytes  # see `check_file`
        self.in_memory = path == ":memory:"
        if self.in_memory:
            # one shared in-memory database for the writer and the readers of this process
            name = f"wizard-{uuid.uuid4().hex}"
            self._target, self._uri = f"file:{name}?mode=memory&cache=shared", True
        else:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            self._target, self._uri = path, False
        self._writer: sqlite3.Connection | None = None
        self._reader: sqlite3.Connection | None = None
        self._reader_lock = threading.Lock()
        self._pending: list[_Job] = []
        self._flush_handle: asyncio.Handle | None = None
        self._loop: asyncio.AbstractEventLoop | None = None  # set by open
        self._restart_wanted = threading.Event()  # the checkpoint thread asks for quiet
        self._checkpointer: threading.Thread | None = None
        self._stop_checkpoints = threading.Event()
        self.commits = 0
        self.writes = 0
        self.full = False  # in a disk-full episode: logged once when it starts and ends

    @property
    def is_open(self) -> bool:
        return self._writer is not None

    async def open(self) -> None:
        """Check the file, connect, migrate to the newest schema, start the checkpoints.

        Raises `StoreCorruptError` for a file that fails its check (`check_file`).
        """
        await asyncio.to_thread(self._open_sync)
        # looked up once: on Python 3.11 every lookup is a getpid() system call
        self._loop = asyncio.get_running_loop()

    def _open_sync(self) -> None:
        if not self.in_memory:
            check_file(self.path, self.full_check_bytes)
        writer = connect(self._target, uri=self._uri)
        migrate(writer)
        self._reader = connect(self._target, uri=self._uri)
        if not self.in_memory:
            # the loop only appends to the WAL; copying it into the database (and the
            # fsync that goes with it) happens on a thread of its own
            writer.execute("PRAGMA wal_autocheckpoint=0")
            # a log that was restarted is cut back to this size by the next commit
            writer.execute(f"PRAGMA journal_size_limit={WAL_LIMIT_BYTES}")
            self._stop_checkpoints.clear()
            self._checkpointer = threading.Thread(target=self._checkpoint_loop,
                                                  name="wizard-db-checkpoint", daemon=True)
            self._checkpointer.start()
        self._writer = writer

    async def close(self) -> None:
        """Commit everything pending, checkpoint, then close the connections."""
        if self._writer is None:
            return
        if self._flush_handle is not None:
            self._flush_handle.cancel()
            self._flush_handle = None
        self._flush()
        writer, self._writer = self._writer, None
        if self._checkpointer is not None:
            self._stop_checkpoints.set()
            await asyncio.to_thread(self._checkpointer.join)
            self._checkpointer = None
        if not self.in_memory:
            with contextlib.suppress(sqlite3.Error):
                writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        writer.close()
        if self._reader is not None:
            self._reader.close()
            self._reader = None

    # --- writing ---------------------------------------------------------------------

    def write(self, *statements: Statement) -> asyncio.Future[None]:
        """Run ``statements`` in one transaction; await the future: done once committed.

        Writes asked for in the same turn of the event loop share one commit
        (group commit). A commit only appends to the write-ahead log — no fsync,
        ``synchronous=NORMAL`` — so it takes microseconds and runs on the loop;
        checkpoints run on their own thread. The future raises `StoreFullError` when
        the disk is full, `StoreError` if the commit fails; the call raises
        `StoreError` if the database is closed. (A future, not a coroutine: a move
        waits for its commit through no more frames than it must.) A `Step` among the
        statements runs in the same transaction, in its place.
        """
        if self._writer is None:
            raise StoreError("the database is not open")
        assert self._loop is not None  # open, since there is a writer
        future: asyncio.Future[None] = self._loop.create_future()
        self._enqueue((list(statements), future))
        return future

    def write_nowait(self, *statements: Statement) -> None:
        """Queue statements without waiting for the commit (for best-effort records)."""
        if self._writer is not None:
            self._enqueue((list(statements), None))

    def _enqueue(self, job: _Job) -> None:
        self._pending.append(job)
        if self._flush_handle is None:
            loop = self._loop
            assert loop is not None
            if self._restart_wanted.is_set():  # leave the writer idle a moment: see below
                self._flush_handle = loop.call_later(QUIET_COMMIT_SECONDS, self._flush)
            else:
                self._flush_handle = loop.call_soon(self._flush)

    def _flush(self) -> None:
        self._flush_handle = None
        batch, self._pending = self._pending, []
        if batch and self._writer is not None:
            self._commit(self._writer, batch)
        elif batch:
            _settle_all(batch, StoreError("the database is closed"))

    def _commit(self, conn: sqlite3.Connection, batch: list[_Job]) -> None:
        error = self._run(conn, [stmt for statements, _ in batch for stmt in statements])
        if error is not None and len(batch) > 1:
            # one bad job must not fail its neighbours: retry each on its own
            for job in batch:
                _settle_all([job], self._run(conn, job[0]))
            return
        _settle_all(batch, error)

    def _run(self, conn: sqlite3.Connection, statements: list[Statement]) -> Exception | None:
        try:
            if len(statements) == 1 and not callable(statements[0]):
                conn.execute(*statements[0])  # autocommit: one statement is its own transaction
            else:
                conn.execute("BEGIN")
                # a run of the same statement (the moves of a loop turn) goes in one call
                for key, run in itertools.groupby(statements, key=_group):
                    if isinstance(key, str):
                        conn.executemany(key, [params for _, params in run])  # type: ignore[misc]
                    else:
                        for step in run:
                            step(conn)  # type: ignore[operator]
                conn.execute("COMMIT")
        except sqlite3.Error as exc:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
            if getattr(exc, "sqlite_errorcode", None) == SQLITE_FULL:
                if not self.full:
                    self.full = True
                    log.error("store_disk_full", error=str(exc))
                return StoreFullError(f"write failed: {exc}")
            log.error("store_write_failed", error=str(exc), statements=len(statements))
            return StoreError(f"write failed: {exc}")
        if self.full:
            self.full = False
            log.warning("store_writable_again")
        self.commits += 1
        self.writes += len(statements)
        return None

    def _checkpoint_loop(self) -> None:
        conn = connect(self._target, uri=self._uri)
        conn.execute(f"PRAGMA busy_timeout={CHECKPOINT_BUSY_MS}")
        wal = Path(f"{self._target}-wal")
        try:
            while not self._stop_checkpoints.wait(CHECKPOINT_SECONDS):
                try:
                    size = wal.stat().st_size if wal.exists() else 0
                    # RESTART holds off commits for the copy (a few ms per MB), so it runs
                    # only once the log is past its limit; PASSIVE never holds anyone up
                    mode = "RESTART" if size > WAL_LIMIT_BYTES else "PASSIVE"
                    if mode == "RESTART":
                        # under a steady stream of commits RESTART could wait forever
                        # for a moment without a writer: ask the loop for gaps meanwhile
                        self._restart_wanted.set()
                    conn.execute(f"PRAGMA wal_checkpoint({mode})").fetchall()
                except sqlite3.Error as exc:
                    log.warning("store_checkpoint_failed", error=str(exc))
                finally:
                    self._restart_wanted.clear()
        finally:
            conn.close()

    # --- reading ---------------------------------------------------------------------

    async def read(self, fn: Callable[[sqlite3.Connection], Any]) -> Any:
        """Run ``fn(connection)`` in a worker thread on the reading connection."""
        if self._reader is None:
            raise StoreError("the database is not open")
        reader = self._reader

        def run() -> Any:
            with self._reader_lock:
                return fn(reader)

        return await asyncio.to_thread(run)

    # --- the store's queries -----------------------------------------------------------

    @staticmethod
    def insert_game(game_id: str, table_id: str, options: GameOptions, seed: int,
                    seats: Sequence[StoredSeat], table_info: TableSettings) -> _Write:
        return ("INSERT INTO games (id, table_id, created, options, seed, seats, status, "
                "table_info) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (game_id, table_id, time.time(), json.dumps(options.to_dict()), seed,
                 encode_json(seats), GameStatus.PLAYING, encode_json(table_info)))

    @staticmethod
    def insert_action(game_id: str, seq: int, seat: int,
                      action: dict[str, Any] | msgspec.Struct) -> _Write:
        return ("INSERT INTO actions (game_id, seq, seat, action, time) VALUES (?, ?, ?, ?, ?)",
                (game_id, seq, seat, _ENCODE(action).decode(), time.time()))

    @staticmethod
    def finish_game(game_id: str, status: GameStatus, result: GameResult | None) -> _Write:
        return ("UPDATE games SET status = ?, result = ?, finished = ? WHERE id = ?",
                (status, encode_json(result), time.time(), game_id))

    @staticmethod
    def update_seats(game_id: str, seats: Sequence[StoredSeat]) -> _Write:
        return ("UPDATE games SET seats = ? WHERE id = ?", (encode_json(seats), game_id))

    @staticmethod
    def keep_waiting(table_id: str, record: WaitingTable,
                     after_game: str | None = None) -> _Write:
        """Keep ``record`` as table ``table_id``'s waiting record (``after_game``: the game
        it waits for a rematch after, added last)."""
        kept = msgspec.to_builtins(record)
        if after_game is not None:
            kept["after_game"] = after_game
        return ("INSERT INTO waiting_tables (id, record, updated) VALUES (?, ?, ?) "
                "ON CONFLICT(id) DO UPDATE SET record = excluded.record, "
                "updated = excluded.updated",
                (table_id, json.dumps(kept), time.time()))

    @staticmethod
    def upsert_player(token_hash: str, player_id: str, name: str) -> _Write:
        return ("INSERT INTO players (token_hash, player_id, name, seen) VALUES (?, ?, ?, ?) "
                "ON CONFLICT(token_hash) DO UPDATE SET name = excluded.name, "
                "seen = excluded.seen",
                (token_hash, player_id, name, time.time()))

    @staticmethod
    def touch_player(token_hash: str) -> _Write:
        return ("UPDATE players SET seen = ? WHERE token_hash = ?", (time.time(), token_hash))


def load_games(conn: sqlite3.Connection, where: str, params: Sequence[Any] = (),
               limit: int | None = None) -> list[StoredGame]:
    """Games matching ``where`` (newest first when limited), decoded, with their actions in
    order, their table's invite and who watched them."""
    sql = ("SELECT id, table_id, created, options, seed, seats, status, result, table_info, "
           f"finished FROM games WHERE {where} ORDER BY created")
    if limit is not None:
        sql = sql.replace("ORDER BY created", "ORDER BY finished DESC, created DESC") + " LIMIT ?"
        params = (*params, limit)
    games = []
    for row in conn.execute(sql, params).fetchall():
        actions = conn.execute(
            "SELECT seq, seat, action, time FROM actions WHERE game_id = ? ORDER BY seq",
            (row[0],)).fetchall()
        invite = conn.execute("SELECT invite FROM table_invites WHERE table_id = ?",
                              (row[1],)).fetchone()
        spectators = frozenset(r[0] for r in conn.execute(
            "SELECT player_id FROM game_spectators WHERE game_id = ?", (row[0],)))
        games.append(decode_game(row, actions, invite=invite[0] if invite else None,
                                 spectators=spectators))
    return games


def _settle_all(batch: list[_Job], error: Exception | None) -> None:
    for _, future in batch:
        if future is None or future.done():  # no waiter, or a cancelled one
            continue
        if error is None:
            future.set_result(None)
        else:
            future.set_exception(error)


__all__ = ["Database", "Statement", "Step", "connect", "load_games"]
