"""What the store raises: `StoreError`, and the two cases a caller treats apart."""

from __future__ import annotations


class StoreError(RuntimeError):
    """The database could not do what was asked (disk full, closed, corrupt file)."""


class StoreFullError(StoreError):
    """The disk (or the database's size cap) is full: nothing can be saved until space returns."""


SQLITE_FULL = 13


class StoreCorruptError(StoreError):
    """The database file failed SQLite's check at start; a copy was kept."""


__all__ = ["SQLITE_FULL", "StoreCorruptError", "StoreError", "StoreFullError"]
