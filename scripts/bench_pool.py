"""The inference pool against deciding inline, one line per figure.

    .venv/bin/python scripts/bench_pool.py [--seconds 4] [--workers N]
        [--concurrency 64 256] [--repeats 3] [--bots] [--burst 1024]

The headline figure is **loop CPU per pooled decision** (µs of the event-loop
thread's CPU time per answered request): the pool exists to keep the loop free.
``process CPU`` adds the server process's other threads (the executor's helper
threads), which compete with the loop for the GIL and the cores.

- ``inline``: the same `ModelAgent` deciding on the loop, one after another:
  plain ``model`` requests (no bot strength, which the pool does in its workers);
- ``pool``: the `InferencePool` (its `ProcessPoolExecutor` workers; commit
  5ff3585's version of this script ran it beside the hand-made transport of
  spawned workers and pipes that it replaced). N coroutines each ask
  for their next decision as soon as the last one is answered; in a last run
  (``kill``) one worker is killed halfway through (``kill -9``). Per run: decisions/s, ×inline,
  p50/p99/max latency, fallback share, loop lag (a 2 ms ticker's delay: p99,
  max), mean batch size, loop and process CPU per decision, late answers
  (answered after their deadline), and the share of the run the loop spent waiting in
  its selector (``loop_waiting_pct``: with a slow worker the loop waits, and a host
  that charges waits as CPU, as this sandbox does, raises the loop CPU per decision;
  docs/measurements/performance.md). The figures are medians over the repeats.
- ``--burst N``: N requests at once on a started pool (``max_inflight`` 64): how
  many were answered late and the loop lag while the refused ones get their
  heuristic answers.

Targets (issue 11): loop CPU <= 25 µs per pooled decision, >= 2x inline decisions/s
at concurrency 64, no answer after its deadline, loop lag p99 < 20 ms in a burst.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import gc
import logging
import os
import random
import selectors
import signal
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import structlog

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from wizard.ai.agents import HeuristicAgent
from wizard.ai.agents.model_agent import ModelAgent
from wizard.ai.decision import AgentSpec, Decision, DecisionRequest
from wizard.ai.levels import BotLevel, BotSettings
from wizard.ai.policy import OnnxPolicy
from wizard.ai.pool import InferencePool, PoolSettings
from wizard.engine import Observation, WizardGame
from wizard.training.onnx_graphs import (
    SHIPPED_CARD_HEAD,
    SHIPPED_HIDDEN,
    SHIPPED_SENSE,
    write_random_policy,
)

POLICY = "default"
TICK_S = 0.002


class TimedSelector(selectors.DefaultSelector):
    """The loop's selector, counting the wall time the loop spends waiting in it."""

    waited = 0.0

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        start = time.perf_counter()
        try:
            return super().select(timeout)
        finally:
            TimedSelector.waited += time.perf_counter() - start


def timed_loop() -> asyncio.AbstractEventLoop:
    return asyncio.SelectorEventLoop(TimedSelector())


log = structlog.get_logger(__name__)


# --- work -----------------------------------------------------------------------------------


def observations(count: int, seed: int) -> list[Observation]:
    """Observations of seats to move, from heuristic games of 3–6 players."""
    rng = random.Random(seed)
    agent = HeuristicAgent()
    out: list[Observation] = []
    while len(out) < count:
        game = WizardGame(rng.randint(3, 6), seed=rng.getrandbits(32))
        while not game.is_finished and len(out) < count:
            seat = game.current_player
            assert seat is not None
            observation = game.observation(seat)
            out.append(observation)
            game.apply(seat, agent.act(observation))
    return out


def requests(count: int, seed: int, bots: bool) -> list[tuple[Observation, AgentSpec]]:
    """Plain ``model`` requests, or (``bots``) with each a bot's strength."""
    rng = random.Random(seed)
    levels = list(BotLevel)
    return [(obs, AgentSpec("model", BotSettings.draw(rng.choice(levels), rng) if bots else None,
                            move)) for move, obs in enumerate(observations(count, seed))]


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else 0.0


def bench_inline(agent: ModelAgent, work: list[tuple[Observation, AgentSpec]],
                 seconds: float) -> dict[str, float]:
    """The same ModelAgent on this thread: what the loop would spend without a pool."""
    latencies: list[float] = []
    cpu, process_cpu = time.thread_time(), time.process_time()
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        observation, _ = work[len(latencies) % len(work)]
        t0 = time.perf_counter()
        agent.act(observation)
        latencies.append(time.perf_counter() - t0)
    elapsed = time.perf_counter() - start
    return {"decisions_per_s": len(latencies) / elapsed,
            "loop_cpu_us": (time.thread_time() - cpu) / len(latencies) * 1e6,
            "process_cpu_us": (time.process_time() - process_cpu) / len(latencies) * 1e6,
            "p50_ms": percentile(latencies, 0.5) * 1000,
            "p99_ms": percentile(latencies, 0.99) * 1000}


