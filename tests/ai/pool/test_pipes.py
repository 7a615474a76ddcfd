"""`PipeExecutor`: tasks through pipes read by the loop, as `ProcessPoolExecutor` answers them."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from concurrent.futures.process import BrokenProcessPool

import pytest

from wizard.ai.pool.pipes import PipeExecutor

_initialised: list[str] = []


def remember(word: str) -> None:
    _initialised.append(word)


def initialised() -> list[str]:
    return list(_initialised)


def divide(a: int, b: int) -> float:
    return a / b


def nap(seconds: float) -> int:
    time.sleep(seconds)
    return os.getpid()


def run(coroutine_function):  # type: ignore[no-untyped-def]
    return asyncio.run(asyncio.wait_for(coroutine_function(), 60))


def test_answers_come_back_in_order_and_errors_are_the_workers_exceptions() -> None:
    async def main() -> tuple[list[float], str]:
        executor = PipeExecutor(2)
        loop = asyncio.get_running_loop()
        try:
            answers = await asyncio.gather(*(loop.run_in_executor(executor, divide, n, 4)
                                             for n in range(8)))
            with pytest.raises(ZeroDivisionError) as raised:
                await loop.run_in_executor(executor, divide, 1, 0)
            return list(answers), str(raised.value)
        finally:
            executor.shutdown(wait=False)
            await asyncio.to_thread(executor.shutdown, True)

    answers, error = run(main)
    assert answers == [n / 4 for n in range(8)]
    assert "division by zero" in error


def test_each_worker_runs_the_initializer_once_before_its_tasks() -> None:
    async def main() -> list[list[str]]:
        executor = PipeExecutor(2, initializer=remember, initargs=("ready",))
        loop = asyncio.get_running_loop()
        try:
            return list(await asyncio.gather(*(loop.run_in_executor(executor, initialised)
                                               for _ in range(4))))
        finally:
            executor.shutdown(wait=False)
            await asyncio.to_thread(executor.shutdown, True)

    assert run(main) == [["ready"]] * 4


def test_a_killed_worker_breaks_the_executor_and_fails_what_it_held() -> None:
    async def main() -> tuple[type[BaseException], bool]:
        executor = PipeExecutor(1)
        loop = asyncio.get_running_loop()
        try:
            await loop.run_in_executor(executor, divide, 1, 1)  # the worker is up
            held = loop.run_in_executor(executor, nap, 30.0)
            pid = next(iter(executor._processes))
            os.kill(pid, signal.SIGKILL)
            with pytest.raises(BrokenProcessPool) as raised:
                await held
            try:
                executor.submit(divide, 1, 1)
                refused = False
            except BrokenProcessPool:
                refused = True
            return type(raised.value), refused
        finally:
            executor.shutdown(wait=False)
            await asyncio.to_thread(executor.shutdown, True)

    kind, refused = run(main)
    assert kind is BrokenProcessPool
    assert refused


def test_shutdown_stops_the_workers_and_refuses_new_tasks() -> None:
    async def main() -> tuple[list[bool], bool]:
        executor = PipeExecutor(2)
        loop = asyncio.get_running_loop()
        await asyncio.gather(*(loop.run_in_executor(executor, divide, 1, 1) for _ in range(2)))
        processes = list(executor._processes.values())
        executor.shutdown(wait=False)
        await asyncio.to_thread(executor.shutdown, True)
        try:
            executor.submit(divide, 1, 1)
            refused = False
        except RuntimeError:
            refused = True
        return [p.is_alive() for p in processes], refused

    alive, refused = run(main)
    assert alive == [False, False]
    assert refused
