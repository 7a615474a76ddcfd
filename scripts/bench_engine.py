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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=5)
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
    for name, measure, unit in figures:
        runs = [measure() for _ in range(args.repeats)]
        print(f"{name}: {statistics.median(runs):,.1f} {unit} "
              f"(median of {args.repeats}; min {min(runs):,.1f}, max {max(runs):,.1f})",
              flush=True)


if __name__ == "__main__":
    main()
