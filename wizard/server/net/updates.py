"""The engine's game turned into the structs of an ``update`` (`wizard.protocol.game`).

The structs have the field names, order and values of the engine's ``to_dict``
forms, so the JSON is the same byte for byte; they are built straight from the
engine's values (cards, played cards and actions come from tables built at import,
enums become their names), which makes encoding an update about twice as fast as
going through ``to_dict`` (docs/performance.md). The engine keeps its own types;
this module is the one place that turns them into what travels.

>>> from wizard.engine import WizardGame
>>> game = WizardGame(3, seed=1)
>>> view = observation_view(game.observation(0))
>>> view.phase, view.player, len(view.hand)
('bidding', 0, 1)
>>> msgspec.json.encode(view) == msgspec.json.encode(game.observation(0).to_dict())
True
"""

from __future__ import annotations

import msgspec

from wizard.engine import (
    ACTIONS_BY_INDEX,
    ALL_CARDS,
    Action,
    Card,
    CardKind,
    Event,
    GameFinished,
    GameOptions,
    Observation,
    Phase,
    PlayedCard,
    RoundCompleted,
    RoundResult,
    RoundStarted,
    Suit,
    TrickCompleted,
    TrickResult,
    TrumpChosen,
    action_index,
)
from wizard.protocol import (
    ACTION_VIEWS,
    SUIT_NAMES,
    ActionView,
    CardView,
    EventView,
    GameFinishedEvent,
    KindName,
    ObservationView,
    Options,
    PhaseName,
    PlayedCardView,
    RoundCompletedEvent,
    RoundStartedEvent,
    RoundView,
    SuitName,
    TrickCompletedEvent,
    TrickView,
    TrumpChosenEvent,
)

_SUIT_NAMES = SUIT_NAMES
_KIND_NAMES: dict[CardKind, KindName] = {k: k.value for k in CardKind}
_PHASE_NAMES: dict[Phase, PhaseName] = {p: p.value for p in Phase}


def suit_name(suit: Suit | None) -> SuitName | None:
    """The name of a suit as an update writes it: ``suit_name(Suit.RED) == "red"``."""
    return None if suit is None else _SUIT_NAMES[suit]


# --- built once: every card, every card a seat can play, every action -----------------------

CARD_VIEWS: tuple[CardView, ...] = tuple(
    CardView(c.id, _KIND_NAMES[c.kind], suit_name(c.suit), c.rank) for c in ALL_CARDS)
_PLAYED_VIEWS: tuple[tuple[PlayedCardView, ...], ...] = tuple(
    tuple(PlayedCardView(seat, view) for view in CARD_VIEWS) for seat in range(6))


_OPTIONS: dict[GameOptions, Options] = {}


def options_view(options: GameOptions) -> Options:
    """The struct of ``options`` (one per distinct set of options, built on first use)."""
    view = _OPTIONS.get(options)
    if view is None:
        view = _OPTIONS[options] = Options(options.hidden_bids, options.forbid_even_bids,
                                           options.wizard_trump_dealer_chooses, options.rounds)
    return view


def card_view(card: Card | None) -> CardView | None:
    return None if card is None else CARD_VIEWS[card.id]


def _played(cards: tuple[PlayedCard, ...]) -> tuple[PlayedCardView, ...]:
    return tuple([_PLAYED_VIEWS[p.player][p.card.id] for p in cards])


def trick_view(trick: TrickResult) -> TrickView:
    return TrickView(trick.round_number, trick.trick_number, _played(trick.cards), trick.winner,
                     card_view(trick.trump_card), suit_name(trick.trump_suit))


def round_view(result: RoundResult) -> RoundView:
    return RoundView(result.round_number, result.bids, result.tricks, result.score_changes,
                     result.scores, result.dealer, suit_name(result.trump_suit), result.plays)


_encode = msgspec.json.Encoder().encode


def rounds_json(history: tuple[RoundResult, ...]) -> msgspec.Raw:
    """The round history as the JSON array an observation carries."""
    return msgspec.Raw(_encode(tuple(map(round_view, history))))


