"""The action log hook: a table awaits `ActionLog.append` before it acks or broadcasts.

Only the interface and a no-op implementation live here for now; the
persistence issue puts SQLite behind the same `ActionLog` protocol.
"""

from __future__ import annotations

from typing import Any, Protocol


class ActionLog(Protocol):
    """Where accepted actions go, in order, before anyone is told about them."""

    async def open(self) -> None:
        """Make the log ready (create files, run migrations)."""

    async def close(self) -> None:
        """Flush and release the log."""

    @property
    def is_open(self) -> bool:
        """True between `open` and `close` (``/readyz`` reports it)."""

    async def append(self, table_id: str, seq: int, seat: int, action: dict[str, Any]) -> None:
        """Durably record that ``seat`` played ``action`` as the table's version ``seq``.

        Returns only when the record is durable; an exception means the action
        must not be applied.
        """


class NullActionLog:
    """Remembers nothing (until the persistence issue lands); always ready."""

    def __init__(self) -> None:
        self.appended = 0
        self._open = False

    async def open(self) -> None:
        self._open = True

    async def close(self) -> None:
        self._open = False

    @property
    def is_open(self) -> bool:
        return self._open

    async def append(self, table_id: str, seq: int, seat: int, action: dict[str, Any]) -> None:
        self.appended += 1


__all__ = ["ActionLog", "NullActionLog"]
