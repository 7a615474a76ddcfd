"""SQLite mechanics of the store: schema, forward migrations, one writer thread, readers.

WAL mode with ``synchronous=NORMAL``: a commit is durable against a process
crash (kill -9) as soon as it returns; only a power cut can lose the last few.
All writes go through one thread that takes whatever is queued, runs it in one
transaction and commits (group commit), then resolves each caller's future on
its event loop — the loop never waits on disk. Reads run in a worker thread on
their own connection (WAL lets them run beside the writer).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import queue
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import structlog

log = structlog.get_logger(__name__)

# Each entry upgrades the schema by one version; never edit a released entry.
MIGRATIONS: tuple[str, ...] = (
    # 1: games, their actions, and players' token hashes
    """
    CREATE TABLE games (
        id TEXT PRIMARY KEY,
        table_id TEXT NOT NULL,
        created REAL NOT NULL,
        options TEXT NOT NULL,
        seed INTEGER NOT NULL,
        seats TEXT NOT NULL,
        status TEXT NOT NULL,
        result TEXT
    );
    CREATE TABLE actions (
        game_id TEXT NOT NULL REFERENCES games(id),
        seq INTEGER NOT NULL,
        seat INTEGER NOT NULL,
        action TEXT NOT NULL,
        time REAL NOT NULL,
        PRIMARY KEY (game_id, seq)
    );
    CREATE TABLE players (
        token_hash TEXT PRIMARY KEY,
        player_id TEXT NOT NULL,
        name TEXT NOT NULL
    );
    """,
    # 2: table settings kept with the game, finish time, and an index for history pages
    """
    ALTER TABLE games ADD COLUMN table_info TEXT NOT NULL DEFAULT '{}';
    ALTER TABLE games ADD COLUMN finished REAL;
    CREATE INDEX games_by_status_finished ON games(status, finished);
    """,
)
SCHEMA_VERSION = len(MIGRATIONS)


class StoreError(RuntimeError):
    """The database could not do what was asked (disk full, closed, corrupt file)."""


@dataclass(frozen=True, slots=True)
class StoredGame:
    """A game row with its actions, as the store holds it (JSON columns decoded lazily)."""

    id: str
    table_id: str
    created: float
    options: str
    seed: int
    seats: str
    status: str
    result: str | None
    table_info: str
    finished: float | None
    actions: tuple[tuple[int, int, str, float], ...]  # (seq, seat, action JSON, time)


def schema_version(conn: sqlite3.Connection) -> int:
    """The schema version of a database (0 for a new, empty one)."""
    conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
    row = conn.execute("SELECT version FROM schema_version").fetchone()
    if row is None:
        conn.execute("INSERT INTO schema_version VALUES (0)")
        return 0
    return int(row[0])


def migrate(conn: sqlite3.Connection, target: int = SCHEMA_VERSION) -> int:
    """Bring the database to ``target`` (default: the newest); returns the version before.

    Each step runs in its own transaction with the version bump, so a crash
    mid-migration leaves the database at the previous version. Raises
    `StoreError` for a database newer than this build.
    """
    before = schema_version(conn)
    if before > SCHEMA_VERSION:
        raise StoreError(f"database schema {before} is newer than this build ({SCHEMA_VERSION})")
    for version in range(before + 1, target + 1):
        conn.executescript(f"BEGIN; {MIGRATIONS[version - 1]} "
                           f"UPDATE schema_version SET version = {version}; COMMIT;")
        log.info("schema_migrated", version=version)
    return before


def connect(path: str, *, uri: bool = False) -> sqlite3.Connection:
    conn = sqlite3.connect(path, uri=uri, check_same_thread=False, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA busy_timeout=5000")
    return conn


_Write = tuple[str, Sequence[Any]]
_Job = tuple[list[_Write], asyncio.AbstractEventLoop | None, "asyncio.Future[None] | None"]


class Database:
    """The server's SQLite database. ``path`` ``":memory:"`` keeps it in this process only."""

    def __init__(self, path: str) -> None:
        self.path = path
        if path == ":memory:":
            # one shared in-memory database for the writer and the readers of this process
            name = f"wizard-{uuid.uuid4().hex}"
            self._target, self._uri = f"file:{name}?mode=memory&cache=shared", True
        else:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            self._target, self._uri = path, False
        self._writer: sqlite3.Connection | None = None
        self._reader: sqlite3.Connection | None = None
        self._reader_lock = threading.Lock()
        self._queue: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self.commits = 0
        self.writes = 0

    @property
    def is_open(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    async def open(self) -> None:
        """Connect, migrate to the newest schema and start the writer thread."""
        await asyncio.to_thread(self._open_sync)

    def _open_sync(self) -> None:
        self._writer = connect(self._target, uri=self._uri)
        migrate(self._writer)
        self._reader = connect(self._target, uri=self._uri)
        self._thread = threading.Thread(target=self._write_loop, name="wizard-db-writer",
                                        daemon=True)
        self._thread.start()

    async def close(self) -> None:
        """Commit everything queued, then stop the writer and close the connections."""
        if self._thread is None:
            return
        self._queue.put(None)
        await asyncio.to_thread(self._thread.join)
        self._thread = None
        for conn in (self._writer, self._reader):
            if conn is not None:
                conn.close()
        self._writer = self._reader = None

    # --- writing ---------------------------------------------------------------------

    async def write(self, *statements: _Write) -> None:
        """Run ``statements`` in one transaction; returns once they are committed.

        Raises `StoreError` if the database is closed or the commit fails.
        """
        if not self.is_open:
            raise StoreError("the database is not open")
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        self._queue.put((list(statements), loop, future))
        await future

    def write_nowait(self, *statements: _Write) -> None:
        """Queue statements without waiting for the commit (for best-effort records)."""
        if self.is_open:
            self._queue.put((list(statements), None, None))

    def _write_loop(self) -> None:
        assert self._writer is not None
        conn = self._writer
        stopping = False
        while not stopping:
            first = self._queue.get()
            batch: list[_Job] = []
            if first is None:
                stopping = True
            else:
                batch.append(first)
            while True:  # group commit: everything already queued goes in this transaction
                try:
                    job = self._queue.get_nowait()
                except queue.Empty:
                    break
                if job is None:
                    stopping = True
                else:
                    batch.append(job)
            if batch:
                self._commit(conn, batch)

    def _commit(self, conn: sqlite3.Connection, batch: list[_Job]) -> None:
        error = self._run(conn, [stmt for statements, _, _ in batch for stmt in statements])
        if error is not None and len(batch) > 1:
            # one bad job must not fail its neighbours: retry each on its own
            for job in batch:
                self._settle_jobs([job], self._run(conn, job[0]))
            return
        self._settle_jobs(batch, error)

    def _run(self, conn: sqlite3.Connection, statements: list[_Write]) -> Exception | None:
        try:
            conn.execute("BEGIN")
            for sql, params in statements:
                conn.execute(sql, params)
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            log.error("store_write_failed", error=str(exc), statements=len(statements))
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
            return StoreError(f"write failed: {exc}")
        self.commits += 1
        self.writes += len(statements)
        return None

    @staticmethod
    def _settle_jobs(batch: list[_Job], error: Exception | None) -> None:
        for _, loop, future in batch:
            if loop is not None and future is not None:
                loop.call_soon_threadsafe(_settle, future, error)

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
    def insert_game(game_id: str, table_id: str, options: dict[str, Any], seed: int,
                    seats: list[dict[str, Any]], table_info: dict[str, Any]) -> _Write:
        return ("INSERT INTO games (id, table_id, created, options, seed, seats, status, "
                "table_info) VALUES (?, ?, ?, ?, ?, ?, 'playing', ?)",
                (game_id, table_id, time.time(), json.dumps(options), seed, json.dumps(seats),
                 json.dumps(table_info)))

    @staticmethod
    def insert_action(game_id: str, seq: int, seat: int, action: dict[str, Any]) -> _Write:
        return ("INSERT INTO actions (game_id, seq, seat, action, time) VALUES (?, ?, ?, ?, ?)",
                (game_id, seq, seat, json.dumps(action, separators=(",", ":")), time.time()))

    @staticmethod
    def finish_game(game_id: str, status: str, result: dict[str, Any] | None) -> _Write:
        return ("UPDATE games SET status = ?, result = ?, finished = ? WHERE id = ?",
                (status, json.dumps(result) if result is not None else None, time.time(),
                 game_id))

    @staticmethod
    def update_seats(game_id: str, seats: list[dict[str, Any]]) -> _Write:
        return ("UPDATE games SET seats = ? WHERE id = ?", (json.dumps(seats), game_id))

    @staticmethod
    def upsert_player(token_hash: str, player_id: str, name: str) -> _Write:
        return ("INSERT INTO players (token_hash, player_id, name) VALUES (?, ?, ?) "
                "ON CONFLICT(token_hash) DO UPDATE SET name = excluded.name",
                (token_hash, player_id, name))


def load_games(conn: sqlite3.Connection, where: str, params: Sequence[Any] = (),
               limit: int | None = None) -> list[StoredGame]:
    """Games matching ``where`` (newest first when limited) with their actions in order."""
    sql = ("SELECT id, table_id, created, options, seed, seats, status, result, table_info, "
           f"finished FROM games WHERE {where} ORDER BY created")
    if limit is not None:
        sql = sql.replace("ORDER BY created", "ORDER BY finished DESC, created DESC") + " LIMIT ?"
        params = (*params, limit)
    games = []
    for row in conn.execute(sql, params).fetchall():
        actions = tuple(conn.execute(
            "SELECT seq, seat, action, time FROM actions WHERE game_id = ? ORDER BY seq",
            (row[0],)).fetchall())
        games.append(StoredGame(
            id=row[0], table_id=row[1], created=row[2], options=row[3], seed=row[4],
            seats=row[5], status=row[6], result=row[7], table_info=row[8], finished=row[9],
            actions=actions))
    return games


def _settle(future: asyncio.Future[None], error: Exception | None) -> None:
    if future.done():
        return
    if error is None:
        future.set_result(None)
    else:
        future.set_exception(error)
