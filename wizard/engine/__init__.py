"""The Wizard rules engine: pure, stdlib only, no I/O, no clock.

>>> from wizard.engine import WizardGame, GameOptions
>>> game = WizardGame(num_players=4, options=GameOptions(hidden_bids=True), seed=1)
>>> game.phase.value
'bidding'
"""

from .actions import (
    ACTIONS_BY_INDEX,
    BID_BASE,
    MAX_BID,
    NUM_ACTIONS,
    PLAY_BASE,
    TRUMP_BASE,
    Action,
    Bid,
    ChooseTrump,
    PlayCard,
    action_from_dict,
    action_from_index,
    action_index,
    action_to_dict,
)
from .cards import (
    ALL_CARDS,
    NUM_CARDS,
    SUITS,
    Card,
    CardKind,
    Suit,
    card_by_id,
    card_from_id,
    card_id,
    ids_of,
    mask_of,
    new_shuffled_deck,
)
from .core import GameCore
from .errors import ActionNotAllowedError, GameOverError, IllegalActionError, NotYourTurnError
from .game import WizardGame
from .observation import Observation
from .rules import (
    lead_of,
    legal_cards_mask,
    round_score,
    total_rounds,
    trick_winner,
    trump_suit_of,
)
from .state import (
    Event,
    GameFinished,
    GameOptions,
    Phase,
    PlayedCard,
    RoundCompleted,
    RoundResult,
    RoundStarted,
    TrickCompleted,
    TrickResult,
    TrumpChosen,
    event_from_dict,
)

__all__ = [
    "ACTIONS_BY_INDEX",
    "ALL_CARDS",
    "BID_BASE",
    "MAX_BID",
    "NUM_ACTIONS",
    "NUM_CARDS",
    "PLAY_BASE",
    "SUITS",
    "TRUMP_BASE",
    "Action",
    "ActionNotAllowedError",
    "Bid",
    "Card",
    "CardKind",
    "ChooseTrump",
    "Event",
    "GameCore",
    "GameFinished",
    "GameOptions",
    "GameOverError",
    "IllegalActionError",
    "NotYourTurnError",
    "Observation",
    "Phase",
    "PlayCard",
    "PlayedCard",
    "RoundCompleted",
    "RoundResult",
    "RoundStarted",
    "Suit",
    "TrickCompleted",
    "TrickResult",
    "TrumpChosen",
    "WizardGame",
    "action_from_dict",
    "action_from_index",
    "action_index",
    "action_to_dict",
    "card_by_id",
    "card_from_id",
    "card_id",
    "event_from_dict",
    "ids_of",
    "lead_of",
    "legal_cards_mask",
    "mask_of",
    "new_shuffled_deck",
    "round_score",
    "total_rounds",
    "trick_winner",
    "trump_suit_of",
]
