"""Presence: who of a table's seated people is here, gone for a moment, or away.

When a seated person's last connection closes during a game a grace period
starts. If they are back in time nothing happens; once it runs out they are
*away*: a stand-in plays for them until they come back. `Presence` owns the
grace timers of one table and calls ``expired(seat, player)`` when one runs
out; the table decides under its lock what that changes (`Presence.mark_away`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Sequence
from typing import Any

from .player import Player
from .seats import Seat

Expired = Callable[[int, Player], Coroutine[Any, Any, None]]


class Presence:
    """The grace timers of one table's seats (on the running loop)."""

    __slots__ = ("_tasks", "_timers", "expired", "grace_seconds", "seats")

    def __init__(self, seats: Sequence[Seat], grace_seconds: float, expired: Expired) -> None:
        self.seats = seats
        self.grace_seconds = grace_seconds
        self.expired = expired
        self._timers: dict[int, asyncio.TimerHandle] = {}
        self._tasks: set[asyncio.Task[None]] = set()  # running callbacks, kept from the GC

    def in_grace(self, seat: Seat) -> bool:
        """Whether ``seat``'s grace period is running."""
        return seat.index in self._timers

    def start_grace(self, seat: Seat) -> None:
        """Start ``seat``'s grace period, unless one runs already or no person sits there."""
        player = seat.player
        if player is None or seat.index in self._timers:
            return
        self._timers[seat.index] = asyncio.get_running_loop().call_later(
            self.grace_seconds, self._run_out, seat.index, player)

    def _run_out(self, index: int, player: Player) -> None:
        self._timers.pop(index, None)
        task = asyncio.get_running_loop().create_task(self.expired(index, player))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def mark_away(self, seat: Seat, player: Player) -> bool:
        """``player``'s grace ran out: ``seat`` is away if they still sit there, gone.

        Returns whether the seat is now away (a timer that fired for someone who
        came back or left meanwhile changes nothing).
        """
        if seat.player is not player or player.connected:
            return False
        seat.away = True
        return True

    def came_back(self, seat: Seat) -> bool:
        """The person of ``seat`` is here again; returns whether they had been away."""
        self.cancel(seat)
        was_away, seat.away = seat.away, False
        return was_away

    def cancel(self, seat: Seat) -> None:
        """Stop ``seat``'s grace timer, if one runs."""
        timer = self._timers.pop(seat.index, None)
        if timer is not None:
            timer.cancel()

    def start_absent(self) -> None:
        """Start the grace of every seated person with no connection (after a restore)."""
        for seat in self.seats:
            if seat.player is not None and not seat.player.connected:
                self.start_grace(seat)

    def stop(self) -> None:
        """Stop every grace timer (the table closes, or the server shuts down)."""
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()


__all__ = ["Expired", "Presence"]
