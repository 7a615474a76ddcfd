"""`Workers`: the pool's worker processes, started, watched, and replaced when one dies.

One executor at a time serves (`executors`: pipes or the stdlib
`ProcessPoolExecutor`). `start` spawns its processes and waits until each has
answered a ping (it has loaded every policy). From then on the loop watches
every process's sentinel: when one dies (``kill -9``, a crash, the hung-worker
kill), the executor is broken, ``on_down`` tells the pool, and a successor is
started at once in the background, pinged like the first one; ``on_up`` tells
the pool when it serves. A successor that fails to start is retried with
exponential backoff (``restart_backoff_s`` doubling up to ``restart_backoff_max_s``),
each failure logged. Nothing waits for a request to start a successor, so a pool
whose requests all have short deadlines heals as fast as one with long ones.

>>> WorkerState.SERVING.can_become(WorkerState.RESTARTING)
True
>>> WorkerState.CLOSED.can_become(WorkerState.SERVING)
False
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import os
import signal
import time
from collections.abc import Callable
from concurrent.futures import Executor, Future
from concurrent.futures.process import BrokenProcessPool
from typing import Any

import structlog

from . import executors, worker_process
from .metrics import PoolMetrics
from .settings import PoolSettings

log = structlog.get_logger(__name__)


class BadPoolTransitionError(RuntimeError):
    """A lifecycle step that the pool's state does not allow (a bug, never user input)."""


class WorkerState(enum.Enum):
    """Where the worker processes are; `can_become` is the only way between states."""

    NEW = "new"
    STARTING = "starting"  # the first executor is being started (`Workers.start`)
    SERVING = "serving"  # an executor's workers answer
    RESTARTING = "restarting"  # a worker died: no executor serves, a successor is starting
    CLOSED = "closed"

    def can_become(self, other: WorkerState) -> bool:
        return other in _NEXT[self]


_NEXT: dict[WorkerState, frozenset[WorkerState]] = {
    WorkerState.NEW: frozenset({WorkerState.STARTING, WorkerState.CLOSED}),
    WorkerState.STARTING: frozenset({WorkerState.SERVING, WorkerState.CLOSED}),
    WorkerState.SERVING: frozenset({WorkerState.RESTARTING, WorkerState.CLOSED}),
    WorkerState.RESTARTING: frozenset({WorkerState.SERVING, WorkerState.CLOSED}),
    WorkerState.CLOSED: frozenset(),
}


