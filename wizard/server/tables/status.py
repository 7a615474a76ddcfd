"""`TableStatus`: a table's lifecycle, with the steps it allows (like `ConnectionState`'s).

>>> TableStatus.WAITING.step(TableStatus.PLAYING, "t_1")
<TableStatus.PLAYING: 'playing'>
>>> TableStatus.CLOSED.step(TableStatus.PLAYING, "t_1")
Traceback (most recent call last):
...
wizard.server.net.connection.BadTransitionError: table t_1: closed -> playing
"""

from __future__ import annotations

import enum

from ..net.connection import BadTransitionError


class TableStatus(enum.StrEnum):
    """WAITING → PLAYING ⇄ FINISHED (a rematch plays again); any of them → CLOSED."""

    WAITING = "waiting"
    PLAYING = "playing"
    FINISHED = "finished"
    CLOSED = "closed"

    def step(self, new: TableStatus, table_id: str) -> TableStatus:
        """``new``, if the lifecycle allows it from here; else raises `BadTransitionError`."""
        if new is not self and new not in _MOVES[self]:
            raise BadTransitionError(f"table {table_id}: {self.value} -> {new.value}")
        return new


_MOVES: dict[TableStatus, frozenset[TableStatus]] = {
    TableStatus.WAITING: frozenset({TableStatus.PLAYING, TableStatus.FINISHED,
                                    TableStatus.CLOSED}),  # FINISHED: a restored last move
    TableStatus.PLAYING: frozenset({TableStatus.FINISHED, TableStatus.CLOSED}),
    TableStatus.FINISHED: frozenset({TableStatus.PLAYING, TableStatus.CLOSED}),
    TableStatus.CLOSED: frozenset(),
}

__all__ = ["TableStatus"]
