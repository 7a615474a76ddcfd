"""Cards: plain ints 0–59 with named constants, and a frozen `Card` view for people.

Layout (fixed, see ARCHITECTURE.md)::

    0–12   red 1–13        26–38  green 1–13      52–55  wizards
    13–25  yellow 1–13     39–51  blue 1–13       56–59  jesters

A hand is a 60-bit mask (bit ``i`` set = card ``i`` held). `Card` objects are
canonical: ``card_from_id(i) is ALL_CARDS[i]``.
"""

from __future__ import annotations

import enum
import random
from dataclasses import dataclass
from typing import Any

NUM_CARDS = 60
NUM_SUITS = 4
RANKS_PER_SUIT = 13
FIRST_WIZARD = 52
FIRST_JESTER = 56

ALL_CARDS_MASK = (1 << NUM_CARDS) - 1
WIZARD_MASK = 0b1111 << FIRST_WIZARD
JESTER_MASK = 0b1111 << FIRST_JESTER
#: SUIT_MASKS[s] has the 13 number cards of suit index ``s``.
SUIT_MASKS: tuple[int, ...] = tuple(
    ((1 << RANKS_PER_SUIT) - 1) << (s * RANKS_PER_SUIT) for s in range(NUM_SUITS)
)


class Suit(enum.Enum):
    """The four suits, in card-id order. ``Suit.RED.index == 0``."""

    RED = "red"
    YELLOW = "yellow"
    GREEN = "green"
    BLUE = "blue"

    @property
    def index(self) -> int:
        return _SUIT_INDEX[self]

    @classmethod
    def from_index(cls, index: int) -> Suit:
        """``Suit.from_index(2) is Suit.GREEN``; raises `IndexError` outside 0–3."""
        return SUITS[index]


SUITS: tuple[Suit, ...] = tuple(Suit)
_SUIT_INDEX = {suit: i for i, suit in enumerate(SUITS)}


class CardKind(enum.Enum):
    NUMBER = "number"
    WIZARD = "wizard"
    JESTER = "jester"


# Per-id tables, built once at import: the fast path reads these, never Card objects.
#: suit index 0–3 of a number card, -1 for wizards and jesters
CARD_SUIT: tuple[int, ...] = tuple(
    i // RANKS_PER_SUIT if i < FIRST_WIZARD else -1 for i in range(NUM_CARDS)
)
#: rank 1–13 of a number card, 0 for wizards and jesters
CARD_RANK: tuple[int, ...] = tuple(
    i % RANKS_PER_SUIT + 1 if i < FIRST_WIZARD else 0 for i in range(NUM_CARDS)
)


def is_wizard(card_id: int) -> bool:
    return FIRST_WIZARD <= card_id < FIRST_JESTER


def is_jester(card_id: int) -> bool:
    return card_id >= FIRST_JESTER


@dataclass(frozen=True, slots=True)
class Card:
    """One card. Build it with `card_from_id`; ``card.id`` goes back.

    >>> card_from_id(17)
    Card(id=17, kind=<CardKind.NUMBER: 'number'>, suit=<Suit.YELLOW: 'yellow'>, rank=5)
    """

    id: int
    kind: CardKind
    suit: Suit | None
    rank: int

    @property
    def is_wizard(self) -> bool:
        return self.kind is CardKind.WIZARD

    @property
    def is_jester(self) -> bool:
        return self.kind is CardKind.JESTER

    def __str__(self) -> str:
        if self.suit is None:
            return f"{self.kind.value} ({self.id})"
        return f"{self.suit.value} {self.rank}"

    def to_dict(self) -> dict[str, Any]:
        """``{"id", "kind", "suit", "rank"}``: a fresh copy of a table built at import."""
        return dict(_CARD_DICTS[self.id])

    @staticmethod
    def from_dict(data: Any) -> Card:
        """Reads ``{"id": 17, ...}``; the other fields must agree with the id.

        Raises `ValueError` naming the bad field.
        """
        if not isinstance(data, dict):
            raise ValueError(f"card must be an object, got {type(data).__name__}")
        card = card_from_id(data.get("id"))
        if data != card.to_dict():
            raise ValueError(f"card fields {data!r} do not match card id {card.id}")
        return card


def _make_card(card_id: int) -> Card:
    if card_id < FIRST_WIZARD:
        return Card(card_id, CardKind.NUMBER, SUITS[CARD_SUIT[card_id]], CARD_RANK[card_id])
    if card_id < FIRST_JESTER:
        return Card(card_id, CardKind.WIZARD, None, 0)
    return Card(card_id, CardKind.JESTER, None, 0)


ALL_CARDS: tuple[Card, ...] = tuple(_make_card(i) for i in range(NUM_CARDS))
# JSON of every card, built once: copying a small dict is ~5x cheaper than building one
_CARD_DICTS: tuple[dict[str, Any], ...] = tuple(
    {"id": c.id, "kind": c.kind.value, "suit": c.suit.value if c.suit else None, "rank": c.rank}
    for c in ALL_CARDS
)


def check_card_id(value: Any, field: str = "card") -> int:
    """Returns ``value`` if it is an int card id 0–59, else raises `ValueError`.

    Booleans are not ints here: ``check_card_id(True)`` raises.
    """
    if type(value) is not int:
        raise ValueError(f"{field} must be an integer card id 0-59, got {value!r}")
    if not 0 <= value < NUM_CARDS:
        raise ValueError(f"{field} must be a card id 0-59, got {value}")
    return value


def card_from_id(card_id: Any) -> Card:
    """The canonical `Card` for an id; raises `ValueError` outside 0–59."""
    return ALL_CARDS[check_card_id(card_id, "card id")]


card_by_id = card_from_id  # the seed's name


def card_id(suit: Suit | int, rank: int) -> int:
    """The id of the number card ``rank`` (1–13) of ``suit`` (a `Suit` or its index 0–3).

    >>> card_id(Suit.RED, 1), card_id(Suit.YELLOW, 13), card_id(3, 13)
    (0, 25, 51)
    >>> card_id(Suit.RED, 14)
    Traceback (most recent call last):
    ...
    ValueError: rank must be 1-13, got 14
    """
    index = suit.index if isinstance(suit, Suit) else suit
    if type(index) is not int or not 0 <= index < NUM_SUITS:
        raise ValueError(f"suit must be a Suit or 0-{NUM_SUITS - 1}, got {suit!r}")
    if type(rank) is not int or not 1 <= rank <= RANKS_PER_SUIT:
        raise ValueError(f"rank must be 1-{RANKS_PER_SUIT}, got {rank!r}")
    return index * RANKS_PER_SUIT + rank - 1


def mask_of(card_ids: Any) -> int:
    """Bitmask of an iterable of card ids: ``mask_of([0, 2]) == 0b101``."""
    mask = 0
    for card_id in card_ids:
        mask |= 1 << card_id
    return mask


def ids_of(mask: int) -> list[int]:
    """Card ids in a mask, ascending: ``ids_of(0b101) == [0, 2]``."""
    ids = []
    while mask:
        low = mask & -mask
        ids.append(low.bit_length() - 1)
        mask ^= low
    return ids


def new_shuffled_deck(rng: random.Random) -> list[Card]:
    """All 60 cards in a random order drawn from ``rng``."""
    deck = list(ALL_CARDS)
    rng.shuffle(deck)
    return deck
