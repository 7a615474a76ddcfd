"""Play inference under OI's card play: worlds weighed by how well OI explains the plays.

`wizard.ai.search.plays` scores each observed play of another seat under the
heuristic, the search's own rollout policy: exact against heuristic players,
a loose model of anyone else (it explains about half of OI's plays). Here the
model is OI's play (`wizard.ai.oi`): in each world the seat held the hand the
world says it held then, and OI's card is the one with the best chance of
making its bid (`play_values`). The seat plays OI's card with probability
``1 − error`` and any other legal card with the rest shared equally; a play
with one legal card says nothing.

OI's choice depends on the whole hand, so every distinct hand of every play is
one OI decision: the features of all of a play's hands are built at once
(`wizard.ai.oi.batch.hand_features`) and each network is asked once a play.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from wizard.engine import Observation, ids_of
from wizard.engine.cards import ALL_CARDS_MASK
from wizard.engine.rules import legal_cards_mask

from ..oi.agent import ProbabilityNet, feature_version, score_table, trick_distributions
from ..oi.batch import hand_features
from ..oi.features import Situation
from .plays import ObservedPlay, observed_plays

#: the share of a seat's plays the model leaves to cards other than OI's
OI_PLAY_ERROR = 0.1


class OIPlayInference:
    """Log likelihoods of candidate worlds' hands under OI's play (see the module).

    ``overall`` and ``immediate`` are OI's networks; ``error`` the share of a
    seat's plays given to other cards than OI's; raises `ValueError` outside (0, 1).
    """

    def __init__(self, overall: ProbabilityNet, immediate: ProbabilityNet,
                 error: float = OI_PLAY_ERROR) -> None:
        if not 0.0 < error < 1.0:
            raise ValueError(f"the play error must be within (0, 1), got {error!r}")
        self.overall = overall
        self.immediate = immediate
        self.version = feature_version(overall)
        self.error = error

    def log_likelihoods(self, observation: Observation,
                        deals: Sequence[list[int]]) -> list[float]:
        """One log likelihood per deal (a hand mask per seat); all 0 when nothing is known."""
        total = np.zeros(len(deals))
        if not deals:
            return []
        for play in observed_plays(observation):
            held = np.array([hands[play.seat] | play.later for hands in deals], np.uint64)
            unique, inverse = np.unique(held, return_inverse=True)
            total += self._scores(observation, play, unique)[inverse.reshape(-1)]
        return [float(x) for x in total]

    def _scores(self, observation: Observation, play: ObservedPlay,
                hands: np.ndarray) -> np.ndarray:
        """The log likelihood of ``play`` for each hand mask in ``hands``."""
        legal = [legal_cards_mask(int(m), play.lead) for m in hands]
        counts = np.array([m.bit_count() for m in legal])
        out = np.zeros(len(hands))
        ask = np.nonzero(counts > 1)[0]
        if not len(ask):
            return out
        best, hit = self._choices(observation, play, hands[ask], [legal[i] for i in ask])
        k = counts[ask]
        with np.errstate(divide="ignore"):
            out[ask] = np.where(
                best == k, -np.log(k),
                np.where(hit, np.log((1.0 - self.error) / best),
                         np.log(self.error / np.maximum(k - best, 1))))
        return out

    def _choices(self, observation: Observation, play: ObservedPlay, hands: np.ndarray,
                 legal: list[int]) -> tuple[np.ndarray, np.ndarray]:
        """For each hand (each with at least two legal cards): how many cards OI rates
        best, and whether the card played is one of them. Cards rated alike (a chance of
        the bid and an expected score within rounding, e.g. neighbouring ranks) are OI's
        choice alike: which of them it plays depends on the last bits of a float."""
        n = observation.num_players
        trump = observation.trump_suit.index if observation.trump_suit is not None else -1
        turned = 1 << observation.trump_card.id if observation.trump_card is not None else 0
        first = int(hands[0])
        size = first.bit_count()
        seen = play.before | turned
        sit = Situation(
            num_players=n, me=play.seat, hand=tuple(ids_of(first)), hand_mask=first,
            trump=trump, trick=play.trick, unseen=ALL_CARDS_MASK & ~(first | seen),
            bidding=False, position=len(play.trick), bids=observation.bids,
            wanted=play.wanted, played_now=play.played_now,
            round_number=observation.round_number,
            cards_in_other_hands=n * observation.round_number - play.before.bit_count() - size)
        rows, p_overall, p_immediate = hand_features(sit, hands, seen, self.version)
        asked = np.isnan(p_overall)
        if asked.any():
            p_overall[asked] = np.clip(self.overall(np.ascontiguousarray(rows[asked])), 0, 1)
        cards = np.array([ids_of(int(m)) for m in hands])  # (hands, size), ascending
        is_legal = np.array([[legal[h] >> c & 1 for c in row] for h, row in enumerate(cards)],
                            bool)
        want = is_legal & np.isnan(p_immediate)
        if want.any():
            p_immediate[want] = np.clip(self.immediate(np.ascontiguousarray(rows[want])), 0, 1)
        # one row per (hand, legal card): the rest of the hand takes the later tricks
        hand_of, index_of = np.nonzero(is_legal)
        rest = p_overall[hand_of].copy()
        rest[np.arange(len(hand_of)), index_of] = 0.0
        dist = trick_distributions(rest)  # (pairs, size + 1)
        p_i = p_immediate[hand_of, index_of][:, None]
        combined = dist * (1.0 - p_i)
        combined[:, 1:] += dist[:, :-1] * p_i
        bid = observation.bids[play.seat]
        assert bid is not None and play.wanted[play.seat] is not None
        wanted = play.wanted[play.seat]
        assert wanted is not None
        won = bid - wanted
        make = (combined[:, wanted] if 0 <= wanted <= size else np.zeros(len(hand_of)))
        expected = combined @ score_table((), won, bid=bid, outcomes=size + 1)
        # OI's choice: the best chance of making the bid, then the best score (`OIAgent._play`)
        make = np.round(make, 9)
        top_make = np.full(len(hands), -np.inf)
        np.maximum.at(top_make, hand_of, make)
        likeliest = make >= top_make[hand_of]
        top_score = np.full(len(hands), -np.inf)
        np.maximum.at(top_score, hand_of, np.where(likeliest, expected, -np.inf))
        rated_best = likeliest & (expected >= top_score[hand_of] - 1e-6)
        best = np.bincount(hand_of, weights=rated_best, minlength=len(hands))
        played = cards[hand_of, index_of] == play.card
        hit = np.bincount(hand_of, weights=rated_best & played, minlength=len(hands)) > 0
        return best, hit


__all__ = ["OI_PLAY_ERROR", "OIPlayInference"]
