"""A stored game as typed values, decoded once where the store reads it.

The ``games`` row keeps its parts as JSON text (options, seats, table settings,
result, each action); `decode_game` turns one row into a `StoredGame` whose
fields are structs, so that nobody downstream (restore, history, analysis)
parses JSON again. Unknown keys in stored JSON are ignored and missing ones take
their defaults, so records written by earlier builds still decode.

A row that does not decode becomes a `StoredGame` with ``problem`` set (and empty
parts): the restore marks such a game corrupt, history does not serve it.

>>> seats = decode_seats('[{"kind": "player", "player_id": "p_1", "name": "Ann"}]')
>>> seats[0].kind, seats[0].name
('player', 'Ann')
>>> decode_settings('{}').private, decode_settings('{"private": true}').private
(False, True)
"""

from __future__ import annotations

import enum
import json
from collections.abc import Sequence
from typing import Any

import msgspec

from wizard.engine import GameOptions, WizardGame


class GameStatus(enum.StrEnum):
    """A stored game's ``status`` column."""

    PLAYING = "playing"  # in progress (the restore brings it back after a restart)
    FINISHED = "finished"
    ABANDONED = "abandoned"  # its table closed before the end
    CORRUPT = "corrupt"  # its record did not replay; kept for the operator, never served


class StoredSeat(msgspec.Struct, frozen=True, omit_defaults=True):
    """A seat as the store keeps it (`Seat.record`): a player, a bot, or (at a waiting
    table) ``empty``; what a seat does not have is left out of its JSON."""

    kind: str
    player_id: str | None = None
    level: str | None = None  # a bot's
    name: str | None = None  # a player's, or a bot's during a game
    bot: dict[str, Any] | None = None  # a bot's drawn settings (`BotSettings.to_dict`)
    # a bot standing in for the person who left this seat mid-game: that person (rated
    # with the seat's final place, `storage.ratings`)
    left_player_id: str | None = None
    left_name: str | None = None


EMPTY_SEAT = StoredSeat("empty")


class TableSettings(msgspec.Struct, frozen=True):
    """The table settings kept with each game (``table_info``); ``{}`` for old games."""

    players: int = 0
    private: bool = False
    turn_seconds: int | None = None
    host: str | None = None
    v0: int | None = None  # the table's version before the game's first action
    game: int = 1  # the game's number at its table
    rated: bool = True  # whether the game counts for ratings (a table option)


class WaitingTable(msgspec.Struct, frozen=True, kw_only=True):
    """A table between games as the store keeps it (``waiting_tables.record``): enough to
    open it again after a restart. Bots are kept by level (no strength is drawn yet)."""

    options: GameOptions
    private: bool
    turn_seconds: int
    games: int = 0  # games it has started
    v: int = 0  # its version
    host: str | None = None  # a player id
    seats: tuple[StoredSeat, ...]
    rated: bool = True  # records of earlier builds: rated, the default


class StoredWaiting(msgspec.Struct, frozen=True):
    """A kept waiting table: its ``record`` (the defaults and ``problem`` set if it does not
    decode), its ``invite``, and ``after_game``, the game it waits for a rematch after."""

    table_id: str
    record: WaitingTable
    invite: str | None = None
    after_game: str | None = None
    problem: str | None = None


class _KeptWaitingTable(WaitingTable, frozen=True, kw_only=True):
    after_game: str | None = None  # set in the commit of a game's last move


class GameResult(msgspec.Struct, frozen=True):
    """A finished game's final scores and winners (seat by seat); ``made``: how many of
    its ``rounds`` each seat bid exactly (games stored before: empty and 0)."""

    scores: list[int] = msgspec.field(default_factory=list)
    winners: list[int] = msgspec.field(default_factory=list)
    made: list[int] = msgspec.field(default_factory=list)
    rounds: int = 0


def game_result(game: WizardGame) -> GameResult:
    """The result a finished ``game`` is stored with."""
    history = game.round_history
    made = [sum(1 for r in history if r.bids[seat] == r.tricks[seat])
            for seat in range(game.num_players)]
    return GameResult(game.scores, game.winners(), made, len(history))


class StoredAction(msgspec.Struct, frozen=True):
    seq: int
    seat: int
    action: dict[str, Any]  # the engine's `action_to_dict` form
    time: float


