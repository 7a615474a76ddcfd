"""OI's bid or card for the seat to move in many engine cores at once.

A search that lets OI play the other seats of its rollouts
(`wizard.ai.search.oi_rollout`) asks OI thousands of times a decision, each
time in another position: another seat, trick, hand and cards seen. `OIAgent`
decides from an `Observation`, one position at a time (~0.14 ms); here the
positions are `GameCore`s of one round (the same seats, trump and round
number), and every step is numpy over all of them: the feature rows of every
card of every hand (`card_features`' layout, tested equal row for row), one
call per network, and OI's rule over every candidate at once:

- a bid: the legal bid with the best expected score under the hand's trick
  distribution (`expected_bid_scores`);
- a card: the legal card with the best chance of making the bid, then the best
  expected score (`play_values`; cards OI rates alike, e.g. two wizards, may be
  told apart by the last bits of a float, so a tie can fall either way).

>>> from wizard.engine import GameCore
>>> from wizard.ai.oi import load_networks
>>> overall, immediate = load_networks()
>>> core = GameCore(4, seed=3)
>>> [bid] = oi_bids([core], overall)
>>> bool(core.legal_mask() >> bid & 1)
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from operator import attrgetter

import numpy as np
import numpy.typing as npt

from wizard.engine import GameCore
from wizard.engine.cards import (
    ALL_CARDS_MASK,
    FIRST_JESTER,
    FIRST_WIZARD,
    JESTER_MASK,
    WIZARD_MASK,
)
from wizard.engine.core import BIDDING, PLAYING
from wizard.engine.rules import LEAD_FREE, LEAD_NONE

from .agent import ProbabilityNet, feature_version, score_table, trick_distributions
from .batch import (
    BEATER_BUCKET,
    BITS13,
    CARD_BITS,
    NUMBER_RANK,
    NUMBER_SUIT,
    RANKS13,
    SUIT_MASKS_64,
    count_bits,
)
from .features import MAX_HAND, OI_BLOCKS, OI_FEATURE_SIZE, OI_FEATURE_VERSIONS, SEAT_FEATURES

PLAY_BASE = 21
MAX_BID = 20
_S = {name: block.start for name, block in OI_BLOCKS.items()}
_WIZARDS, _JESTERS = np.uint64(WIZARD_MASK), np.uint64(JESTER_MASK)
#: _ABOVE[suit][r + 1]: the cards of ``suit`` whose rank index (id % 13) is above ``r``
_ABOVE = [[sum(1 << (13 * suit + k) for k in range(r + 1, 13)) for r in range(-1, 13)]
          for suit in range(4)]
_NUMBERS = (1 << FIRST_WIZARD) - 1
#: _SCORES[bid, tricks]: `round_score`
_SCORES = score_table(range(MAX_BID + 1), 0, outcomes=MAX_BID + 1)

#: what cores must share to be decided together
_ROUND_FACTS = attrgetter("phase", "round_number", "trump_suit")

Floats = npt.NDArray[np.float64]
Ints = npt.NDArray[np.int64]


@cache
def trick_facts(trick: tuple[int, ...], trump: int) -> tuple[int, bool, bool]:
    """``(cards that would hold the trick played now, a wizard holds it, a trump number
    card holds it)`` for ``trick`` (card ids in play order), `trick_winner`'s rule.

    >>> mask, wizard, trump_holds = trick_facts((5,), 1)  # red 6 led, yellow trump
    >>> bool(mask >> 6 & 1), bool(mask >> 4 & 1), bool(mask >> 13 & 1), wizard, trump_holds
    (True, False, True, False, False)
    """
    if not trick:
        return ALL_CARDS_MASK, False, False
    best_trump = best_lead = lead = -1
    for card in trick:
        if card >= FIRST_JESTER:
            continue
        if card >= FIRST_WIZARD:
            return 0, True, False
        suit, rank = divmod(card, 13)
        if lead < 0:
            lead = suit
        if suit == trump:
            best_trump = max(best_trump, rank)
        elif suit == lead:
            best_lead = max(best_lead, rank)
    if lead < 0:  # jesters only: any number card or wizard takes it over
        return WIZARD_MASK | _NUMBERS, False, False
    mask = WIZARD_MASK
    if trump >= 0:
        mask |= _ABOVE[trump][best_trump + 1]
    if best_trump < 0 and lead != trump:
        mask |= _ABOVE[lead][best_lead + 1]
    return mask, False, best_trump >= 0


@dataclass(frozen=True, slots=True)
class CardRows:
    """The feature rows of every card in the hands of the seats to move, decision by decision.

    ``decision[i]`` and ``card[i]`` say whose card row ``i`` is (each decision's cards
    ascending, decisions in order); ``p_overall`` / ``p_immediate`` hold the certain
    probabilities (`overall_exact`, `immediate_exact`) and NaN where a network decides.
    """

    rows: npt.NDArray[np.float32]
    decision: Ints
    card: Ints
    legal: npt.NDArray[np.bool_]
    p_overall: Floats
    p_immediate: Floats
    sizes: Ints
    bid: Ints
    won: Ints


def card_rows(cores: Sequence[GameCore], version: int) -> CardRows:
    """`CardRows` of the seat to move in each core: all bidding or all playing, one round.

    Raises `ValueError` for cores of different phases or rounds, or an unknown version.
    """
    if version not in OI_FEATURE_VERSIONS:
        raise ValueError(f"OI feature version {version!r} is not one of {OI_FEATURE_VERSIONS}")
    first = cores[0]
    n, trump, number = first.n, first.trump_suit, first.round_number
    bidding = first.phase == BIDDING
    if (len(set(map(_ROUND_FACTS, cores))) != 1
            or first.phase not in (BIDDING, PLAYING)):
        raise ValueError("OI decides for cores of one round, all bidding or all playing")
    count = len(cores)
    every = np.arange(count)
    # one pass per field over the cores; the rest is numpy over all of them
    seats = np.fromiter([core.current for core in cores], np.int64, count)
    all_hands = np.array([core.hands for core in cores], np.uint64)  # (cores, seats)
    hands = all_hands[every, seats]
    held = np.bitwise_or.reduce(all_hands, axis=1)
    # what the seat to move has not seen: the other hands and the undealt rest (the cards
    # played, the turned trump card and its own hand it has)
    unseen = ((held ^ hands)
              | np.fromiter([core.undealt_mask for core in cores], np.uint64, count))
    tricks = [tuple(core.trick) for core in cores]
    holds, wizard_in, held_by_trump = zip(*[trick_facts(t, trump) for t in tricks], strict=True)
    trick_sizes = np.fromiter(map(len, tricks), np.int64, count)
    leads = np.fromiter([core.lead for core in cores], np.int64, count)
    if bidding:
        leader = np.full(count, (first.dealer + 1) % n, np.int64)
        legal = np.zeros(count, np.uint64)
    else:
        leader = np.fromiter([core.leader for core in cores], np.int64, count)
        legal = _legal_cards(hands, leads)
    bid_list = np.array([core.bids for core in cores], np.int64)
    won = np.array([core.tricks for core in cores], np.int64)
    bid_known = bid_list >= 0
    want = bid_list - won
    sizes = count_bits(hands)
    position = (seats - leader) % n
    after = n - 1 - position
    ctx = np.zeros((count, OI_FEATURE_SIZE), np.float32)
    ctx[:, _S["num_players"] + n - 3] = 1.0
    ctx[every, _S["hand_size"] + np.clip(sizes, 1, MAX_HAND) - 1] = 1.0
    ctx[:, _S["bidding"]] = bidding
    played_now = ((np.arange(n)[None, :] - leader[:, None]) % n) < trick_sizes[:, None]
    for k in range(n):
        seat_k = (seats + k) % n
        base = _S["seats"] + k * SEAT_FEATURES
        ctx[:, base] = 1.0
        slot = np.where(bid_known[every, seat_k], 1 + np.clip(want[every, seat_k] + 1, 0, 5), 0)
        ctx[every, base + 1 + slot] = 1.0
        ctx[:, base + 8] = played_now[every, seat_k]
    bids = np.where(bid_known, bid_list, 0)
    ctx[:, _S["bid_balance"]] = (bids.sum(axis=1) - number) / 10.0
    others = np.where(bid_known, want, 0)
    ctx[:, _S["bid_balance"] + 1] = (others.sum(axis=1) - others[every, seats]) / 10.0
    ctx[every, _S["trick_position"] + position] = 1.0
    if trump >= 0:
        start = _S["trump"]
        ctx[:, start:start + 13] = BITS13[_suit_bits(unseen, trump)]
    else:
        ctx[:, _S["trump"] + 13] = 1.0
    unseen_jesters = count_bits(unseen & _JESTERS)
    ctx[every, _S["unseen_wizards"] + count_bits(unseen & _WIZARDS)] = 1.0
    ctx[every, _S["unseen_jesters"] + unseen_jesters] = 1.0
    ctx[every, _S["voids"] + sum(((hands & m) == 0).astype(np.int64) for m in SUIT_MASKS_64)] = 1.0
    unseen_count = count_bits(unseen)
    in_hands = count_bits(held) - sizes  # the other seats' cards
    ctx[:, _S["unseen_in_hands"]] = np.where(unseen_count > 0,
                                             in_hands / np.maximum(unseen_count, 1), 0.0)
    if version >= 2:
        _trick_context(ctx, leads, trump, unseen, after, np.array(held_by_trump, bool))
    # every card of every hand
    decision, card = np.nonzero((hands[:, None] & CARD_BITS[None, :]) != 0)
    rows = ctx[decision]
    rows[:, _S["own_specials"]] = (count_bits(hands & _WIZARDS) / 4.0)[decision]
    rows[:, _S["own_specials"] + 1] = (count_bits(hands & _JESTERS) / 4.0)[decision]
    is_wizard = (card >= FIRST_WIZARD) & (card < FIRST_JESTER)
    is_jester = card >= FIRST_JESTER
    is_number = ~(is_wizard | is_jester)
    rows[is_wizard, _S["kind"]] = 1.0
    rows[is_jester, _S["kind"] + 1] = 1.0
    suit, rank = NUMBER_SUIT[card], NUMBER_RANK[card]
    rows[is_number & (suit == trump), _S["kind"] + 2] = 1.0
    rows[is_number & (suit != trump), _S["kind"] + 3] = 1.0
    rows[is_number & (suit == leads[decision]), _S["card_vs_trick"]] = 1.0
    wins = (np.array(holds, np.uint64)[decision] >> card.astype(np.uint64)) & np.uint64(1) == 1
    rows[:, _S["card_vs_trick"] + 1] = wins
    numbers = np.flatnonzero(is_number)
    at = decision[numbers]
    suit_unseen = (unseen[at] >> (np.uint64(13) * suit[numbers].astype(np.uint64))) & RANKS13
    rows[numbers, _S["suit_unseen"]:_S["suit_unseen"] + 13] = BITS13[suit_unseen.astype(np.int64)]
    higher = count_bits(suit_unseen >> rank[numbers].astype(np.uint64))
    rows[numbers, _S["adjusted_rank"] + 12 - higher] = 1.0
    mine = count_bits(hands[at] & SUIT_MASKS_64[suit[numbers]])
    rows[numbers, _S["suit_count"] + np.minimum(7, mine) - 1] = 1.0
    beaters = count_bits(unseen[at] & _WIZARDS) + higher
    if trump >= 0:
        beaters += np.where(suit[numbers] != trump,
                            count_bits(unseen[at] & SUIT_MASKS_64[trump]), 0)
    rows[numbers, _S["beaters"] + BEATER_BUCKET[beaters]] = 1.0
    # the certain probabilities (`immediate_exact`, `overall_exact`)
    p_immediate = np.full(len(card), np.nan)
    behind = after[decision]
    p_immediate[is_wizard] = 1.0
    leads_trick = trick_sizes[decision] == 0
    p_immediate[is_jester & ~leads_trick] = 0.0
    p_immediate[is_jester & leads_trick & (unseen_jesters[decision] < behind)] = 0.0
    p_immediate[is_jester & leads_trick & ((unseen[decision] & ~_JESTERS) == 0)] = 1.0
    number_beaters = np.zeros(len(card), np.int64)
    number_beaters[numbers] = beaters
    p_immediate[is_number & ~wins] = 0.0
    p_immediate[is_number & wins & ((behind == 0) | (number_beaters == 0))] = 1.0
    p_immediate[np.array(wizard_in, bool)[decision]] = 0.0
    last = (sizes[decision] == 1) & (not bidding)
    p_overall = np.where(last, p_immediate, np.nan)
    p_overall[is_jester & (unseen_jesters[decision] < n - 1)] = 0.0
    is_legal = (legal[decision] >> card.astype(np.uint64)) & np.uint64(1) == 1
    return CardRows(rows, decision, card, is_legal, p_overall, p_immediate, sizes,
                    np.where(bid_known[every, seats], bids[every, seats], -1),
                    won[every, seats])


def _trick_context(ctx: npt.NDArray[np.float32], leads: Ints, trump: int,
                   unseen: npt.NDArray[np.uint64], after: Ints,
                   held_by_trump: npt.NDArray[np.bool_]) -> None:
    """The current trick's blocks of the context (feature version 2)."""
    every = np.arange(len(leads))
    ctx[leads == LEAD_FREE, _S["lead"] + 3] = 1.0
    ctx[leads == LEAD_NONE, _S["lead"]] = 1.0
    led = np.flatnonzero((leads != LEAD_FREE) & (leads != LEAD_NONE))
    ctx[led, _S["lead"] + np.where(leads[led] == trump, 1, 2)] = 1.0
    bits = (unseen[led] >> (np.uint64(13) * leads[led].astype(np.uint64))) & RANKS13
    ctx[led, _S["lead_unseen"]:_S["lead_unseen"] + 13] = BITS13[bits.astype(np.int64)]
    ctx[every, _S["players_after"] + after] = 1.0
    ctx[:, _S["card_vs_trick"] + 2] = held_by_trump


