"""`Deadlines`: one loop timer that answers every waiting request by its due time.

A timer per request (``loop.call_at`` + ``cancel``) cost ~2 µs of loop time each:
asyncio orders its timers with a Python-level ``__lt__``. Here the due times are
plain tuples in one heap (compared in C), and one timer waits for the earliest.
Answered requests leave the heap lazily; it is swept when it grows past four
times the requests in progress, so it stays small.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from collections.abc import Callable
from typing import Any, Generic, Protocol, TypeVar


class Answerable(Protocol):
    @property
    def future(self) -> asyncio.Future[Any]: ...


T = TypeVar("T", bound=Answerable)


class Deadlines(Generic[T]):
    """``watch(item, due)``: ``on_due(item)`` at ``due`` unless ``item.future`` is done by then."""

    def __init__(self, on_due: Callable[[T], None]) -> None:
        self.on_due = on_due
        self._heap: list[tuple[float, int, T]] = []  # (due, order, item)
        self._order = itertools.count()
        self._timer: asyncio.TimerHandle | None = None
        self._timer_at = 0.0
        # the loop, looked up once: on Python 3.11 every lookup is a getpid() system call
        self._loop: asyncio.AbstractEventLoop | None = None

    def __len__(self) -> int:
        return len(self._heap)

    def watch(self, item: T, due: float, in_progress: int = 0) -> None:
        """Call ``on_due(item)`` at ``due`` (monotonic seconds) if it is still unanswered."""
        heap = self._heap
        if len(heap) > 4 * max(64, in_progress):
            heap[:] = [entry for entry in heap if not entry[2].future.done()]
            heapq.heapify(heap)
        heapq.heappush(heap, (due, next(self._order), item))
        if self._timer is None or due < self._timer_at:
            self._arm(due)

    def close(self) -> None:
        """Forget every item and stop the timer."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._heap.clear()

    def _arm(self, due: float) -> None:
        if self._timer is not None:
            self._timer.cancel()
        loop = self._loop
        if loop is None:
            loop = self._loop = asyncio.get_running_loop()
        self._timer_at = due
        self._timer = loop.call_at(loop.time() + (due - time.monotonic()), self._fire)

    def _fire(self) -> None:
        self._timer = None
        heap = self._heap
        now = time.monotonic()
        while heap and heap[0][0] <= now:
            item = heapq.heappop(heap)[2]
            if not item.future.done():
                self.on_due(item)
        while heap and heap[0][2].future.done():
            heapq.heappop(heap)
        if heap:
            self._arm(heap[0][0])


__all__ = ["Deadlines"]
