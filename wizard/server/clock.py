"""The server's one clock: every deadline, idle time and budget reads it.

`Now` is what a component is given (``time.monotonic`` when serving); a test
gives a `ManualClock` instead and moves it, so it never mixes a made-up time
with the real one.

>>> clock = ManualClock(1000.0)
>>> clock()
1000.0
>>> clock.advance(2.5)
>>> clock()
1002.5
"""

from __future__ import annotations

import time
from collections.abc import Callable

Now = Callable[[], float]
"""Seconds on a monotonic clock (only differences mean something)."""

MONOTONIC: Now = time.monotonic


class ManualClock:
    """A clock that stands still until `advance` moves it (tests, doctests).

    >>> ManualClock().advance(-1)
    Traceback (most recent call last):
    ...
    ValueError: a monotonic clock cannot go back (-1 s)
    """

    __slots__ = ("now",)

    def __init__(self, start: float = 0.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        """Move the clock ``seconds`` forward; raises `ValueError` for a step back."""
        if seconds < 0:
            raise ValueError(f"a monotonic clock cannot go back ({seconds:g} s)")
        self.now += seconds


__all__ = ["MONOTONIC", "ManualClock", "Now"]
