"""Stored game analyses: one row per (game, seat), so a second look is instant.

The table lives in the server's database beside the games (created on first
use: ``CREATE TABLE IF NOT EXISTS``, no schema version of its own) and a small
in-memory cache keeps the latest reports. A seat's report is the JSON of one
entry of `wizard.ai.analysis.build_report`'s ``seats``.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections import OrderedDict
from typing import Any

from .store import SqliteStore

SCHEMA = ("CREATE TABLE IF NOT EXISTS analyses (game_id TEXT NOT NULL, seat INTEGER NOT NULL, "
          "worlds INTEGER NOT NULL, created REAL NOT NULL, report TEXT NOT NULL, "
          "PRIMARY KEY (game_id, seat))")
CACHE_GAMES = 64


class AnalysisStore:
    """Per-seat analysis reports of finished games, in the store's SQLite database."""

    def __init__(self, store: SqliteStore) -> None:
        self.store = store
        self._ready = False
        self._cache: OrderedDict[str, dict[int, dict[str, Any]]] = OrderedDict()

    async def _ensure(self) -> None:
        if not self._ready:
            await self.store.db.write((SCHEMA, ()))
            self._ready = True

    async def seats(self, game_id: str) -> dict[int, dict[str, Any]]:
        """Every stored seat report of ``game_id`` (empty when none is)."""
        cached = self._cache.get(game_id)
        if cached is not None:
            self._cache.move_to_end(game_id)
            return cached
        await self._ensure()

        def query(conn: sqlite3.Connection) -> list[tuple[int, str]]:
            return list(conn.execute("SELECT seat, report FROM analyses WHERE game_id = ?",
                                     (game_id,)).fetchall())

        found = {int(seat): json.loads(report) for seat, report in await self.store.db.read(query)}
        if found:
            self._remember(game_id, found)
        return found

    async def save(self, game_id: str, worlds: int, reports: list[dict[str, Any]]) -> None:
        """Store seat reports (``report["seat"]`` each); raises `StoreError` if it fails."""
        await self._ensure()
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
