"""OI features of many hands at once, as each seat saw them when it bid.

The master's inference (`wizard.ai.search.inference`) asks OI's overall
network how a seat would have bid with each of a hundred or more sampled hands,
every card of every hand: thousands of feature rows per decision. Built row by
row with `card_features` that costs tens of milliseconds; here the rows of one
bidder's hands are built as numpy arrays over the hand masks. The layout is
`card_features`'s (tested equal, row for row): a bid-time situation has an
empty trick, every bid before the seat's visible, nothing played yet.

>>> from wizard.engine import WizardGame
>>> game = WizardGame(4, seed=1)
>>> obs = game.observation(game.current_player)
>>> from wizard.ai.oi.features import card_features, situation_of
>>> sit = situation_of(obs)
>>> rows, exact = bid_features(sit, np.array([sit.hand_mask], np.uint64), obs.trump_card.id)
>>> np.array_equal(rows, card_features(sit, sit.hand))
True
"""

from __future__ import annotations

from functools import cache

import numpy as np
import numpy.typing as npt

from wizard.engine.cards import (
    ALL_CARDS_MASK,
    CARD_RANK,
    CARD_SUIT,
    FIRST_JESTER,
    FIRST_WIZARD,
    JESTER_MASK,
    NUM_CARDS,
    SUIT_MASKS,
    WIZARD_MASK,
)
from wizard.engine.rules import lead_of, trick_winner

from .features import (
    OI_BLOCKS,
    OI_FEATURE_SIZE,
    OI_FEATURE_VERSION,
    Situation,
    clear_card_blocks,
    context_row,
)

_S = {name: block.start for name, block in OI_BLOCKS.items()}
#: BITS13[m] is the 13-bit mask m as 13 floats (rank 1 first), as in the features module
BITS13 = ((np.arange(1 << 13)[:, None] >> np.arange(13)) & 1).astype(np.float32)

#: a number card's suit and rank by card id (0 for wizards and jesters)
NUMBER_SUIT = np.array([CARD_SUIT[c] if c < FIRST_WIZARD else 0 for c in range(NUM_CARDS)],
                       np.int64)
NUMBER_RANK = np.array([CARD_RANK[c] if c < FIRST_WIZARD else 0 for c in range(NUM_CARDS)],
                       np.int64)
SUIT_MASKS_64 = np.array(SUIT_MASKS, np.uint64)
CARD_BITS = np.uint64(1) << np.arange(NUM_CARDS, dtype=np.uint64)
BEATER_BUCKET = np.array([0, 1, 2, 3, 4, 5, 5, 5] + [6] * 60, np.int64)
RANKS13 = np.uint64(0x1FFF)


def count_bits(masks: npt.NDArray[np.uint64]) -> npt.NDArray[np.int64]:
    return np.bitwise_count(masks).astype(np.int64)


def hand_cards(masks: npt.NDArray[np.uint64], size: int) -> npt.NDArray[np.int64]:
    """The card ids of each hand mask, ascending: ``(hands, size)``; every hand has ``size``.

    >>> hand_cards(np.array([0b1011], np.uint64), 3).tolist()
    [[0, 1, 3]]
    """
    held = (masks[:, None] & CARD_BITS[None, :]) != 0
    cards = np.nonzero(held)[1].reshape(len(masks), size)
    return cards.astype(np.int64)


def bid_features(sit: Situation, masks: npt.NDArray[np.uint64], turned: int,
                 version: int = OI_FEATURE_VERSION) -> tuple[
        npt.NDArray[np.float32], npt.NDArray[np.float64]]:
    """Feature rows of every card of every hand in ``masks`` (uint64), as ``sit``'s seat bid.

    ``sit`` gives what does not depend on the hand (the seat, the bids before
    it, the trump, the round; its ``trick`` must be empty), ``turned`` the
    turned trump card's id or -1, ``version`` the networks' feature version.
    Returns the rows ``(hands × cards, OI_FEATURE_SIZE)`` in hand order, each
    hand's cards ascending, and each row's certain p_O (`overall_exact`) or NaN
    where the network decides.
    Raises `ValueError` for a situation with cards in its trick.
    """
    if sit.trick:
        raise ValueError("bid-time features need an empty trick")
    seen = 1 << turned if turned >= 0 else 0
    rows, overall, _ = hand_features(sit, masks, seen, version)
    return rows.reshape(-1, OI_FEATURE_SIZE), overall.reshape(-1)


