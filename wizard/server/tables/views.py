"""What a table shows: the ``table`` message, and the ``update`` each seat or spectator gets.

A seated person sees their own hand (`WizardGame.observation` of their seat);
spectators share the view of no seat. Every view is built from values the
table hands over (its version, game and turn clock), so it reads no table.

>>> from wizard.engine import WizardGame
>>> game = WizardGame(3, seed=1)
>>> update = update_view("t_1", 1, game, 0, [], None)
>>> update.v, update.observation.player, update.observation.phase
(1, 0, 'bidding')
>>> update_view("t_1", 1, game, None, [], None).observation.hand
()
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from wizard.engine import Event, WizardGame
from wizard.protocol import AutoPlayedEvent, ChatMessage, Clock, EventView, TableInfo, Update

from ..clock import Now, loop_time
from ..net.connection import Connection
from ..net.updates import GameViews, event_view, observation_view
from .audience import Audience
from .chat import ChatLog
from .player import Player
from .state import TableState
from .turns import Mover


def clock_view(clock: tuple[int, float] | None, now: Now = loop_time) -> Clock | None:
    """The turn clock ``(seat, deadline on the loop's clock)`` as the client sees it: ms
    left, or null.

    >>> clock_view((2, 10.0), now=lambda: 7.5)
    Clock(player=2, deadline_ms=2500)
    >>> clock_view((2, 10.0), now=lambda: 11.0).deadline_ms
    0
    """
    if clock is None:
        return None
    seat, deadline = clock
    return Clock(seat, max(0, round((deadline - now()) * 1000)))


def update_events(events: Iterable[Event], seat: int, by: Mover) -> list[EventView]:
    """The ``events`` of an update: the engine's, after ``auto_played`` if a stand-in moved.

    >>> update_events([], 3, Mover.TIMEOUT)
    [AutoPlayedEvent(player=3, reason=<AutoPlayReason.TIMEOUT: 'timeout'>)]
    >>> update_events([], 3, Mover.PLAYER)
    []
    """
    views = [event_view(e) for e in events]
    reason = by.auto_reason
    if reason is not None:
        views.insert(0, AutoPlayedEvent(seat, reason))
    return views


def update_view(table_id: str, v: int, game: WizardGame, seat: int | None,
                events: Sequence[EventView], clock: Clock | None,
                parts: GameViews | None = None) -> Update:
    """The state of ``game`` for ``seat`` (``None``: spectators) after ``events``."""
    return Update(table_id, v, list(events), observation_view(game.observation(seat), parts),
                  clock)


def table_info(table: TableState) -> TableInfo:
    """The ``table`` message: seats, host, options, status and audience of ``table``."""
    return TableInfo(
        table_id=table.table_id,
        host=table.host.player_id if table.host else None,
        seats=[seat.info() for seat in table.seats],
        options=table.options.to_dict(),
        status=table.status,
        private=table.private,
        turn_seconds=table.turn_seconds,
        spectators=len(table.spectators),
        game=table.games,
        invite=table.invite,
        rated=table.rated,
    )


class TableView:
    """What one table's audience is sent: updates (a view per seat), chat and its backlog.

    ``clock()`` is the running turn clock ``(seat, deadline on the loop's clock)``, if any.
    """

    __slots__ = ("audience", "chat_log", "clock", "parts", "table_id")

    def __init__(self, table_id: str, audience: Audience,
                 clock: Callable[[], tuple[int, float] | None]) -> None:
        self.table_id = table_id
        self.audience = audience
        self.clock = clock
        self.chat_log = ChatLog()
        self.parts = GameViews()  # the round history and last trick, converted once

    def update(self, v: int, game: WizardGame, seat: int | None,
               events: Sequence[EventView] = ()) -> Update:
        """The state at version ``v`` for ``seat`` (``None``: spectators); re-sends: no events."""
        return update_view(self.table_id, v, game, seat, events, clock_view(self.clock()),
                           self.parts)

    def send_update(self, v: int, game: WizardGame, events: Sequence[EventView]) -> None:
        """Everyone at the table gets the state at ``v`` after ``events``, each their view."""
        self.audience.send_views(lambda seat: self.update(v, game, seat, events))

    def resend(self, connection: Connection, info: TableInfo, v: int, game: WizardGame | None,
               seat: int | None) -> None:
        """What a (re)arriving connection needs: the table, the latest update, the chat."""
        connection.send(info)
        if game is not None:
            connection.send(self.update(v, game, seat))
        self.send_backlog(connection)

    def chat(self, message: ChatMessage) -> None:
        """Pass a chat line to everyone at the table (players and spectators); keep it."""
        self.chat_log.add(message)
        self.audience.send(message)

    def send_backlog(self, to: Player | Connection) -> None:
        """The chat so far, if anything was said."""
        if self.chat_log:
            to.send(self.chat_log.backlog(self.table_id))


__all__ = ["TableView", "clock_view", "table_info", "update_events", "update_view"]
