#!/usr/bin/env python3
"""Measure variants of the master bot head to head (duplicate deals, every rotation).

Each variant plays two seats against two of an opponent (default ``search-v1``,
the master as it was on 2026-12-02) with `calibrate_pair`: the lead's 95 %
interval is over deals. One JSON line per variant goes to ``--out``. The
variants are `SearchAgent` settings written below, so a result can be rerun
exactly: ``scripts/master_variants.py --variants worlds64 --games 100 --seed 31``.
Long: run it in the background under ``nice`` (docs/ai.md).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict
from typing import Any

from wizard.ai.evaluate import evaluate
from wizard.ai.levels.calibrate import calibrate_pair
from wizard.ai.registry import register_agent
from wizard.ai.search import Budget, SearchAgent
from wizard.ai.search.prior import master_prior

#: master v3's budget (`master_budget(32, 3)`): the variants below start from it
V3: dict[str, Any] = {"worlds": 32, "inference": 5.0, "plays": 0.3, "oversample": 8,
                      "min_ess": 0.1}
#: name -> (Budget keyword arguments, prior weight)
VARIANTS: dict[str, tuple[dict[str, Any], float]] = {
    "v1": ({"worlds": 32}, 0.5),
    "worlds64": ({"worlds": 64}, 0.5),
    "worlds128": ({"worlds": 128}, 0.5),
    "prior65": ({"worlds": 32}, 0.65),
    "prior35": ({"worlds": 32}, 0.35),
    "bidfit": ({"worlds": 32, "bid_spread": 1.0}, 0.5),
    "inf10": ({"worlds": 32, "inference": 10.0}, 0.5),
    "inf5": ({"worlds": 32, "inference": 5.0}, 0.5),
    "inf20": ({"worlds": 32, "inference": 20.0}, 0.5),
    "inf10w64": ({"worlds": 64, "inference": 10.0}, 0.5),
    "plays3": ({"worlds": 32, "inference": 5.0, "plays": 0.3}, 0.5),
    "plays3o8": (V3, 0.5),
    "plays1o8": ({**V3, "plays": 0.1}, 0.5),
    "plays3o8w64": ({**V3, "worlds": 64}, 0.5),
    "plays3o8p65": (V3, 0.65),
    "plays3o8p35": (V3, 0.35),
    "plays3o8p20": (V3, 0.2),
}


def register(name: str) -> str:
    budget_args, weight = VARIANTS[name]
    agent_name = f"variant:{name}"

    def factory(seed: int | None = None, **_: object) -> SearchAgent:
        prior = master_prior()
        agent = SearchAgent(Budget(**budget_args), seed=seed, prior=prior, prior_weight=weight,
                            bid_model=prior.overall if prior is not None else None)
        agent.name = agent_name
        return agent

    register_agent(agent_name, factory)
    return agent_name


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variants", required=True, help=f"comma-separated: {', '.join(VARIANTS)}")
    parser.add_argument("--against", default="search-v1")
    parser.add_argument("--table", default=None,
                        help="instead of head to head: the variant at a table of these agents, "
                             "e.g. heuristic,heuristic,heuristic (wizard evaluate's statistics)")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=31)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--out", default="-")
    args = parser.parse_args(argv)
    for name in args.variants.split(","):
        agent = register(name)
        start = time.monotonic()
        if args.table:
            table = evaluate([agent, *args.table.split(",")], args.games, seed=args.seed,
                             jobs=args.jobs)
            others = table.agents[1:]
            line = json.dumps({"variant": name, "budget": VARIANTS[name][0],
                               "prior_weight": VARIANTS[name][1], "table": args.table,
                               "games": table.games, "seed": args.seed,
                               "lead": round(table.agents[0].mean
                                             - sum(a.mean for a in others) / len(others), 1),
                               "agents": table.to_dict()["agents"],
                               "wall_s": round(time.monotonic() - start)})
            emit(line, args.out)
            continue
        result = calibrate_pair(agent, args.against, args.games, args.seed, args.jobs)
        line = json.dumps({"variant": name, "budget": VARIANTS[name][0],
                           "prior_weight": VARIANTS[name][1], "against": args.against,
                           "games": result.games, "seed": args.seed,
                           "lead": asdict(result.lead), "upper": asdict(result.upper_score),
                           "lower": asdict(result.lower_score),
                           "ms": [round(result.upper_ms, 2), round(result.lower_ms, 2)],
                           "wall_s": round(time.monotonic() - start)})
        emit(line, args.out)
    return 0


def emit(line: str, out: str) -> None:
    if out == "-":
        print(line, flush=True)
    else:
        with open(out, "a") as stream:
            stream.write(line + "\n")


if __name__ == "__main__":
    sys.exit(main())