async def bench_pool(pool: InferencePool, work: list[tuple[Observation, AgentSpec]],
                     concurrency: int, seconds: float, deadline_s: float,
                     kill_at: float | None) -> dict[str, float]:
    lags: list[float] = []
    latencies: list[float] = []
    decisions: list[Decision] = []
    late = 0
    loop = asyncio.get_running_loop()
    stop = time.monotonic() + seconds
    batches, rows = pool.metrics.batches, pool.metrics.batch_rows

    async def ticker() -> None:
        while time.monotonic() < stop:
            due = loop.time() + TICK_S
            await asyncio.sleep(TICK_S)
            lags.append(max(0.0, loop.time() - due))

    async def killer() -> None:
        if kill_at is None:
            return
        await asyncio.sleep(kill_at)
        pids = pool.worker_pids()
        if pids:
            os.kill(pids[0], signal.SIGKILL)

    async def client(offset: int) -> None:
        nonlocal late
        index = offset
        while time.monotonic() < stop:
            observation, spec = work[index % len(work)]
            t0 = time.monotonic()
            decision = await pool.decide(DecisionRequest(observation, spec, t0 + deadline_s))
            answered = time.monotonic()
            late += answered > t0 + deadline_s
            latencies.append(answered - t0)
            decisions.append(decision)
            index += concurrency

    cpu, process_cpu = time.thread_time(), time.process_time()
    waited, started = TimedSelector.waited, time.perf_counter()
    await asyncio.gather(ticker(), killer(), *(client(i) for i in range(concurrency)))
    cpu, process_cpu = time.thread_time() - cpu, time.process_time() - process_cpu
    wait_share = (TimedSelector.waited - waited) / (time.perf_counter() - started)
    pooled = sum(d.reason is None for d in decisions)
    batches = pool.metrics.batches - batches
    return {
        "decisions_per_s": len(decisions) / seconds,
        "loop_cpu_us": cpu / max(1, len(decisions)) * 1e6,
        "process_cpu_us": process_cpu / max(1, len(decisions)) * 1e6,
        "p50_ms": percentile(latencies, 0.5) * 1000,
        "p99_ms": percentile(latencies, 0.99) * 1000,
        "max_ms": max(latencies) * 1000,
        "fallback_pct": 100.0 * (len(decisions) - pooled) / max(1, len(decisions)),
        "late": float(late),
        "loop_lag_p99_ms": percentile(lags, 0.99) * 1000,
        "loop_lag_max_ms": max(lags, default=0.0) * 1000,
        "mean_batch": (pool.metrics.batch_rows - rows) / max(1, batches),
        "loop_waiting_pct": 100.0 * wait_share,
    }


async def burst(pool: InferencePool, work: list[tuple[Observation, AgentSpec]], count: int,
                deadline_s: float) -> dict[str, float]:
    """``count`` requests at once: late answers and the loop's lag meanwhile."""
    loop = asyncio.get_running_loop()
    lags: list[float] = []
    running = True

    async def ticker() -> None:
        while running:
            due = loop.time() + TICK_S
            await asyncio.sleep(TICK_S)
            lags.append(max(0.0, loop.time() - due))

    async def one(index: int) -> tuple[float, float, Decision]:
        observation, spec = work[index % len(work)]
        t0 = time.monotonic()
        decision = await pool.decide(DecisionRequest(observation, spec, t0 + deadline_s))
        return time.monotonic(), t0 + deadline_s, decision

    tick = asyncio.ensure_future(ticker())
    await asyncio.sleep(0.05)
    results = await asyncio.gather(*(one(i) for i in range(count)))
    await asyncio.sleep(0.05)
    running = False
    await tick
    late = [answered - deadline for answered, deadline, _ in results if answered > deadline]
    return {"requests": float(count),
            "fallback": float(sum(d.reason is not None for *_, d in results)),
            "late": float(len(late)), "late_max_ms": max(late, default=0.0) * 1000,
            "loop_lag_p99_ms": percentile(lags, 0.99) * 1000,
            "loop_lag_max_ms": max(lags, default=0.0) * 1000}


