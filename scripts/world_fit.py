#!/usr/bin/env python3
"""How well the master's worlds place the hidden cards: a log loss against the true deal.

Positions are taken from games of four ``--players`` (card decisions of any seat in
rounds 3–12, each kept with probability 0.15). At each, ``--worlds`` worlds are drawn
per variant (uniform, weighted by the bids, by the bids and the plays at several error
shares, with the heuristic or OI as the model of a play); for every other seat and every
card it may hold, the share of worlds giving it that card (smoothed by ½) is scored
against where the card really is. Printed: the mean log loss per position (lower is
better) per variant, as a Markdown table.

    scripts/world_fit.py --players oi --seeds 1000-1005
"""

from __future__ import annotations

import argparse
import math
import random
import sys
from collections.abc import Callable

from wizard.ai.registry import make_agent
from wizard.ai.search.inference import BID_TEMPERATURE, MIN_ESS, BidInference, Evidence
from wizard.ai.search.oi_plays import OIPlayInference
from wizard.ai.search.plays import PlayInference
from wizard.ai.search.prior import master_prior
from wizard.ai.search.worlds import Knowledge, Weigh, sample_worlds
from wizard.engine import Observation, Phase, WizardGame


def positions(players: str, seeds: range, share: float) -> list[tuple[Observation, list[int]]]:
    """(observation, true hand masks) at sampled card decisions of games of ``players``."""
    out = []
    for seed in seeds:
        game = WizardGame(4, seed=seed)
        agents = [make_agent(players, seed=seed * 10 + i) for i in range(4)]
        pick = random.Random(seed)
        while not game.is_finished:
            player = game.current_player
            assert player is not None
            obs = game.observation(player)
            if (obs.phase is Phase.PLAYING and 3 <= obs.round_number <= 12
                    and len(obs.legal_actions) > 1 and pick.random() < share):
                hands = [sum(1 << c.id for c in game.hand(p)) for p in range(4)]
                out.append((obs, hands))
            game.apply(player, agents[player].act(obs))
    return out


def log_loss(obs: Observation, truth: list[int], weigh: Weigh | None, worlds: int,
             oversample: int, rng: random.Random) -> float:
    cores = sample_worlds(obs, worlds, rng, weigh=weigh, oversample=oversample)
    knowledge = Knowledge.of(obs)
    total = 0.0
    for seat in range(obs.num_players):
        if seat == knowledge.me:
            continue
        allowed = knowledge.allowed[seat]
        for card in range(60):
            if not allowed >> card & 1:
                continue
            share = (sum(c.hands[seat] >> card & 1 for c in cores) + 0.5) / (worlds + 1)
            total -= math.log(share if truth[seat] >> card & 1 else 1.0 - share)
    return total


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", default="oi")
    parser.add_argument("--seeds", default="1000-1005", help="first-last game seeds")
    parser.add_argument("--worlds", type=int, default=32)
    parser.add_argument("--errors", default="0.1,0.2,0.3,0.5",
                        help="the play model's error shares to try")
    parser.add_argument("--oi-errors", default="",
                        help="error shares of OI's play as the model (wizard.ai.search.oi_plays)")
    parser.add_argument("--oversample", type=int, default=4,
                        help="candidate deals drawn per kept world")
    parser.add_argument("--min-ess", type=float, default=MIN_ESS,
                        help="the tempering floor, a share of the candidates")
    args = parser.parse_args(argv)
    first, last = (int(x) for x in args.seeds.split("-"))
    prior = master_prior()
    if prior is None:
        print("OI's networks could not be loaded", file=sys.stderr)
        return 1
    bids = BidInference(prior.overall, BID_TEMPERATURE)
    variants: dict[str, Callable[[], Weigh | None]] = {
        "uniform": lambda: None,
        f"bids (τ = {BID_TEMPERATURE:g})": lambda: Evidence(bids, None, args.min_ess).log_weights,
    }
    for error in (float(x) for x in args.errors.split(",")):
        variants[f"bids + plays (error {error:g})"] = (
            lambda e=error: Evidence(  # type: ignore[misc]
                bids, PlayInference(e), args.min_ess).log_weights)
    for error in (float(x) for x in args.oi_errors.split(",") if x):
        variants[f"bids + OI's plays (error {error:g})"] = (
            lambda e=error: Evidence(  # type: ignore[misc]
                bids, OIPlayInference(prior.overall, prior.immediate, e),
                args.min_ess).log_weights)
    found = positions(args.players, range(first, last + 1), 0.15)
    print(f"{len(found)} positions from games of four {args.players} players, "
          f"seeds {args.seeds}, {args.worlds} worlds of {args.worlds * args.oversample} "
          f"candidates, tempering floor {args.min_ess:g} (generator seed 7)\n")
    print("| worlds | log loss |\n|---|---|")
    for name, make in variants.items():
        rng = random.Random(7)
        weigh = make()
        losses = [log_loss(obs, truth, weigh, args.worlds, args.oversample, rng)
                  for obs, truth in found]
        print(f"| {name} | {sum(losses) / len(losses):.2f} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