def hand_features(sit: Situation, masks: npt.NDArray[np.uint64], seen: int,
                  version: int = OI_FEATURE_VERSION) -> tuple[
        npt.NDArray[np.float32], npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """`card_features` of every card of every hand in ``masks``, in ``sit``'s situation.

    ``sit`` gives what does not depend on the hand (the seat, bids, tricks
    wanted, the trick, the round); ``seen`` the cards outside the hand that the
    seat has seen (played this round, the turned trump card). Every hand has
    ``len(sit.hand)`` cards. Returns the rows ``(hands, cards, OI_FEATURE_SIZE)``,
    each hand's cards ascending, and per card its certain p_O (`overall_exact`)
    and p_I (`immediate_exact`), NaN where the network decides.
    """
    size = len(sit.hand)
    hands = len(masks)
    cards = hand_cards(masks, size)  # (hands, size)
    unseen = np.uint64(ALL_CARDS_MASK) & ~(masks | np.uint64(seen))
    out = np.empty((hands, size, OI_FEATURE_SIZE), np.float32)
    out[:] = context_row(sit)
    clear_card_blocks(out, version)
    # the context's hand-dependent blocks
    trump = sit.trump
    if trump >= 0:
        start = OI_BLOCKS["trump"].start
        out[:, :, start:start + 13] = BITS13[((unseen >> np.uint64(13 * trump)) & RANKS13)
                                              .astype(np.int64)][:, None, :]
    for name, special in (("unseen_wizards", WIZARD_MASK), ("unseen_jesters", JESTER_MASK)):
        block = OI_BLOCKS[name]
        out[:, :, block] = 0.0
        count = count_bits(unseen & np.uint64(special))
        out[np.arange(hands), :, block.start + count] = 1.0
    block = OI_BLOCKS["voids"]
    out[:, :, block] = 0.0
    voids = sum(((masks & m) == 0).astype(np.int64) for m in SUIT_MASKS_64)
    out[np.arange(hands), :, block.start + voids] = 1.0
    unseen_count = count_bits(unseen)
    out[:, :, _S["unseen_in_hands"]] = np.where(
        unseen_count > 0, sit.cards_in_other_hands / np.maximum(unseen_count, 1), 0.0)[:, None]
    lead = lead_of(sit.trick)
    if version >= 2 and 0 <= lead < 4:
        start = _S["lead_unseen"]
        out[:, :, start:start + 13] = BITS13[((unseen >> np.uint64(13 * lead)) & RANKS13)
                                              .astype(np.int64)][:, None, :]
    out[:, :, _S["own_specials"]] = (count_bits(masks & np.uint64(WIZARD_MASK)) / 4.0)[:, None]
    out[:, :, _S["own_specials"] + 1] = (count_bits(masks & np.uint64(JESTER_MASK)) / 4.0)[:, None]
    wins = _wins_as_it_lies(sit.trick, trump)
    out[:, :, _S["card_vs_trick"] + 1] = wins[cards]
    # the cards: wizards and jesters only have their kind
    h_index, c_index = np.indices((hands, size))
    wizard = (cards >= FIRST_WIZARD) & (cards < FIRST_JESTER)
    jester = cards >= FIRST_JESTER
    number = ~(wizard | jester)
    out[wizard, _S["kind"]] = 1.0
    out[jester, _S["kind"] + 1] = 1.0
    suit = NUMBER_SUIT[cards]
    rank = NUMBER_RANK[cards]
    out[number & (suit == trump), _S["kind"] + 2] = 1.0
    out[number & (suit != trump), _S["kind"] + 3] = 1.0
    out[number & (suit == lead), _S["card_vs_trick"]] = 1.0
    hi, ci = h_index[number], c_index[number]
    suit_n, rank_n = suit[number], rank[number]
    unseen_n = unseen[hi]
    suit_unseen = ((unseen_n >> (np.uint64(13) * suit_n.astype(np.uint64))) & RANKS13)
    start = _S["suit_unseen"]
    out[hi, ci, start:start + 13] = BITS13[suit_unseen.astype(np.int64)]
    higher = count_bits(suit_unseen >> rank_n.astype(np.uint64))
    out[hi, ci, _S["adjusted_rank"] + 12 - higher] = 1.0
    mine = count_bits(masks[hi] & SUIT_MASKS_64[suit_n])
    out[hi, ci, _S["suit_count"] + np.minimum(7, mine) - 1] = 1.0
    beaters = count_bits(unseen_n & np.uint64(WIZARD_MASK)) + higher
    if trump >= 0:
        beaters += np.where(suit_n != trump, count_bits(unseen_n & SUIT_MASKS_64[trump]), 0)
    out[hi, ci, _S["beaters"] + BEATER_BUCKET[beaters]] = 1.0
    immediate = _immediate_exact(sit, cards, unseen, wins, number, hi, ci, beaters)
    # certain p_O: a jester when too few jesters are unseen for a trick of jesters; the
    # last card in hand while playing takes a trick only if it takes this one
    last = not sit.bidding and size == 1
    overall = immediate.copy() if last else np.full((hands, size), np.nan)
    few = count_bits(unseen & np.uint64(JESTER_MASK)) < sit.num_players - 1
    overall[jester & few[:, None]] = 0.0
    return out, overall, immediate


@cache
def _wins_as_it_lies(trick: tuple[int, ...], trump: int) -> npt.NDArray[np.bool_]:
    """Per card id: whether it would hold ``trick`` played now (all true for no trick)."""
    return np.array([trick_winner((*trick, c), trump) == len(trick) for c in range(NUM_CARDS)])


def _immediate_exact(sit: Situation, cards: npt.NDArray[np.int64],
                     unseen: npt.NDArray[np.uint64], wins: npt.NDArray[np.bool_],
                     number: npt.NDArray[np.bool_], hi: npt.NDArray[np.int64],
                     ci: npt.NDArray[np.int64],
                     beaters: npt.NDArray[np.int64]) -> npt.NDArray[np.float64]:
    """`immediate_exact` of every card of every hand (NaN: the network decides)."""
    out = np.full(cards.shape, np.nan)
    if any(FIRST_WIZARD <= c < FIRST_JESTER for c in sit.trick):
        out[:] = 0.0  # a wizard holds the trick
        return out
    after = sit.players_after
    out[(cards >= FIRST_WIZARD) & (cards < FIRST_JESTER)] = 1.0
    jester = cards >= FIRST_JESTER
    if sit.trick:
        out[jester] = 0.0
    else:
        only_jesters = (unseen & ~np.uint64(JESTER_MASK)) == 0
        too_few = count_bits(unseen & np.uint64(JESTER_MASK)) < after
        out[jester & too_few[:, None]] = 0.0
        out[jester & only_jesters[:, None]] = 1.0
    holds = wins[cards[hi, ci]]  # the number cards: a loser is 0, a sure winner 1
    certain = ~holds | (after == 0) | (beaters == 0)
    out[hi[certain], ci[certain]] = np.where(holds[certain], 1.0, 0.0)
    return out


__all__ = ["BEATER_BUCKET", "BITS13", "CARD_BITS", "NUMBER_RANK", "NUMBER_SUIT", "RANKS13",
           "SUIT_MASKS_64", "bid_features", "count_bits", "hand_cards", "hand_features"]
