"""Actions, their JSON form and their index in the fixed action space.

Index layout (shared by the fast path and the AI's `ActionSpace`)::

    0–20   Bid(0) … Bid(20)
    21–80  PlayCard(card id 0 … 59)
    81–84  ChooseTrump(red, yellow, green, blue)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .cards import ALL_CARDS, NUM_CARDS, SUITS, Card, Suit, check_card_id

MAX_BID = 20
BID_BASE = 0
PLAY_BASE = MAX_BID + 1  # 21
TRUMP_BASE = PLAY_BASE + NUM_CARDS  # 81
NUM_ACTIONS = TRUMP_BASE + len(SUITS)  # 85


@dataclass(frozen=True, slots=True)
class Bid:
    """Bid ``value`` tricks: ``Bid(2)``; JSON ``{"type": "bid", "value": 2}``."""

    value: int

    def __str__(self) -> str:
        return f"bid {self.value}"

    def to_dict(self) -> dict[str, Any]:
        return {"type": "bid", "value": self.value}


@dataclass(frozen=True, slots=True)
class PlayCard:
    """Play a card: ``PlayCard(card_from_id(17))``; JSON ``{"type": "play", "card": 17}``."""

    card: Card

    def __str__(self) -> str:
        return f"play {self.card}"

    def to_dict(self) -> dict[str, Any]:
        return {"type": "play", "card": self.card.id}


@dataclass(frozen=True, slots=True)
class ChooseTrump:
    """The dealer names trump after a turned wizard (option ``wizard_trump_dealer_chooses``).

    JSON ``{"type": "trump", "suit": "red"}``.
    """

    suit: Suit

    def __str__(self) -> str:
        return f"choose trump {self.suit.value}"

    def to_dict(self) -> dict[str, Any]:
        return {"type": "trump", "suit": self.suit.value}


Action = Bid | PlayCard | ChooseTrump

# Canonical instances, built once: legal_actions hands these out instead of allocating.
BID_ACTIONS: tuple[Bid, ...] = tuple(Bid(v) for v in range(MAX_BID + 1))
PLAY_ACTIONS: tuple[PlayCard, ...] = tuple(PlayCard(c) for c in ALL_CARDS)
TRUMP_ACTIONS: tuple[ChooseTrump, ...] = tuple(ChooseTrump(s) for s in SUITS)
ACTIONS_BY_INDEX: tuple[Action, ...] = (*BID_ACTIONS, *PLAY_ACTIONS, *TRUMP_ACTIONS)


def action_index(action: Action) -> int:
    """Index of an action in the fixed space: ``action_index(Bid(3)) == 3``.

    Raises `ValueError` for a bid outside 0–20 or an object that is not an action.
    """
    if isinstance(action, PlayCard):
        return PLAY_BASE + action.card.id
    if isinstance(action, Bid):
        if type(action.value) is not int or not 0 <= action.value <= MAX_BID:
            raise ValueError(f"bid must be an integer 0-{MAX_BID}, got {action.value!r}")
        return BID_BASE + action.value
    if isinstance(action, ChooseTrump):
        return TRUMP_BASE + action.suit.index
    raise ValueError(f"not an action: {action!r}")


def action_from_index(index: int) -> Action:
    """The canonical action at an index: ``action_from_index(21) == PlayCard(card 0)``."""
    if not 0 <= index < NUM_ACTIONS:
        raise ValueError(f"action index must be 0-{NUM_ACTIONS - 1}, got {index}")
    return ACTIONS_BY_INDEX[index]


def action_to_dict(action: Action) -> dict[str, Any]:
    return action.to_dict()


_SUIT_BY_NAME = {s.value: s for s in SUITS}
_FIELDS = {"bid": ("value",), "play": ("card",), "trump": ("suit",)}


def action_from_dict(data: Any) -> Action:
    """Parse action JSON strictly; returns the canonical instance.

    >>> action_from_dict({"type": "bid", "value": 2})
    Bid(value=2)

    Raises `ValueError` naming the bad field for: a non-object, an unknown or
    missing ``type``, missing or extra fields, booleans or floats where an int
    belongs, bids outside 0–20, card ids outside 0–59, unknown suits.
    """
    if not isinstance(data, dict):
        raise ValueError(f"action must be an object, got {type(data).__name__}")
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in _FIELDS:  # an unhashable type is no TypeError
        raise ValueError(f"action type must be one of bid, play, trump; got {kind!r}")
    expected = {"type", *_FIELDS[kind]}
    missing = expected - data.keys()
    if missing:
        raise ValueError(f"{kind} action is missing field {sorted(missing)[0]!r}")
    extra = data.keys() - expected
    if extra:
        raise ValueError(f"{kind} action has unknown field {sorted(map(str, extra))[0]!r}")
    if kind == "bid":
        value = data["value"]
        if type(value) is not int:
            raise ValueError(f"bid value must be an integer, got {value!r}")
        if not 0 <= value <= MAX_BID:
            raise ValueError(f"bid value must be 0-{MAX_BID}, got {value}")
        return BID_ACTIONS[value]
    if kind == "play":
        return PLAY_ACTIONS[check_card_id(data["card"], "play card")]
    suit = data["suit"]
    if not isinstance(suit, str) or suit not in _SUIT_BY_NAME:
        raise ValueError(f"trump suit must be one of red, yellow, green, blue; got {suit!r}")
    return TRUMP_ACTIONS[_SUIT_BY_NAME[suit].index]
