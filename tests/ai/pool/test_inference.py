"""The inference pool: model decisions from worker processes, and every bound's fallback.

Each bound is provoked deterministically with test-only agents that run in the
workers (this module is imported there through ``worker_imports``): a slow one
and one that hangs. A policy that raises is an ONNX file whose probabilities do not
fit the action space. Every pool runs inside `running_pool`, which always
closes it, and every test runs under `run`'s time limit.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import pytest
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.parser import text_string_to_metric_families
from structlog.testing import capture_logs

from wizard.ai.agents import HeuristicAgent
from wizard.ai.decision import AgentSpec, Decision, DecisionRequest
from wizard.ai.encoding import ActionSpace, encode_observation
from wizard.ai.levels import BotLevel, BotSettings
from wizard.ai.levels.strength import choose_rows, random_move_chance, temperature
from wizard.ai.policy import OnnxPolicy, choose
from wizard.ai.pool import FALLBACK_REASONS, InferencePool, PoolSettings
from wizard.ai.registry import register_agent
from wizard.engine import Action, Observation, WizardGame
from wizard.training.onnx_graphs import write_random_policy

SLEEPY_SECONDS = 0.3
T = TypeVar("T")


class SleepyAgent(HeuristicAgent):
    """The heuristic, after a fixed nap: a slow policy whose time is known."""

    name = "test-sleepy"

    def act(self, observation: Observation) -> Action:
        time.sleep(SLEEPY_SECONDS)
        return super().act(observation)


class StuckAgent(HeuristicAgent):
    """Never answers in any test's lifetime: a hung worker."""

    name = "test-stuck"

    def act(self, observation: Observation) -> Action:
        time.sleep(600)
        return super().act(observation)


# imported by the pool's workers too (worker_imports), which is how they know these agents
register_agent("test-sleepy", lambda seed=None, **_: SleepyAgent())
register_agent("test-stuck", lambda seed=None, **_: StuckAgent())
WORKER_AGENTS = ("test-sleepy", "test-stuck")


def run(main: Callable[[], Awaitable[T]], limit: float = 30.0) -> T:
    """Run a test's coroutine with a hard time limit."""

    async def bounded() -> T:
        return await asyncio.wait_for(main(), limit)

    return asyncio.run(bounded())


@pytest.fixture(scope="module")
def random_policy_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``default``: a small random MLP; ``broken``: probabilities one short of the action space."""
    directory = tmp_path_factory.mktemp("policies")
    write_random_policy(directory, "default", (32,), seed=3)
    write_random_policy(directory, "broken", (8,), seed=4, outputs=ActionSpace.SIZE - 1)
    return directory


@asynccontextmanager
async def running_pool(directory: Path, **overrides: Any) -> AsyncIterator[InferencePool]:
    settings: dict[str, Any] = {
        "workers": 1,
        "models_dir": str(directory),
        "worker_agents": WORKER_AGENTS,
        "worker_imports": (__name__,),
        "close_timeout_s": 2.0,
        "max_wait_s": 10.0,
    }
    settings.update(overrides)
    pool = InferencePool(PoolSettings(**settings))
    await pool.start()
    try:
        yield pool
    finally:
        await pool.close()


def observations(count: int, seed: int) -> Iterator[Observation]:
    """Observations of the seat to move, along heuristic games of 3–6 players."""
    rng = random.Random(seed)
    agent = HeuristicAgent()
    made = 0
    while True:
        game = WizardGame(rng.randint(3, 6), seed=rng.getrandbits(32))
        while not game.is_finished:
            seat = game.current_player
            assert seat is not None
            observation = game.observation(seat)
            if rng.random() < 0.2:
                yield observation
                made += 1
                if made == count:
                    return
            game.apply(seat, agent.act(observation))


def one_observation() -> Observation:
    return next(observations(1, seed=1))


def request(agent: str, deadline_in: float = 10.0,
            observation: Observation | None = None) -> DecisionRequest:
    return DecisionRequest(observation or one_observation(), AgentSpec(agent),
                           time.monotonic() + deadline_in)


async def wait_until(condition: Callable[[], bool], limit: float = 10.0) -> None:
    """Yield to the loop until ``condition`` holds (what a test waits for, not how long)."""
    async with asyncio.timeout(limit):
        while not condition():
            await asyncio.sleep(0.005)


def expected_model_decision(policy: OnnxPolicy, req: DecisionRequest) -> tuple[Action, str]:
    """The decision of the seed's recipe computed in this process: strength draw, then policy."""
    observation, bot = req.observation, req.spec.bot
    temp, uniform = 0.0, None
    if bot is not None:
        rng = bot.move_rng(req.spec.move_number)
        if rng.random() < random_move_chance(bot.strength):
            return rng.choice(observation.legal_actions), "random"
        temp, uniform = temperature(bot.strength), rng.random()
    mask = ActionSpace.mask(observation)
    logits = policy.logits(encode_observation(observation)[None, :], mask[None, :])[0]
    index = choose(logits, mask, temperature=temp, uniform=uniform)
    return ActionSpace.action(index), "model:default"


