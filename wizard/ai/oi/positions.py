"""Many positions of one round as numpy arrays, played a card each at a time.

A search that lets OI play the other seats of its rollouts
(`wizard.ai.search.oi_rollout`) moves hundreds of copies of a round in
lockstep, a card in each per step. As `GameCore`s every step is Python per
copy: reading a dozen fields for OI's feature rows (`wizard.ai.oi.cores`) and
one `apply`. Here the copies are one `Positions`: each field an array over the
positions (the hands a ``(positions, seats)`` mask array), read by OI's rows
without a loop, and `Positions.play` applies one card in every position with
the engine's rules (`wizard.engine.rules`: the lead, the trick's winner;
tested against `GameCore.apply` play for play).

>>> from wizard.engine import GameCore
>>> core = GameCore(4, seed=3)
>>> for bid in (0, 0, 0, 0):  # round 1: everyone bids 0
...     _ = core.apply(bid)
>>> positions = Positions.of([core, core.copy()])
>>> for _ in range(4):  # each seat plays the one card it holds
...     positions.play(np.array([int(hand).bit_length() - 1 for hand in positions.legal()]))
>>> positions.won.sum(axis=1).tolist()
[1, 1]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain

import numpy as np
import numpy.typing as npt

from wizard.engine import GameCore
from wizard.engine.cards import FIRST_JESTER, FIRST_WIZARD, JESTER_MASK, WIZARD_MASK
from wizard.engine.core import BIDDING, PLAYING
from wizard.engine.rules import LEAD_FREE, LEAD_NONE

from .batch import CARD_BITS, SUIT_MASKS_64

Ints = npt.NDArray[np.int64]
Masks = npt.NDArray[np.uint64]
_SPECIALS = np.uint64(WIZARD_MASK | JESTER_MASK)


@dataclass(slots=True)
class Positions:
    """Positions of one round (same seats, dealer, trump and round number), field by field.

    ``hands``: each seat's cards (``(positions, n)`` masks); ``undealt``: the cards
    nobody holds and nobody played, the turned trump card excepted; ``bids`` (-1: not
    yet bid) and ``won`` (tricks taken) per seat; ``trick``: the current trick's cards
    in play order (``(positions, n)``, -1 past ``trick_size``); ``lead`` as
    `GameCore.lead` (`wizard.engine.rules.next_lead`); ``leader`` / ``current``: seats.
    """

    n: int
    number: int
    trump: int
    dealer: int
    bidding: bool
    hands: Masks
    undealt: Masks
    bids: Ints
    won: Ints
    trick: Ints
    trick_size: Ints
    lead: Ints
    leader: Ints
    current: Ints

    @classmethod
    def of(cls, cores: Sequence[GameCore]) -> Positions:
        """The cores' positions: all bidding or all playing, of one round.

        Raises `ValueError` for no core, cores of different phases or rounds, or a core
        neither bidding nor playing.
        """
        if not cores:
            raise ValueError("no position to read")
        first = cores[0]
        n = first.n
        if (len({(c.phase, c.round_number, c.trump_suit, c.dealer, c.n) for c in cores}) != 1
                or first.phase not in (BIDDING, PLAYING)):
            raise ValueError("positions are of one round, all bidding or all playing")
        count = len(cores)
        trick = np.full((count, n), -1, np.int64)
        sizes = np.fromiter([len(core.trick) for core in cores], np.int64, count)
        for size in np.unique(sizes).tolist():
            if size:
                at = np.flatnonzero(sizes == size)
                trick[at, :size] = [cores[i].trick for i in at.tolist()]
        return cls(
            n=n, number=first.round_number, trump=first.trump_suit, dealer=first.dealer,
            bidding=first.phase == BIDDING,
            hands=_masks([core.hands for core in cores], n),
            undealt=np.fromiter([core.undealt_mask for core in cores], np.uint64, count),
            bids=_ints([core.bids for core in cores], n),
            won=_ints([core.tricks for core in cores], n),
            trick=trick, trick_size=sizes,
            lead=np.fromiter([core.lead for core in cores], np.int64, count),
            leader=np.fromiter([core.leader for core in cores], np.int64, count),
            current=np.fromiter([core.current for core in cores], np.int64, count),
        )

    def __len__(self) -> int:
        return len(self.current)

    def take(self, index: Ints) -> Positions:
        """The positions at ``index`` (copies)."""
        return Positions(
            self.n, self.number, self.trump, self.dealer, self.bidding, self.hands[index],
            self.undealt[index], self.bids[index], self.won[index], self.trick[index],
            self.trick_size[index], self.lead[index], self.leader[index], self.current[index])

    def own_hands(self) -> Masks:
        """The hand of the seat to move in each position."""
        return self.hands[np.arange(len(self)), self.current]

    def legal(self) -> Masks:
        """The cards the seat to move may play in each position (`legal_cards_mask`)."""
        hands = self.own_hands()
        led = (self.lead >= 0) & (self.lead < LEAD_FREE)
        following = hands & SUIT_MASKS_64[np.where(led, self.lead, 0)]
        return np.where(led & (following != 0), following | (hands & _SPECIALS), hands)

    def play(self, cards: Ints) -> None:
        """Play ``cards[i]`` (an id, legal: unchecked) for the seat to move in position ``i``,
        every position at once; a trick completed goes to its winner, who leads the next.
        Raises `ValueError` for positions still bidding."""
        if self.bidding:
            raise ValueError("cards are played once the bids are in")
        every = np.arange(len(self))
        self.hands[every, self.current] ^= CARD_BITS[cards]
        self.trick[every, self.trick_size] = cards
        self.trick_size += 1
        setting = (self.lead == LEAD_NONE) & (cards < FIRST_JESTER)
        self.lead[setting] = np.where(cards[setting] >= FIRST_WIZARD, LEAD_FREE,
                                      cards[setting] // 13)
        self.current = (self.current + 1) % self.n
        done = np.flatnonzero(self.trick_size == self.n)
        if len(done):
            winner = (self.leader[done] + trick_winners(self.trick[done], self.trump)) % self.n
            self.won[done, winner] += 1
            self.leader[done] = winner
            self.current[done] = winner
            self.trick[done] = -1
            self.trick_size[done] = 0
            self.lead[done] = LEAD_NONE


def trick_winners(tricks: Ints, trump: int) -> Ints:
    """`trick_winner` of each complete trick (rows of card ids in play order): the first
    wizard; else the highest trump; else the highest card of the lead suit (the first
    number card's); a trick of jesters only goes to its first card."""
    numbers = tricks < FIRST_WIZARD
    wizards = (tricks >= FIRST_WIZARD) & (tricks < FIRST_JESTER)
    suits = np.where(numbers, tricks // 13, -1)
    first_number = np.argmax(numbers, axis=1)
    lead = suits[np.arange(len(tricks)), first_number]  # -1 where no number card
    key = np.where(numbers, tricks % 13, -1)
    key = np.where(numbers & (suits == trump), key + 100,
                   np.where(suits == lead[:, None], key, -1))
    winners: Ints = np.where(wizards.any(axis=1), np.argmax(wizards, axis=1),
                             np.argmax(key, axis=1))
    return winners


def _ints(rows: list[list[int]], width: int) -> Ints:
    return np.fromiter(chain.from_iterable(rows), np.int64, len(rows) * width).reshape(-1, width)


def _masks(rows: list[list[int]], width: int) -> Masks:
    return np.fromiter(chain.from_iterable(rows), np.uint64, len(rows) * width).reshape(-1, width)


__all__ = ["Positions", "trick_winners"]
