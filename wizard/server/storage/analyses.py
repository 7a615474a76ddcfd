"""Stored game analyses: one row per (game, seat), so a second look is instant.

The ``analyses`` table lives in the server's database beside the games (schema 5,
`wizard.server.storage.db.MIGRATIONS`) and a small in-memory cache keeps the latest
reports. A seat's report is the JSON of one
entry of `wizard.ai.analysis.build_report`'s ``seats``.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections import OrderedDict
from typing import Any

from .store import SqliteStore

CACHE_GAMES = 64


class AnalysisStore:
    """Per-seat analysis reports of finished games, in the store's SQLite database."""

    def __init__(self, store: SqliteStore) -> None:
        self.store = store
        self._cache: OrderedDict[str, dict[int, dict[str, Any]]] = OrderedDict()

    async def seats(self, game_id: str) -> dict[int, dict[str, Any]]:
        """Every stored seat report of ``game_id`` (empty when none is)."""
        cached = self._cache.get(game_id)
        if cached is not None:
            self._cache.move_to_end(game_id)
            return cached

        def query(conn: sqlite3.Connection) -> list[tuple[int, str]]:
            return list(conn.execute("SELECT seat, report FROM analyses WHERE game_id = ?",
                                     (game_id,)).fetchall())

        found = {int(seat): json.loads(report) for seat, report in await self.store.db.read(query)}
        if found:
            self._remember(game_id, found)
        return found

    async def save(self, game_id: str, worlds: int, reports: list[dict[str, Any]]) -> None:
        """Store seat reports (``report["seat"]`` each); raises `StoreError` if it fails."""
        now = time.time()
        await self.store.db.write(*[
            ("INSERT OR REPLACE INTO analyses (game_id, seat, worlds, created, report) "
             "VALUES (?, ?, ?, ?, ?)", (game_id, r["seat"], worlds, now, json.dumps(r)))
            for r in reports])
        merged = dict(self._cache.get(game_id, {}))
        merged.update({r["seat"]: r for r in reports})
        self._remember(game_id, merged)

    def _remember(self, game_id: str, reports: dict[int, dict[str, Any]]) -> None:
        self._cache[game_id] = reports
        self._cache.move_to_end(game_id)
        while len(self._cache) > CACHE_GAMES:
            self._cache.popitem(last=False)


__all__ = ["AnalysisStore"]