def test_model_decisions_are_legal_batched_and_the_policys_own(random_policy_dir: Path) -> None:
    rng = random.Random(5)
    requests = [
        DecisionRequest(obs, AgentSpec("model", BotSettings.draw(rng.choice(list(BotLevel)), rng)
                                       if i % 3 else None, move_number=i),
                        time.monotonic() + 20)
        for i, obs in enumerate(observations(48, seed=2))
    ]
    policy = OnnxPolicy(random_policy_dir / "default.onnx")

    async def main() -> tuple[list[Decision], int]:
        async with running_pool(random_policy_dir, max_batch=64, batch_window_ms=2.0) as pool:
            decisions = await asyncio.gather(*(pool.decide(r) for r in requests))
            return decisions, pool.metrics.batches

    decisions, batches = run(main)
    for req, decision in zip(requests, decisions, strict=True):
        assert decision.action in req.observation.legal_actions
        assert decision.reason is None
        assert (decision.action, decision.agent) == expected_model_decision(policy, req)
    served = sum(d.agent == "model:default" for d in decisions)
    assert served > 30  # the rest are the weaker bots' random moves
    assert batches == 1  # requests that arrive together travel as one ONNX call


def test_non_policy_agents_are_decided_at_once_on_the_loop(random_policy_dir: Path) -> None:
    obs = one_observation()

    async def main() -> tuple[Decision, int]:
        async with running_pool(random_policy_dir) as pool:
            return await pool.decide(request("heuristic", observation=obs)), pool.metrics.batches

    decision, batches = run(main)
    assert (decision.action, decision.agent, decision.reason) == (
        HeuristicAgent().act(obs), "heuristic", None)
    assert batches == 0


def test_a_past_deadline_is_answered_by_the_fallback_without_computing(
        random_policy_dir: Path) -> None:
    async def main() -> tuple[Decision, int]:
        async with running_pool(random_policy_dir) as pool:
            return await pool.decide(request("model", deadline_in=-0.5)), pool.metrics.batches

    decision, batches = run(main)
    assert (decision.agent, decision.reason) == ("heuristic", "expired")
    assert batches == 0


def test_a_deadline_that_passes_while_waiting_is_expired_in_time(random_policy_dir: Path) -> None:
    async def main() -> tuple[Decision, float, float, int]:
        async with running_pool(random_policy_dir, batches_per_worker=1) as pool:
            busy = asyncio.ensure_future(pool.decide(request("test-sleepy")))
            await wait_until(lambda: pool.metrics.batches == 1)  # the only worker naps
            waiting = request("model", deadline_in=0.15)
            decision = await pool.decide(waiting)
            answered = time.monotonic()
            await busy
            return decision, answered, waiting.deadline, pool.metrics.batch_rows

    decision, answered, deadline, rows = run(main)
    assert (decision.agent, decision.reason) == ("heuristic", "expired")
    assert answered <= deadline + 0.05
    assert rows == 1  # the expired request never went to a worker


def test_the_next_batch_waits_in_the_worker_queue_while_one_computes(
        random_policy_dir: Path) -> None:
    async def main() -> tuple[int, int, Decision, Decision]:
        async with running_pool(random_policy_dir) as pool:  # default: 2 batches per worker
            busy = asyncio.ensure_future(pool.decide(request("test-sleepy")))
            await wait_until(lambda: pool.metrics.batches == 1)
            second = asyncio.ensure_future(pool.decide(request("model")))
            await wait_until(lambda: pool.metrics.batches == 2)
            waiting_then = pool.metrics.waiting
            return pool.metrics.batches, waiting_then, await busy, await second

    batches, waiting, busy, second = run(main)
    assert (batches, waiting) == (2, 0)  # handed to the executor, not held in the buffer
    assert (busy.agent, busy.reason) == ("test-sleepy", None)
    assert (second.agent, second.reason) == ("model:default", None)


