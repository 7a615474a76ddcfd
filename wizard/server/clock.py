"""The server's one clock: the running event loop's ``loop.time()``.

Every deadline, idle check, turn clock, grace period, flush and message budget
of the server reads ``loop.time()`` and is scheduled on that same time base
(``loop.call_at`` / ``call_later``, ``asyncio.sleep``), so a timer and the check
it leads to never disagree. Serving, the loop's clock is the monotonic one.

Two other clocks have their own jobs and never decide a server deadline:

- the decider's: a `DecisionRequest` deadline is ``time.monotonic()`` seconds
  (the pool answers off the loop); `decider_deadline` makes one from seconds on
  the loop's clock;
- the wall clock (``time.time()``): timestamps that are stored.

A test that controls time runs on a `ManualClockLoop`: its clock stands still
until the test calls `ManualClockLoop.advance`, and the timers then due fire on
the loop's next turn.

>>> import asyncio
>>> async def grace(loop: ManualClockLoop) -> list[float]:
...     fired: list[float] = []
...     loop.call_later(30.0, lambda: fired.append(loop.time()))
...     loop.advance(29.0)
...     await loop.settle()
...     before = list(fired)
...     loop.advance(1.0)
...     await loop.settle()
...     return before + fired
>>> loop = ManualClockLoop(1000.0)
>>> loop.run_until_complete(grace(loop))
[1030.0]
>>> loop.close()
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable

Now = Callable[[], float]
"""Seconds on a monotonic clock (only differences mean something); ``loop.time`` is one."""


def loop_time() -> float:
    """The running event loop's time: the server's clock (raises `RuntimeError` off the loop)."""
    return asyncio.get_running_loop().time()


def decider_deadline(seconds: float) -> float:
    """A `DecisionRequest` deadline ``seconds`` from now, on the decider's clock.

    The decider (``wizard.ai``) measures deadlines in ``time.monotonic()`` seconds;
    the server measures how long a decision may take on the loop's clock and hands
    over only that span.

    >>> 0.0 < decider_deadline(2.0) - time.monotonic() <= 2.0
    True
    """
    return time.monotonic() + seconds


class ManualClockLoop(asyncio.SelectorEventLoop):
    """An event loop whose clock stands still until `advance` moves it (tests, doctests).

    Everything on the loop reads this clock: ``loop.time()``, ``asyncio.sleep``,
    ``call_later``, ``asyncio.wait_for``. A test moves it and then waits on an
    event (or `settle`), never on real time.

    >>> loop = ManualClockLoop(5.0)
    >>> loop.advance(-1)
    Traceback (most recent call last):
    ...
    ValueError: a monotonic clock cannot go back (-1 s)
    >>> loop.close()
    """

    # the base loop's queues (asyncio.base_events), read by `settle`
    _ready: deque[asyncio.Handle]
    _scheduled: list[asyncio.TimerHandle]

    def __init__(self, start: float = 0.0) -> None:
        super().__init__()
        self._now = start

    def time(self) -> float:
        return self._now

    def advance(self, seconds: float) -> None:
        """Move the clock ``seconds`` forward (from any thread): the timers then due fire on
        the loop's next turn. Raises `ValueError` for a step back."""
        if seconds < 0:
            raise ValueError(f"a monotonic clock cannot go back ({seconds:g} s)")
        self._now += seconds
        if not self.is_closed():
            self.call_soon_threadsafe(_nothing)  # wake a loop that waits for a later timer

    async def settle(self) -> None:
        """Return once nothing on the loop is ready to run or due: the timers that were due
        have fired and what they started ran until it waits (on the loop's own work;
        a thread's answer is not waited for)."""
        while self._ready or (self._scheduled and self._scheduled[0].when() <= self._now):
            await asyncio.sleep(0)


def _nothing() -> None:
    """A callback that only wakes the loop."""


__all__ = ["ManualClockLoop", "Now", "decider_deadline", "loop_time"]
