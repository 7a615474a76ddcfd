"""An engine action as it travels: ``{"type": "bid", "value": 2}``, ``{"type": "play",
"card": 17}``, ``{"type": "trump", "suit": "red"}`` (the engine's ``to_dict`` forms).

The same structs carry an ``act``'s action in (decoded strictly: unknown fields, wrong
types and values out of range are refused), the ``legal_actions`` of an update out, and an
accepted action into the store, one per action index, built once (`ACTION_VIEWS`).

>>> import msgspec
>>> view = msgspec.json.decode(b'{"type": "play", "card": 17}', type=ActionView)
>>> view, action_index_of(view), str(engine_action(view))
(PlayView(card=17), 38, 'play yellow 5')
>>> msgspec.json.encode(ACTION_VIEWS[3])
b'{"type":"bid","value":3}'
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from wizard.engine import (
    ACTIONS_BY_INDEX,
    MAX_BID,
    NUM_CARDS,
    PLAY_BASE,
    SUITS,
    TRUMP_BASE,
    Action,
    Bid,
    ChooseTrump,
    Suit,
)

SuitName = Literal["red", "yellow", "green", "blue"]
SUIT_NAMES: dict[Suit, SuitName] = {s: s.value for s in Suit}
_SUIT_INDEX: dict[str, int] = {s.value: s.index for s in SUITS}

BidValue = Annotated[int, msgspec.Meta(ge=0, le=MAX_BID)]
CardId = Annotated[int, msgspec.Meta(ge=0, le=NUM_CARDS - 1)]


class BidView(msgspec.Struct, tag_field="type", tag="bid", forbid_unknown_fields=True,
              frozen=True, gc=False):
    value: BidValue


class PlayView(msgspec.Struct, tag_field="type", tag="play", forbid_unknown_fields=True,
               frozen=True, gc=False):
    card: CardId  # the card id, as an update shows it


class TrumpView(msgspec.Struct, tag_field="type", tag="trump", forbid_unknown_fields=True,
                frozen=True, gc=False):
    suit: SuitName


ActionView = BidView | PlayView | TrumpView


def action_index_of(view: ActionView) -> int:
    """The engine's action index of a (decoded, so in range) action: ``BidView(3)`` → 3."""
    if type(view) is PlayView:  # the common case first
        return PLAY_BASE + view.card
    if type(view) is BidView:
        return view.value
    assert type(view) is TrumpView
    return TRUMP_BASE + _SUIT_INDEX[view.suit]


def engine_action(view: ActionView) -> Action:
    """The engine's canonical action of a decoded one (for `WizardGame.check`)."""
    return ACTIONS_BY_INDEX[action_index_of(view)]


def _view(action: Action) -> ActionView:
    if isinstance(action, Bid):
        return BidView(action.value)
    if isinstance(action, ChooseTrump):
        return TrumpView(SUIT_NAMES[action.suit])
    return PlayView(action.card.id)


#: the struct of every action, by action index: what an update lists and the store keeps
ACTION_VIEWS: tuple[ActionView, ...] = tuple(_view(a) for a in ACTIONS_BY_INDEX)

__all__ = [
    "ACTION_VIEWS",
    "SUIT_NAMES",
    "ActionView",
    "BidView",
    "PlayView",
    "SuitName",
    "TrumpView",
    "action_index_of",
    "engine_action",
]
