#!/usr/bin/env python3
"""Decision latency of model-backed agents, one line per figure (one core).

    .venv/bin/python scripts/bench_model.py --agent oi [--positions 3000] [--repeats 5]

``--agent oi``: the OI agent on the shipped networks (``models/oi_*.onnx``),
p50 / p99 / max milliseconds per decision over the positions of 4-player
games played by the heuristic (every phase: bids, plays, trump choices),
the median over ``--repeats`` runs, in wall-clock time and in process CPU
time (which leaves out waits for a core on a shared machine), beside the
heuristic's figures on the same positions in the same run.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

from wizard.ai.agents import Agent, HeuristicAgent, make_agent
from wizard.engine import GameOptions, Observation, WizardGame


def positions(count: int, seed: int = 1, num_players: int = 4) -> list[Observation]:
    """Observations of the seat to move in heuristic games (all options drawn at random)."""
    out: list[Observation] = []
    rng = random.Random(seed)
    agent = HeuristicAgent()
    while len(out) < count:
        options = GameOptions(hidden_bids=rng.random() < 0.5,
                              wizard_trump_dealer_chooses=rng.random() < 0.5)
        game = WizardGame(num_players, options, seed=rng.getrandbits(32))
        while not game.is_finished and len(out) < count:
            player = game.current_player
            assert player is not None
            obs = game.observation(player)
            out.append(obs)
            game.apply(player, agent.act(obs))
    return out


def latencies_ms(agent: Agent, observations: list[Observation],
                 clock: Callable[[], float] = time.perf_counter) -> list[float]:
    out = []
    for obs in observations:
        start = clock()
        agent.act(obs)
        out.append((clock() - start) * 1000.0)
    return sorted(out)


def percentile(sorted_values: list[float], q: float) -> float:
    return sorted_values[min(len(sorted_values) - 1, int(q * len(sorted_values)))]


def _report(name: str, runs: list[list[float]]) -> None:
    for label, q in (("p50", 0.50), ("p99", 0.99), ("max", 1.0)):
        values = [percentile(r, q) for r in runs]
        print(f"{name} decision latency {label}: {statistics.median(values):.3f} ms "
              f"(median of {len(runs)} runs; min {min(values):.3f}, max {max(values):.3f})",
              flush=True)


def bench_oi(observations: list[Observation], repeats: int) -> None:
    """OI agent latency beside the heuristic's on the same positions."""
    agent = make_agent("oi")
    if agent.name != "oi":
        raise SystemExit("the OI networks did not load (models/oi_overall.onnx, "
                         "models/oi_immediate.onnx); see the warning above")
    agent.act(observations[0])  # warm the sessions up
    reference = HeuristicAgent()
    oi_runs, oi_cpu_runs, heuristic_runs = [], [], []
    for _ in range(repeats):
        oi_runs.append(latencies_ms(agent, observations))
        oi_cpu_runs.append(latencies_ms(agent, observations, time.process_time))
        heuristic_runs.append(latencies_ms(reference, observations))
    print(f"positions: {len(observations)} (4 players, heuristic games, all phases)")
    _report("oi", oi_runs)
    # CPU time leaves out the time the process waited for a core (a shared machine's
    # preemptions land in the wall-clock tail)
    _report("oi (process CPU time)", oi_cpu_runs)
    _report("heuristic (reference)", heuristic_runs)


BENCHMARKS: dict[str, Callable[[list[Observation], int], None]] = {"oi": bench_oi}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agent", choices=sorted(BENCHMARKS), default="oi")
    parser.add_argument("--positions", type=int, default=3000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    BENCHMARKS[args.agent](positions(args.positions), args.repeats)


if __name__ == "__main__":
    main()
