"""OI's bid or card for the seat to move in many engine cores at once.

A search that lets OI play the other seats of its rollouts
(`wizard.ai.search.oi_rollout`) asks OI thousands of times a decision, each
time in another position: another seat, trick, hand and cards seen. `OIAgent`
decides from an `Observation`, one position at a time (~0.14 ms); here the
positions are of one round (the same seats, trump and round number), as
`GameCore`s or as `wizard.ai.oi.positions.Positions` (arrays over the
positions, which the rollouts play in), and every step is numpy over all of
them: the feature rows of every card of every hand (`card_features`' layout,
tested equal row for row), one call per network, and OI's rule over every
candidate at once:

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
from .positions import Positions

MAX_BID = 20
_S = {name: block.start for name, block in OI_BLOCKS.items()}
_WIZARDS, _JESTERS = np.uint64(WIZARD_MASK), np.uint64(JESTER_MASK)
_NUMBERS = (1 << FIRST_WIZARD) - 1
#: _ABOVE[suit, r + 1]: the cards of ``suit`` whose rank index (id % 13) is above ``r``
_ABOVE = np.array([[sum(1 << (13 * suit + k) for k in range(r + 1, 13)) for r in range(-1, 13)]
                   for suit in range(4)], np.uint64)
#: _SCORES[bid, tricks]: `round_score`
_SCORES = score_table(range(MAX_BID + 1), 0, outcomes=MAX_BID + 1)

Floats = npt.NDArray[np.float64]
Ints = npt.NDArray[np.int64]
Masks = npt.NDArray[np.uint64]
Bools = npt.NDArray[np.bool_]


def trick_holds(tricks: Ints, trump: int) -> tuple[Masks, Bools, Bools]:
    """For each trick (a row of card ids in play order, -1 past its end): ``(the cards that
    would hold it played now, a wizard holds it, a trump number card holds it)``, the rule
    of `trick_winner`.

    >>> holds, wizard, trump_holds = trick_holds(np.array([[5, -1]]), 1)  # red 6, yellow trump
    >>> [bool(holds[0] >> np.uint64(c) & np.uint64(1)) for c in (6, 4, 13)], wizard, trump_holds
    ([True, False, True], array([False]), array([False]))
    """
    every = np.arange(len(tricks))
    numbers = (tricks >= 0) & (tricks < FIRST_WIZARD)
    wizard: Bools = np.any((tricks >= FIRST_WIZARD) & (tricks < FIRST_JESTER), axis=1)
    has_number = numbers.any(axis=1)
    suits = np.where(numbers, tricks // 13, -1)
    ranks = np.where(numbers, tricks % 13, -1)
    lead = suits[every, np.argmax(numbers, axis=1)]  # the first number card's suit; -1: none
    trumps = numbers & (suits == trump)
    best_trump = np.where(trumps, ranks, -1).max(axis=1)
    best_lead = np.where(numbers & ~trumps & (suits == lead[:, None]), ranks, -1).max(axis=1)
    mask = np.full(len(tricks), _WIZARDS)
    if trump >= 0:
        mask |= _ABOVE[trump][best_trump + 1]
    by_lead = (best_trump < 0) & (lead != trump) & (lead >= 0)
    mask[by_lead] |= _ABOVE[lead[by_lead], best_lead[by_lead] + 1]
    empty = tricks[:, 0] < 0
    mask[~has_number] = np.uint64(WIZARD_MASK | _NUMBERS)  # jesters only: any number takes it
    mask[empty] = np.uint64(ALL_CARDS_MASK)
    mask[wizard] = 0
    by_trump: Bools = ~wizard & (best_trump >= 0)
    return mask, wizard, by_trump


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


def card_rows(positions: Positions, version: int) -> CardRows:
    """`CardRows` of the seat to move in each position. Raises `ValueError` for an unknown
    feature version."""
    if version not in OI_FEATURE_VERSIONS:
        raise ValueError(f"OI feature version {version!r} is not one of {OI_FEATURE_VERSIONS}")
    n, trump, number, bidding = positions.n, positions.trump, positions.number, positions.bidding
    count = len(positions)
    every = np.arange(count)
    seats = positions.current
    hands = positions.own_hands()
    held = np.bitwise_or.reduce(positions.hands, axis=1)
    # what the seat to move has not seen: the other hands and the undealt rest (the cards
    # played, the turned trump card and its own hand it has)
    unseen = (held ^ hands) | positions.undealt
    holds, wizard_in, held_by_trump = trick_holds(positions.trick, trump)
    trick_sizes = positions.trick_size
    leads = positions.lead
    leader = positions.leader
    legal = np.zeros(count, np.uint64) if bidding else positions.legal()  # the cards to play
    bid_list, won = positions.bids, positions.won
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
    seat_k = (seats[:, None] + np.arange(n)[None, :]) % n  # the k-th seat from the mover's
    base = _S["seats"] + np.arange(n) * SEAT_FEATURES
    ctx[:, base] = 1.0
    want_k = np.take_along_axis(want, seat_k, axis=1)
    slot = np.where(np.take_along_axis(bid_known, seat_k, axis=1),
                    1 + np.clip(want_k + 1, 0, 5), 0)
    ctx[every[:, None], base[None, :] + 1 + slot] = 1.0
    ctx[:, base + 8] = np.take_along_axis(played_now, seat_k, axis=1)
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
        _trick_context(ctx, leads, trump, unseen, after, held_by_trump)
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
    wins = (holds[decision] >> card.astype(np.uint64)) & np.uint64(1) == 1
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
    p_immediate[wizard_in[decision]] = 0.0
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


def _suit_bits(masks: npt.NDArray[np.uint64], suit: int) -> Ints:
    return ((masks >> np.uint64(13 * suit)) & RANKS13).astype(np.int64)


def _ask(net: ProbabilityNet, rows: npt.NDArray[np.float32], into: Floats,
         where: npt.NDArray[np.bool_]) -> None:
    asked = int(where.sum())
    if asked > 0.75 * len(where):  # nearly all: the network reads every row, none copied
        into[where] = np.clip(net(rows), 0.0, 1.0)[where]
    elif asked:
        into[where] = np.clip(net(np.ascontiguousarray(rows[where])), 0.0, 1.0)


def oi_bids(cores: Sequence[GameCore], overall: ProbabilityNet) -> list[int]:
    """OI's bid for the seat to move in each core (all bidding, one round).

    Raises `ValueError` as `Positions.of` does.
    """
    rows = card_rows(Positions.of(cores), feature_version(overall))
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

    Raises `ValueError` as `Positions.of` does.
    """
    cards: list[int] = oi_card_ids(Positions.of(cores), overall, immediate).tolist()
    return cards


def oi_card_ids(positions: Positions, overall: ProbabilityNet,
                immediate: ProbabilityNet) -> Ints:
    """OI's card (an id) for the seat to move in each of ``positions`` (playing)."""
    rows = card_rows(positions, feature_version(overall))
    p_overall, p_immediate = rows.p_overall.copy(), rows.p_immediate.copy()
    _ask(overall, rows.rows, p_overall, np.isnan(p_overall))
    _ask(immediate, rows.rows, p_immediate, rows.legal & np.isnan(p_immediate))
    out = np.zeros(len(positions), np.int64)
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
        out[decisions] = rows.card[index[np.arange(len(decisions)), choice]]
    return out


__all__ = ["CardRows", "card_rows", "oi_bids", "oi_card_ids", "oi_cards", "trick_holds"]