def test_waiting_requests_are_each_answered_by_their_own_deadline(
        random_policy_dir: Path) -> None:
    async def main() -> list[tuple[float, float, Decision]]:
        async with running_pool(random_policy_dir, batches_per_worker=1) as pool:
            busy = asyncio.ensure_future(pool.decide(request("test-sleepy")))
            await wait_until(lambda: pool.metrics.batches == 1)  # the only slot naps

            async def one(deadline_in: float) -> tuple[float, float, Decision]:
                asked = request("test-sleepy", deadline_in=deadline_in)
                decision = await pool.decide(asked)
                return time.monotonic(), asked.deadline, decision

            answers = await asyncio.gather(*(one(d) for d in (0.2, 0.08, 0.14)))
            await busy
            return answers

    answers = run(main)
    assert {d.reason for *_, d in answers} == {"expired"}
    assert all(answered <= deadline + 0.05 for answered, deadline, _ in answers)
    by_answer = [deadline for _, deadline, _ in sorted(answers, key=lambda a: a[0])]
    assert by_answer == sorted(by_answer)  # the earliest deadline is answered first


def test_too_many_requests_in_flight_are_overloaded_at_once(random_policy_dir: Path) -> None:
    async def main() -> tuple[Decision, float, list[Decision]]:
        async with running_pool(random_policy_dir, max_inflight=2) as pool:
            held = [asyncio.ensure_future(pool.decide(request("test-sleepy"))) for _ in range(2)]
            await wait_until(lambda: pool.metrics.inflight == 2)
            started = time.monotonic()
            decision = await pool.decide(request("test-sleepy"))
            took = time.monotonic() - started
            return decision, took, await asyncio.gather(*held)

    decision, took, held = run(main)
    assert (decision.agent, decision.reason) == ("heuristic", "overloaded")
    assert took < SLEEPY_SECONDS / 2  # not after a worker came free
    assert [(d.agent, d.reason) for d in held] == [("test-sleepy", None)] * 2


def test_a_queue_of_degrade_queue_batches_sends_later_requests_to_the_fallback(
        random_policy_dir: Path) -> None:
    async def main() -> list[Decision]:
        async with running_pool(random_policy_dir, degrade_queue=2, batches_per_worker=1) as pool:
            # a worker agent's batch is one request: the first runs, two wait, the rest degrade
            return await asyncio.gather(*(pool.decide(request("test-sleepy")) for _ in range(5)))

    decisions = run(main)
    assert [(d.agent, d.reason) for d in decisions] == [("test-sleepy", None)] * 3 + [
        ("heuristic", "queue")] * 2


def test_a_policy_slower_than_half_the_time_left_is_replaced_at_once(
        random_policy_dir: Path) -> None:
    async def main() -> tuple[Decision, Decision, float]:
        async with running_pool(random_policy_dir) as pool:
            first = await pool.decide(request("test-sleepy"))  # the average becomes ~0.3 s
            started = time.monotonic()
            second = await pool.decide(request("test-sleepy", deadline_in=SLEEPY_SECONDS * 1.5))
            return first, second, time.monotonic() - started

    first, second, took = run(main)
    assert (first.agent, first.reason) == ("test-sleepy", None)
    assert first.compute_ms >= SLEEPY_SECONDS * 1000
    assert (second.agent, second.reason) == ("heuristic", "slow")
    assert took < SLEEPY_SECONDS / 2


def test_a_route_judged_slow_still_gets_a_probe_so_slow_does_not_stick(
        random_policy_dir: Path) -> None:
    """Once its average is over half the time left, a route still admits one request per
    ``slow_probe_s``; without it no batch would ever run again to bring the average down."""
    probe = 0.5
    window = SLEEPY_SECONDS * 1.9  # the sleepy agent's 0.3 s is just over half of it

    async def main() -> list[Decision]:
        async with running_pool(random_policy_dir, slow_probe_s=probe) as pool:
            out = [await pool.decide(request("test-sleepy"))]  # the average becomes ~0.3 s
            out.append(await pool.decide(request("test-sleepy", deadline_in=window)))
            await asyncio.sleep(probe)
            out.append(await pool.decide(request("test-sleepy", deadline_in=window)))
            out.append(await pool.decide(request("test-sleepy", deadline_in=window)))
            return out

    decisions = run(main)
    assert [(d.agent, d.reason) for d in decisions] == [
        ("test-sleepy", None), ("heuristic", "slow"),  # judged slow at once
        ("test-sleepy", None),  # the probe, a probe interval later, answered in time
        ("heuristic", "slow")]  # the next one right after it is judged slow again