def _legal_cards(hands: npt.NDArray[np.uint64], leads: Ints) -> npt.NDArray[np.uint64]:
    """The cards each hand may play to a trick with ``leads`` (`GameCore.legal_mask`'s rule)."""
    led = (leads >= 0) & (leads < 4)
    following = hands & SUIT_MASKS_64[np.where(led, leads, 0)]
    return np.where(led & (following != 0), following | (hands & (_WIZARDS | _JESTERS)), hands)


def _suit_bits(masks: npt.NDArray[np.uint64], suit: int) -> Ints:
    return ((masks >> np.uint64(13 * suit)) & RANKS13).astype(np.int64)


def _ask(net: ProbabilityNet, rows: npt.NDArray[np.float32], into: Floats,
         where: npt.NDArray[np.bool_]) -> None:
    if where.any():
        into[where] = np.clip(net(np.ascontiguousarray(rows[where])), 0.0, 1.0)


def oi_bids(cores: Sequence[GameCore], overall: ProbabilityNet) -> list[int]:
    """OI's bid for the seat to move in each core (all bidding, one round).

    Raises `ValueError` as `card_rows` does.
    """
    rows = card_rows(cores, feature_version(overall))
    p_overall = rows.p_overall.copy()
    _ask(overall, rows.rows, p_overall, np.isnan(p_overall))
    out = [0] * len(cores)
    legal = np.array([c.legal_mask() for c in cores], np.int64)
    offsets = np.concatenate([[0], np.cumsum(rows.sizes)])
    for size in np.unique(rows.sizes):
        decisions = np.flatnonzero(rows.sizes == size)
        probs = p_overall[offsets[decisions][:, None] + np.arange(size)[None, :]]
        scores = trick_distributions(probs) @ _SCORES[:, :size + 1].T  # (decisions, bids)
        allowed = (legal[decisions][:, None] >> np.arange(MAX_BID + 1)[None, :]) & 1 == 1
        best = np.argmax(np.where(allowed, scores, -np.inf), axis=1)
        for decision, bid in zip(decisions, best, strict=True):
            out[decision] = int(bid)
    return out


