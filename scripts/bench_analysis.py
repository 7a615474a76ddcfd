"""Benchmark of game analysis: one game on one worker, and live bots while analyses run.

    .venv/bin/python scripts/bench_analysis.py [--repeats 3] [--tables 20] [--seconds 30]

(a) ``analyse``: a 4-player, 15-round heuristic game (seed 3), every seat, the
default budget (32 worlds a decision, choosing and judging sets), analysed the
way the server does it: slices through the analysis worker (`ProcessRunner`,
a process beside the pool's live workers) — here at the live workers'
priority (niceness 0), to time the worker itself on a shared machine. Median
of ``--repeats`` wall times; the same analysis run directly in this process
(no pool) is the reference. Target: < 60 s.

(b) ``live``: ``--tables`` simulated bot tables for ``--seconds``: each table is
a game of four bots (master, hard, medium, easy: ``bot:<level>`` agents, as the
server asks for them) whose every decision goes to the pool with the server's
deadline (think time 0.8–2.5 s, at least 0.5 s), then waits out its think time.
Measured twice on the same seeds: alone, and with analyses running back to
back in the analysis worker (niceness 19, ``SCHED_IDLE`` on Linux). Figures:
decisions, pooled decisions' p50 / p99 latency, fallbacks (with reasons).
Target: no fallback caused by analysis.

The pool has one live worker in both parts; the machine may be shared: compare
the two lines of (b), taken in the same run, rather than absolute figures.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import structlog

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from wizard.ai.agents import HeuristicAgent
from wizard.ai.analysis import AnalysisBudget, GameRecord, analyse_game
from wizard.ai.decision import AgentSpec, DecisionRequest
from wizard.ai.levels import BotLevel, BotSettings
from wizard.ai.policy import models_dir
from wizard.ai.pool import InferencePool, PoolSettings
from wizard.ai.search.prior import load_prior
from wizard.engine import WizardGame
from wizard.server.analysis.runners import ProcessRunner

THINK_SECONDS = (0.8, 2.5)  # wizard.server.bots
DEADLINE_SECONDS = 0.5  # Settings.ai_deadline_seconds
SLICE_SECONDS = 0.05  # AnalysisSettings.slice_seconds
LEVELS = (BotLevel.MASTER, BotLevel.HARD, BotLevel.MEDIUM, BotLevel.EASY)


def game_record(seed: int = 3) -> dict[str, Any]:
    game = WizardGame(4, seed=seed)
    agent = HeuristicAgent()
    actions = []
    while not game.is_finished:
        seat = game.current_player
        assert seat is not None
        action = agent.act(game.observation(seat))
        actions.append({"seat": seat, "action": action.to_dict()})
        game.apply(seat, action)
    return {"num_players": 4, "seed": seed, "options": game.options.to_dict(),
            "actions": actions}


async def analyse_on_pool(runner: ProcessRunner, record: dict[str, Any], worlds: int) -> float:
    start = time.perf_counter()
    done = 0
    while True:
        _, total, part = await runner.run((record, [0, 1, 2, 3], worlds, done, SLICE_SECONDS))
        done += len(part)
        if done >= total:
            return time.perf_counter() - start


async def bot_table(pool: InferencePool, seed: int, until: float, latencies: list[float],
                    reasons: Counter[str]) -> None:
    rng = random.Random(seed)
    bots = [BotSettings.draw(level, rng) for level in LEVELS]
    while time.monotonic() < until:
        game = WizardGame(4, seed=rng.getrandbits(32))
        move = 0
        while not game.is_finished and time.monotonic() < until:
            seat = game.current_player
            assert seat is not None
            think = rng.uniform(*THINK_SECONDS)
            ready = time.monotonic() + think
            deadline = max(ready, time.monotonic() + DEADLINE_SECONDS)
            spec = AgentSpec(f"bot:{LEVELS[seat].value}", bots[seat], move)
            asked = time.monotonic()
            decision = await pool.decide(DecisionRequest(game.observation(seat), spec, deadline))
            if LEVELS[seat] in (BotLevel.MASTER, BotLevel.HARD):
                latencies.append(time.monotonic() - asked)
            reasons[decision.reason or "none"] += 1
            await asyncio.sleep(max(0.0, ready - time.monotonic()))
            game.apply(seat, decision.action)
            move += 1


async def live(tables: int, seconds: float, with_analysis: bool, record: dict[str, Any],
               worlds: int, models: str) -> dict[str, Any]:
    pool = InferencePool(PoolSettings(workers=1, models_dir=models))
    await pool.start()
    runner = ProcessRunner()
    latencies: list[float] = []
    reasons: Counter[str] = Counter()
    analyses: list[float] = []
    until = time.monotonic() + seconds
    stop = asyncio.Event()

    async def analysing() -> None:
        while not stop.is_set():
            analyses.append(await analyse_on_pool(runner, record, worlds))

    try:
        background = asyncio.ensure_future(analysing()) if with_analysis else None
        await asyncio.gather(*(bot_table(pool, 100 + t, until, latencies, reasons)
                               for t in range(tables)))
        stop.set()
        if background is not None:
            background.cancel()
    finally:
        await pool.close()
        await runner.close()
    ordered = sorted(latencies)
    return {"decisions": sum(reasons.values()), "pooled": len(ordered),
            "p50_ms": 1000 * ordered[len(ordered) // 2] if ordered else 0.0,
            "p99_ms": 1000 * ordered[int(len(ordered) * 0.99)] if ordered else 0.0,
            "fallbacks": {k: v for k, v in reasons.items() if k != "none"},
            "analyses_done": len(analyses), "slices": runner.slices}


async def part_a(record: dict[str, Any], worlds: int, repeats: int, models: str) -> list[float]:
    runner = ProcessRunner(niceness=0)
    try:
        return [await analyse_on_pool(runner, record, worlds) for _ in range(repeats)]
    finally:
        await runner.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--worlds", type=int, default=AnalysisBudget().worlds)
    parser.add_argument("--skip-live", action="store_true")
    args = parser.parse_args()
    logging.disable(logging.WARNING)
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.ERROR))
    record = game_record()
    # no policy, so hard bots search too; the OI networks, so master (and the analysis)
    # use their prior as they do with the shipped models
    models = tempfile.mkdtemp(prefix="bench-analysis-")
    for path in models_dir().glob("oi_*"):
        shutil.copy(path, models)
    start = time.perf_counter()
    analyse_game(GameRecord.from_dict(record), None, AnalysisBudget(worlds=args.worlds),
                 prior=load_prior(models))
    direct = time.perf_counter() - start
    times = asyncio.run(part_a(record, args.worlds, args.repeats, models))
    print(f"analyse 4p/15r all seats, {args.worlds} worlds: analysis worker median "
          f"{statistics.median(times):.1f} s (runs {', '.join(f'{t:.1f}' for t in times)}); "
          f"direct in-process {direct:.1f} s; target < 60 s", flush=True)
    if args.skip_live:
        return 0
    for with_analysis in (False, True):
        r = asyncio.run(live(args.tables, args.seconds, with_analysis, record, args.worlds,
                             models))
        label = "live + analysis" if with_analysis else "live alone     "
        print(f"{label}: {args.tables} tables {args.seconds:.0f} s, {r['decisions']} decisions, "
              f"pooled (master/hard) {r['pooled']}: p50 {r['p50_ms']:.0f} ms, "
              f"p99 {r['p99_ms']:.0f} ms, fallbacks {r['fallbacks'] or 0}, analysis slices "
              f"{r['slices']} ({r['analyses_done']} whole games)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
