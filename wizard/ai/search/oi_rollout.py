"""Rollouts where OI plays the other seats: the search's model of players who are not the heuristic.

The search's rollouts (`wizard.ai.search.rollout`) play every other seat with
the heuristic: exact against heuristic players, and a poor model of anyone who
plays better. Measured against OI with the true deal as the only world, the
heuristic's rollouts led OI by +0.4 a game and rollouts with OI playing the
other seats by +101 (docs/measurements/ai.md, "The ceiling against OI").
Here every candidate is played out in every world with OI bidding and playing
for the other seats and the heuristic for the searching seat; the worlds and
candidates move in lockstep as one `wizard.ai.oi.positions.Positions` (numpy
arrays, a card in every copy per step: `wizard.ai.search.lockstep`), and each step
asks OI once for all of them (`wizard.ai.oi.cores`: ~17 µs a decision in batches of
hundreds, `OIAgent` ~0.14 ms).

>>> from wizard.engine import WizardGame
>>> from wizard.ai.oi import load_networks
>>> from wizard.ai.search.worlds import sample_worlds
>>> import random
>>> game = WizardGame(4, seed=2)
>>> obs = game.observation(game.current_player)
>>> worlds = sample_worlds(obs, 4, random.Random(1))
>>> values = oi_values(obs, worlds, [a.value for a in obs.legal_actions], *load_networks())
>>> sorted(values) == [a.value for a in obs.legal_actions]
True
"""

from __future__ import annotations

from collections.abc import Sequence

from wizard.engine import GameCore, Observation
from wizard.engine.rules import round_score

from ..oi.agent import ProbabilityNet
from ..oi.cores import oi_bids, oi_card_ids
from .lockstep import finish, play_out


def oi_finish(cores: Sequence[GameCore], me: int, overall: ProbabilityNet,
              immediate: ProbabilityNet) -> list[int]:
    """Play each core's round to its end, OI for every seat but ``me`` (the heuristic's
    cards); ``me``'s round points in each. The cores are of one round, in its bidding
    (``me`` has bid) or playing phase; the other seats' bids are applied to them, the cards
    are played in lockstep (`wizard.ai.search.lockstep.finish`). Raises `ValueError` for
    a core in another phase.
    """
    bids, won = finish(cores, me, lambda bidding: oi_bids(bidding, overall),
                       lambda positions: oi_card_ids(positions, overall, immediate))
    return [round_score(bid, tricks)
            for bid, tricks in zip(bids.tolist(), won.tolist(), strict=True)]


def oi_values(observation: Observation, worlds: Sequence[GameCore], candidates: Sequence[int],
              overall: ProbabilityNet, immediate: ProbabilityNet) -> dict[int, float]:
    """Each candidate's (an action index: a bid or a card) mean round points for the observer
    over ``worlds``, played out as `oi_finish` plays them (`wizard.ai.search.lockstep.play_out`).
    Raises `ValueError` without a world."""
    if not worlds:
        raise ValueError("OI's rollouts need at least one world")
    me = observation.player
    assert me is not None
    bids, won = play_out(worlds, candidates, me, lambda bidding: oi_bids(bidding, overall),
                         lambda positions: oi_card_ids(positions, overall, immediate))
    scores = [round_score(bid, tricks)
              for bid, tricks in zip(bids.tolist(), won.tolist(), strict=True)]
    k = len(worlds)
    return {action: sum(scores[j * k:(j + 1) * k]) / k for j, action in enumerate(candidates)}

__all__ = ["oi_finish", "oi_values"]
