"""Worlds refined by swapping cards: a Markov chain toward the hands the table explains.

Weighing independent deals (`wizard.ai.search.inference`) keeps the best of a few
hundred random deals. Against players a model explains well, few random deals
explain every bid and play, and the weights, tempered to keep enough of them,
let the rest back in. Here each kept world walks on (Metropolis–Hastings): a
card of one other seat is swapped with a card of another seat or of the undealt
rest, as far as the revealed voids allow, and the swap is kept with probability
``min(1, P(new) / P(old))`` under a model of each seat's bid and plays. The
proposal is symmetric (hand sizes never change), so the chain's stationary law
is the posterior of the hidden hands under the model.

The model here is the heuristic's (`SeatModel`): a seat bids the heuristic's bid
for the hand it held (`heuristic_bid`'s rule) and plays the heuristic's card
(`wizard.ai.search.plays`), each with probability ``1 − error``. Both depend on one
seat's hand only, so a swap rescores two seats.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

from wizard.engine import Observation
from wizard.engine.cards import WIZARD_MASK
from wizard.engine.rules import legal_cards_mask

from ..agents.heuristic import (
    HIGH_SIDE_VALUES,
    TRUMP_BASE_VALUE,
    TRUMP_VALUE_PER_RANK,
    WIZARD_VALUE,
)
from .inference import temper, visible_bidders
from .plays import ObservedPlay, observed_plays
from .rollout import closest_bid, heuristic_picks
from .worlds import Knowledge, sample_hands


def _suit_values(trump: bool, opponents: int) -> list[float]:
    """`expected_tricks`' value of each 13-bit rank mask of one suit (trump or not)."""
    per_rank = [(TRUMP_BASE_VALUE + TRUMP_VALUE_PER_RANK * rank) if trump
                else HIGH_SIDE_VALUES.get(rank, 0.0) * 2 / opponents for rank in range(1, 14)]
    out = [0.0] * (1 << 13)
    for mask in range(1, 1 << 13):
        low = mask & -mask
        out[mask] = out[mask ^ low] + per_rank[low.bit_length() - 1]
    return out


class SeatModel:
    """Log likelihood of one seat's visible bid and plays given its hand now, under the
    heuristic softened by ``bid_error`` and ``play_error`` (each within (0, 1))."""

    def __init__(self, observation: Observation, bid_error: float, play_error: float) -> None:
        for name, error in (("bid", bid_error), ("play", play_error)):
            if not 0.0 < error < 1.0:
                raise ValueError(f"the {name} error must be within (0, 1), got {error!r}")
        self.n = observation.num_players
        self.trump = observation.trump_suit.index if observation.trump_suit is not None else -1
        self.bidders = {b.seat: b for b in visible_bidders(observation)}
        self.plays: dict[int, list[ObservedPlay]] = {}
        for play in observed_plays(observation):
            self.plays.setdefault(play.seat, []).append(play)
        self.bid_error, self.play_error = bid_error, play_error
        opponents = self.n - 1
        plain, trump = _suit_values(False, opponents), _suit_values(True, opponents)
        self._suit_values = [trump if suit == self.trump else plain for suit in range(4)]
        self._memo: dict[int, float] = {}  # keyed by hand | seat << 60
        # per seat and play: what the seat had then beyond its hand now, the lead, and
        # whether the heuristic would have played the card from a legal mask
        self._picks = {
            seat: [(p.later, p.lead, heuristic_picks(p.card, p.trick, self.trump, p.lead,
                                                     p.needed, self.n)) for p in plays]
            for seat, plays in self.plays.items()}
        # a play's log likelihood: the heuristic's card, or another of ``count`` legal
        self._play_terms = (math.log(1.0 - play_error),
                            [0.0, 0.0] + [math.log(play_error / (count - 1))
                                          for count in range(2, 61)])
        # per bidder: its legal bids as a mask, the log likelihoods of its bid and of another
        self._bid_terms = {
            seat: (sum(1 << v for v in b.legal), math.log(1.0 - bid_error),
                   math.log(bid_error / (len(b.legal) - 1)) if len(b.legal) > 1 else 0.0)
            for seat, b in self.bidders.items()}
        self._guesses: dict[tuple[int, float], int] = {}

    @property
    def informed(self) -> bool:
        """Whether any other seat's bid is visible (else every deal is as likely)."""
        return bool(self.bidders)

    def score(self, seat: int, hand: int) -> float:
        """The log likelihood of ``seat``'s bid and plays if it holds ``hand`` now."""
        key = hand | seat << 60
        cached = self._memo.get(key)
        if cached is not None:
            return cached
        total = 0.0
        bidder = self.bidders.get(seat)
        if bidder is not None:
            legal, hit, miss = self._bid_terms[seat]
            expected = self.expected_tricks(hand | bidder.gone)
            guess = self._guesses.get((legal, expected))
            if guess is None:
                guess = self._guesses[(legal, expected)] = closest_bid(expected, legal)
            total += hit if guess == bidder.bid else miss
        hit, misses = self._play_terms
        for later, lead, picks in self._picks.get(seat, ()):
            legal = legal_cards_mask(hand | later, lead)
            count = legal.bit_count()
            if count > 1:
                total += hit if picks(legal) else misses[count]
        self._memo[key] = total
        return total

    def expected_tricks(self, hand: int) -> float:
        """`expected_tricks` of a hand mask, from per-suit tables.

        >>> from wizard.ai.agents.heuristic import expected_tricks
        >>> from wizard.engine import WizardGame
        >>> game = WizardGame(4, seed=3)
        >>> model = SeatModel(game.observation(game.current_player), 0.1, 0.1)
        >>> hand = (1 << 52) | (1 << 12) | (1 << 11)  # a wizard, red 13, red 12
        >>> model.expected_tricks(hand) == expected_tricks([52, 12, 11], model.trump, 4)
        True
        """
        values = self._suit_values
        total = (hand & WIZARD_MASK).bit_count() * WIZARD_VALUE
        for suit in range(4):
            total += values[suit][(hand >> (13 * suit)) & 0x1FFF]
        return round(total, 6)

    def total(self, hands: Sequence[int], me: int) -> float:
        return sum(self.score(seat, hand) for seat, hand in enumerate(hands) if seat != me)


