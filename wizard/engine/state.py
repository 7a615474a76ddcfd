"""Phases, options, results and events: the public value types of a game, with JSON."""

from __future__ import annotations

import enum
from dataclasses import dataclass, fields
from typing import Any

from .cards import NUM_CARDS, Card, Suit
from .rules import MAX_ROUNDS


class Phase(enum.Enum):
    CHOOSING_TRUMP = "choosing_trump"
    BIDDING = "bidding"
    PLAYING = "playing"
    FINISHED = "finished"


def _require(data: Any, what: str, keys: tuple[str, ...]) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise ValueError(f"{what} must be an object, got {type(data).__name__}")
    for key in keys:
        if key not in data:
            raise ValueError(f"{what} is missing field {key!r}")
    return data


def _int(value: Any, field: str) -> int:
    if type(value) is not int:
        raise ValueError(f"{field} must be an integer, got {value!r}")
    return value


def _ints(value: Any, field: str) -> tuple[int, ...]:
    if not isinstance(value, list | tuple):
        raise ValueError(f"{field} must be a list of integers, got {value!r}")
    return tuple(_int(v, field) for v in value)


def _suit_or_none(value: Any, field: str) -> Suit | None:
    if value is None:
        return None
    try:
        return Suit(value)
    except ValueError:
        raise ValueError(f"{field} must be a suit name or null, got {value!r}") from None


def _card_or_none(value: Any) -> Card | None:
    return None if value is None else Card.from_dict(value)


@dataclass(frozen=True, slots=True)
class GameOptions:
    """Rule options of one game.

    - ``hidden_bids``: other players' bids read as ``None`` until every bid is in.
    - ``forbid_even_bids``: the last bidder may not make the bids add up to the
      number of cards dealt (so someone must miss).
    - ``wizard_trump_dealer_chooses``: a turned wizard lets the dealer name trump
      (phase ``choosing_trump``); when False a turned wizard means no trump.
    - ``rounds``: a short game of that many rounds (1, 2, ... cards dealt); ``None``
      is the full game, 60 / players rounds. The game checks it against its number
      of players (`total_rounds`); here it must be an integer from 1 to 20.

    >>> GameOptions(rounds=3).to_dict()["rounds"]
    3
    >>> GameOptions.from_dict({"hidden_bids": True}).rounds is None  # stored before: full
    True
    >>> GameOptions(rounds=0)
    Traceback (most recent call last):
    ValueError: rounds must be an integer 1-20 or null (the full game), got 0
    """

    hidden_bids: bool = False
    forbid_even_bids: bool = True
    wizard_trump_dealer_chooses: bool = False
    rounds: int | None = None

    def __post_init__(self) -> None:
        rounds = self.rounds
        if rounds is not None and (type(rounds) is not int or not 1 <= rounds <= MAX_ROUNDS):
            raise ValueError(
                f"rounds must be an integer 1-{MAX_ROUNDS} or null (the full game), got {rounds!r}")

    def to_dict(self) -> dict[str, bool | int | None]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @staticmethod
    def from_dict(data: Any) -> GameOptions:
        """Missing keys take their defaults; unknown keys and wrong types raise `ValueError`."""
        if data is None:
            return GameOptions()
        if not isinstance(data, dict):
            raise ValueError(f"options must be an object, got {type(data).__name__}")
        names = {f.name for f in fields(GameOptions)}
        for key, value in data.items():
            if key not in names:
                raise ValueError(f"unknown option {key!r}; known: {', '.join(sorted(names))}")
            if key != "rounds" and type(value) is not bool:
                raise ValueError(f"option {key} must be true or false, got {value!r}")
        return GameOptions(**data)


@dataclass(frozen=True, slots=True)
class PlayedCard:
    player: int
    card: Card

    def to_dict(self) -> dict[str, Any]:
        return {"player": self.player, "card": self.card.to_dict()}

    @staticmethod
    def from_dict(data: Any) -> PlayedCard:
        d = _require(data, "played card", ("player", "card"))
        return PlayedCard(_int(d["player"], "player"), Card.from_dict(d["card"]))


@dataclass(frozen=True, slots=True)
class TrickResult:
    """A completed trick, judgeable on its own: it carries its trump card and suit."""

    round_number: int
    trick_number: int
    cards: tuple[PlayedCard, ...]
    winner: int
    trump_card: Card | None
    trump_suit: Suit | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "round_number": self.round_number,
            "trick_number": self.trick_number,
            "cards": [c.to_dict() for c in self.cards],
            "winner": self.winner,
            "trump_card": self.trump_card.to_dict() if self.trump_card else None,
            "trump_suit": self.trump_suit.value if self.trump_suit else None,
        }

    @staticmethod
    def from_dict(data: Any) -> TrickResult:
        d = _require(
            data,
            "trick",
            ("round_number", "trick_number", "cards", "winner", "trump_card", "trump_suit"),
        )
        if not isinstance(d["cards"], list):
            raise ValueError("trick cards must be a list")
        return TrickResult(
            round_number=_int(d["round_number"], "round_number"),
            trick_number=_int(d["trick_number"], "trick_number"),
            cards=tuple(PlayedCard.from_dict(c) for c in d["cards"]),
            winner=_int(d["winner"], "winner"),
            trump_card=_card_or_none(d["trump_card"]),
            trump_suit=_suit_or_none(d["trump_suit"], "trump_suit"),
        )


