"""Low-priority work of the inference pool (game analysis), apart from live decisions.

`InferencePool.run_background` queues a task here; the pool hands the oldest
one to its background worker — a worker process of its own, started on first
use at the lowest CPU priority (``PoolSettings.background_nice``, and
``SCHED_IDLE`` on Linux), that never takes a live decision — as soon as that
worker is idle. So a live bot never
waits behind an analysis, and the operating system gives the analysis only
the CPU time live work leaves over. Callers keep their tasks short (an
analysis sends slices of a few decisions): a task whose worker dies is
retried once on a fresh background worker, then fails.

>>> queue = BackgroundQueue()
>>> queue.next() is None
True
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from typing import Any

RETRIES = 1


class BackgroundTask:
    """One queued task: ``(task, args)`` for ``pool_worker.TASKS`` and its future result."""

    __slots__ = ("args", "attempts", "future", "started", "task")

    def __init__(self, task: str, args: tuple[Any, ...], future: asyncio.Future[Any]) -> None:
        self.task = task
        self.args = args
        self.future = future
        self.attempts = 0
        self.started = 0.0  # time.monotonic() when a worker took it

    async def result(self) -> Any:
        """The worker's result; raises `RuntimeError` if the task failed or was cancelled."""
        return await self.future

    def finish(self, message: tuple[Any, ...]) -> None:
        """The worker's reply: ``("ok", result)`` or ``("error", text, traceback)``."""
        if self.future.done():
            return
        if message[0] == "ok":
            self.future.set_result(message[1])
        else:
            self.future.set_exception(RuntimeError(f"background task failed: {message[1]}"))


class BackgroundQueue:
    """FIFO of background tasks; the pool takes them with `next` when a worker is free."""

    def __init__(self) -> None:
        self._items: deque[BackgroundTask] = deque()
        self.running = 0
        self.done = 0

    def __len__(self) -> int:
        return len(self._items)

    def add(self, task: str, args: tuple[Any, ...]) -> BackgroundTask:
        item = BackgroundTask(task, args, asyncio.get_running_loop().create_future())
        self._items.append(item)
        return item

    def next(self) -> BackgroundTask | None:
        """The oldest task whose caller still waits (None if there is none)."""
        while self._items:
            item = self._items.popleft()
            if not item.future.done():
                item.attempts += 1
                item.started = time.monotonic()
                self.running += 1
                item.future.add_done_callback(self._finished)
                return item
        return None

    def _finished(self, _: asyncio.Future[Any]) -> None:
        self.running -= 1
        self.done += 1

    def retry(self, item: BackgroundTask) -> None:
        """Its worker was lost: queue it again at the front, or fail it after `RETRIES`."""
        if item.future.done():
            return
        item.future.remove_done_callback(self._finished)
        self.running -= 1
        if item.attempts > RETRIES:
            item.future.set_exception(RuntimeError("the worker running the task was lost"))
            return
        self._items.appendleft(item)

    def cancel_all(self, why: str) -> None:
        """Every waiting caller gets `RuntimeError` (``why``): the pool is closing, say."""
        while self._items:
            item = self._items.popleft()
            if not item.future.done():
                item.future.set_exception(RuntimeError(why))


__all__ = ["BackgroundQueue", "BackgroundTask"]