def oi_cards(cores: Sequence[GameCore], overall: ProbabilityNet,
             immediate: ProbabilityNet) -> list[int]:
    """OI's card (an id) for the seat to move in each core (all playing, one round).

    Raises `ValueError` as `card_rows` does.
    """
    rows = card_rows(cores, feature_version(overall))
    p_overall, p_immediate = rows.p_overall.copy(), rows.p_immediate.copy()
    _ask(overall, rows.rows, p_overall, np.isnan(p_overall))
    _ask(immediate, rows.rows, p_immediate, rows.legal & np.isnan(p_immediate))
    out = [0] * len(cores)
    offsets = np.concatenate([[0], np.cumsum(rows.sizes)])
    for size in np.unique(rows.sizes):
        decisions = np.flatnonzero(rows.sizes == size)
        index = offsets[decisions][:, None] + np.arange(size)[None, :]  # (decisions, size)
        which, slot = np.nonzero(rows.legal[index])  # one pair per legal card
        rest = p_overall[index][which]
        rest[np.arange(len(which)), slot] = 0.0  # the card played takes no later trick
        dist = trick_distributions(rest)
        p_now = p_immediate[index[which, slot]][:, None]
        combined = dist * (1.0 - p_now)
        combined[:, 1:] += dist[:, :-1] * p_now
        bid, won = rows.bid[decisions][which], rows.won[decisions][which]
        wanted = bid - won
        pairs = np.arange(len(which))
        make = np.where((wanted >= 0) & (wanted <= size),
                        combined[pairs, np.clip(wanted, 0, size)], 0.0)
        expected = (combined * _SCORES[bid[:, None], won[:, None] + np.arange(size + 1)]
                    ).sum(axis=1)
        # OI's choice: the best chance of the bid, then the best score, then the lowest card
        chance = np.full(index.shape, -np.inf)
        chance[which, slot] = np.round(make, 9)
        score = np.full(index.shape, -np.inf)
        score[which, slot] = expected
        score[chance < chance.max(axis=1, keepdims=True)] = -np.inf
        choice = np.argmax(score, axis=1)  # the first best: the lowest card
        for decision, card in zip(decisions.tolist(),
                                  rows.card[index[np.arange(len(decisions)), choice]].tolist(),
                                  strict=True):
            out[decision] = card
    return out


__all__ = ["CardRows", "card_rows", "oi_bids", "oi_cards", "trick_facts"]
