"""Rounds finished in lockstep: the search's rollouts as arrays, a card in every copy a step.

`finish_round` plays one copy of a round at a time, a Python call per card; a
decision of the master plays every candidate in every world (hundreds of
copies of the same round). Here those copies move together as one
`wizard.ai.oi.positions.Positions`: `heuristic_cards` is the heuristic's card
(`wizard.ai.search.rollout.heuristic_choice`) for every position at once, and
`finish` plays the rounds to their end with the heuristic (or another chooser,
OI in `wizard.ai.search.oi_rollout`) for the other seats. The same cards as the
rollouts one at a time (tested position for position and round for round), so
the search's values, and its moves, are the same.

>>> from wizard.engine import GameCore
>>> from wizard.ai.search.rollout import finish_round
>>> core = GameCore(4, seed=3)
>>> me = core.current
>>> _ = core.apply(heuristic_bid(core))
>>> bids, won = finish([core.copy()], me, heuristic_bids)
>>> finish_round(core)
>>> (int(bids[0]), int(won[0])) == (core.last_bids[me], core.last_tricks[me])
True
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from wizard.engine import GameCore
from wizard.engine.cards import CARD_RANK, CARD_SUIT, FIRST_JESTER, FIRST_WIZARD, NUM_CARDS
from wizard.engine.core import BIDDING, PLAYING, ROUND_DONE

from ..oi.batch import count_bits
from ..oi.positions import Ints, Positions
from .rollout import STRENGTH, TRUMP_KEY, heuristic_bid

#: the seats' bids for cores that are bidding (one each, the seat to move's)
BidChooser = Callable[[list[GameCore]], list[int]]
#: the cards (ids) of the seats to move in positions that are playing
CardChooser = Callable[[Positions], Ints]

_STRENGTHS = np.array(STRENGTH, np.int16)  # (trump + 1, lead + 1, card)
_WIZARDS = (np.arange(NUM_CARDS) >= FIRST_WIZARD) & (np.arange(NUM_CARDS) < FIRST_JESTER)
_NUMBERS = np.arange(NUM_CARDS) < FIRST_WIZARD
_SUITS = np.array(CARD_SUIT, np.int64)


def _keys(trump: int, trick_suit: int) -> list[int]:
    """What each card brings to a trick led in ``trick_suit`` (-1: no number card yet), as
    `heuristic_choice` compares it: a trump's rank + 100, the trick suit's rank (any suit's
    before a number card is played), -1 another suit; a wizard above all, a jester below."""
    return [2000 if _WIZARDS[c] else -2 if not _NUMBERS[c]
            else TRUMP_KEY[trump + 1][c] if CARD_SUIT[c] == trump
            else CARD_RANK[c] if trick_suit < 0 or CARD_SUIT[c] == trick_suit else -1
            for c in range(NUM_CARDS)]


# _KEYS[trump + 1, trick suit + 1, card]: `_keys`; a card takes the trick if its key is above
# the best key so far (a wizard played: above every key; nothing played: below every key)
_KEYS = np.array([[_keys(trump, suit) for suit in range(-1, 4)] for trump in range(-1, 4)],
                 np.int16)
_NOTHING_PLAYED, _WIZARD_PLAYED = -3, 3000
_PLAYED_KEYS = np.concatenate([np.array(TRUMP_KEY, np.int64),
                               np.full((5, 1), -1, np.int64)], axis=1)  # past the trick: -1


def heuristic_bids(cores: list[GameCore]) -> list[int]:
    """`heuristic_bid` of each core's seat to move."""
    return [heuristic_bid(core) for core in cores]