class StoredGame(msgspec.Struct, frozen=True):
    """A game row with its actions, its table's invite and who watched it."""

    id: str
    table_id: str
    created: float
    options: GameOptions
    seed: int
    seats: tuple[StoredSeat, ...]
    status: GameStatus
    result: GameResult | None
    table_info: TableSettings
    finished: float | None
    actions: tuple[StoredAction, ...]
    invite: str | None = None  # a private table's invite (schema 6)
    spectators: frozenset[str] = frozenset()  # player ids who watched it (schema 6)
    problem: str | None = None  # why the row did not decode (then the parts are empty)

    @property
    def private(self) -> bool:
        return self.table_info.private


_SEATS = msgspec.json.Decoder(tuple[StoredSeat, ...])
_SETTINGS = msgspec.json.Decoder(TableSettings)
_RESULT = msgspec.json.Decoder(GameResult)
_ACTION = msgspec.json.Decoder(dict[str, Any])
_WAITING = msgspec.json.Decoder(_KeptWaitingTable)
_NO_TABLE = WaitingTable(options=GameOptions(), private=False, turn_seconds=0, seats=())


def encode_json(value: msgspec.Struct | Sequence[msgspec.Struct] | None) -> str | None:
    """The JSON text the store keeps of a record (``json.dumps`` style, as it always was)."""
    return None if value is None else json.dumps(msgspec.to_builtins(value))


def decode_waiting(table_id: str, text: str, invite: str | None = None) -> StoredWaiting:
    """One ``waiting_tables`` row's record, or one with ``problem`` set if it does not decode.

    >>> decode_waiting("t_1", '{"private": false}').problem
    'the stored record does not decode: Object missing required field `options`'
    """
    try:
        kept = _WAITING.decode(text)
    except ValueError as exc:  # msgspec.DecodeError is a ValueError
        return StoredWaiting(table_id, _NO_TABLE, invite,
                             problem=f"the stored record does not decode: {exc}")
    record = WaitingTable(**{f: getattr(kept, f) for f in WaitingTable.__struct_fields__})
    return StoredWaiting(table_id, record, invite, kept.after_game)


def decode_seats(text: str) -> tuple[StoredSeat, ...]:
    """Raises `msgspec.DecodeError` (a `ValueError`) for text that is not seats."""
    return _SEATS.decode(text)


def decode_settings(text: str | None) -> TableSettings:
    """``None`` or ``''`` (an old game): the defaults. Raises `msgspec.DecodeError`."""
    return _SETTINGS.decode(text) if text else TableSettings()


def decode_result(text: str | None) -> GameResult | None:
    return _RESULT.decode(text) if text else None


def decode_game(row: tuple[Any, ...], actions: list[tuple[Any, ...]], *,
                invite: str | None = None, spectators: frozenset[str] = frozenset()
                ) -> StoredGame:
    """One ``games`` row (id, table_id, created, options, seed, seats, status, result,
    table_info, finished) and its ``actions`` rows (seq, seat, action, time)."""
    game_id, table_id, created, options, seed, seats, status, result, info, finished = row
    try:
        return StoredGame(
            id=game_id, table_id=table_id, created=created,
            options=GameOptions.from_dict(msgspec.json.decode(options)), seed=seed,
            seats=decode_seats(seats), status=GameStatus(status), result=decode_result(result),
            table_info=decode_settings(info), finished=finished,
            actions=tuple(StoredAction(seq, seat, _ACTION.decode(action), at)
                          for seq, seat, action, at in actions),
            invite=invite, spectators=spectators)
    except (ValueError, TypeError) as exc:  # msgspec.DecodeError is a ValueError
        return StoredGame(
            id=game_id, table_id=table_id, created=created, options=GameOptions(), seed=seed,
            seats=(), status=_status(status), result=None, table_info=TableSettings(),
            finished=finished, actions=(), invite=invite, spectators=spectators,
            problem=f"the stored record does not decode: {exc}")



def _status(text: str) -> GameStatus:
    """A row's status as read; one no build writes counts as corrupt."""
    try:
        return GameStatus(text)
    except ValueError:
        return GameStatus.CORRUPT


__all__ = ["EMPTY_SEAT", "GameResult", "GameStatus", "StoredAction", "StoredGame", "StoredSeat",
           "StoredWaiting", "TableSettings", "WaitingTable", "decode_game", "decode_result",
           "decode_seats", "decode_settings", "decode_waiting", "encode_json", "game_result"]
