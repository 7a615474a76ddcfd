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

from typing import Any

import msgspec

from wizard.engine import GameOptions


class StoredSeat(msgspec.Struct, frozen=True):
    """A seat as a game's record keeps it (`Seat.record`): a player or a bot."""

    kind: str
    player_id: str | None = None
    name: str | None = None
    level: str | None = None  # a bot's
    bot: dict[str, Any] | None = None  # a bot's drawn settings (`BotSettings.to_dict`)


class TableSettings(msgspec.Struct, frozen=True):
    """The table settings kept with each game (``table_info``); ``{}`` for old games."""

    players: int = 0
    private: bool = False
    turn_seconds: int | None = None
    host: str | None = None
    v0: int | None = None  # the table's version before the game's first action
    game: int = 1  # the game's number at its table


class GameResult(msgspec.Struct, frozen=True):
    scores: list[int] = msgspec.field(default_factory=list)
    winners: list[int] = msgspec.field(default_factory=list)


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
    status: str
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
            seats=decode_seats(seats), status=status, result=decode_result(result),
            table_info=decode_settings(info), finished=finished,
            actions=tuple(StoredAction(seq, seat, _ACTION.decode(action), at)
                          for seq, seat, action, at in actions),
            invite=invite, spectators=spectators)
    except (ValueError, TypeError) as exc:  # msgspec.DecodeError is a ValueError
        return StoredGame(
            id=game_id, table_id=table_id, created=created, options=GameOptions(), seed=seed,
            seats=(), status=status, result=None, table_info=TableSettings(),
            finished=finished, actions=(), invite=invite, spectators=spectators,
            problem=f"the stored record does not decode: {exc}")


__all__ = ["GameResult", "StoredAction", "StoredGame", "StoredSeat", "TableSettings",
           "decode_game", "decode_result", "decode_seats", "decode_settings"]