def heuristic_cards(positions: Positions) -> Ints:
    """`heuristic_choice` in every position: the heuristic's card for the seat to move."""
    every = np.arange(len(positions))
    seats = positions.current
    taking = (positions.bids[every, seats] - positions.won[every, seats]) > 0
    legal = np.unpackbits(positions.legal().astype("<u8").view(np.uint8).reshape(-1, 8), axis=1,
                          bitorder="little")[:, :NUM_CARDS].view(np.bool_)
    trump, size = positions.trump, positions.trick_size
    lead = np.where((positions.lead >= 0) & (positions.lead < 4), positions.lead + 1, 0)
    strength = _STRENGTHS[trump + 1][lead]
    # the trick read as `heuristic_choice` reads it: a wizard settles it; else the first
    # number card's suit, and the best key among trump and that suit
    in_trick = np.arange(positions.n)[None, :] < size[:, None]
    played = np.where(in_trick, positions.trick, NUM_CARDS)  # past the trick: no card
    numbers = played < FIRST_WIZARD
    first = np.argmax(numbers, axis=1)
    trick_suit = np.where(numbers.any(axis=1), _SUITS[played[every, first] % NUM_CARDS], -1)
    suits = np.where(numbers, played // 13, -2)
    keys = np.where((suits == trump) | (suits == trick_suit[:, None]),
                    _PLAYED_KEYS[trump + 1][played], -1)
    best = np.where(size == 0, _NOTHING_PLAYED, keys.max(axis=1))
    best[((played >= FIRST_WIZARD) & (played < FIRST_JESTER)).any(axis=1)] = _WIZARD_PLAYED
    # the kind it wants (cards that take the trick when it wants tricks, else cards that do
    # not; any card where it holds none of them), the strongest of it or the weakest: the
    # first best in id order (argmax's first), as `heuristic_choice` walks the ids
    target = (_KEYS[trump + 1][trick_suit + 1] > best[:, None]) == taking[:, None]
    found = (legal & target).any(axis=1)
    strongest = found & ~(taking & (size == positions.n - 1))
    sign = np.where(strongest, 1, -1).astype(np.int16)[:, None]
    key = target * np.int16(1000) + strength * sign
    cards: Ints = np.argmax(np.where(legal, key, np.int16(-1000)), axis=1)
    return cards


def finish(cores: Sequence[GameCore], me: int, bids: BidChooser,
           others: CardChooser = heuristic_cards) -> tuple[Ints, Ints]:
    """Play each core's round to its end: the other seats' bids by ``bids``, their cards by
    ``others``, ``me``'s cards the heuristic's; ``me``'s bid and tricks taken in each. The
    cores are of one round, bidding (``me`` has bid) or playing; the bids are applied to
    them, the cards are played as `Positions` (the cores stay where the bids end). Raises
    `ValueError` for a core in another phase or ``me`` still to bid.
    """
    if not cores:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    if any(core.phase not in (BIDDING, PLAYING) for core in cores):
        raise ValueError("rollouts in lockstep start while the round is bid or played")
    while True:
        bidding = [core for core in cores if core.phase == BIDDING]
        if not bidding:
            break
        if any(core.current == me for core in bidding):
            raise ValueError("the searching seat bids before its rollouts start")
        for core, bid in zip(bidding, bids(bidding), strict=True):
            core.apply(bid)
    positions = Positions.of(cores)  # every core is playing now
    left = count_bits(np.bitwise_or.reduce(positions.hands, axis=1))
    won = np.zeros(len(cores), np.int64)
    for cards_left in np.unique(left).tolist():  # one lockstep group a round's length
        group = np.flatnonzero(left == cards_left)
        at = positions.take(group)
        for _ in range(cards_left):
            _play_one(at, me, others)
        won[group] = at.won[:, me]
    return positions.bids[:, me].copy(), won


def play_out(worlds: Sequence[GameCore], candidates: Sequence[int], me: int,
             bids: BidChooser, others: CardChooser = heuristic_cards) -> tuple[Ints, Ints]:
    """Each candidate (an action index of ``me``'s: a bid or a card) applied in every world
    and the round played to its end by `finish`: ``me``'s bid and tricks taken, candidate
    by candidate, world by world (``len(candidates) * len(worlds)`` of each). A card that
    ends the round is scored as it ends.
    """
    cores: list[GameCore] = []
    going: list[int] = []
    bid_of = np.zeros(len(candidates) * len(worlds), np.int64)
    won = np.zeros(len(bid_of), np.int64)
    for action in candidates:
        for world in worlds:
            core = world.copy()
            if core.apply(action) >= ROUND_DONE:  # the round's last card
                bid_of[len(cores)], won[len(cores)] = core.last_bids[me], core.last_tricks[me]
            else:
                going.append(len(cores))
            cores.append(core)
    bid_of[going], won[going] = finish([cores[i] for i in going], me, bids, others)
    return bid_of, won


def _play_one(positions: Positions, me: int, others: CardChooser) -> None:
    """A card in every position: the one legal card, the heuristic's for ``me``, else
    ``others``'."""
    if others is heuristic_cards:
        positions.play(heuristic_cards(positions))
        return
    legal = positions.legal()
    forced = (legal & (legal - np.uint64(1))) == 0
    cards = count_bits(legal - np.uint64(1))  # the one card's id where it is forced
    mine = np.flatnonzero(~forced & (positions.current == me))
    if len(mine):
        cards[mine] = heuristic_cards(positions.take(mine))
    rest = np.flatnonzero(~forced & (positions.current != me))
    if len(rest):
        cards[rest] = others(positions.take(rest))
    positions.play(cards)


__all__ = ["BidChooser", "CardChooser", "finish", "heuristic_bids", "heuristic_cards",
           "play_out"]

