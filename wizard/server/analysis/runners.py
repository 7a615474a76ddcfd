"""Where an analysis job's slices run: a background process of their own, at the lowest
CPU priority, beside the inference pool's live workers (`wizard.server.analysis.jobs`).

A slice is `wizard.ai.analysis.analyse_slice` run in the worker
(`worker_process.run_analysis`); it never takes a live decision. `PoolRunner` also
says when live decisions are in flight, so a waiting job can tell its watchers why.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import concurrent.futures.process
import multiprocessing
from typing import Any, Protocol

from wizard.ai.pool import InferencePool
from wizard.ai.pool import worker_process as pool_worker

BACKGROUND_NICE = 19  # CPU niceness of the process that runs the slices


class SliceRunner(Protocol):
    """Where slices run: `PoolRunner` (the inference pool) or `ProcessRunner`."""

    workers: int

    async def run(self, args: tuple[Any, ...]) -> tuple[int, int, list[dict[str, Any]]]: ...

    def live_busy(self) -> bool: ...

    async def close(self) -> None: ...


class ProcessRunner:
    """Slices in one spawned process of their own, at the lowest CPU priority.

    The process runs at niceness 19 (``SCHED_IDLE`` on Linux), so the operating
    system gives it only the CPU time that live work (the loop, the pool's
    workers) leaves over; it never takes a live decision. A slice whose process
    died raises `RuntimeError` and the next slice starts a fresh process.
    """

    workers = 1  # one game at a time

    def __init__(self, niceness: int = BACKGROUND_NICE) -> None:
        self.niceness = niceness
        self.slices = 0  # slices run so far
        self.running = 0  # slices in progress
        self._executor: concurrent.futures.ProcessPoolExecutor | None = None

    async def run(self, args: tuple[Any, ...]) -> tuple[int, int, list[dict[str, Any]]]:
        if self._executor is None:
            self._executor = concurrent.futures.ProcessPoolExecutor(
                1, mp_context=multiprocessing.get_context("spawn"),
                initializer=pool_worker.lower_priority, initargs=(self.niceness,))
        loop = asyncio.get_running_loop()
        self.running += 1
        try:
            result = await loop.run_in_executor(self._executor, pool_worker.run_analysis, *args)
        except concurrent.futures.process.BrokenProcessPool as exc:
            self._executor = None
            raise RuntimeError("the analysis worker died") from exc
        finally:
            self.running -= 1
        self.slices += 1
        return result

    @property
    def pid(self) -> int | None:
        """Process id of the analysis worker once it runs (for operators and tests)."""
        processes = getattr(self._executor, "_processes", None) or {}
        return next(iter(processes), None)

    def live_busy(self) -> bool:
        return False

    async def close(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None


class PoolRunner(ProcessRunner):
    """`ProcessRunner` beside the inference pool: says when live decisions are in flight."""

    def __init__(self, pool: InferencePool, niceness: int = BACKGROUND_NICE) -> None:
        super().__init__(niceness)
        self.pool = pool

    def live_busy(self) -> bool:
        return self.pool.metrics.inflight > 0


def make_runner(decider: object) -> SliceRunner:
    """The pool's workers when the decider is the inference pool, else a process of its own."""
    if isinstance(decider, InferencePool):
        return PoolRunner(decider)
    return ProcessRunner()


__all__ = ["BACKGROUND_NICE", "PoolRunner", "ProcessRunner", "SliceRunner", "make_runner"]
