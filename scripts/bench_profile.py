"""How fast a profile answers for a player with many games, and the leaderboard.

Builds a database (in a temporary directory) where one player, Ann, has finished
``GAMES`` games against bots and other people (a tenth of them at private tables,
``ANALYSED`` of them analysed), each stored and rated with the store's own statements
(`count_game`, as at a game's end), then times ``GET /api/players/{id}`` through the
real app (Starlette's TestClient, the store's reading thread) as a stranger and as Ann,
and ``GET /api/leaderboard``. One line per figure, the median of ``RUNS`` requests;
also how long ``wizard ratings rebuild`` takes for the whole database.

    python scripts/bench_profile.py [GAMES]   (default 10000)
"""

from __future__ import annotations

import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from starlette.testclient import TestClient

from wizard.engine import GameOptions
from wizard.server.app import create_app
from wizard.server.settings import Settings
from wizard.server.storage.db import Database, connect
from wizard.server.storage.ratings import count_game, rebuild
from wizard.server.storage.records import GameResult, GameStatus, StoredSeat, TableSettings
from wizard.server.storage.schema import migrate
from wizard.server.storage.store import token_hash

RUNS = 25
ANALYSED = 200
TOKEN = "bench-token-of-ann"
LEVELS = ("easy", "medium", "hard", "master")


def build(path: Path, games: int, seed: int = 1) -> None:
    rng = random.Random(seed)
    conn = connect(str(path))
    migrate(conn)
    conn.execute("BEGIN")
    conn.execute(*Database.upsert_player(token_hash(TOKEN), "p_ann", "Ann"))
    others = [f"p_{k:06d}" for k in range(500)]
    for number in range(games):
        table_id = f"t_{number:08d}"
        game_id = f"{table_id}-1"
        seats = [StoredSeat("player", player_id="p_ann", name="Ann")]
        for _ in range(3):
            if rng.random() < 0.5:
                other = rng.choice(others)
                seats.append(StoredSeat("player", player_id=other, name=other))
            else:
                level = rng.choice(LEVELS)
                seats.append(StoredSeat("bot", level=level, name=f"Bot ({level})"))
        conn.execute(*Database.insert_game(
            game_id, table_id, GameOptions(), number, seats,
            TableSettings(4, private=rng.random() < 0.1, v0=1)))
        scores = [rng.randrange(-30, 40) * 10 for _ in seats]
        best = max(scores)
        conn.execute(*Database.finish_game(game_id, GameStatus.FINISHED, GameResult(
            scores, [k for k, s in enumerate(scores) if s == best],
            [rng.randrange(0, 16) for _ in seats], 15)))
        count_game(conn, game_id)
        if number < ANALYSED:
            report = {"seat": 0, "summary": {"bidding_loss": rng.random() * 20,
                                             "play_loss": rng.random() * 30}}
            conn.execute("INSERT INTO analyses (game_id, seat, worlds, created, report) "
                         "VALUES (?, 0, 8, 0, ?)", (game_id, json.dumps(report)))
    conn.execute("COMMIT")
    conn.close()


def median_ms(client: TestClient, url: str, headers: dict[str, str] | None = None) -> float:
    times = []
    for _ in range(RUNS):
        started = time.perf_counter()
        response = client.get(url, headers=headers)
        times.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 200, response.text
    return statistics.median(times)


def main() -> None:
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "wizard.db"
        started = time.perf_counter()
        build(path, games)
        print(f"build {games} rated games: {time.perf_counter() - started:.1f} s")
        app = create_app(Settings(db_path=str(path), log_level="warning"))
        with TestClient(app) as client:
            profile = client.get("/api/players/p_ann").json()
            assert profile["games"] == games, profile["games"]
            as_ann = {"Authorization": f"Bearer {TOKEN}"}
            print(f"GET /api/players/p_ann ({games} games), a stranger: "
                  f"{median_ms(client, '/api/players/p_ann'):.1f} ms median of {RUNS}")
            print(f"GET /api/players/p_ann ({games} games), Ann herself: "
                  f"{median_ms(client, '/api/players/p_ann', as_ann):.1f} ms median of {RUNS}")
            print(f"GET /api/players/Ann (by name): "
                  f"{median_ms(client, '/api/players/Ann'):.1f} ms median of {RUNS}")
            print(f"GET /api/leaderboard?limit=100: "
                  f"{median_ms(client, '/api/leaderboard?limit=100'):.1f} ms median of {RUNS}")
        conn = connect(str(path))
        started = time.perf_counter()
        rebuild(conn)
        conn.close()
        print(f"wizard ratings rebuild ({games} games): {time.perf_counter() - started:.2f} s")


if __name__ == "__main__":
    main()
