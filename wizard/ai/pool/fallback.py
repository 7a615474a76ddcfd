"""`FallbackGate`: the pool's heuristic answers, computed a slice of loop time at a time.

A burst of requests past the pool's bounds is answered by the fallback agent
on the event loop. Computed all at once (1,000 refused requests at ~70 µs each)
that blocks the loop for tens of milliseconds, and admitted requests are then
answered past their deadline. The gate computes waiting fallbacks earliest
deadline first, at most ``slice_s`` of loop time per loop turn; one whose
deadline is closer than ``urgent_s`` is computed at once.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from collections.abc import Callable

from ..decision import Decision, DecisionRequest

#: ``compute(request, reason, arrived, dispatched)`` → the fallback's `Decision`
Compute = Callable[[DecisionRequest, str, float, float | None], Decision]


class FallbackGate:
    """Fallback answers in deadline order, ``slice_s`` of loop time per loop turn."""

    def __init__(self, compute: Compute, *, slice_s: float = 0.002,
                 urgent_s: float = 0.005) -> None:
        self.compute = compute
        self.slice_s = slice_s
        self.urgent_s = urgent_s
        self._heap: list[tuple[float, int, DecisionRequest, str, float, float | None,
                               asyncio.Future[Decision]]] = []
        self._order = itertools.count()
        self._handle: asyncio.Handle | None = None

    @property
    def waiting(self) -> int:
        return len(self._heap)

    async def answer(self, request: DecisionRequest, reason: str, arrived: float,
                     dispatched: float | None = None) -> Decision:
        """The fallback's decision for ``request`` (for ``reason``), by its deadline."""
        if request.deadline - time.monotonic() < self.urgent_s:
            return self.compute(request, reason, arrived, dispatched)
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Decision] = loop.create_future()
        heapq.heappush(self._heap, (request.deadline, next(self._order), request, reason,
                                    arrived, dispatched, future))
        if self._handle is None:
            self._handle = loop.call_soon(self._run)
        return await future

    def _run(self) -> None:
        self._handle = None
        start = time.perf_counter()
        heap = self._heap
        while heap:
            _, _, request, reason, arrived, dispatched, future = heapq.heappop(heap)
            if future.done():  # its caller was cancelled
                continue
            try:
                future.set_result(self.compute(request, reason, arrived, dispatched))
            except Exception as exc:  # e.g. not the seat's turn: the caller raises it
                future.set_exception(exc)
            if time.perf_counter() - start >= self.slice_s:
                break
        if heap:
            self._handle = asyncio.get_running_loop().call_soon(self._run)
        # Give up the GIL for a moment: while refused requests keep the loop busy, the
        # executor's threads that carry the workers' answers (`ProcessPoolExecutor`'s
        # manager and queue feeder) otherwise wait a switch interval (5 ms) for it at each
        # of their many small steps, a batch then takes hundreds of milliseconds to come
        # back, and admitted requests miss their deadline (bench_pool.py at concurrency 256:
        # 32-224 late answers in 3 runs of 3 s without this, 0 with it).
        time.sleep(0)


__all__ = ["FallbackGate"]
