"""A table's lifecycle: the steps between the `TableStatus` words of the protocol that
the server allows (like `ConnectionState`'s), checked by `step`.

>>> step(TableStatus.WAITING, TableStatus.PLAYING, "t_1")
<TableStatus.PLAYING: 'playing'>
>>> step(TableStatus.CLOSED, TableStatus.PLAYING, "t_1")
Traceback (most recent call last):
...
wizard.server.net.connection.BadTransitionError: table t_1: closed -> playing
"""

from __future__ import annotations

from wizard.protocol import TableStatus

from ..net.connection import BadTransitionError

#: WAITING → PLAYING ⇄ FINISHED (a rematch plays again); any of them → CLOSED
_MOVES: dict[TableStatus, frozenset[TableStatus]] = {
    TableStatus.WAITING: frozenset({TableStatus.PLAYING, TableStatus.FINISHED,
                                    TableStatus.CLOSED}),  # FINISHED: a restored last move
    TableStatus.PLAYING: frozenset({TableStatus.FINISHED, TableStatus.CLOSED}),
    TableStatus.FINISHED: frozenset({TableStatus.PLAYING, TableStatus.CLOSED}),
    TableStatus.CLOSED: frozenset(),
}


def step(status: TableStatus, new: TableStatus, table_id: str) -> TableStatus:
    """``new``, if the lifecycle allows it from ``status``; else raises `BadTransitionError`."""
    if new is not status and new not in _MOVES[status]:
        raise BadTransitionError(f"table {table_id}: {status.value} -> {new.value}")
    return new


__all__ = ["TableStatus", "step"]
