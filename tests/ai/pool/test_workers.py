"""A dead or hung worker is replaced at once, whatever the requests' deadlines.

Every test kills real worker processes (``kill -9``) while callers keep asking,
with the server's default 0.5 s decision deadline and with a long one, on one
and two workers, over both transports, and watches the model answer again
within the pool's own start time + 2 s. A successor that cannot start is
retried with backoff, and the pool says it is degraded meanwhile.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path

import pytest
from structlog.testing import capture_logs

from wizard.ai.decision import AgentSpec, Decision, DecisionRequest
from wizard.ai.pool import InferencePool

from .test_inference import observations, random_policy_dir, request, run, running_pool, wait_until

__all__ = ["random_policy_dir"]  # the fixture, shared with test_inference

#: the model answers again within the successor's start time (measured by the pool:
#: spawn, import, load the policies, answer a ping) plus this: nothing waits for a request
#: to start it, and it serves as soon as it is up
HEAL_MARGIN_S = 2.0


def served(decision: Decision) -> bool:
    return decision.agent == "model:default" and decision.reason is None


async def kill_under_traffic(pool: InferencePool, deadline_s: float, victims: int = 1,
                             callers: int = 64) -> tuple[float, list[Decision]]:
    """Kill ``victims`` workers while ``callers`` ask without pause; the seconds from the
    kill to the first model answer to a request made after the pool noticed, and 20
    answers to requests made one after another once the traffic stopped."""
    stop = asyncio.Event()
    noticed_at: list[float] = []
    healed_at: list[float] = []

    async def caller(observation: object) -> None:
        while not stop.is_set():
            asked = time.monotonic()
            decision = await pool.decide(DecisionRequest(
                observation, AgentSpec("model"), asked + deadline_s))  # type: ignore[arg-type]
            if noticed_at and asked > noticed_at[0] and served(decision) and not healed_at:
                healed_at.append(time.monotonic())

    tasks = [asyncio.create_task(caller(o)) for o in observations(callers, seed=11)]
    try:
        await wait_until(lambda: pool.metrics.batches >= 20)
        old = pool.worker_pids()
        killed_at = time.monotonic()
        for pid in old[:victims]:
            os.kill(pid, signal.SIGKILL)
        await wait_until(lambda: pool.metrics.worker_restarts >= 1)
        noticed_at.append(time.monotonic())
        assert not pool.ready, "the pool says it is degraded while no worker serves"
        await wait_until(lambda: bool(healed_at), limit=pool.start_seconds + 20)
    finally:
        stop.set()
        await asyncio.gather(*tasks)
    assert pool.ready
    assert len(pool.worker_pids()) == pool.settings.workers
    assert not set(old) & set(pool.worker_pids())
    after = [await pool.decide(request("model", deadline_in=deadline_s)) for _ in range(20)]
    return healed_at[0] - killed_at, after


@pytest.mark.parametrize("transport", ["pipes", "executor"])
@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("deadline_s", [0.5, 5.0])
def test_a_worker_killed_under_traffic_is_replaced_and_the_model_answers_again(
        random_policy_dir: Path, transport: str, workers: int, deadline_s: float) -> None:
    async def main() -> tuple[float, float, list[Decision], int]:
        async with running_pool(random_policy_dir, transport=transport,
                                workers=workers) as pool:
            healed_s, after = await kill_under_traffic(pool, deadline_s)
            return pool.start_seconds, healed_s, after, pool.metrics.worker_restarts

    start_s, healed_s, after, restarts = run(main, limit=120)
    assert healed_s <= start_s + HEAL_MARGIN_S, (healed_s, start_s)
    assert all(served(d) for d in after), [(d.agent, d.reason) for d in after]
    assert restarts == 1


@pytest.mark.parametrize("transport", ["pipes", "executor"])
def test_a_hung_worker_is_killed_and_replaced_and_short_deadlines_are_served_again(
        random_policy_dir: Path, transport: str) -> None:
    async def main() -> tuple[Decision, float, float, list[Decision]]:
        async with running_pool(random_policy_dir, transport=transport,
                                hung_worker_s=0.2) as pool:
            hung = await pool.decide(request("test-stuck", deadline_in=0.5))
            gave_up_at = time.monotonic()
            while not served(decision := await pool.decide(request("model", deadline_in=0.5))):
                assert decision.reason == "worker_lost", decision
                await asyncio.sleep(0.01)
            healed_s = time.monotonic() - gave_up_at
            after = [await pool.decide(request("model", deadline_in=0.5)) for _ in range(20)]
            return hung, pool.start_seconds, healed_s, after

    hung, start_s, healed_s, after = run(main, limit=60)
    assert (hung.agent, hung.reason) == ("heuristic", "slow")
    assert healed_s <= start_s + HEAL_MARGIN_S, (healed_s, start_s)
    assert all(served(d) for d in after)


@pytest.mark.parametrize("transport", ["pipes", "executor"])
def test_a_successor_that_cannot_start_is_retried_with_backoff_until_it_can(
        random_policy_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        transport: str) -> None:
    marker = tmp_path / "fail-start"
    monkeypatch.setenv("WIZARD_TEST_FAIL_START", str(marker))

    async def main() -> tuple[list[Decision], list[dict[str, object]], Decision]:
        async with running_pool(random_policy_dir, transport=transport,
                                worker_imports=("tests.ai.pool.test_inference",
                                                "tests.ai.pool.fragile_start"),
                                restart_backoff_s=0.1) as pool:
            marker.touch()
            with capture_logs() as logs:
                os.kill(pool.worker_pids()[0], signal.SIGKILL)
                await wait_until(lambda: pool.metrics.restart_failures >= 3, limit=30)
                assert not pool.ready and pool.metrics.serving is False
                meanwhile = [await pool.decide(request("model", deadline_in=0.5))
                             for _ in range(5)]
                marker.unlink()
                await wait_until(lambda: pool.ready, limit=30)
            return meanwhile, logs, await pool.decide(request("model", deadline_in=0.5))

    meanwhile, logs, healed = run(main, limit=90)
    assert [(d.agent, d.reason) for d in meanwhile] == [("heuristic", "worker_lost")] * 5
    failures = [e for e in logs if e["event"] == "pool_restart_failed"]
    assert len(failures) >= 3 and all(e["log_level"] == "error" for e in failures)
    waits = [e["retry_in_s"] for e in failures]
    assert waits[:3] == [0.1, 0.2, 0.4]  # exponential backoff
    assert any(e["event"] == "pool_restarted" for e in logs)
    assert served(healed)
