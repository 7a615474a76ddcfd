"""The fast path: a whole game as ints, lists of ints and bitmasks.

`GameCore` is what search and self-play drive: ``legal_mask()`` returns the legal
actions as a bitmask over the action-index space (see `actions`), ``apply(index)``
plays one without any validation and allocates nothing per move except at trick
and round boundaries, and ``copy()`` is cheap. The checked `WizardGame` is built
on it.

Deals are derived from ``(seed, round_number)`` alone, so a copy needs no random
generator state and a game replays identically from its seed and its actions.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .actions import TRUMP_BASE
from .cards import (
    ALL_CARDS_MASK,
    FIRST_JESTER,
    FIRST_WIZARD,
    JESTER_MASK,
    NUM_CARDS,
    SUIT_MASKS,
    WIZARD_MASK,
)
from .deal import deal_orders, first_dealer_for
from .rules import (
    LEAD_NONE,
    round_score,
    total_rounds,
    trick_winner,
    trump_suit_of,
)

# phases as ints (the checked API maps them to `Phase`)
BIDDING = 0
PLAYING = 1
CHOOSING_TRUMP = 2
FINISHED = 3

# what `GameCore.apply` reports
NOTHING = 0
TRICK_DONE = 1
ROUND_DONE = 2  # the trick that ended the round, too
GAME_DONE = 3  # the trick and round that ended the game, too

_TRUMP_CHOICE_MASK = 0b1111 << TRUMP_BASE


def random_index(mask: int, rand: Callable[[], float]) -> int:
    """A uniformly random set bit of ``mask`` (non-empty), drawn with one call of ``rand``."""
    skip = int(rand() * mask.bit_count())
    while skip:
        mask &= mask - 1
        skip -= 1
    return (mask & -mask).bit_length() - 1


class GameCore:
    """Mutable game state; all fields are public for search code, none are checked.

    Seats are 0..n-1. ``hands[p]`` is a card mask. ``bids[p]`` is -1 until p bids.
    ``trick`` holds card ids in play order, led by ``leader``; ``lead`` is the
    lead state of `rules`. ``trump_suit`` is a suit index or -1. ``current`` is -1
    once the game is finished. After a trick, ``last_trick`` / ``last_trick_leader``
    / ``last_trick_winner`` describe it; after a round, ``last_bids`` /
    ``last_tricks`` / ``last_changes`` describe that round. ``total_rounds`` is the
    game's length: ``rounds`` when given (a short game), else the full 60 / players.

    >>> import random
    >>> core, rand = GameCore(4, seed=7, rounds=2), random.Random(1).random
    >>> while core.phase != FINISHED:
    ...     _ = core.apply(random_index(core.legal_mask(), rand))
    >>> core.round_number, core.total_rounds
    (2, 2)
    """

    __slots__ = (
        "bid_count",
        "bid_sum",
        "bids",
        "current",
        "dealer",
        "dealer_chooses",
        "forbid_even_bids",
        "hands",
        "hidden_bids",
        "last_bids",
        "last_changes",
        "last_trick",
        "last_trick_leader",
        "last_trick_winner",
        "last_tricks",
        "lead",
        "leader",
        "n",
        "orders",
        "phase",
        "played",
        "round_number",
        "scores",
        "seed",
        "total_rounds",
        "trick",
        "trick_number",
        "tricks",
        "trump_card",
        "trump_suit",
        "undealt_mask",
    )

    n: int
    seed: int
    orders: tuple[tuple[int, ...], ...]
    total_rounds: int
    hidden_bids: bool
    forbid_even_bids: bool
    dealer_chooses: bool
    round_number: int
    dealer: int
    phase: int
    current: int
    hands: list[int]
    trump_card: int
    trump_suit: int
    undealt_mask: int
    bids: list[int]
    bid_count: int
    bid_sum: int
    tricks: list[int]
    trick: list[int]
    lead: int
    leader: int
    trick_number: int
    played: list[int]
    scores: list[int]
    last_trick: list[int]
    last_trick_leader: int
    last_trick_winner: int
    last_bids: list[int]
    last_tricks: list[int]
    last_changes: list[int]

    def __init__(
        self,
        num_players: int,
        seed: int,
        *,
        first_dealer: int | None = None,
        hidden_bids: bool = False,
        forbid_even_bids: bool = True,
        dealer_chooses: bool = False,
        rounds: int | None = None,
    ) -> None:
        self.n = num_players
        self.total_rounds = total_rounds(num_players, rounds)
        self.seed = seed
        self.orders = deal_orders(seed, num_players, self.total_rounds)
        self.hidden_bids = hidden_bids
        self.forbid_even_bids = forbid_even_bids
        self.dealer_chooses = dealer_chooses
        self.scores = [0] * num_players
        self.last_trick = []
        self.last_trick_leader = -1
        self.last_trick_winner = -1
        self.last_bids = []
        self.last_tricks = []
        self.last_changes = []
        if first_dealer is None:
            first_dealer = first_dealer_for(seed, num_players)
        self.deal(1, first_dealer)

    def deal(self, round_number: int, dealer: int) -> None:
        """Deal ``round_number`` with ``dealer``: hands, trump, and the first bidder to move.

        Card k of the round's order goes to seat ``dealer + 1 + k``; the card after
        the deal is turned for trump (none when every card is dealt).
        """
        n = self.n
        dealt = n * round_number
        order = self.orders[round_number - 1]
        hands = [0] * n
        first = dealer + 1
        bit = _BIT.__getitem__
        for k in range(n):  # card k of the order to seat dealer + 1 + k, and so on around
            hands[(first + k) % n] = sum(map(bit, order[k:dealt:n]))  # distinct bits: sum == or
        trump_card = order[dealt] if dealt < NUM_CARDS else -1
        undealt = ALL_CARDS_MASK
        for hand in hands:
            undealt ^= hand
        if trump_card >= 0:
            undealt ^= 1 << trump_card
        self.round_number = round_number
        self.dealer = dealer
        self.hands = hands
        self.trump_card = trump_card
        self.trump_suit = trump_suit_of(trump_card)
        self.undealt_mask = undealt
        self.bids = [-1] * n
        self.bid_count = 0
        self.bid_sum = 0
        self.tricks = [0] * n
        self.trick = []
        self.lead = LEAD_NONE
        self.leader = first % n
        self.trick_number = 1
        self.played = []
        if self.dealer_chooses and FIRST_WIZARD <= trump_card < FIRST_JESTER:
            self.phase = CHOOSING_TRUMP
            self.current = dealer
        else:
            self.phase = BIDDING
            self.current = first % n

    @property
    def played_mask(self) -> int:
        """Cards played this round (current trick included), as a mask."""
        return sum(map(_BIT.__getitem__, self.played))

    def forbidden_bid(self) -> int:
        """The bid the player to move may not make, or -1 if every bid in range is allowed."""
        if self.forbid_even_bids and self.phase == BIDDING and self.bid_count == self.n - 1:
            forbidden = self.round_number - self.bid_sum
            if forbidden >= 0:
                return forbidden
        return -1

    def legal_mask(self) -> int:
        """Legal actions of the player to move, as a mask over action indices."""
        # The hot path: constants are inlined (PLAYING == 1, PLAY_BASE == 21, lead 0-3 = suit).
        if self.phase == 1:
            hand = self.hands[self.current]
            lead = self.lead
            if 0 <= lead < 4:
                following = hand & _SUIT_MASKS[lead]
                if following:
                    return (following | (hand & _WIZARDS_AND_JESTERS)) << 21
            return hand << 21
        if self.phase == BIDDING:
            mask = (1 << (self.round_number + 1)) - 1
            forbidden = self.forbidden_bid()
            return mask & ~(1 << forbidden) if forbidden >= 0 else mask
        if self.phase == CHOOSING_TRUMP:
            return _TRUMP_CHOICE_MASK
        return 0

    def apply(self, index: int) -> int:
        """Play action ``index`` for the player to move, unchecked.

        Returns `NOTHING`, `TRICK_DONE`, `ROUND_DONE` or `GAME_DONE`. The result of
        an illegal index is undefined: validate with `legal_mask` first.
        """
        if self.phase == 1:  # PLAYING, inlined: this is most of all moves
            card = index - 21
            bit = 1 << card
            player = self.current
            self.hands[player] ^= bit
            trick = self.trick
            trick.append(card)
            self.played.append(card)
            if self.lead == -1 and card < 56:  # the first non-jester sets the lead
                self.lead = 4 if card >= 52 else card // 13
            n = self.n
            if len(trick) < n:
                player += 1
                self.current = player if player < n else 0
                return 0  # NOTHING
            return self._complete_trick()
        if self.phase == BIDDING:
            self.bids[self.current] = index
            self.bid_count += 1
            self.bid_sum += index
            if self.bid_count == self.n:
                self.phase = PLAYING
                self.current = self.leader
            else:
                self.current = (self.current + 1) % self.n
            return NOTHING
        if self.phase == CHOOSING_TRUMP:
            self.trump_suit = index - TRUMP_BASE
            self.phase = BIDDING
            self.current = (self.dealer + 1) % self.n
            return NOTHING
        raise RuntimeError("the game is over")

    def _complete_trick(self) -> int:
        trick = self.trick
        winner = (self.leader + trick_winner(trick, self.trump_suit)) % self.n
        self.tricks[winner] += 1
        self.last_trick = trick
        self.last_trick_leader = self.leader
        self.last_trick_winner = winner
        self.trick = []
        self.lead = LEAD_NONE
        if self.trick_number < self.round_number:
            self.trick_number += 1
            self.leader = winner
            self.current = winner
            return TRICK_DONE
        changes = [round_score(b, t) for b, t in zip(self.bids, self.tricks, strict=True)]
        scores = self.scores
        for seat, change in enumerate(changes):
            scores[seat] += change
        self.last_bids = self.bids
        self.last_tricks = self.tricks
        self.last_changes = changes
        if self.round_number == self.total_rounds:
            self.phase = FINISHED
            self.current = -1
            return GAME_DONE
        self.deal(self.round_number + 1, (self.dealer + 1) % self.n)
        return ROUND_DONE

    def playout(self, rand: Callable[[], float]) -> None:
        """Finish the game with uniformly random legal moves: the rollout of a search.

        ``rand`` returns floats in [0, 1) (e.g. ``random.Random(7).random``). Each move
        is ``random_index(legal_mask(), rand)``, so a playout equals the same moves
        made one at a time through `legal_mask` and `apply`; it is only faster.
        """
        n = self.n
        while self.phase != FINISHED:
            if self.phase != PLAYING:
                self.apply(random_index(self.legal_mask(), rand))
                continue
            hands, trick, played = self.hands, self.trick, self.played
            player, lead = self.current, self.lead
            while True:
                hand = legal = hands[player]
                if 0 <= lead < 4:
                    following = hand & _SUIT_MASKS[lead]
                    if following:
                        legal = following | (hand & _WIZARDS_AND_JESTERS)
                skip = int(rand() * legal.bit_count())
                while skip:
                    legal &= legal - 1
                    skip -= 1
                bit = legal & -legal
                card = bit.bit_length() - 1
                hands[player] = hand ^ bit
                trick.append(card)
                played.append(card)
                if lead == -1 and card < 56:
                    lead = 4 if card >= 52 else card // 13
                if len(trick) == n:
                    break
                player = player + 1 if player + 1 < n else 0
            self.current, self.lead = player, lead
            self._complete_trick()

    def copy(self) -> GameCore:
        """An independent copy (lists copied; ints and the immutable deal orders shared).

        Every slot is written out (a search copies the game thousands of times a decision:
        plain assignments cost a third of a ``setattr`` loop); a test checks that none is
        missing.
        """
        other = GameCore.__new__(GameCore)
        other.bid_count = self.bid_count
        other.bid_sum = self.bid_sum
        other.current = self.current
        other.dealer = self.dealer
        other.dealer_chooses = self.dealer_chooses
        other.forbid_even_bids = self.forbid_even_bids
        other.hidden_bids = self.hidden_bids
        other.last_trick_leader = self.last_trick_leader
        other.last_trick_winner = self.last_trick_winner
        other.lead = self.lead
        other.leader = self.leader
        other.n = self.n
        other.orders = self.orders
        other.phase = self.phase
        other.round_number = self.round_number
        other.seed = self.seed
        other.total_rounds = self.total_rounds
        other.trick_number = self.trick_number
        other.trump_card = self.trump_card
        other.trump_suit = self.trump_suit
        other.undealt_mask = self.undealt_mask
        other.hands = self.hands[:]
        other.bids = self.bids[:]
        other.tricks = self.tricks[:]
        other.trick = self.trick[:]
        other.played = self.played[:]
        other.scores = self.scores[:]
        other.last_trick = self.last_trick[:]
        other.last_bids = self.last_bids[:]
        other.last_tricks = self.last_tricks[:]
        other.last_changes = self.last_changes[:]
        return other

    def to_dict(self) -> dict[str, Any]:
        """Every field but the deal orders (a function of the seed), JSON-ready."""
        return {name: _plain(getattr(self, name)) for name in _STORED_SLOTS}

    @staticmethod
    def from_dict(data: dict[str, Any]) -> GameCore:
        """The inverse of `to_dict`; raises `ValueError` if a field is missing."""
        core = GameCore.__new__(GameCore)
        for name in _STORED_SLOTS:
            if name not in data:
                raise ValueError(f"game state is missing field {name!r}")
            value = data[name]
            setattr(core, name, list(value) if isinstance(value, list) else value)
        core.orders = deal_orders(core.seed, core.n, core.total_rounds)
        return core


_BIT: tuple[int, ...] = tuple(1 << card for card in range(NUM_CARDS))
_SUIT_MASKS = SUIT_MASKS
_WIZARDS_AND_JESTERS = WIZARD_MASK | JESTER_MASK
_STORED_SLOTS = tuple(name for name in GameCore.__slots__ if name != "orders")


def _plain(value: Any) -> Any:
    return list(value) if isinstance(value, list) else value
