"""Who hears a table: its seated people (every connection of theirs) and its spectators.

One way to send to all of them: `Audience.send` encodes a message once for
everyone; `Audience.send_views` encodes one view per seated person and one
shared view for all spectators (an ``update`` shows each seat its own hand).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence

from wizard.protocol import ServerMessage, encode, message_tag

from .player import Outlet
from .seats import Seat, SeatKind


class Audience:
    """The people and spectators of one table (the table owns the seats it is given)."""

    __slots__ = ("seats", "spectators")

    def __init__(self, seats: Sequence[Seat]) -> None:
        self.seats = seats
        self.spectators: set[Outlet] = set()

    def watch(self, connection: Outlet, table_id: str) -> None:
        """``connection`` spectates table ``table_id`` (this audience's table)."""
        self.spectators.add(connection)
        connection.spectating.add(table_id)

    def unwatch(self, connection: Outlet, table_id: str) -> bool:
        """``connection`` stops spectating; returns whether it was a spectator."""
        if connection not in self.spectators:
            return False
        self.spectators.discard(connection)
        connection.spectating.discard(table_id)
        return True

    def unwatch_all(self, connections: Iterable[Outlet], table_id: str) -> bool:
        """Each of ``connections`` stops spectating; returns whether any was a spectator."""
        was_watching = False
        for connection in tuple(connections):
            was_watching = self.unwatch(connection, table_id) or was_watching
        return was_watching

    def people(self) -> Iterator[tuple[Seat, Outlet]]:
        """Every open connection of a seated person, with the seat."""
        for seat in self.seats:
            player = seat.player
            if seat.kind is SeatKind.PLAYER and player is not None:
                for connection in tuple(player.connections):
                    yield seat, connection

    def send(self, message: ServerMessage) -> None:
        """``message`` to everyone at the table, encoded once."""
        text, tag = encode(message), message_tag(message)
        for _, connection in self.people():
            connection.send_text(text, tag)
        for connection in tuple(self.spectators):
            connection.send_text(text, tag)

    def send_views(self, view: Callable[[int | None], ServerMessage]) -> None:
        """``view(seat)`` to each seated person, ``view(None)`` to all spectators.

        Each view is built and encoded once, however many tabs see it, and not at all
        for a seat whose person has no connection open.
        """
        for seat in self.seats:
            player = seat.player
            if seat.kind is SeatKind.PLAYER and player is not None and player.connections:
                message = view(seat.index)
                text, tag = encode(message), message_tag(message)
                for connection in tuple(player.connections):
                    connection.send_text(text, tag)
        if self.spectators:
            message = view(None)
            text, tag = encode(message), message_tag(message)
            for connection in tuple(self.spectators):
                connection.send_text(text, tag)


__all__ = ["Audience"]
