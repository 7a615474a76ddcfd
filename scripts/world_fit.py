#!/usr/bin/env python3
"""How well the master's worlds place the hidden cards: a log loss against the true deal.

Positions are taken from games of four ``--players`` (card decisions of any seat in
rounds 3–12, each kept with probability 0.15; with ``--phase bid``, bids in rounds 3–12
after at least one other bid, each kept with probability 0.5). At each, ``--worlds``
worlds are drawn per variant (uniform, weighted by the bids, by the bids and the plays at
several error shares, with the heuristic or OI as the model of a play; with ``--swaps``,
master v6's and v7's refined worlds, `wizard.ai.search.refine`); for every other seat and every
card it may hold, the share of worlds giving it that card (smoothed by ½) is scored
against where the card really is. Printed: the mean log loss per position (lower is
better) per variant, as a Markdown table.

    scripts/world_fit.py --players oi --seeds 1000-1005
    scripts/world_fit.py --players heuristic --errors "" --swaps 100,200,300
"""

from __future__ import annotations

import argparse
import math
import random
import sys
from collections.abc import Callable

from wizard.ai.registry import make_agent
from wizard.ai.search.budget import REFINE_ERROR, REFINE_MIN_ESS
from wizard.ai.search.inference import BID_TEMPERATURE, MIN_ESS, BidInference, Evidence
from wizard.ai.search.oi_plays import OIPlayInference
from wizard.ai.search.plays import PlayInference
from wizard.ai.search.prior import master_prior
from wizard.ai.search.refine import refined_deals
from wizard.ai.search.worlds import Knowledge, Weigh, sample_worlds
from wizard.engine import Observation, Phase, WizardGame


def wanted(obs: Observation, phase: str) -> bool:
    """Whether a decision is one ``phase``'s positions are sampled from (see the module)."""
    if not 3 <= obs.round_number <= 12 or len(obs.legal_actions) <= 1:
        return False
    if phase == "bid":
        return obs.phase is Phase.BIDDING and sum(obs.has_bid) >= 1
    return obs.phase is Phase.PLAYING


def positions(players: str, seeds: range, phase: str) -> list[tuple[Observation, list[int]]]:
    """(observation, true hand masks) at sampled decisions of games of ``players``."""
    share = 0.5 if phase == "bid" else 0.15
    out = []
    for seed in seeds:
        game = WizardGame(4, seed=seed)
        agents = [make_agent(players, seed=seed * 10 + i) for i in range(4)]
        pick = random.Random(seed)
        while not game.is_finished:
            player = game.current_player
            assert player is not None
            obs = game.observation(player)
            if wanted(obs, phase) and pick.random() < share:
                hands = [sum(1 << c.id for c in game.hand(p)) for p in range(4)]
                out.append((obs, hands))
            game.apply(player, agents[player].act(obs))
    return out


#: a way to draw worlds: (observation, count, generator) -> each world's hand masks
Draw = Callable[[Observation, int, random.Random], list[list[int]]]


def weighed(weigh: Weigh | None, oversample: int) -> Draw:
    """Worlds drawn by `sample_worlds`, weighed by ``weigh``."""
    return lambda obs, count, rng: [core.hands for core in sample_worlds(
        obs, count, rng, weigh=weigh, oversample=oversample)]


def swapped(steps: int) -> Draw:
    """Master v6's and v7's refined worlds at ``steps`` swaps (`wizard.ai.search.pimc`)."""
    return lambda obs, count, rng: refined_deals(
        obs, count, rng, bid_error=REFINE_ERROR, play_error=REFINE_ERROR, oversample=8,
        min_ess=REFINE_MIN_ESS, steps=steps)


def log_loss(obs: Observation, truth: list[int], draw: Draw, worlds: int,
             rng: random.Random) -> float:
    deals = draw(obs, worlds, rng)
    knowledge = Knowledge.of(obs)
    total = 0.0
    for seat in range(obs.num_players):
        if seat == knowledge.me:
            continue
        allowed = knowledge.allowed[seat]
        for card in range(60):
            if not allowed >> card & 1:
                continue
            share = (sum(hands[seat] >> card & 1 for hands in deals) + 0.5) / (worlds + 1)
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
    parser.add_argument("--phase", choices=("card", "bid"), default="card")
    parser.add_argument("--swaps", default="",
                        help="swap counts of refined worlds to try (master v6: 100, v7: 200)")
    args = parser.parse_args(argv)
    first, last = (int(x) for x in args.seeds.split("-"))
    prior = master_prior()
    if prior is None:
        print("OI's networks could not be loaded", file=sys.stderr)
        return 1
    bids = BidInference(prior.overall, BID_TEMPERATURE)
    over = args.oversample
    variants: dict[str, Callable[[], Draw]] = {
        "uniform": lambda: weighed(None, over),
        f"bids (τ = {BID_TEMPERATURE:g})": lambda: weighed(
            Evidence(bids, None, args.min_ess).log_weights, over),
    }
    for error in (float(x) for x in args.errors.split(",") if x):
        variants[f"bids + plays (error {error:g})"] = (
            lambda e=error: weighed(Evidence(  # type: ignore[misc]
                bids, PlayInference(e), args.min_ess).log_weights, over))
    for error in (float(x) for x in args.oi_errors.split(",") if x):
        variants[f"bids + OI's plays (error {error:g})"] = (
            lambda e=error: weighed(Evidence(  # type: ignore[misc]
                bids, OIPlayInference(prior.overall, prior.immediate, e),
                args.min_ess).log_weights, over))
    for steps in (int(x) for x in args.swaps.split(",") if x):
        variants[f"the heuristic's bids and plays ({REFINE_ERROR:g}), {steps} swaps"] = (
            lambda k=steps: swapped(k))  # type: ignore[misc]
    found = positions(args.players, range(first, last + 1), args.phase)
    print(f"{len(found)} {args.phase} positions from games of four {args.players} players, "
          f"seeds {args.seeds}, {args.worlds} worlds of {args.worlds * args.oversample} "
          f"candidates, tempering floor {args.min_ess:g} (generator seed 7)\n")
    print("| worlds | log loss |\n|---|---|")
    for name, make in variants.items():
        rng = random.Random(7)
        draw = make()
        losses = [log_loss(obs, truth, draw, args.worlds, rng)
                  for obs, truth in found]
        print(f"| {name} | {sum(losses) / len(losses):.2f} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
