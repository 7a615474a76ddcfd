"""`TableState`: what the modules around a table read of it.

`Table` is the one implementation. The lobby's callbacks, the ``table`` message
(`views.table_info`) and the store's records of a table (`waiting`) take this
protocol instead of the `Table` class, so that none of them imports the table
module, which imports them.
"""

from __future__ import annotations

from collections.abc import Set
from typing import Protocol

from wizard.engine import GameOptions

from .player import Outlet, Player
from .seats import Seats
from .status import TableStatus


class TableState(Protocol):
    """A table as others read it (they change it only through its methods)."""

    @property
    def table_id(self) -> str: ...

    @property
    def options(self) -> GameOptions: ...

    @property
    def private(self) -> bool: ...

    @property
    def turn_seconds(self) -> int: ...

    @property
    def rated(self) -> bool:
        """Whether the table's games count for ratings (a table option)."""

    @property
    def seats(self) -> Seats: ...

    @property
    def host(self) -> Player | None: ...

    @property
    def status(self) -> TableStatus: ...

    @property
    def games(self) -> int:
        """How many games the table has started."""

    @property
    def v(self) -> int:
        """The table's version: it grows by one with every game start and accepted action."""

    @property
    def invite(self) -> str | None:
        """A private table's invite (what joining or watching it needs)."""

    @property
    def spectators(self) -> Set[Outlet]: ...


__all__ = ["TableState"]
