"""The database's schema: one migration per version, applied forward at start.

>>> SCHEMA_VERSION  # a database at an older version is brought here by `migrate`
9
"""

from __future__ import annotations

import sqlite3

import structlog

from .errors import StoreError

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
    # 3: when each player was last seen, so that players who never played can be pruned
    """
    ALTER TABLE players ADD COLUMN seen REAL NOT NULL DEFAULT 0;
    UPDATE players SET seen = CAST(strftime('%s', 'now') AS REAL);
    CREATE INDEX players_by_seen ON players(seen);
    """,
    # 4: tables before their game starts (seats, host, settings), so they survive a restart
    """
    CREATE TABLE waiting_tables (
        id TEXT PRIMARY KEY,
        record TEXT NOT NULL,
        updated REAL NOT NULL
    );
    """,
    # 5: the master bot's analyses, one row per (game, seat); builds before schema 5
    # created this table on first use, so a database of theirs may have it already
    """
    CREATE TABLE IF NOT EXISTS analyses (
        game_id TEXT NOT NULL,
        seat INTEGER NOT NULL,
        worlds INTEGER NOT NULL,
        created REAL NOT NULL,
        report TEXT NOT NULL,
        PRIMARY KEY (game_id, seat)
    );
    """,
    # 6: a private table's invite (its id alone no longer opens it), and who watched
    # which game, so that a private game's history is open to its spectators too;
    # private tables stored before get an invite of their own (128 random bits)
    """
    CREATE TABLE table_invites (
        table_id TEXT PRIMARY KEY,
        invite TEXT NOT NULL
    );
    INSERT OR IGNORE INTO table_invites (table_id, invite)
        SELECT table_id, lower(hex(randomblob(16))) FROM games
        WHERE COALESCE(json_extract(table_info, '$.private'), 0) != 0;
    INSERT OR IGNORE INTO table_invites (table_id, invite)
        SELECT id, lower(hex(randomblob(16))) FROM waiting_tables
        WHERE COALESCE(json_extract(record, '$.private'), 0) != 0;
    CREATE TABLE game_spectators (
        game_id TEXT NOT NULL,
        player_id TEXT NOT NULL,
        PRIMARY KEY (game_id, player_id)
    ) WITHOUT ROWID;
    """,
    # 7: ratings and what profiles count, derived from the finished games in the
    # transaction that stores each game's end (`storage.ratings`); games finished
    # before are counted by `wizard ratings rebuild`
    """
    CREATE TABLE ratings (
        player_id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        bot INTEGER NOT NULL,
        mu REAL NOT NULL,
        sigma REAL NOT NULL,
        ordinal REAL NOT NULL,
        games INTEGER NOT NULL,
        updated REAL NOT NULL
    );
    CREATE INDEX ratings_by_ordinal ON ratings(ordinal DESC, player_id);
    CREATE TABLE rated_games (
        seq INTEGER PRIMARY KEY,
        game_id TEXT NOT NULL UNIQUE
    );
    CREATE TABLE rating_history (
        player_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        mu REAL NOT NULL,
        sigma REAL NOT NULL,
        at REAL NOT NULL,
        PRIMARY KEY (player_id, seq)
    ) WITHOUT ROWID;
    CREATE TABLE game_players (
        player_id TEXT NOT NULL,
        finished REAL NOT NULL,
        game_id TEXT NOT NULL,
        seat INTEGER NOT NULL,
        score INTEGER NOT NULL,
        won INTEGER NOT NULL,
        made INTEGER,
        rounds INTEGER,
        PRIMARY KEY (player_id, finished, game_id, seat)
    ) WITHOUT ROWID;
    CREATE INDEX game_players_by_game ON game_players(game_id);
    """,
    # 8: accounts: a player id whose name is claimed with a password (`storage.accounts`);
    # name_key is the name's unique form (NFKC, case-folded); password a scrypt hash
    """
    CREATE TABLE accounts (
        player_id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        name_key TEXT NOT NULL UNIQUE,
        password TEXT NOT NULL,
        created REAL NOT NULL,
        changed REAL NOT NULL
    );
    CREATE INDEX players_by_player_id ON players(player_id);
    """,
    # 9: an account holder may make their profile private (`POST /api/profile`): their
    # profile answers only to them and the leaderboard leaves them out
    """
    ALTER TABLE accounts ADD COLUMN private INTEGER NOT NULL DEFAULT 0;
    """,
)
SCHEMA_VERSION = len(MIGRATIONS)


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


__all__ = ["MIGRATIONS", "SCHEMA_VERSION", "migrate", "schema_version"]
