"""Rollouts where OI plays the other seats: the search's model of players who are not the heuristic.

The search's rollouts (`wizard.ai.search.rollout`) play every other seat with
the heuristic: exact against heuristic players, and a poor model of anyone who
plays better. Measured against OI with the true deal as the only world, the
heuristic's rollouts led OI by +0.4 a game and rollouts with OI playing the
other seats by +101 (docs/measurements/ai.md, "The ceiling against OI").
Here every candidate is played out in every world with OI bidding and playing
for the other seats and the heuristic for the searching seat; the worlds and
candidates move in lockstep as one `wizard.ai.oi.positions.Positions` (numpy
arrays, a card in every copy per step), and each step asks OI once for all of
them (`wizard.ai.oi.cores`: ~17 µs a decision in batches of hundreds, `OIAgent`
~0.14 ms).

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

import numpy as np

from wizard.engine import GameCore, Observation
from wizard.engine.core import BIDDING, PLAYING, ROUND_DONE
from wizard.engine.rules import round_score

from ..oi.agent import ProbabilityNet
from ..oi.batch import count_bits
from ..oi.cores import oi_bids, oi_card_ids
from ..oi.positions import Positions
from .rollout import heuristic_choice


def oi_finish(cores: Sequence[GameCore], me: int, overall: ProbabilityNet,
              immediate: ProbabilityNet) -> list[int]:
    """Play each core's round to its end, OI for every seat but ``me`` (the heuristic's
    cards); ``me``'s round points in each. The cores are of one round, in its bidding
    (``me`` has bid) or playing phase; the other seats' bids are applied to them, the cards
    are played as `Positions` (the cores stay where the bids end). Raises `ValueError` for
    a core in another phase.
    """
    if not cores:
        return []
    if any(core.phase not in (BIDDING, PLAYING) for core in cores):
        raise ValueError("OI's rollouts start while the round is bid or played")
    while True:
        bidding = [core for core in cores if core.phase == BIDDING]
        if not bidding:
            break
        if any(core.current == me for core in bidding):
            raise ValueError("the searching seat bids before its rollouts start")
        for core, bid in zip(bidding, oi_bids(bidding, overall), strict=True):
            core.apply(bid)
    positions = Positions.of(cores)  # every core is playing now
    left = count_bits(np.bitwise_or.reduce(positions.hands, axis=1))
    points = [0] * len(cores)
    for cards_left in np.unique(left).tolist():  # one lockstep group a round's length
        group = np.flatnonzero(left == cards_left)
        at = positions.take(group)
        for _ in range(cards_left):
            _play_one(at, me, overall, immediate)
        scores = [round_score(bid, won)
                  for bid, won in zip(at.bids[:, me].tolist(), at.won[:, me].tolist(),
                                      strict=True)]
        for i, score in zip(group.tolist(), scores, strict=True):
            points[i] = score
    return points


def _play_one(positions: Positions, me: int, overall: ProbabilityNet,
              immediate: ProbabilityNet) -> None:
    """A card in every position: the one legal card, the heuristic's for ``me``, else OI's."""
    legal = positions.legal()
    forced = (legal & (legal - np.uint64(1))) == 0
    cards = count_bits(legal - np.uint64(1))  # the one card's id where it is forced
    mine = np.flatnonzero(~forced & (positions.current == me))
    if len(mine):
        trick, size, lead = positions.trick, positions.trick_size, positions.lead
        needed = positions.bids[:, me] - positions.won[:, me]
        cards[mine] = [heuristic_choice(int(legal[i]), trick[i, :size[i]].tolist(),
                                        positions.trump, int(lead[i]), int(needed[i]),
                                        positions.n)
                       for i in mine.tolist()]
    others = np.flatnonzero(~forced & (positions.current != me))
    if len(others):
        cards[others] = oi_card_ids(positions.take(others), overall, immediate)
    positions.play(cards)


def oi_values(observation: Observation, worlds: Sequence[GameCore], candidates: Sequence[int],
              overall: ProbabilityNet, immediate: ProbabilityNet) -> dict[int, float]:
    """Each candidate's (an action index: a bid or a card) mean round points for the observer
    over ``worlds``, played out by `oi_finish`. Raises `ValueError` without a world."""
    if not worlds:
        raise ValueError("OI's rollouts need at least one world")
    me = observation.player
    assert me is not None
    cores: list[GameCore] = []
    ended: set[int] = set()
    for action in candidates:
        for world in worlds:
            core = world.copy()
            if core.apply(action) >= ROUND_DONE:  # the round's last card
                ended.add(len(cores))
            cores.append(core)
    going = [i for i in range(len(cores)) if i not in ended]
    played = oi_finish([cores[i] for i in going], me, overall, immediate)
    scores = [0] * len(cores)
    for i, value in zip(going, played, strict=True):
        scores[i] = value
    for i in ended:
        scores[i] = round_score(cores[i].last_bids[me], cores[i].last_tricks[me])
    k = len(worlds)
    return {action: sum(scores[j * k:(j + 1) * k]) / k for j, action in enumerate(candidates)}


__all__ = ["oi_finish", "oi_values"]
