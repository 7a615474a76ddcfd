"""How long the start-up database checks take: ``quick_check`` vs ``integrity_check``.

Builds databases of finished 4-player games (300 actions each) with the store's own
statements, in a temporary directory, and prints one line per (size, check) with the
median of 3 runs. The figures in docs/operations.md ("A damaged database") come from

    python scripts/bench_db_check.py 200 2000 8000
"""

from __future__ import annotations

import random
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

from wizard.engine import GameOptions
from wizard.server.storage.db import Database, connect
from wizard.server.storage.records import GameResult, StoredSeat, TableSettings
from wizard.server.storage.schema import migrate

OPTIONS = GameOptions()


def build(path: Path, games: int, seed: int = 1) -> None:
    rng = random.Random(seed)
    conn = connect(str(path))
    migrate(conn)
    conn.execute("BEGIN")
    for number in range(games):
        table_id = f"t_{number:012d}"
        game_id = f"{table_id}-1"
        seats = [StoredSeat("player", player_id=f"p_{number:012x}", name="Ann")] + [
            StoredSeat("bot", level="easy", name="Bot (easy)",
                       bot={"level": "easy", "strength": 0.5, "seed": rng.getrandbits(32)})] * 3
        conn.execute(*Database.insert_game(game_id, table_id, OPTIONS, rng.getrandbits(63),
                                           seats, TableSettings(4, private=True, v0=1)))
        for seq in range(1, 301):
            action = ({"type": "play", "card": rng.randrange(60)} if seq % 5
                      else {"type": "bid", "value": rng.randrange(4)})
            conn.execute(*Database.insert_action(game_id, seq, seq % 4, action))
        conn.execute(*Database.finish_game(game_id, "finished",
                                           GameResult([10, 20, -10, 0], [1])))
        conn.execute(*Database.upsert_player(f"{number:064x}", f"p_{number:012x}", "Ann"))
    conn.execute("COMMIT")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()


def timed(path: Path, pragma: str) -> float:
    conn = sqlite3.connect(path)
    try:
        began = time.perf_counter()
        result = conn.execute(f"PRAGMA {pragma}").fetchone()[0]
        elapsed = time.perf_counter() - began
    finally:
        conn.close()
    assert result == "ok", result
    return elapsed


def main(sizes: list[int]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        for games in sizes:
            path = Path(folder) / f"games-{games}.db"
            build(path, games)
            mib = path.stat().st_size / 2**20
            for pragma in ("quick_check", "integrity_check"):
                median = statistics.median(timed(path, pragma) for _ in range(3))
                print(f"{games} games {mib:.1f} MiB {pragma}: {median * 1000:.0f} ms", flush=True)


if __name__ == "__main__":
    main([int(arg) for arg in sys.argv[1:]] or [200, 2000])
