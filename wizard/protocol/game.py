"""The game inside an ``update``: observation, cards, tricks, rounds and events.

msgspec Structs with the field names, order and values of the engine's ``to_dict``
forms, so their JSON is the engine's byte for byte; the server builds them from the
engine's values (`wizard.server.net.updates`). Enum-like fields hold their names as
plain strings: msgspec encodes a struct of strings about twice as fast as one of enums
(60 cards: 6.7 against 12.8 µs), and an update is mostly cards.

>>> import msgspec
>>> msgspec.json.encode(CardView(17, "number", "yellow", 5))
b'{"id":17,"kind":"number","suit":"yellow","rank":5}'
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from wizard.engine import MAX_ROUNDS

from .actions import ActionView, SuitName
from .states import AutoPlayReason

KindName = Literal["number", "wizard", "jester"]
PhaseName = Literal["choosing_trump", "bidding", "playing", "finished"]


Rounds = Annotated[int, msgspec.Meta(ge=1, le=MAX_ROUNDS)]


class Options(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """The engine's `GameOptions`: what a client sends, and what an observation shows.

    ``rounds``: a short game of that many rounds, null (or absent) for the full game of
    60 / players rounds; the table checks it against its players (``bad_message``).
    """

    hidden_bids: bool = False
    forbid_even_bids: bool = True
    wizard_trump_dealer_chooses: bool = False
    rounds: Rounds | None = None


class CardView(msgspec.Struct, frozen=True, gc=False):
    """``{"id": 17, "kind": "number", "suit": "yellow", "rank": 5}`` (`Card.to_dict`)."""

    id: int
    kind: KindName
    suit: SuitName | None
    rank: int


class PlayedCardView(msgspec.Struct, frozen=True, gc=False):
    player: int
    card: CardView


class TrickView(msgspec.Struct, frozen=True, gc=False):
    round_number: int
    trick_number: int
    cards: tuple[PlayedCardView, ...]
    winner: int
    trump_card: CardView | None
    trump_suit: SuitName | None


class RoundView(msgspec.Struct, frozen=True, gc=False):
    """One scored round; every tuple is indexed by seat (`RoundResult.to_dict`)."""

    round_number: int
    bids: tuple[int, ...]
    tricks: tuple[int, ...]
    score_changes: tuple[int, ...]
    scores: tuple[int, ...]
    dealer: int
    trump_suit: SuitName | None
    plays: tuple[int, ...]  # card ids in the order they were played


class ObservationView(msgspec.Struct, frozen=True, gc=False):
    """One seat's view (`Observation.to_dict`); ``player`` is null for spectators."""

    player: int | None
    num_players: int
    options: Options
    phase: PhaseName
    round_number: int
    total_rounds: int
    dealer: int
    current_player: int | None
    hand: tuple[CardView, ...]
    hand_sizes: tuple[int, ...]
    trump_card: CardView | None
    trump_suit: SuitName | None
    bids: tuple[int | None, ...]
    has_bid: tuple[bool, ...]
    tricks_won: tuple[int, ...]
    scores: tuple[int, ...]
    trick_number: int
    trick_leader: int
    current_trick: tuple[PlayedCardView, ...]
    lead_suit: SuitName | None
    played_cards: tuple[CardView, ...]
    last_trick: TrickView | None
    round_history: msgspec.Raw  # the JSON array of `RoundView`s (built once per round)
    legal_actions: tuple[ActionView, ...]
    winners: tuple[int, ...]


class RoundStartedEvent(msgspec.Struct, tag_field="type", tag="round_started", frozen=True,
                        gc=False):
    round_number: int
    dealer: int
    trump_card: CardView | None
    trump_suit: SuitName | None


class TrumpChosenEvent(msgspec.Struct, tag_field="type", tag="trump_chosen", frozen=True,
                       gc=False):
    player: int
    suit: SuitName


class TrickCompletedEvent(msgspec.Struct, tag_field="type", tag="trick_completed",
                          frozen=True, gc=False):
    trick: TrickView


class RoundCompletedEvent(msgspec.Struct, tag_field="type", tag="round_completed",
                          frozen=True, gc=False):
    result: RoundView


class GameFinishedEvent(msgspec.Struct, tag_field="type", tag="game_finished", frozen=True,
                        gc=False):
    scores: tuple[int, ...]
    winners: tuple[int, ...]


class AutoPlayedEvent(msgspec.Struct, tag_field="type", tag="auto_played", frozen=True,
                      gc=False):
    """The server's own event: someone else played for seat ``player`` (and why)."""

    player: int
    reason: AutoPlayReason


EventView = (RoundStartedEvent | TrumpChosenEvent | TrickCompletedEvent | RoundCompletedEvent
             | GameFinishedEvent | AutoPlayedEvent)

__all__ = [
    "AutoPlayedEvent",
    "CardView",
    "EventView",
    "GameFinishedEvent",
    "KindName",
    "ObservationView",
    "Options",
    "PhaseName",
    "PlayedCardView",
    "RoundCompletedEvent",
    "RoundStartedEvent",
    "RoundView",
    "TrickCompletedEvent",
    "TrickView",
    "TrumpChosenEvent",
]
