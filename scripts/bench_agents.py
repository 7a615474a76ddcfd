#!/usr/bin/env python3
"""Agent and encoding speed, one line per figure (median of --repeats runs, one core).

    .venv/bin/python scripts/bench_agents.py [--repeats 5]

Figures: HeuristicAgent decisions/s over positions of random 4-player games,
encode_observation observations/s, encode_batch observations/s (batches of 256).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

from wizard.ai.agents import HeuristicAgent
from wizard.ai.encoding import encode_batch, encode_observation
from wizard.ai.positions import positions


def rate(fn: Callable[[], int]) -> float:
    start = time.perf_counter()
    items = fn()
    return items / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    observations = positions(5120)
    agent = HeuristicAgent()

    def heuristic() -> int:
        for obs in observations:
            agent.act(obs)
        return len(observations)

    def single() -> int:
        for obs in observations:
            encode_observation(obs)
        return len(observations)

    def batched() -> int:
        for start in range(0, len(observations), 256):
            encode_batch(observations[start:start + 256])
        return len(observations)

    for name, fn, unit in (
        ("heuristic decisions", heuristic, "decisions/s"),
        ("encode_observation", single, "observations/s"),
        ("encode_batch (256 per batch)", batched, "observations/s"),
    ):
        runs = [rate(fn) for _ in range(args.repeats)]
        print(f"{name}: {statistics.median(runs):,.0f} {unit} (median of {args.repeats}; "
              f"min {min(runs):,.0f}, max {max(runs):,.0f})", flush=True)


if __name__ == "__main__":
    main()
