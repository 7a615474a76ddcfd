#!/usr/bin/env python3
"""Engine speed, one line per figure (median of --repeats runs, one core).

    .venv/bin/python scripts/bench_engine.py [--games 300] [--repeats 5]

Times are CPU seconds of this process (time.process_time), so other load on
the machine disturbs them less than wall-clock time would.

Figures: full random 4-player games/s through the checked API (legal_actions +
apply), through the fast path one move at a time (GameCore.legal_mask + apply),
through the fast path's random playout (what search rollouts use), and
microseconds per observation() and per to_dict() of a mid-game position.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

from wizard.engine import WizardGame
from wizard.engine.core import FINISHED, GameCore, random_index


def checked_games(games: int) -> float:
    start = time.process_time()
    for seed in range(games):
        game = WizardGame(4, seed=seed)
        rand = random.Random(seed).random
        while not game.is_finished:
            player = game.current_player
            actions = game.legal_actions()
            game.apply(player, actions[int(rand() * len(actions))])  # type: ignore[arg-type]
    return games / (time.process_time() - start)


def fast_step_games(games: int) -> float:
    start = time.process_time()
    for seed in range(games):
        core = GameCore(4, seed)
        rand = random.Random(seed).random
        while core.phase != FINISHED:
            core.apply(random_index(core.legal_mask(), rand))
    return games / (time.process_time() - start)


def fast_playout_games(games: int) -> float:
    start = time.process_time()
    for seed in range(games):
        GameCore(4, seed).playout(random.Random(seed).random)
    return games / (time.process_time() - start)


def mid_game() -> WizardGame:
    game = WizardGame(4, seed=7)
    rand = random.Random(7).random
    while game.round_number < 8 or game.core.trick_number < 3:
        actions = game.legal_actions()
        game.apply(game.current_player, actions[int(rand() * len(actions))])  # type: ignore[arg-type]
    return game


def per_call_us(fn: Callable[[], object], calls: int) -> float:
    start = time.process_time()
    for _ in range(calls):
        fn()
    return (time.process_time() - start) / calls * 1e6


def reference_loop() -> float:
    """Millions of iterations/s of a plain Python loop: how fast the machine runs right now."""
    start = time.process_time()
    total = 0
    for i in range(1_000_000):
        total += i
    return 1.0 / (time.process_time() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    game = mid_game()
    player = game.current_player
    figures: list[tuple[str, Callable[[], float], str]] = [
        ("checked API (legal_actions + apply)", lambda: checked_games(args.games), "games/s"),
        ("fast path, move by move (legal_mask + apply)", lambda: fast_step_games(args.games),
         "games/s"),
        ("fast path, random playout", lambda: fast_playout_games(args.games), "games/s"),
        ("observation()", lambda: per_call_us(lambda: game.observation(player), 5000), "us"),
        ("observation().to_dict()",
         lambda: per_call_us(lambda: game.observation(player).to_dict(), 2000), "us"),
        ("WizardGame.to_dict()", lambda: per_call_us(game.to_dict, 2000), "us"),
    ]
    # Each repeat measures the reference loop right before every figure: this machine's
    # speed swings by more than half within seconds (shared host), and a figure is only
    # comparable with the reference taken beside it.
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name, _, _ in figures}
    for _ in range(args.repeats):
        for name, measure, _ in figures:
            reference = reference_loop()
            runs[name].append((measure(), reference))
    best_reference = max(ref for pairs in runs.values() for _, ref in pairs)
    print(f"reference loop: {best_reference:.1f} M iterations/s at best, "
          f"{statistics.median(r for p in runs.values() for _, r in p):.1f} median")
    for name, _, unit in figures:
        values = [value for value, _ in runs[name]]
        # scale each value to the machine at its best observed speed (per unit: rates up,
        # times down)
        if unit == "us":
            scaled = [value * ref / best_reference for value, ref in runs[name]]
        else:
            scaled = [value * best_reference / ref for value, ref in runs[name]]
        print(f"{name}: {statistics.median(values):,.1f} {unit} median of {args.repeats} "
              f"(min {min(values):,.1f}, max {max(values):,.1f}); "
              f"at the best reference speed {statistics.median(scaled):,.1f} {unit}",
              flush=True)


if __name__ == "__main__":
    main()
