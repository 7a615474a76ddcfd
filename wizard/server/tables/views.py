"""What a table shows: the ``table`` message, and the ``update`` each seat or spectator gets.

A seated person sees their own hand (`WizardGame.observation` of their seat);
spectators share the view of no seat. Every view is built from values the
table hands over (its version, game and turn clock), so it reads no table.

>>> from wizard.engine import WizardGame
>>> game = WizardGame(3, seed=1)
>>> update = update_view("t_1", 1, game, 0, [], None)
>>> update.v, update.observation.player, update.observation.phase.value
(1, 0, 'bidding')
>>> update_view("t_1", 1, game, None, [], None).observation.hand
()
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from wizard.engine import Event, WizardGame

from ..clock import MONOTONIC, Now
from ..net.protocol import Clock, Update
from ..net.updates import AutoPlayedEvent, EventView, event_view, observation_view
from .turns import Mover


def clock_view(clock: tuple[int, float] | None, now: Now = MONOTONIC) -> Clock | None:
    """The turn clock ``(seat, monotonic deadline)`` as the client sees it: ms left, or null.

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
    [AutoPlayedEvent(player=3, reason='timeout')]
    >>> update_events([], 3, Mover.PLAYER)
    []
    """
    views = [event_view(e) for e in events]
    reason = by.auto_reason
    if reason is not None:
        views.insert(0, AutoPlayedEvent(seat, reason))
    return views


def update_view(table_id: str, v: int, game: WizardGame, seat: int | None,
                events: Sequence[EventView], clock: Clock | None) -> Update:
    """The state of ``game`` for ``seat`` (``None``: spectators) after ``events``."""
    return Update(table_id, v, list(events), observation_view(game.observation(seat)), clock)


__all__ = ["clock_view", "update_events", "update_view"]