async def run_transport(make: Callable[[], InferencePool], args: argparse.Namespace,
                        work: list[tuple[Observation, AgentSpec]]) -> dict[int, dict[str, float]]:
    pool = make()
    await pool.start()
    gc.collect()
    gc.freeze()  # as `wizard serve` does once started (`create_app(freeze_gc=True)`)
    try:
        await bench_pool(pool, work, 16, 0.5, args.deadline, None)  # warm-up
        out = {}
        for concurrency in args.concurrency:
            out[concurrency] = await bench_pool(pool, work, concurrency, args.seconds,
                                                args.deadline, None)
        if args.burst:
            out[-1] = await burst(pool, work, args.burst, args.deadline)
        # a worker killed halfway through a run at the first concurrency
        out[-2] = await bench_pool(pool, work, args.concurrency[0], args.seconds,
                                   args.deadline, args.seconds / 2)
        return out
    finally:
        await pool.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=4.0, help="per concurrency level")
    parser.add_argument("--workers", type=int, default=0, help="default: CPU count - 1")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[64, 256])
    parser.add_argument("--deadline", type=float, default=0.5, help="seconds per decision")
    parser.add_argument("--observations", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--bots", action="store_true", help="requests carry bot strength")
    parser.add_argument("--burst", type=int, default=1024, help="0: no burst")
    parser.add_argument("--hidden", type=lambda text: tuple(int(x) for x in text.split(",")),
                        default=SHIPPED_HIDDEN, help="the random policy's hidden layers "
                        "(default: the shipped policy's size)")
    parser.add_argument("--plain", action="store_true",
                        help="no card-sense features and no card head (the first policy's "
                             "shape: --hidden 256,256)")
    parser.add_argument("--transport", nargs="+", default=["executor", "pipes"],
                        choices=["executor", "pipes"],
                        help="each repeat runs each, the order alternating")
    args = parser.parse_args()
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.ERROR))

    work = requests(args.observations, seed=7, bots=args.bots)
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        sense = SHIPPED_SENSE and not args.plain
        head = SHIPPED_CARD_HEAD if sense else 0
        write_random_policy(directory, POLICY, args.hidden, seed=1, sense=sense, card_head=head)
        agent = ModelAgent(OnnxPolicy(directory / f"{POLICY}.onnx", threads=1))
        settings = PoolSettings(models_dir=str(directory),
                                **({"workers": args.workers} if args.workers else {}))
        transports: dict[str, Callable[[], InferencePool]] = {
            name: (lambda name=name: InferencePool(dataclasses.replace(settings, transport=name)))
            for name in args.transport}
        print(f"policy {'-'.join(map(str, args.hidden))}"
              f"{' with card sense' if sense else ''}"
              f"{f' and a card head of {head}' if head else ''}, "
              f"workers {settings.workers}, "
              f"max_inflight {settings.max_inflight}, degrade_queue {settings.degrade_queue}, "
              f"max_batch {settings.max_batch}, {'bot' if args.bots else 'plain model'} "
              f"requests, {args.seconds:g} s per run, median of {args.repeats} repeats")
        gc.collect()
        gc.freeze()  # the inline baseline runs under the same collector settings as the pool
        inline: list[dict[str, float]] = []
        results: dict[str, list[dict[int, dict[str, float]]]] = {n: [] for n in transports}
        for repeat in range(args.repeats):
            inline.append(bench_inline(agent, work, args.seconds))
            names = list(transports) if repeat % 2 == 0 else list(reversed(transports))
            for name in names:
                with asyncio.Runner(loop_factory=timed_loop) as runner:
                    results[name].append(runner.run(run_transport(transports[name], args, work)))
        inline_rate = statistics.median(r["decisions_per_s"] for r in inline)
        for key in inline[0]:
            print(f"{'inline':<18} {key:<18} {statistics.median(r[key] for r in inline):>10.2f}")
        for concurrency in [*args.concurrency, *([-1] if args.burst else []), -2]:
            for name in transports:
                runs = [r[concurrency] for r in results[name]]
                label = (f"{name} c={concurrency}" if concurrency > 0 else f"{name} burst"
                         if concurrency == -1 else f"{name} kill c={args.concurrency[0]}")
                for key in runs[0]:
                    print(f"{label:<18} {key:<18} {statistics.median(r[key] for r in runs):>10.2f}")
                if concurrency > 0:
                    ratio = statistics.median(r["decisions_per_s"] for r in runs) / inline_rate
                    print(f"{label:<18} {'x_inline':<18} {ratio:>10.2f}")


if __name__ == "__main__":
    main()