class GameViews:
    """The parts of one game's views that stay the same across many updates, converted once.

    The engine hands out the same round history tuple until a round ends, and the
    same last trick until the next one is complete, so a table that keeps one of
    these encodes each round once per round, not once per update (the history is
    the largest part of a late update), and converts each trick once.

    >>> from wizard.engine import WizardGame
    >>> views, game = GameViews(), WizardGame(3, seed=1)
    >>> bytes(views.rounds(game.observation(0).round_history))
    b'[]'
    """

    __slots__ = ("_history", "_json", "_trick", "_trick_view")

    def __init__(self) -> None:
        self._history: tuple[RoundResult, ...] = ()
        self._json = msgspec.Raw(b"[]")
        self._trick: TrickResult | None = None
        self._trick_view: TrickView | None = None

    def rounds(self, history: tuple[RoundResult, ...]) -> msgspec.Raw:
        """The JSON of the round history ``history``."""
        if history is not self._history:  # a tuple: the same object has the same rounds
            self._json = rounds_json(history)
            self._history = history
        return self._json

    def last_trick(self, trick: TrickResult | None) -> TrickView | None:
        """The view of the last complete trick ``trick``."""
        if trick is not self._trick:  # held here: its id is not reused while compared
            self._trick_view = None if trick is None else trick_view(trick)
            self._trick = trick
        return self._trick_view


# the engine's canonical actions (legal actions are always these): their views by identity
_ACTION_VIEW_OF: dict[int, ActionView] = {
    id(action): view for action, view in zip(ACTIONS_BY_INDEX, ACTION_VIEWS, strict=True)}


def _action_views(actions: tuple[Action, ...]) -> tuple[ActionView, ...]:
    views = _ACTION_VIEW_OF
    try:
        return tuple([views[id(a)] for a in actions])
    except KeyError:  # an action that is not the engine's own object (read from JSON)
        return tuple([ACTION_VIEWS[action_index(a)] for a in actions])


def observation_view(obs: Observation, parts: GameViews | None = None) -> ObservationView:
    """The struct of ``obs``; encodes to the JSON of ``obs.to_dict()``.

    ``parts``: what the table keeps of its game's views (one per table), else the
    round history and the last trick are converted afresh.
    """
    cards = CARD_VIEWS
    last = obs.last_trick
    if parts is None:
        history = rounds_json(obs.round_history)
        last_view = None if last is None else trick_view(last)
    else:
        history, last_view = parts.rounds(obs.round_history), parts.last_trick(last)
    return ObservationView(
        obs.player, obs.num_players, options_view(obs.options), _PHASE_NAMES[obs.phase],
        obs.round_number, obs.total_rounds, obs.dealer, obs.current_player,
        tuple([cards[c.id] for c in obs.hand]), obs.hand_sizes, card_view(obs.trump_card),
        suit_name(obs.trump_suit), obs.bids, obs.has_bid, obs.tricks_won, obs.scores,
        obs.trick_number, obs.trick_leader, _played(obs.current_trick), suit_name(obs.lead_suit),
        tuple([cards[c.id] for c in obs.played_cards]), last_view, history,
        _action_views(obs.legal_actions), obs.winners)


def event_view(event: Event) -> EventView:
    """The struct of an engine event; encodes to the JSON of ``event.to_dict()``."""
    if isinstance(event, TrickCompleted):
        return TrickCompletedEvent(trick_view(event.trick))
    if isinstance(event, RoundStarted):
        return RoundStartedEvent(event.round_number, event.dealer, card_view(event.trump_card),
                                 suit_name(event.trump_suit))
    if isinstance(event, RoundCompleted):
        return RoundCompletedEvent(round_view(event.result))
    if isinstance(event, TrumpChosen):
        return TrumpChosenEvent(event.player, _SUIT_NAMES[event.suit])
    if isinstance(event, GameFinished):
        return GameFinishedEvent(event.scores, event.winners)
    raise TypeError(f"not an engine event: {event!r}")


__all__ = [
    "CARD_VIEWS",
    "GameViews",
    "card_view",
    "event_view",
    "observation_view",
    "options_view",
    "round_view",
    "rounds_json",
    "suit_name",
    "trick_view",
]