class Workers:
    """The serving executor and its successors.

    ``on_up()`` is called when a successor serves, ``on_down()`` when the serving
    executor broke (the pool then answers what that executor held).
    """

    def __init__(self, settings: PoolSettings, metrics: PoolMetrics, on_up: Callable[[], None],
                 on_down: Callable[[], None]) -> None:
        self.settings = settings
        self.metrics = metrics  # serving, worker_restarts, restart_failures
        self.on_up = on_up
        self.on_down = on_down
        self.state = WorkerState.NEW
        self.generation = 0  # bumped each time an executor breaks
        self.start_seconds = 0.0  # how long the last executor took to serve
        self.policies: frozenset[str] = frozenset()
        self._executor: Executor | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._watched: list[int] = []  # sentinel fds the loop reads for the serving executor
        self._restart: asyncio.Task[None] | None = None
        self._stopping: set[asyncio.Task[None]] = set()  # old executors being joined

    def _become(self, state: WorkerState) -> None:
        if not self.state.can_become(state):
            raise BadPoolTransitionError(f"pool workers cannot go from {self.state.value} "
                                         f"to {state.value}")
        self.state = state

    @property
    def serving(self) -> bool:
        return self.state is WorkerState.SERVING

    # -- starting ------------------------------------------------------------------------

    async def start(self) -> None:
        """Start the first executor; raises `RuntimeError` if its workers do not come up
        within ``start_timeout_s``."""
        self._become(WorkerState.STARTING)
        self._loop = asyncio.get_running_loop()
        try:
            executor, pings = await self._started_executor()
        except RuntimeError:
            self._become(WorkerState.CLOSED)
            raise
        for stem, error in pings[0]["errors"].items():
            log.warning("pool_policy_not_loaded", policy=stem, error=error)
        self.policies = frozenset(pings[0]["policies"])
        self._serve(executor)

    async def _started_executor(self) -> tuple[Executor, list[dict[str, Any]]]:
        """A new executor whose every worker answered a ping, or `RuntimeError`."""
        started = time.monotonic()
        executor = executors.new_executor(self.settings)
        loop = self._loop
        assert loop is not None
        try:
            pings = await asyncio.wait_for(asyncio.gather(*(
                loop.run_in_executor(executor, worker_process.ping)
                for _ in range(self.settings.workers))), self.settings.start_timeout_s)
        except (TimeoutError, BrokenProcessPool, OSError, RuntimeError) as exc:
            executors.kill_all(executor)
            await executors.stop(executor, self.settings.close_timeout_s)
            raise RuntimeError(f"inference pool workers did not start: {exc!r}") from exc
        except BaseException:  # cancelled (close): leave no process behind
            executors.kill_all(executor)
            executor.shutdown(wait=False, cancel_futures=True)
            raise
        self.start_seconds = time.monotonic() - started
        return executor, pings

    def _serve(self, executor: Executor) -> None:
        """``executor`` serves from now on; the loop watches its processes."""
        self._executor = executor
        self._become(WorkerState.SERVING)
        self.metrics.serving = True
        loop = self._loop
        assert loop is not None
        for process in executors.processes(executor):
            fd = process.sentinel
            loop.add_reader(fd, self._died, self.generation, fd)
            self._watched.append(fd)

    # -- submitting ----------------------------------------------------------------------

    def submit(self, message: tuple[str, tuple[Any, ...]]) -> Future[Any] | None:
        """Send a task to the serving executor; None if none serves (or it just broke)."""
        if self._executor is None or self.state is not WorkerState.SERVING:
            return None
        try:
            return self._executor.submit(worker_process.run_task, message)
        except (BrokenProcessPool, RuntimeError):  # broken, or shut down meanwhile
            self.lost(self.generation)
            return None

    def pids(self) -> list[int]:
        """Process ids of the serving executor's live workers."""
        return executors.worker_pids(self._executor)

    # -- losing and replacing ------------------------------------------------------------

    def _died(self, generation: int, fd: int) -> None:
        assert self._loop is not None
        with contextlib.suppress(ValueError, OSError):
            self._loop.remove_reader(fd)
        self.lost(generation)

    def lost(self, generation: int) -> None:
        """The executor of ``generation`` broke: replace it (once per break)."""
        if generation != self.generation or self.state is not WorkerState.SERVING:
            return
        old, self._executor = self._executor, None
        pids = executors.worker_pids(old)
        self._unwatch()
        self.generation += 1
        self._become(WorkerState.RESTARTING)
        self.metrics.serving = False
        self.metrics.worker_restarts += 1
        log.warning("pool_worker_lost", pids=pids, restarts=self.metrics.worker_restarts)
        self.on_down()  # first: the pool answers what the old executor held
        loop = self._loop
        assert loop is not None
        if old is not None:
            old.shutdown(wait=False, cancel_futures=True)
            executors.kill_all(old)
            self._keep(loop.create_task(executors.stop(old, self.settings.close_timeout_s)))
        self._restart = loop.create_task(self._start_successor())

    async def _start_successor(self) -> None:
        """Start executors until one serves; back off after each that does not."""
        backoff = self.settings.restart_backoff_s
        while self.state is WorkerState.RESTARTING:
            try:
                executor, _ = await self._started_executor()
            except RuntimeError as exc:
                self.metrics.restart_failures += 1
                log.error("pool_restart_failed", error=str(exc),
                          failures=self.metrics.restart_failures, retry_in_s=backoff)
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, self.settings.restart_backoff_max_s)
                continue
            if self.state is not WorkerState.RESTARTING:  # closed meanwhile
                executors.kill_all(executor)
                return
            self._serve(executor)
            log.info("pool_restarted", workers=self.settings.workers, pids=self.pids(),
                     start_s=round(self.start_seconds, 2))
            self.on_up()

    def _keep(self, task: asyncio.Task[None]) -> None:
        self._stopping.add(task)
        task.add_done_callback(self._stopping.discard)

    def kill_hung(self) -> None:
        """Kill the serving executor's workers (one of them is stuck; which one, the
        executor cannot say): their deaths replace the executor as any death does."""
        for pid in self.pids():
            os.kill(pid, signal.SIGKILL)

    def _unwatch(self) -> None:
        if self._loop is not None:
            for fd in self._watched:
                with contextlib.suppress(ValueError, OSError):
                    self._loop.remove_reader(fd)
        self._watched = []

    # -- stopping ------------------------------------------------------------------------

    async def close(self) -> None:
        """Stop the executor (and a successor being started); kill workers that do not stop
        within ``close_timeout_s``."""
        if self.state is WorkerState.CLOSED:
            return
        self._become(WorkerState.CLOSED)
        self.metrics.serving = False
        self._unwatch()
        if self._restart is not None:
            self._restart.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._restart
        executor, self._executor = self._executor, None
        if executor is not None:
            await executors.stop(executor, self.settings.close_timeout_s)
        if self._stopping:
            await asyncio.gather(*self._stopping, return_exceptions=True)


__all__ = ["BadPoolTransitionError", "WorkerState", "Workers"]
