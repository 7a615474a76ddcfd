#!/usr/bin/env python3
"""Decision times of the bot levels on one core: p50 / p99 per decision, bids and cards apart.

    .venv/bin/python scripts/bench_search.py [--games 6] [--seed 1] [--rows 'search top/OI']

Seat 0 plays each measured brain against three heuristic (or OI) seats over the same
deals; every decision of seat 0 is timed with time.process_time (CPU seconds
of this process, so other load on the machine disturbs it less than wall
time). Rows:

- ``heuristic``: `HeuristicAgent`, the reference measured in the same run;
- ``bot:easy`` / ``bot:medium``: the levels at the top of their range;
- ``bot:hard``: without ``models/default.onnx``, a small search (strength 80);
- ``search top``: master at strength 100 (its top budget, 32 worlds), no
  random moves; ``search top/OI`` the same with three OI seats, where the table reads
  unlike the heuristic and its rollouts are OI's and the heuristic's (bot version 12),
  ``search v9/OI`` bot version 11 there (OI's rollouts alone), ``search v8/OI`` bot
  version 10 (the heuristic's alone); ``search v7`` the master of bot version 9 (the table
  read in the round only); ``search v2`` and ``search v1`` the same for a version-2 master
  bot (worlds weighted by the bids only) and a version-1 one (uniform worlds),
  the references for the inference's cost;
- ``rollouts/s``: rounds finished by the heuristic rollout per CPU second.

Targets (issue 12): master p99 < 500 ms, p50 < 60 ms; easy/medium < 5 ms.
(Issue 26: master p99 <= 150 ms of CPU at its top budget.)
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

from wizard.ai.agents import HeuristicAgent
from wizard.ai.levels import BotLevel, BotSettings
from wizard.ai.levels.agent import LevelAgent
from wizard.ai.levels.settings import BOT_VERSION
from wizard.ai.registry import make_agent
from wizard.ai.search.rollout import finish_round
from wizard.engine import Action, Observation, Phase, WizardGame

Brain = Callable[[Observation, int], Action]


def level_brain(level: str, strength: int, version: int = BOT_VERSION) -> Brain:
    agent = LevelAgent(level)
    bot = BotSettings(BotLevel(level), strength, seed=12345, version=version)

    def act(observation: Observation, move: int) -> Action:
        return agent.act_as_bot(observation, bot, move)[0]

    return act


def heuristic_brain() -> Brain:
    agent = HeuristicAgent()
    return lambda observation, move: agent.act(observation)


def time_brain(brain: Brain, games: int, seed: int, table: str = "heuristic"
               ) -> dict[str, list[float]]:
    other = HeuristicAgent() if table == "heuristic" else make_agent(table)
    times: dict[str, list[float]] = {"bid": [], "card": []}
    for game_number in range(games):
        game = WizardGame(4, seed=seed * 1000 + game_number)
        move = 0
        while not game.is_finished:
            player = game.current_player
            assert player is not None
            observation = game.observation(player)
            if player == 0:
                start = time.process_time()
                action = brain(observation, move)
                elapsed = (time.process_time() - start) * 1000
                times["bid" if observation.phase is Phase.BIDDING else "card"].append(elapsed)
            else:
                action = other.act(observation)
            game.apply(player, action)
            move += 1
    return times


def rollouts_per_second(seconds: float = 2.0) -> float:
    game = WizardGame(4, seed=3)
    for _ in range(9):  # into round 10: a mid-sized round
        core = game.core
        finish_round(core)
    template = game.core
    done = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        for _ in range(100):
            finish_round(template.copy())
        done += 100
    return done / (time.process_time() - start)


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rows", default=None,
                        help="only these rows, comma-separated (e.g. 'search top/OI,search "
                             "v9/OI'); the heuristic reference is always measured")
    args = parser.parse_args()
    brains: list[tuple[str, Brain, str]] = [
        ("heuristic", heuristic_brain(), "heuristic"),
        ("bot:easy", level_brain("easy", 25), "heuristic"),
        ("bot:medium", level_brain("medium", 55), "heuristic"),
        ("bot:hard", level_brain("hard", 80), "heuristic"),
        ("search top", level_brain("master", 100), "heuristic"),
        ("search top/OI", level_brain("master", 100), "oi"),
        ("search v9/OI", level_brain("master", 100, version=11), "oi"),
        ("search v8/OI", level_brain("master", 100, version=10), "oi"),
        ("search v7", level_brain("master", 100, version=9), "heuristic"),
        ("search v2", level_brain("master", 100, version=2), "heuristic"),
        ("search v1", level_brain("master", 100, version=1), "heuristic"),
    ]
    print(f"{'brain':<14}{'bid p50':>9}{'bid p99':>9}{'card p50':>10}{'card p99':>10}"
          f"{'mean':>8}  (ms, CPU, {args.games} games x 4 players, seat 0)")
    if args.rows is not None:
        wanted = {"heuristic", *args.rows.split(",")}
        unknown = wanted - {name for name, _, _ in brains}
        if unknown:
            parser.error(f"no such row: {', '.join(sorted(unknown))}")
        brains = [row for row in brains if row[0] in wanted]
    for name, brain, table in brains:
        times = time_brain(brain, args.games, args.seed, table)
        both = times["bid"] + times["card"]
        print(f"{name:<14}{quantile(times['bid'], 0.5):>9.2f}{quantile(times['bid'], 0.99):>9.2f}"
              f"{quantile(times['card'], 0.5):>10.2f}{quantile(times['card'], 0.99):>10.2f}"
              f"{statistics.fmean(both):>8.2f}", flush=True)
    print(f"rollouts/s (round 10 of 4 players, heuristic, one core): {rollouts_per_second():.0f}")


if __name__ == "__main__":
    main()
