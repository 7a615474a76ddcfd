"""The pool's executors: making one for a `PoolSettings`, its processes, stopping it.

Both transports (``PoolSettings.transport``) are `concurrent.futures.Executor`s
whose worker processes are in ``_processes`` (pid → process), spawned (each runs
`worker_process.init_worker` once, then answers one task at a time):
`pipes.PipeExecutor` (``"pipes"``, the default: the loop writes each task to a
worker's pipe and reads the answers with ``add_reader``) or the stdlib
`ProcessPoolExecutor` (``"executor"``). Measured side by side in one run of
`scripts/bench_pool.py` on a quiet machine, the pipes gave 1.6-1.8x the executor's
decisions/s and a third lower p99: the executor moves every task and answer through
helper threads of this process, and each of their steps waits for the GIL while the
loop holds it (`docs/performance.md`).
"""

from __future__ import annotations

import asyncio
import multiprocessing
import time
from concurrent.futures import Executor, ProcessPoolExecutor
from multiprocessing.process import BaseProcess

import structlog

from ..policy import models_dir
from . import worker_process
from .pipes import PipeExecutor
from .settings import PoolSettings

log = structlog.get_logger(__name__)


def new_executor(settings: PoolSettings) -> Executor:
    """Spawned workers (no fork of a process with a loop) that load every policy once."""
    directory = settings.models_dir or str(models_dir())
    initargs = (directory, settings.worker_imports)
    if settings.transport == "pipes":
        return PipeExecutor(settings.workers, initializer=worker_process.init_worker,
                            initargs=initargs)
    return ProcessPoolExecutor(settings.workers, mp_context=multiprocessing.get_context("spawn"),
                               initializer=worker_process.init_worker, initargs=initargs)


def processes(executor: Executor | None) -> list[BaseProcess]:
    """The executor's worker processes (both transports keep them in ``_processes``)."""
    return list((getattr(executor, "_processes", None) or {}).values())


def worker_pids(executor: Executor | None) -> list[int]:
    """Process ids of the executor's live workers."""
    return [p.pid for p in processes(executor) if p.pid is not None and p.is_alive()]


def kill_all(executor: Executor) -> None:
    """SIGKILL every process an executor still has (its tasks are lost anyway)."""
    for process in processes(executor):
        if process.is_alive():
            process.kill()


async def stop(executor: Executor, close_timeout_s: float) -> None:
    """Stop ``executor``; kill workers that do not stop within ``close_timeout_s``."""
    workers = processes(executor)
    executor.shutdown(wait=False, cancel_futures=True)
    deadline = time.monotonic() + close_timeout_s
    for process in workers:
        await asyncio.to_thread(process.join, max(0.0, deadline - time.monotonic()))
        if process.is_alive():
            log.warning("pool_worker_killed", pid=process.pid)
            process.kill()
            await asyncio.to_thread(process.join, close_timeout_s)
    await asyncio.to_thread(executor.shutdown, True)


__all__ = ["kill_all", "new_executor", "processes", "stop", "worker_pids"]
