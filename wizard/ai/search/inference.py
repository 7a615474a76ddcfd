"""Inference: weigh sampled worlds by how well they explain the other seats' bids.

Uniform worlds (`wizard.ai.search.worlds`) respect voids and hand sizes and
nothing else, yet every visible bid says a lot about the hand behind it: a seat
that bid 4 of 5 rarely holds five low cards. Following policy-based inference
for determinized search (Rebstock et al. 2019, Skat), a world is weighted by
the likelihood of each other seat's observed bid under a model of that seat,
given the hand the world gives it:

    log w(world) = Σ_seats log P(bid_s | hand_s, what s saw when it bid)

The model is OI's bidding (`wizard.ai.oi`): the overall network's per-card
chances of taking a trick give the distribution of the seat's tricks
(`trick_distributions`), hence each legal bid's expected score; the seat is
taken to bid with probability ``softmax(score / temperature)``. The seat's
hand when it bid is its sampled hand plus the cards it has played this round;
what it saw is the trump, its place in the bidding and the bids before it.

Degenerate weights (one world explaining the bids far better than all the
others) are tempered: the log weights are scaled by the largest ``λ ≤ 1``
that keeps the effective sample size (`effective_sample_size`) at or above
``min_ess`` of the candidates. `BidInference.log_weights` returns the
tempered log weights; `wizard.ai.search.worlds.sample_worlds` keeps the
budgeted worlds in proportion to them.

>>> from wizard.engine import WizardGame
>>> import numpy as np
>>> half = lambda rows: np.full(len(rows), 0.5, np.float32)
>>> game = WizardGame(4, seed=5)
>>> obs = game.observation(game.current_player)
>>> BidInference(half, 10.0).log_weights(obs, [[0, 0, 0, 0]])  # nobody has bid yet
[0.0]
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from wizard.engine import Observation, ids_of
from wizard.engine.cards import ALL_CARDS_MASK
from wizard.engine.rules import round_score

from ..oi.agent import ProbabilityNet, feature_version, trick_distributions
from ..oi.batch import bid_features
from ..oi.features import Situation
from .plays import PlayModel
from .worlds import played_by_seat

#: the softmax temperature of a seat's bid, in round points (2–5 placed the hidden cards
#: equally well, 10 and 20 worse: docs/measurements/ai.md#inference)
BID_TEMPERATURE = 5.0
#: tempering keeps at least this share of the candidates as effective samples
MIN_ESS = 0.25


def effective_sample_size(log_weights: Sequence[float]) -> float:
    """Kish's effective sample size ``(Σw)² / Σw²`` of the weights ``exp(log_weights)``.

    >>> effective_sample_size([0.0, 0.0, 0.0, 0.0])
    4.0
    >>> round(effective_sample_size([0.0, -50.0, -50.0]), 6)
    1.0
    """
    if not log_weights:
        return 0.0
    top = max(log_weights)
    w = [math.exp(x - top) for x in log_weights]
    return sum(w) ** 2 / sum(x * x for x in w)


def temper(log_weights: Sequence[float], min_ess: float) -> list[float]:
    """``log_weights`` scaled by the largest ``λ ∈ [0, 1]`` whose ESS is ≥ ``min_ess`` of them.

    >>> temper([0.0, -1.0], 0.1)  # already spread enough: unchanged
    [0.0, -1.0]
    >>> effective_sample_size(temper([0.0, -100.0, -100.0, -100.0], 0.5)) >= 2.0 - 1e-6
    True
    """
    target = min_ess * len(log_weights)
    if not log_weights or effective_sample_size(log_weights) >= target:
        return list(log_weights)
    low, high = 0.0, 1.0
    for _ in range(30):
        mid = (low + high) / 2
        if effective_sample_size([mid * x for x in log_weights]) >= target:
            low = mid
        else:
            high = mid
    return [low * x for x in log_weights]


@dataclass(frozen=True, slots=True)
class Bidder:
    """A seat whose bid is visible, with what it knew when it bid."""

    seat: int
    bid: int
    place: int  # its place in the bidding (0: first)
    bids_before: tuple[int | None, ...]  # per seat, the bids it had seen
    legal: tuple[int, ...]
    gone: int  # the cards it has played this round (in its hand when it bid)


def visible_bidders(observation: Observation) -> list[Bidder]:
    """The other seats whose bids the observer sees this round, in bidding order.

    >>> from wizard.engine import WizardGame
    >>> game = WizardGame(4, seed=5)
    >>> visible_bidders(game.observation(game.current_player))  # nobody has bid yet
    []
    """
    n = observation.num_players
    first = (observation.dealer + 1) % n
    trump = observation.trump_suit.index if observation.trump_suit is not None else -1
    played = played_by_seat([c.id for c in observation.played_cards], n, first, trump)
    rounds = observation.round_number
    out = []
    seen: list[int | None] = [None] * n
    for place in range(n):
        seat = (first + place) % n
        bid = observation.bids[seat]
        if seat != observation.player and bid is not None:
            legal = list(range(rounds + 1))
            known = [b for b in seen if b is not None]
            if observation.options.forbid_even_bids and place == n - 1 and len(known) == n - 1:
                forbidden = rounds - sum(known)
                legal = [b for b in legal if b != forbidden] if bid != forbidden else legal
            out.append(Bidder(seat, bid, place, tuple(seen), tuple(legal), played[seat]))
        if bid is not None:
            seen[seat] = bid
    return out


class BidInference:
    """Log weights of candidate worlds under OI's bidding model (see the module).

    ``overall`` is OI's overall network (feature rows → p_O), ``temperature``
    the bid softmax's in round points, ``min_ess`` the tempering floor. Raises
    `ValueError` for a temperature that is not positive or a floor outside 0–1.
    """

    def __init__(self, overall: ProbabilityNet, temperature: float = BID_TEMPERATURE,
                 min_ess: float = MIN_ESS) -> None:
        if not temperature > 0.0:
            raise ValueError(f"the bid temperature must be positive, got {temperature!r}")
        if not 0.0 <= min_ess <= 1.0:
            raise ValueError(f"min_ess must be within 0-1, got {min_ess!r}")
        self.overall = overall
        self.version = feature_version(overall)
        self.temperature = temperature
        self.min_ess = min_ess

    def log_weights(self, observation: Observation, deals: Sequence[list[int]]) -> list[float]:
        """One tempered log weight per deal (a hand mask per seat); all 0 when no bid is seen."""
        return temper(self.log_likelihoods(observation, deals), self.min_ess)

    def log_likelihoods(self, observation: Observation,
                        deals: Sequence[list[int]]) -> list[float]:
        """One log likelihood of the visible bids per deal, not tempered."""
        bidders = visible_bidders(observation)
        if not bidders or not deals:
            return [0.0] * len(deals)
        n = observation.num_players
        rounds = observation.round_number
        trump = observation.trump_suit.index if observation.trump_suit is not None else -1
        turned = observation.trump_card.id if observation.trump_card is not None else -1
        turned_mask = 1 << turned if turned >= 0 else 0
        # every bidder held `rounds` cards when it bid: one block of rows per bidder
        probs = np.empty((len(deals), len(bidders), rounds))
        for i, b in enumerate(bidders):
            masks = np.array([hands[b.seat] | b.gone for hands in deals], np.uint64)
            first = int(masks[0])
            sit = Situation(
                num_players=n, me=b.seat, hand=tuple(ids_of(first)), hand_mask=first,
                trump=trump, trick=(), unseen=ALL_CARDS_MASK & ~(first | turned_mask),
                bidding=True, position=b.place, bids=b.bids_before, wanted=b.bids_before,
                played_now=(False,) * n, round_number=rounds,
                cards_in_other_hands=(n - 1) * rounds)
            features, exact = bid_features(sit, masks, turned, self.version)
            asked = np.isnan(exact)
            if asked.any():
                out = self.overall(np.ascontiguousarray(features[asked]))
                exact[asked] = np.clip(np.asarray(out, np.float64).reshape(-1), 0.0, 1.0)
            probs[:, i, :] = exact.reshape(len(deals), rounds)
        dist = trick_distributions(probs.reshape(len(deals) * len(bidders), rounds))
        dist = dist.reshape(len(deals), len(bidders), rounds + 1)
        table = np.array([[round_score(bid, t) for t in range(rounds + 1)]
                          for bid in range(rounds + 1)], np.float64)
        total = np.zeros(len(deals))
        for i, b in enumerate(bidders):
            scores = dist[:, i, :] @ table[list(b.legal)].T / self.temperature  # (deals, legal)
            top = scores.max(axis=1, keepdims=True)
            log_z = top[:, 0] + np.log(np.exp(scores - top).sum(axis=1))
            total += scores[:, b.legal.index(b.bid)] - log_z
        return [float(x) for x in total]


class Evidence:
    """Log weights of candidate worlds from everything the other seats showed: their bids
    (`BidInference`) and, with ``plays``, their card plays (`wizard.ai.search.plays`,
    `wizard.ai.search.oi_plays`),
    summed and tempered together (``min_ess``)."""

    def __init__(self, bids: BidInference, plays: PlayModel | None = None,
                 min_ess: float = MIN_ESS) -> None:
        self.bids = bids
        self.plays = plays
        self.min_ess = min_ess

    def log_weights(self, observation: Observation, deals: Sequence[list[int]]) -> list[float]:
        total = self.bids.log_likelihoods(observation, deals)
        if self.plays is not None:
            total = [a + b for a, b in zip(
                total, self.plays.log_likelihoods(observation, deals), strict=True)]
        return temper(total, self.min_ess)


__all__ = ["BID_TEMPERATURE", "MIN_ESS", "BidInference", "Bidder", "Evidence",
           "effective_sample_size", "temper", "visible_bidders"]