def test_a_hung_worker_cannot_hold_a_caller_past_its_deadline(random_policy_dir: Path) -> None:
    async def main() -> tuple[Decision, float, float]:
        async with running_pool(random_policy_dir) as pool:
            req = request("test-stuck", deadline_in=0.3)
            decision = await pool.decide(req)
            return decision, time.monotonic(), req.deadline

    decision, answered, deadline = run(main)
    assert (decision.agent, decision.reason) == ("heuristic", "slow")
    assert answered <= deadline + 0.05
    assert decision.action in one_observation().legal_actions


def test_an_exception_in_a_worker_falls_back_with_error_and_logs_the_traceback(
        random_policy_dir: Path) -> None:
    async def main() -> tuple[Decision, Decision]:
        async with running_pool(random_policy_dir) as pool:
            broken = await pool.decide(request("model:broken"))
            healthy = await pool.decide(request("model"))
            return broken, healthy

    with capture_logs() as logs:
        broken, healthy = run(main)
    assert (broken.agent, broken.reason) == ("heuristic", "error")
    assert (healthy.agent, healthy.reason) == ("model:default", None)
    errors = [entry for entry in logs if entry["event"] == "pool_worker_error"]
    assert len(errors) == 1
    assert errors[0]["error"].startswith("ValueError: policy logits have shape")
    assert "Traceback" in errors[0]["traceback"]


def test_unknown_agents_and_policies_fall_back_with_error(random_policy_dir: Path) -> None:
    async def main() -> list[Decision]:
        async with running_pool(random_policy_dir) as pool:
            return [await pool.decide(request(name)) for name in ("model:missing", "no-such")]

    assert [(d.agent, d.reason) for d in run(main)] == [("heuristic", "error")] * 2


@pytest.mark.parametrize("transport", ["pipes", "executor"])
def test_a_killed_worker_answers_with_worker_lost_then_the_model_serves_again(
        random_policy_dir: Path, transport: str) -> None:
    async def main() -> tuple[Decision, Decision, int, int, int]:
        async with running_pool(random_policy_dir, transport=transport) as pool:
            [victim] = pool.worker_pids()
            held = asyncio.ensure_future(pool.decide(request("test-stuck", deadline_in=20)))
            await wait_until(lambda: pool.metrics.batches == 1)
            os.kill(victim, signal.SIGKILL)
            lost = await held
            again = await pool.decide(request("model", deadline_in=20))
            [successor] = pool.worker_pids()
            return lost, again, victim, successor, pool.metrics.worker_restarts

    lost, again, victim, successor, restarts = run(main)
    assert (lost.agent, lost.reason) == ("heuristic", "worker_lost")
    assert (again.agent, again.reason) == ("model:default", None)
    assert successor != victim
    assert restarts == 1


def test_close_drains_requests_in_progress_and_stops_the_workers(random_policy_dir: Path) -> None:
    async def main() -> tuple[Decision, Decision, list[int]]:
        pool = InferencePool(PoolSettings(workers=1, models_dir=str(random_policy_dir),
                                          worker_agents=WORKER_AGENTS,
                                          worker_imports=(__name__,)))
        await pool.start()
        pids = pool.worker_pids()
        in_progress = asyncio.ensure_future(pool.decide(request("test-sleepy")))
        await wait_until(lambda: pool.metrics.batches == 1)
        await pool.close()
        after = await pool.decide(request("model"))
        return await in_progress, after, pids

    drained, after, pids = run(main)
    assert (drained.agent, drained.reason) == ("test-sleepy", None)
    assert (after.agent, after.reason) == ("heuristic", "error")
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def test_metrics_count_decisions_by_agent_and_reason(random_policy_dir: Path) -> None:
    async def main() -> str:
        async with running_pool(random_policy_dir) as pool:
            await pool.decide(request("model"))
            await pool.decide(request("model", deadline_in=-1))
            assert pool.metrics.fallbacks() == pool.metrics.fallbacks("expired") == 1
            registry = CollectorRegistry()
            registry.register(pool.metrics)  # as the server does, on its one registry
            return generate_latest(registry).decode()

    samples = {(s.name, tuple(sorted(s.labels.items()))): s.value
               for family in text_string_to_metric_families(run(main)) for s in family.samples}
    assert samples[("wizard_pool_decisions_total",
                    (("agent", "model:default"), ("reason", "none")))] == 1
    assert samples[("wizard_pool_decisions_total",
                    (("agent", "heuristic"), ("reason", "expired")))] == 1
    assert samples[("wizard_pool_compute_seconds_count", ())] == 1
    assert samples[("wizard_pool_worker_restarts_total", ())] == 0


