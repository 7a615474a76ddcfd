"""`PipeExecutor`: worker processes fed through pipes by the event loop itself.

The subset of `concurrent.futures.ProcessPoolExecutor` that `InferencePool`
uses (``submit``, ``shutdown``, ``_processes``, a broken pool reported as
`BrokenProcessPool`), without its helper threads: the loop pickles each task
and writes it to the chosen worker's pipe, and reads the answers when the pipe
is readable (``loop.add_reader``). `ProcessPoolExecutor` moves every task
through two threads of the server process (its manager thread and its queue's
feeder thread) and every answer back through the manager thread; each of those
steps waits for the GIL while the loop holds it, which is what bounds the
pool's decisions/s (see `docs/performance.md`).

Must be created and used on the event loop's thread (``shutdown`` may be called
again from another thread; it then only joins). Tasks go to the worker with
the fewest tasks in progress; a worker answers its tasks in order. When a worker
dies, every task still in progress in any worker fails with
`BrokenProcessPool` and the executor is broken, as `ProcessPoolExecutor` does.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
from collections import deque
from collections.abc import Callable
from concurrent.futures import Executor, Future
from concurrent.futures.process import BrokenProcessPool
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any


def serve(conn: Connection, initializer: Callable[..., object] | None,
          initargs: tuple[Any, ...]) -> None:
    """A worker process's main: initialise, then answer ``(fn, args)`` until ``None`` or EOF."""
    if initializer is not None:
        initializer(*initargs)
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):  # the server is gone
            return
        if message is None:
            return
        fn, args = message
        try:
            reply: tuple[str, Any] = ("ok", fn(*args))
        except BaseException as exc:  # the caller's future raises it
            reply = ("exc", exc)
        try:
            conn.send(reply)
        except Exception as exc:  # e.g. a result that does not pickle
            conn.send(("exc", RuntimeError(f"the worker's answer did not pickle: {exc!r}")))


class _Worker:
    __slots__ = ("conn", "pending", "process")

    def __init__(self, process: BaseProcess, conn: Connection) -> None:
        self.process = process
        self.conn = conn
        self.pending: deque[Future[Any]] = deque()


class PipeExecutor(Executor):
    """``max_workers`` spawned processes, each running ``initializer(*initargs)`` once."""

    def __init__(self, max_workers: int, initializer: Callable[..., object] | None = None,
                 initargs: tuple[Any, ...] = ()) -> None:
        if max_workers < 1:
            raise ValueError("max_workers must be >= 1")
        self._max_workers = max_workers
        self._initializer = initializer
        self._initargs = initargs
        self._workers: list[_Worker] = []
        self._processes: dict[int, BaseProcess] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._broken = False
        self._shutdown = False

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        """Send ``fn(*args)`` to a worker; raises `BrokenProcessPool` once a worker died."""
        if kwargs:
            raise TypeError("PipeExecutor.submit takes no keyword arguments")
        if self._broken:
            raise BrokenProcessPool("a worker process died")
        if self._shutdown:
            raise RuntimeError("cannot schedule new futures after shutdown")
        if not self._workers:
            self._start()
        worker = min(self._workers, key=lambda w: len(w.pending))
        future: Future[Any] = Future()
        try:
            worker.conn.send((fn, args))
        except OSError:  # the worker is gone; its EOF may not have been read yet
            self._break(worker)
            raise BrokenProcessPool("a worker process died") from None
        worker.pending.append(future)
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Ask every worker to stop (the first call, on the loop), then join them if ``wait``."""
        if not self._shutdown:
            self._shutdown = True
            for worker in self._workers:
                self._unwatch(worker)
                with contextlib.suppress(OSError):  # already gone: nothing to ask
                    worker.conn.send(None)
                self._fail(worker, cancel=cancel_futures)
        if wait:
            for process in list(self._processes.values()):
                process.join()
            for worker in self._workers:
                worker.conn.close()

    # -- the loop's side -----------------------------------------------------------------

    def _start(self) -> None:
        self._loop = asyncio.get_running_loop()
        context = multiprocessing.get_context("spawn")  # no fork of a process with a loop
        for _ in range(self._max_workers):
            ours, theirs = context.Pipe()
            process = context.Process(target=serve, args=(theirs, self._initializer,
                                                          self._initargs),
                                      name="wizard-ai-worker", daemon=True)
            process.start()
            theirs.close()  # so that the worker's death reads as EOF here
            assert process.pid is not None
            self._processes[process.pid] = process
            worker = _Worker(process, ours)
            self._workers.append(worker)
            self._loop.add_reader(ours.fileno(), self._readable, worker)

    def _readable(self, worker: _Worker) -> None:
        try:
            kind, value = worker.conn.recv()
        except (EOFError, OSError):
            self._break(worker)
            return
        if not worker.pending:
            return
        future = worker.pending.popleft()
        if future.done():
            return
        if kind == "ok":
            future.set_result(value)
        else:
            future.set_exception(value)

    def _break(self, dead: _Worker) -> None:
        """A worker died: every task in progress fails, as in a broken `ProcessPoolExecutor`."""
        if self._broken:
            return
        self._broken = True
        for worker in self._workers:
            if worker is dead:
                self._unwatch(worker)
            self._fail(worker, cancel=False)

    def _unwatch(self, worker: _Worker) -> None:
        if self._loop is not None and not worker.conn.closed:
            with contextlib.suppress(ValueError, OSError):
                self._loop.remove_reader(worker.conn.fileno())

    @staticmethod
    def _fail(worker: _Worker, cancel: bool) -> None:
        while worker.pending:
            future = worker.pending.popleft()
            if future.done():
                continue
            if cancel:
                future.cancel()
            else:
                future.set_exception(BrokenProcessPool("a worker process died"))


__all__ = ["PipeExecutor", "serve"]
