"""``wizard ratings rebuild`` as an operator runs it: a separate process on the server's
database file, giving back the numbers the games gave as they ended."""

from __future__ import annotations

import asyncio
import re
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

from wizard.server.storage.store import SqliteStore

from ..storage.test_ratings import dump, play

GAMES = [(("p_ann", "bot:easy", "bot:hard"), (120, -30, 60), True),
         (("p_ann", "p_ben", "bot:medium", "bot:master"), (40, 40, 10, 90), True),
         (("p_ben", "p_cy", "bot:easy"), (-20, 70, 30), False),  # an unrated table
         (("p_cy", "p_ann", "p_ben"), (50, 80, 50), True)]


def stored_games(path: Path) -> list[Any]:
    """The four games above stored in a database file; its ratings as the games left them."""
    async def go() -> list[Any]:
        store = SqliteStore(str(path))
        await store.open()
        try:
            for players, scores, rated in GAMES:
                await play(store, players, scores, rated=rated)
            return await store.db.read(dump)
        finally:
            await store.close()
    return asyncio.run(go())


def rebuild_command(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "wizard", "ratings", "rebuild", *args],
                          capture_output=True, text=True, timeout=120, check=False)


def test_the_rebuild_command_gives_back_the_ratings_the_games_gave(tmp_path: Path) -> None:
    path = tmp_path / "wizard.db"
    played = stored_games(path)
    assert len(played[0]) == 7  # ann, ben, cy and four bot levels were rated
    with sqlite3.connect(path) as conn:  # derived data gone wrong: the rebuild must redo it
        conn.execute("UPDATE ratings SET mu = 0, sigma = 1, games = 99")
        conn.execute("DELETE FROM rating_history")
        conn.execute("DELETE FROM game_players")
    conn.close()

    done = rebuild_command("--db", str(path))

    assert done.returncode == 0, done.stderr
    assert re.fullmatch(r"4 finished games counted, 3 rated, in \d+\.\d\d s\n", done.stdout)
    with sqlite3.connect(path) as conn:
        assert dump(conn) == played
    conn.close()


def test_the_rebuild_command_without_a_database_says_so(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.db"
    done = rebuild_command("--db", str(missing))
    assert done.returncode == 2
    assert f"no database at {missing}" in done.stderr
    assert not missing.exists()