def test_batched_choice_is_the_single_row_choice() -> None:
    rng = np.random.default_rng(11)
    rows = 400
    logits = rng.normal(0, 3, (rows, ActionSpace.SIZE)).astype(np.float32)
    masks = rng.random((rows, ActionSpace.SIZE)) < 0.15
    masks[np.arange(rows), rng.integers(0, ActionSpace.SIZE, rows)] = True
    temperatures = np.where(rng.random(rows) < 0.3, 0.0, rng.uniform(0.05, 2.0, rows))
    uniforms = rng.random(rows)
    chosen = choose_rows(logits, masks, temperatures, uniforms)
    for i in range(rows):
        expected = choose(logits[i], masks[i], temperature=float(temperatures[i]),
                          uniform=float(uniforms[i]))
        assert chosen[i] == expected
        assert masks[i, chosen[i]]


def test_settings_are_checked_and_the_queue_bound_trips_before_the_inflight_one() -> None:
    assert PoolSettings().workers == max(1, (os.cpu_count() or 2) - 1)
    assert PoolSettings(max_inflight=64).degrade_queue == 32  # 0 = half of max_inflight
    assert PoolSettings(max_inflight=64, max_batch=48).degrade_queue == 48  # or a full batch
    assert PoolSettings(max_inflight=10, degrade_queue=4).degrade_queue == 4
    with pytest.raises(ValueError, match="batch_window_ms"):
        PoolSettings(batch_window_ms=5.0)
    with pytest.raises(ValueError, match="degrade_queue"):
        PoolSettings(max_inflight=8, degrade_queue=8)
    assert set(FALLBACK_REASONS) == {"overloaded", "queue", "slow", "expired", "error",
                                     "worker_lost"}


def test_with_the_default_bounds_a_queue_of_waiting_requests_trips_queue(
        random_policy_dir: Path) -> None:
    limit = PoolSettings().degrade_queue  # 32: half of the default max_inflight 64

    async def main() -> list[Decision]:
        async with running_pool(random_policy_dir) as pool:  # default bounds, one worker
            slots = pool.settings.workers * pool.settings.batches_per_worker
            stuck = [asyncio.ensure_future(pool.decide(request("test-stuck", deadline_in=1.0)))
                     for _ in range(slots)]  # every batch slot of the worker is taken
            await wait_until(lambda: pool.metrics.inflight == slots and pool.metrics.waiting == 0)
            waiting = [asyncio.ensure_future(pool.decide(request("model", deadline_in=1.0)))
                       for _ in range(limit)]
            await wait_until(lambda: pool.metrics.waiting == limit)
            refused = [await pool.decide(request("model")) for _ in range(2)]
            return [*refused, *await asyncio.gather(*waiting), *await asyncio.gather(*stuck)]

    decisions = run(main)
    assert [d.reason for d in decisions[:2]] == ["queue", "queue"]  # at once, not at 1 s
    assert all(d.reason == "expired" for d in decisions[2:2 + limit])  # they waited in line
    assert {d.reason for d in decisions[2 + limit:]} == {"slow"}


def test_a_burst_of_fallbacks_is_spread_over_loop_turns_earliest_deadline_first() -> None:
    from wizard.ai.pool.fallback import FallbackGate

    answered: list[float] = []

    def compute(request: DecisionRequest, reason: str, arrived: float,
                dispatched: float | None) -> Decision:
        spin = time.perf_counter() + 0.001  # a fallback that costs 1 ms of loop time
        while time.perf_counter() < spin:
            pass
        answered.append(request.deadline)
        return Decision(request.observation.legal_actions[0], "heuristic", reason)

    async def main() -> tuple[int, list[Decision]]:
        gate = FallbackGate(compute, slice_s=0.002)
        turns = 0

        async def count_turns() -> None:
            nonlocal turns
            while gate.waiting or turns == 0:
                turns += 1
                await asyncio.sleep(0)

        now = time.monotonic()
        obs = one_observation()
        requests = [DecisionRequest(obs, AgentSpec("model"), now + 10 + (40 - k) * 0.01)
                    for k in range(40)]
        counter = asyncio.ensure_future(count_turns())
        decisions = await asyncio.gather(*(gate.answer(r, "overloaded", now) for r in requests))
        await counter
        return turns, decisions

    turns, decisions = run(main)
    assert all(d.reason == "overloaded" for d in decisions)
    assert answered == sorted(answered)  # earliest deadline first
    assert turns >= 40 // 3  # never more than a slice (two or three 1 ms answers) per turn
