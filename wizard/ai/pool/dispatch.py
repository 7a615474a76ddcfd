"""`Dispatcher`: the pool's batches on their way to the workers and back.

Admitted requests wait in their `Buffer` until its window closes or it is full;
`pump` sends ripe batches, oldest first, to free slots (``batches_per_worker``
per worker); a worker's reply answers each request (`answers`), or a fallback
reason when the task failed. When the workers break, what they held is answered
``worker_lost`` and fresh slots replace the old ones, so a late answer of the
old workers finds none.
"""

from __future__ import annotations

import asyncio
import threading
import time
from concurrent.futures import CancelledError, Future
from concurrent.futures.process import BrokenProcessPool
from typing import Any

import structlog

from ..decision import Decision
from .batches import Batch, Buffer, Slot, Waiting, answers, resolve, task_for
from .metrics import PoolMetrics
from .settings import PoolSettings
from .workers import Workers

log = structlog.get_logger(__name__)


class Dispatcher:
    """Slots, batches and their answers for one pool; ``open`` while the pool sends."""

    def __init__(self, settings: PoolSettings, metrics: PoolMetrics, workers: Workers,
                 buffers: dict[tuple[str, str], Buffer]) -> None:
        self.settings = settings
        self.metrics = metrics
        self._workers = workers
        self._buffers = buffers
        self.open = False
        self.slots: list[Slot] = []
        self.average_compute: dict[str, float] = {}  # seconds per task, by route
        self._loop: asyncio.AbstractEventLoop | None = None
        self._loop_thread = 0  # the loop's thread (where `PipeExecutor` completes futures)

    def start(self) -> None:
        """Called on the loop once the workers serve."""
        self._loop = asyncio.get_running_loop()
        self._loop_thread = threading.get_ident()
        self.slots = self.new_slots()
        self.open = True

    def admit(self, buffer: Buffer, item: Waiting) -> None:
        self.metrics.inflight += 1
        self.metrics.waiting += 1
        buffer.items.append(item)
        if len(buffer.items) >= buffer.capacity:
            buffer.ripe = True
            self.pump()
        elif buffer.timer is None and not buffer.ripe:
            loop = self._loop
            assert loop is not None
            buffer.timer = loop.call_later(self.settings.batch_window_ms / 1000.0,
                                           self._window_closed, buffer)

    def _window_closed(self, buffer: Buffer) -> None:
        buffer.timer = None
        buffer.ripe = bool(buffer.items)
        self.pump()

    def pump(self) -> None:
        """Send ripe batches, oldest first, to idle workers."""
        if not self.open or not self._workers.serving:
            return
        for slot in self.slots:
            if slot.batch is not None:
                continue
            ripe = [b for b in self._buffers.values() if b.ripe and b.items]
            if not ripe:
                return
            buffer = min(ripe, key=lambda b: b.items[0].arrived)
            items = buffer.items[:buffer.capacity]
            del buffer.items[:buffer.capacity]
            if not buffer.items:
                buffer.ripe = False
                if buffer.timer is not None:
                    buffer.timer.cancel()
                    buffer.timer = None
            self._dispatch(slot, buffer, items)

    def _dispatch(self, slot: Slot, buffer: Buffer, items: list[Waiting]) -> None:
        now = time.monotonic()
        self.metrics.waiting -= len(items)
        for item in items:
            item.dispatched = now
        slot.batch = Batch(buffer, items, now)
        try:
            message = task_for(buffer, items)
        except Exception:
            log.exception("pool_dispatch_error", agent=buffer.name)
            slot.batch = None
            resolve(items, "error")
            return
        if not self._send(slot, message):
            return
        self.metrics.batches += 1
        self.metrics.batch_rows += len(items)

    def _send(self, slot: Slot, message: tuple[str, tuple[Any, ...]]) -> bool:
        """Submit ``message`` to the workers; False (its batch answered) if they broke."""
        loop = self._loop
        assert loop is not None  # started
        slot.generation = self._workers.generation
        done = self._workers.submit(message)
        if done is None:
            self._finished(slot, None)
            return False
        loop_thread = self._loop_thread

        def finished(future: Future[Any]) -> None:
            # `PipeExecutor` completes on the loop's own thread: no wake-up through the
            # loop's self-pipe is needed then (an executor's helper thread needs one)
            if threading.get_ident() == loop_thread:
                loop.call_soon(self._finished, slot, future)
            else:
                loop.call_soon_threadsafe(self._finished, slot, future)

        done.add_done_callback(finished)
        return True

    def _finished(self, slot: Slot, done: Future[Any] | None) -> None:
        """A batch's task ended: its answers, or its fallback reason."""
        batch, slot.batch = slot.batch, None
        if batch is not None:
            try:
                if done is None:
                    raise BrokenProcessPool("the executor is broken")
                reply = done.result()
            except (BrokenProcessPool, CancelledError):
                resolve(batch.items, "worker_lost")
                self._workers.lost(slot.generation)
            except Exception as exc:  # e.g. the reply did not unpickle
                log.error("pool_worker_error", agent=batch.buffer.name, rows=len(batch.items),
                          error=f"{type(exc).__name__}: {exc}", traceback="")
                resolve(batch.items, "error")
            else:
                if reply[0] == "ok":
                    self._deliver(batch, reply[1], time.monotonic())
                else:  # the task raised in the worker
                    log.error("pool_worker_error", agent=batch.buffer.name,
                              rows=len(batch.items), error=reply[1], traceback=reply[2])
                    resolve(batch.items, "error")
        self.pump()

    def _deliver(self, batch: Batch, result: Any, now: float) -> None:
        elapsed = now - batch.dispatched
        name = batch.buffer.name
        previous = self.average_compute.get(name)
        weight = self.settings.compute_average_weight
        self.average_compute[name] = (
            elapsed if previous is None else previous + weight * (elapsed - previous))
        compute_ms = elapsed * 1000
        for item, (action, chosen) in zip(batch.items, answers(batch, result), strict=True):
            if item.future.done():  # its caller was already answered at its deadline
                continue
            queue_s = batch.dispatched - item.arrived
            self.metrics.observe(queue_s, elapsed)
            item.future.set_result(Decision(action, chosen, None, queue_s * 1000, compute_ms))

    def new_slots(self) -> list[Slot]:
        return [Slot() for _ in range(self.settings.workers * self.settings.batches_per_worker)]

    def workers_down(self) -> None:
        """The workers broke: what they held is lost, and so is what cannot outlast a
        successor's start. New slots, so that a late answer of the old workers finds none."""
        for slot in self.slots:
            if slot.batch is not None:
                resolve(slot.batch.items, "worker_lost")
                slot.batch = None
        self.slots = self.new_slots()
        now = time.monotonic()
        start_seconds = self._workers.start_seconds
        for buffer in self._buffers.values():
            keep = []
            for item in buffer.items:
                if item.request.deadline - now < start_seconds:
                    self.metrics.waiting -= 1
                    if not item.future.done():
                        item.future.set_result("worker_lost")
                else:
                    keep.append(item)
            buffer.items[:] = keep

    def kill_hung_workers(self) -> None:
        """A worker stuck on one task for ``hung_worker_s`` is killed (and so replaced)."""
        now = time.monotonic()
        stuck = [s.batch for s in self.slots
                 if s.batch is not None and now - s.batch.dispatched > self.settings.hung_worker_s]
        if stuck:
            log.error("pool_worker_hung", seconds=round(now - stuck[0].dispatched, 1))
            self._workers.kill_hung()


__all__ = ["Dispatcher"]