@dataclass(frozen=True, slots=True)
class RoundResult:
    """One scored round; ``bids`` to ``scores`` are indexed by seat.

    ``dealer`` dealt it, ``trump_suit`` was trump (``None``: none), and ``plays``
    are the ids of its cards in the order they were played (the first trick's
    leader sat left of the dealer; each trick's winner led the next): everyone
    at the table saw them, and a finished round shows every hand it dealt.
    """

    round_number: int
    bids: tuple[int, ...]
    tricks: tuple[int, ...]
    score_changes: tuple[int, ...]
    scores: tuple[int, ...]
    dealer: int
    trump_suit: Suit | None
    plays: tuple[int, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "round_number": self.round_number,
            "bids": list(self.bids),
            "tricks": list(self.tricks),
            "score_changes": list(self.score_changes),
            "scores": list(self.scores),
            "dealer": self.dealer,
            "trump_suit": None if self.trump_suit is None else self.trump_suit.value,
            "plays": list(self.plays),
        }

    @staticmethod
    def from_dict(data: Any) -> RoundResult:
        keys = ("round_number", "bids", "tricks", "score_changes", "scores", "dealer",
                "trump_suit", "plays")
        d = _require(data, "round result", keys)
        plays = _ints(d["plays"], "plays")
        if any(not 0 <= card < NUM_CARDS for card in plays):
            raise ValueError(f"plays must be card ids 0-{NUM_CARDS - 1}, got {d['plays']!r}")
        return RoundResult(
            round_number=_int(d["round_number"], "round_number"),
            bids=_ints(d["bids"], "bids"),
            tricks=_ints(d["tricks"], "tricks"),
            score_changes=_ints(d["score_changes"], "score_changes"),
            scores=_ints(d["scores"], "scores"),
            dealer=_int(d["dealer"], "dealer"),
            trump_suit=_suit_or_none(d["trump_suit"], "trump_suit"),
            plays=plays,
        )


# --- events: returned by WizardGame.apply, forwarded to clients -------------------------


@dataclass(frozen=True, slots=True)
class RoundStarted:
    round_number: int
    dealer: int
    trump_card: Card | None
    trump_suit: Suit | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": "round_started",
            "round_number": self.round_number,
            "dealer": self.dealer,
            "trump_card": self.trump_card.to_dict() if self.trump_card else None,
            "trump_suit": self.trump_suit.value if self.trump_suit else None,
        }


@dataclass(frozen=True, slots=True)
class TrumpChosen:
    player: int
    suit: Suit

    def to_dict(self) -> dict[str, Any]:
        return {"type": "trump_chosen", "player": self.player, "suit": self.suit.value}


@dataclass(frozen=True, slots=True)
class TrickCompleted:
    trick: TrickResult

    def to_dict(self) -> dict[str, Any]:
        return {"type": "trick_completed", "trick": self.trick.to_dict()}


@dataclass(frozen=True, slots=True)
class RoundCompleted:
    result: RoundResult

    def to_dict(self) -> dict[str, Any]:
        return {"type": "round_completed", "result": self.result.to_dict()}


@dataclass(frozen=True, slots=True)
class GameFinished:
    scores: tuple[int, ...]
    winners: tuple[int, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"type": "game_finished", "scores": list(self.scores), "winners": list(self.winners)}


Event = RoundStarted | TrumpChosen | TrickCompleted | RoundCompleted | GameFinished


def event_from_dict(data: Any) -> Event:
    """Parse event JSON (the inverse of ``event.to_dict()``); raises `ValueError`."""
    d = _require(data, "event", ("type",))
    kind = d["type"]
    if kind == "round_started":
        d = _require(d, kind, ("round_number", "dealer", "trump_card", "trump_suit"))
        return RoundStarted(
            _int(d["round_number"], "round_number"),
            _int(d["dealer"], "dealer"),
            _card_or_none(d["trump_card"]),
            _suit_or_none(d["trump_suit"], "trump_suit"),
        )
    if kind == "trump_chosen":
        d = _require(d, kind, ("player", "suit"))
        suit = _suit_or_none(d["suit"], "suit")
        if suit is None:
            raise ValueError("trump_chosen suit must be a suit name")
        return TrumpChosen(_int(d["player"], "player"), suit)
    if kind == "trick_completed":
        return TrickCompleted(TrickResult.from_dict(_require(d, kind, ("trick",))["trick"]))
    if kind == "round_completed":
        return RoundCompleted(RoundResult.from_dict(_require(d, kind, ("result",))["result"]))
    if kind == "game_finished":
        d = _require(d, kind, ("scores", "winners"))
        return GameFinished(_ints(d["scores"], "scores"), _ints(d["winners"], "winners"))
    raise ValueError(f"unknown event type {kind!r}")
