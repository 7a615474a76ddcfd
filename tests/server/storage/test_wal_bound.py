"""The write-ahead log stays bounded under a steady stream of writes, not only at a stop."""

from __future__ import annotations

import asyncio
import itertools
import os
from pathlib import Path

import pytest

from wizard.engine import GameOptions
from wizard.server.storage import db as dbmod
from wizard.server.storage.db import Database
from wizard.server.storage.records import TableSettings


def test_the_wal_stays_bounded_while_writes_keep_coming(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dbmod, "CHECKPOINT_SECONDS", 0.02)
    monkeypatch.setattr(dbmod, "WAL_LIMIT_BYTES", 256 * 1024, raising=False)
    path = tmp_path / "w.db"
    wal = Path(f"{path}-wal")
    database = Database(str(path))
    sizes: list[int] = []

    async def load() -> None:
        await database.open()
        try:
            await database.write(Database.insert_game("g", "t", GameOptions(), 1, [],
                                                      TableSettings()))
            payload = {"type": "play", "card": 1, "pad": "x" * 2000}
            for seq in range(1, 4001):  # ~8 MB of actions, a commit every loop turn
                await database.write(Database.insert_action("g", seq, 0, payload))
                if seq % 100 == 0:
                    sizes.append(wal.stat().st_size if wal.exists() else 0)
                    # a reader now and then, as history pages are
                    await database.read(lambda c: c.execute(
                        "SELECT count(*) FROM actions").fetchone())
        finally:
            await database.close()

    asyncio.run(asyncio.wait_for(load(), 120))
    written = 2000 * 4000
    # unbounded, this log reached 68 MB (each small commit adds whole pages); restarted
    # past its limit it falls back again and again while the writes go on
    restarts = sum(1 for before, after in itertools.pairwise(sizes) if after < before)
    assert restarts >= 1, sizes
    assert max(sizes) < 32 * 1024 * 1024, sizes
    assert os.path.getsize(path) > written / 2  # the data did reach the database