def _nth_card(mask: int, n: int) -> int:
    """The ``n``-th lowest card of ``mask`` (``ids_of(mask)[n]``, without the list).

    >>> _nth_card(0b101100, 1)
    3
    """
    for _ in range(n):
        mask &= mask - 1
    return (mask & -mask).bit_length() - 1


def refine(knowledge: Knowledge, model: SeatModel, hands: Sequence[int], steps: int,
           rng: random.Random) -> list[int]:
    """``hands`` after ``steps`` proposed swaps (see the module), each kept or not."""
    out = list(hands)
    seats = [s for s, hand in enumerate(out) if s != knowledge.me and hand]
    if not seats:
        return out
    deck = knowledge.unseen
    for seat in seats:
        deck &= ~out[seat]
    scores = [model.score(seat, hand) if seat in seats else 0.0
              for seat, hand in enumerate(out)]
    # where a card of each seat may go: another seat, or the undealt rest (-1), which a
    # swap never empties
    targets = {a: [s for s in seats if s != a] + ([-1] if deck else []) for a in seats}
    for _ in range(steps):
        a = rng.choice(seats)
        x = _nth_card(out[a], rng.randrange(out[a].bit_count()))  # rng.choice(ids_of(...))
        if not targets[a]:
            break
        b = rng.choice(targets[a])
        if b >= 0 and not knowledge.allowed[b] >> x & 1:
            continue
        pool = (deck if b < 0 else out[b]) & knowledge.allowed[a]
        if not pool:
            continue
        y = _nth_card(pool, rng.randrange(pool.bit_count()))
        new_a = out[a] & ~(1 << x) | 1 << y
        score_a = model.score(a, new_a)
        delta = score_a - scores[a]
        new_b, score_b = 0, 0.0
        if b >= 0:
            new_b = out[b] & ~(1 << y) | 1 << x
            score_b = model.score(b, new_b)
            delta += score_b - scores[b]
        if delta >= 0.0 or rng.random() < math.exp(delta):
            out[a], scores[a] = new_a, score_a
            if b >= 0:
                out[b], scores[b] = new_b, score_b
            else:
                deck = deck & ~(1 << y) | 1 << x
    return out


def refined_deals(observation: Observation, count: int, rng: random.Random, *,
                  bid_error: float, play_error: float, oversample: int, min_ess: float,
                  steps: int) -> list[list[int]]:
    """``count`` deals: ``count × oversample`` random ones weighed by `SeatModel` (tempered
    to ``min_ess``), ``count`` kept by Gumbel top-k, each refined by ``steps`` swaps."""
    knowledge = Knowledge.of(observation)
    model = SeatModel(observation, bid_error, play_error)
    if not model.informed:
        return [sample_hands(knowledge, rng) for _ in range(count)]
    deals = [sample_hands(knowledge, rng) for _ in range(count * oversample)]
    weights = temper([model.total(d, knowledge.me) for d in deals], min_ess)
    keys = [w - math.log(-math.log(1.0 - rng.random())) for w in weights]
    keep = sorted(range(len(deals)), key=lambda i: -keys[i])[:count]
    return [refine(knowledge, model, deals[i], steps, rng) for i in sorted(keep)]


__all__ = ["SeatModel", "refine", "refined_deals"]
