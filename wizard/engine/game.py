"""`WizardGame`: the checked state machine, built on the fast `GameCore`."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, TypeVar

from . import core as _core
from .actions import (
    ACTIONS_BY_INDEX,
    Action,
    Bid,
    ChooseTrump,
    PlayCard,
    action_index,
)
from .cards import ALL_CARDS, SUITS, Card, Suit, ids_of
from .errors import ActionNotAllowedError, GameOverError, NotYourTurnError
from .observation import Observation
from .rules import LEAD_FREE, LEAD_NONE, MAX_PLAYERS, MIN_PLAYERS
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
)

_PHASES = {
    _core.BIDDING: Phase.BIDDING,
    _core.PLAYING: Phase.PLAYING,
    _core.CHOOSING_TRUMP: Phase.CHOOSING_TRUMP,
    _core.FINISHED: Phase.FINISHED,
}


_CARD_AT = ALL_CARDS.__getitem__
# canonical PlayedCard per (seat, card): tricks and observations share them
_PLAYED: tuple[tuple[PlayedCard, ...], ...] = tuple(
    tuple(PlayedCard(seat, card) for card in ALL_CARDS) for seat in range(MAX_PLAYERS)
)


def _card(card_id: int) -> Card | None:
    return ALL_CARDS[card_id] if card_id >= 0 else None


def _suit(index: int) -> Suit | None:
    return SUITS[index] if 0 <= index < len(SUITS) else None


T = TypeVar("T")
ChunkTable = tuple[tuple[tuple[T, ...], ...], ...]


def _chunk_table(items: Sequence[T]) -> ChunkTable[T]:
    """For each 8-bit slice of a mask over ``items`` and each byte value: the items it names."""
    return tuple(
        tuple(tuple(items[8 * chunk + bit] for bit in range(8)
                    if byte >> bit & 1 and 8 * chunk + bit < len(items))
              for byte in range(256))
        for chunk in range((len(items) + 7) // 8)
    )


def _items_of(mask: int, table: ChunkTable[T]) -> tuple[T, ...]:
    """The items of a mask, in index order, read 8 bits at a time through ``table``."""
    items: tuple[T, ...] = ()
    chunk = 0
    while mask:
        byte = mask & 255
        if byte:
            items += table[chunk][byte]
        mask >>= 8
        chunk += 1
    return items


_ACTION_CHUNKS: ChunkTable[Action] = _chunk_table(ACTIONS_BY_INDEX)
_CARD_CHUNKS: ChunkTable[Card] = _chunk_table(ALL_CARDS)


class WizardGame:
    """A game of Wizard for 3–6 players. Deals round 1 at once.

    >>> game = WizardGame(4, seed=1)
    >>> while not game.is_finished:
    ...     player = game.current_player
    ...     _ = game.apply(player, game.legal_actions()[0])
    >>> len(game.round_history)
    15

    All randomness comes from ``seed`` (or one draw from ``rng``): the same seed
    and the same actions give the same game, byte for byte in `to_dict`. A short
    game (``GameOptions(rounds=k)``) ends after round k; raises `ValueError` when k
    is more than the full game (60 / players rounds).
    """

    __slots__ = ("_last_trick", "_round_history", "core", "num_players", "options")

    def __init__(
        self,
        num_players: int,
        options: GameOptions | None = None,
        *,
        seed: int | None = None,
        rng: random.Random | None = None,
        first_dealer: int | None = None,
    ) -> None:
        if type(num_players) is not int or not MIN_PLAYERS <= num_players <= MAX_PLAYERS:
            raise ValueError(f"num_players must be 3-6, got {num_players!r}")
        if first_dealer is not None and not 0 <= first_dealer < num_players:
            raise ValueError(f"first_dealer must be a seat 0-{num_players - 1}, got {first_dealer}")
        if seed is not None and type(seed) is not int:
            raise ValueError(f"seed must be an integer, got {seed!r}")
        if seed is None:
            seed = (rng or random.SystemRandom()).getrandbits(63)
        self.num_players = num_players
        self.options = options or GameOptions()
        self.core = _core.GameCore(
            num_players,
            seed,
            first_dealer=first_dealer,
            hidden_bids=self.options.hidden_bids,
            forbid_even_bids=self.options.forbid_even_bids,
            dealer_chooses=self.options.wizard_trump_dealer_chooses,
            rounds=self.options.rounds,
        )
        # a tuple, replaced when a round ends: observations share it until then
        self._round_history: tuple[RoundResult, ...] = ()
        self._last_trick: TrickResult | None = None

    # --- read-only state --------------------------------------------------------------

    @property
    def seed(self) -> int:
        return self.core.seed

    @property
    def total_rounds(self) -> int:
        return self.core.total_rounds

    @property
    def phase(self) -> Phase:
        return _PHASES[self.core.phase]

    @property
    def is_finished(self) -> bool:
        return self.core.phase == _core.FINISHED

    @property
    def current_player(self) -> int | None:
        """Seat to move, or ``None`` once the game is finished."""
        return None if self.core.current < 0 else self.core.current

    @property
    def round_number(self) -> int:
        return self.core.round_number

    @property
    def dealer(self) -> int:
        return self.core.dealer

    @property
    def scores(self) -> list[int]:
        return list(self.core.scores)

    @property
    def trump_card(self) -> Card | None:
        return _card(self.core.trump_card)

    @property
    def trump_suit(self) -> Suit | None:
        return _suit(self.core.trump_suit)

    @property
    def round_history(self) -> list[RoundResult]:
        return list(self._round_history)

    @property
    def last_trick(self) -> TrickResult | None:
        return self._last_trick

    def hand(self, player: int) -> list[Card]:
        """A copy of a seat's hand, sorted by id. Private: for the server and training only."""
        return [ALL_CARDS[i] for i in ids_of(self.core.hands[player])]

    def winners(self) -> list[int]:
        """Seats with the highest total score (all seats tie before anyone scores)."""
        best = max(self.core.scores)
        return [seat for seat, score in enumerate(self.core.scores) if score == best]

    def start_events(self) -> list[Event]:
        """The `RoundStarted` of the round in progress (clients show it on a fresh table)."""
        core = self.core
        return [RoundStarted(core.round_number, core.dealer, _card(core.trump_card),
                             _suit(core.trump_suit))]

    # --- actions ----------------------------------------------------------------------

    def legal_actions(self, player: int | None = None) -> list[Action]:
        """Legal actions of ``player`` (default: the seat to move), sorted by action index.

        Empty if it is not that seat's turn or the game is over.
        """
        core = self.core
        if player is not None and player != core.current:
            return []
        return list(_items_of(core.legal_mask(), _ACTION_CHUNKS))

    def is_legal(self, player: int, action: Action) -> bool:
        try:
            index = action_index(action)
        except ValueError:
            return False
        return player == self.core.current and bool(self.core.legal_mask() >> index & 1)

    def check(self, player: int, action: Action) -> int:
        """The action index of ``action`` if ``player`` may play it now; changes nothing.

        Raises what `apply` raises (`GameOverError`, `NotYourTurnError`,
        `ActionNotAllowedError`); pass the index to `apply_index`. Parsing a move and
        pushing it, as python-chess splits them:

        >>> game = WizardGame(3, seed=7)
        >>> game.current_player
        0
        >>> game.check(1, Bid(0))
        Traceback (most recent call last):
        ...
        wizard.engine.errors.NotYourTurnError: bid 0 refused: it is seat 0's turn, not seat 1's
        >>> index = game.check(0, Bid(0))
        >>> game.apply_index(index), game.current_player
        ([], 1)
        """
        core = self.core
        if player != core.current or core.phase == _core.FINISHED:
            self._refuse_out_of_turn(player, action)
        # the common case first, without the generic dispatch of action_index
        if type(action) is PlayCard:
            index = 21 + action.card.id
        else:
            try:
                index = action_index(action)
            except ValueError as exc:
                raise ActionNotAllowedError(f"{_describe(action)} refused: {exc}",
                                            player=player, action=action) from None
        if not core.legal_mask() >> index & 1:
            raise ActionNotAllowedError(f"{_describe(action)} refused: {self._why_illegal(action)}",
                                        player=player, action=action)
        return index

    def apply_index(self, index: int) -> list[Event]:
        """Unchecked: play action ``index`` for the seat to move and return its events.

        ``index`` must come from `check` (or `legal_actions`) in this very state; an
        index the rules forbid leaves the game in a state no rule leads to.
        """
        core = self.core
        phase = core.phase
        if phase == _core.BIDDING or (phase == _core.PLAYING and len(core.trick) + 1 < core.n):
            core.apply(index)  # a bid, or a card that does not end the trick: no events
            return []
        return self._apply_index(core.current, index)

    def apply(self, player: int, action: Action) -> list[Event]:
        """Perform ``action`` for ``player`` and return the events it caused.

        Raises `GameOverError` after the last trick, `NotYourTurnError` when
        ``player`` is not to move, and `ActionNotAllowedError` for anything else the
        rules forbid; the message names the action and why. The game is unchanged
        when it raises. The same as ``apply_index(check(player, action))``.
        """
        return self.apply_index(self.check(player, action))

    def _refuse_out_of_turn(self, player: int, action: Action) -> None:
        core = self.core
        if core.phase == _core.FINISHED:
            raise GameOverError(f"{_describe(action)} refused: the game is over",
                                player=player, action=action)
        raise NotYourTurnError(
            f"{_describe(action)} refused: it is seat {core.current}'s turn, not seat {player}'s",
            player=player, action=action)

    def _apply_index(self, player: int, index: int) -> list[Event]:
        core = self.core
        if core.phase == _core.CHOOSING_TRUMP:
            core.apply(index)
            suit = SUITS[core.trump_suit]
            return [TrumpChosen(player, suit)]
        # what the trick needs must be read before a finished round deals the next one
        round_number, trick_number = core.round_number, core.trick_number
        trump_card, trump_suit = core.trump_card, core.trump_suit
        dealer, plays = core.dealer, core.played  # a new list each round: this one is kept
        outcome = core.apply(index)
        if outcome == _core.NOTHING:
            return []
        events: list[Event] = []
        leader = core.last_trick_leader
        n = core.n
        trick = TrickResult(
            round_number=round_number,
            trick_number=trick_number,
            cards=tuple(_PLAYED[(leader + k) % n][c] for k, c in enumerate(core.last_trick)),
            winner=core.last_trick_winner,
            trump_card=_card(trump_card),
            trump_suit=_suit(trump_suit),
        )
        self._last_trick = trick
        events.append(TrickCompleted(trick))
        if outcome == _core.TRICK_DONE:
            return events
        result = RoundResult(
            round_number=round_number,
            bids=tuple(core.last_bids),
            tricks=tuple(core.last_tricks),
            score_changes=tuple(core.last_changes),
            scores=tuple(core.scores),
            dealer=dealer,
            trump_suit=_suit(trump_suit),
            plays=tuple(plays),
        )
        self._round_history += (result,)
        events.append(RoundCompleted(result))
        if outcome == _core.GAME_DONE:
            events.append(GameFinished(tuple(core.scores), tuple(self.winners())))
        else:
            events.extend(self.start_events())
        return events

    def _why_illegal(self, action: Action) -> str:
        core = self.core
        phase = self.phase
        if isinstance(action, Bid):
            if phase is not Phase.BIDDING:
                return f"bids are not taken in phase {phase.value}"
            if action.value > core.round_number:
                return f"bids in round {core.round_number} must be 0-{core.round_number}"
            return (f"the bids may not add up to {core.round_number}, the number of cards dealt "
                    f"(the others bid {core.bid_sum} in all)")
        if isinstance(action, PlayCard):
            if phase is not Phase.PLAYING:
                return f"cards are not played in phase {phase.value}"
            if not core.hands[core.current] >> action.card.id & 1:
                return f"{action.card} is not in seat {core.current}'s hand"
            return f"seat {core.current} must follow {SUITS[core.lead].value}"
        if isinstance(action, ChooseTrump):
            return ("trump is chosen only after the dealer turns a wizard, "
                    f"not in phase {phase.value}")
        return "not an action"

    # --- views ------------------------------------------------------------------------

    def observation(self, player: int | None) -> Observation:
        """What ``player`` may know; ``None`` gives a spectator's view (no hand at all).

        Raises `ValueError` for a seat that does not exist.
        """
        core = self.core
        n = core.n
        if player is not None and (type(player) is not int or not 0 <= player < n):
            raise ValueError(f"player must be a seat 0-{n - 1} or None, got {player!r}")
        all_bid = core.bid_count == n or core.phase == _core.PLAYING or (
            core.phase == _core.FINISHED)
        bids: tuple[int | None, ...]
        if core.hidden_bids and not all_bid:
            bids = tuple([b if seat == player and b >= 0 else None
                          for seat, b in enumerate(core.bids)])
        else:
            bids = tuple([b if b >= 0 else None for b in core.bids])
        lead = core.lead
        leader = core.leader
        to_move = player is not None and player == core.current
        return Observation(  # positional, in field order: the cheapest call
            player,
            n,  # num_players
            self.options,
            _PHASES[core.phase],  # phase
            core.round_number,
            core.total_rounds,
            core.dealer,
            None if core.current < 0 else core.current,  # current_player
            _items_of(core.hands[player], _CARD_CHUNKS) if player is not None else (),  # hand
            tuple(map(int.bit_count, core.hands)),  # hand_sizes
            _card(core.trump_card),  # trump_card
            _suit(core.trump_suit),  # trump_suit
            bids,
            tuple([b >= 0 for b in core.bids]),  # has_bid
            tuple(core.tricks),  # tricks_won
            tuple(core.scores),  # scores
            core.trick_number,
            leader,  # trick_leader
            # current_trick
            tuple([_PLAYED[(leader + k) % n][c] for k, c in enumerate(core.trick)]),
            SUITS[lead] if lead not in (LEAD_NONE, LEAD_FREE) else None,  # lead_suit
            tuple(map(_CARD_AT, core.played)),  # played_cards
            self._last_trick,
            self._round_history,
            _items_of(core.legal_mask(), _ACTION_CHUNKS) if to_move else (),  # legal_actions
            tuple(self.winners()) if core.phase == _core.FINISHED else (),  # winners
        )

    def clone(self) -> WizardGame:
        """An independent deep copy (for search); applying to it leaves this game alone."""
        other = WizardGame.__new__(WizardGame)
        other.num_players = self.num_players
        other.options = self.options
        other.core = self.core.copy()
        other._round_history = self._round_history
        other._last_trick = self._last_trick
        return other

    def to_dict(self) -> dict[str, Any]:
        """The whole state, hidden cards included (for the store and tests, never for clients)."""
        return {
            "num_players": self.num_players,
            "options": self.options.to_dict(),
            "core": self.core.to_dict(),
            "round_history": [r.to_dict() for r in self._round_history],
            "last_trick": self._last_trick.to_dict() if self._last_trick else None,
        }

    @staticmethod
    def from_dict(data: dict[str, Any]) -> WizardGame:
        """Rebuild a game from `to_dict` output; raises `ValueError` on a missing field."""
        game = WizardGame.__new__(WizardGame)
        game.num_players = data["num_players"]
        game.options = GameOptions.from_dict(data["options"])
        game.core = _core.GameCore.from_dict(data["core"])
        game._round_history = tuple(RoundResult.from_dict(r) for r in data["round_history"])
        last = data["last_trick"]
        game._last_trick = None if last is None else TrickResult.from_dict(last)
        return game


def _describe(action: object) -> str:
    if isinstance(action, Bid | PlayCard | ChooseTrump):
        return str(action)
    return f"action {action!r}"

