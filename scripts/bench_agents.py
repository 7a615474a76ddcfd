#!/usr/bin/env python3
"""Agent and encoding speed, one line per figure (median of --repeats runs, one core).

    .venv/bin/python scripts/bench_agents.py [--repeats 5]

Figures: HeuristicAgent decisions/s over positions of random 4-player games,
encode_observation observations/s, encode_batch observations/s (batches of 256); OI's
card decisions/s over the card decisions with a choice of 8 games of four OI players,
by `OIAgent` one observation at a time and by `wizard.ai.oi.cores` one round's positions
(as engine cores) at a time: the same positions and choices, the form master v9's
rollouts ask.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

from wizard.ai.agents import HeuristicAgent
from wizard.ai.encoding import encode_batch, encode_observation
from wizard.ai.oi import OIAgent, load_networks
from wizard.ai.oi.cores import oi_cards
from wizard.ai.positions import positions
from wizard.engine import GameCore, Observation, Phase, WizardGame


def rate(fn: Callable[[], int]) -> float:
    start = time.perf_counter()
    items = fn()
    return items / (time.perf_counter() - start)


def oi_positions(oi: OIAgent) -> list[list[tuple[Observation, GameCore]]]:
    """The card decisions with a choice of 8 games of four OI players, by game and round."""
    rounds: list[list[tuple[Observation, GameCore]]] = []
    for seed in range(8):
        game = WizardGame(4, seed=seed)
        key = None
        while not game.is_finished:
            player = game.current_player
            assert player is not None
            obs = game.observation(player)
            if obs.phase is Phase.PLAYING and len(obs.legal_actions) > 1:
                if key != obs.round_number:
                    key = obs.round_number
                    rounds.append([])
                rounds[-1].append((obs, game.core.copy()))
            game.apply(player, oi.act(obs))
    return rounds


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

    oi = OIAgent(*load_networks())
    rounds = oi_positions(oi)
    oi_observations = [obs for same_round in rounds for obs, _ in same_round]

    def oi_agent() -> int:
        for obs in oi_observations:
            oi.act(obs)
        return len(oi_observations)

    def oi_cores() -> int:
        for same_round in rounds:
            oi_cards([core for _, core in same_round], oi.overall, oi.immediate)
        return len(oi_observations)

    for name, fn, unit in (
        ("heuristic decisions", heuristic, "decisions/s"),
        ("encode_observation", single, "observations/s"),
        ("encode_batch (256 per batch)", batched, "observations/s"),
        (f"OI card decisions, OIAgent ({len(oi_observations)} positions)", oi_agent,
         "decisions/s"),
        (f"OI card decisions, oi.cores by round ({len(rounds)} calls)", oi_cores,
         "decisions/s"),
    ):
        runs = [rate(fn) for _ in range(args.repeats)]
        print(f"{name}: {statistics.median(runs):,.0f} {unit} (median of {args.repeats}; "
              f"min {min(runs):,.0f}, max {max(runs):,.0f})", flush=True)


if __name__ == "__main__":
    main()
