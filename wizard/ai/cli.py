"""``wizard evaluate``: fair duplicate evaluation of agents from the command line."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from typing import Any

from wizard.engine import GameOptions

from .evaluate import EvaluationResult, ProgressBar, evaluate
from .policy import PolicyError
from .registry import agent_names


def parse_options(text: str | None) -> GameOptions:
    """``"hidden_bids,forbid_even_bids=false"`` → `GameOptions`; raises `ValueError`."""
    values: dict[str, bool] = {}
    for item in filter(None, (part.strip() for part in (text or "").split(","))):
        name, _, value = item.partition("=")
        if value not in ("", "true", "false"):
            raise ValueError(f"option {name} must be name, name=true or name=false")
        values[name] = value != "false"
    return GameOptions.from_dict(values)


def format_table(result: EvaluationResult) -> str:
    header = (f"{'agent':<14}{'mean':>9}{'stderr':>8}{'95% CI':>20}{'margin':>9}"
              f"{'95% CI':>20}{'win rate':>10}{'bid acc.':>10}")
    lines = [header, "-" * len(header)]
    for a in result.agents:
        ci = f"[{a.ci95[0]:.1f}, {a.ci95[1]:.1f}]"
        margin_ci = f"[{a.margin_ci95[0]:.1f}, {a.margin_ci95[1]:.1f}]"
        lines.append(f"{a.name:<14}{a.mean:>9.1f}{a.stderr:>8.1f}{ci:>20}{a.margin:>+9.1f}"
                     f"{margin_ci:>20}{a.win_rate:>9.1%}{a.bid_accuracy:>10.1%}")
    lines.append(f"{result.games} games ({result.deals} deals x {len(result.agents)} rotations); "
                 "margin: over the other agents' mean, paired by deal")
    return "\n".join(lines)


def run_evaluate(args: argparse.Namespace) -> int:
    names = [name.strip() for name in args.agents.split(",") if name.strip()]
    try:
        options = dataclasses.replace(parse_options(args.options), rounds=args.rounds)
        result = evaluate(names, args.games, options=options, seed=args.seed, jobs=args.jobs,
                          progress=None if args.quiet else ProgressBar(sys.stderr))
    except (ValueError, PolicyError) as exc:
        print(f"wizard evaluate: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps({**result.to_dict(), "seed": args.seed}))
    else:
        print(format_table(result))
    return 0


def run_calibrate(args: argparse.Namespace) -> int:
    from .levels.calibrate import LEVEL_PAIRS, calibrate_pair, format_results

    if args.games < 1:
        print(f"wizard calibrate: games must be at least 1, got {args.games}", file=sys.stderr)
        return 2
    pairs: list[tuple[str, str]] = list(LEVEL_PAIRS)
    if args.pairs:
        pairs = []
        for item in args.pairs.split(","):
            upper, _, lower = item.strip().partition(":")
            if not upper or not lower:
                print(f"wizard calibrate: a pair is UPPER:LOWER (levels), got {item!r}",
                      file=sys.stderr)
                return 2
            pairs.append((f"bot:{upper}", f"bot:{lower}"))
    results = []
    try:
        for upper, lower in pairs:
            progress = None if args.quiet else ProgressBar(sys.stderr)
            results.append(calibrate_pair(upper, lower, args.games, args.seed, args.jobs,
                                          progress=progress))
            if not args.json:
                print(format_results(results[-1:]).splitlines()[-1] if len(results) > 1
                      else format_results(results), flush=True)
    except ValueError as exc:
        print(f"wizard calibrate: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps([{
            "upper": r.upper, "lower": r.lower, "games": r.games, "margin": r.margin,
            "passed": r.passed, "upper_ms": r.upper_ms, "lower_ms": r.lower_ms,
            **{name: [i.mean, i.low, i.high] for name, i in (
                ("upper_score", r.upper_score), ("lower_score", r.lower_score),
                ("lead", r.lead))},
        } for r in results]))
    return 0 if all(r.passed for r in results) else 1


def register(sub: Any) -> None:
    calibrate_parser = sub.add_parser(
        "calibrate",
        help="play each bot level (two seats) against the level below (two seats)",
        description="Duplicate deals, every rotation; each level must lead the one below by "
                    "30 points per game (master over easy: 200) with 95 percent intervals apart. "
                    "Exit status 1 when a pair falls short.",
    )
    calibrate_parser.add_argument("--games", type=int, default=200,
                                  help="games per pair (default 200)")
    calibrate_parser.add_argument("--seed", type=int, default=1)
    calibrate_parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    calibrate_parser.add_argument("--pairs", default="",
                                  help="e.g. master:easy,hard:medium (default: every step "
                                       "and master:easy)")
    calibrate_parser.add_argument("--json", action="store_true", help="one JSON list on stdout")
    calibrate_parser.add_argument("--quiet", action="store_true", help="no progress bar")
    calibrate_parser.set_defaults(handler=run_calibrate)

    parser = sub.add_parser(
        "evaluate",
        help="play agents against each other in duplicate format and report their scores",
        description="Each deal is played once per seat rotation so every agent holds every hand.",
    )
    parser.add_argument("--agents", required=True,
                        help=f"comma-separated, 3-6 of: {', '.join(agent_names())}")
    parser.add_argument("--games", type=int, default=1000, help="deals x rotations (default 1000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument("--options", default="",
                        help="rule options, e.g. hidden_bids,wizard_trump_dealer_chooses")
    parser.add_argument("--rounds", type=int, default=None,
                        help="a short game of this many rounds (default: the full 60/players)")
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.set_defaults(handler=run_evaluate)
