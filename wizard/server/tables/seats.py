"""A table's seats: who sits where, what the store keeps of them, and their restore.

>>> seat = Seat(0)
>>> seat.kind, seat.played_by_bot
(<SeatKind.EMPTY: 'empty'>, False)
>>> seat.record()
Traceback (most recent call last):
...
ValueError: seat 0 is empty during a game
"""

from __future__ import annotations

import enum
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from wizard.ai.levels import BotLevel, BotSettings
from wizard.protocol import ErrorCode, ProtocolError, SeatInfo

from ..storage.records import StoredSeat
from .bots import bot_id, bot_name, draw_settings
from .player import Player


class SeatKind(enum.StrEnum):
    EMPTY = "empty"
    PLAYER = "player"
    BOT = "bot"


@dataclass(slots=True)
class Seat:
    """One seat. ``away``: its player's grace ran out and a stand-in plays for them.
    ``left_by``: the ``(player id, name)`` of the person who left this seat during the
    game a bot now plays for them (rated with the seat's result); None otherwise."""

    index: int
    kind: SeatKind = SeatKind.EMPTY
    player: Player | None = None
    level: BotLevel | None = None
    bot: BotSettings | None = None
    away: bool = False
    left_by: tuple[str, str] | None = None

    @property
    def played_by_bot(self) -> bool:
        """A bot seat, or a person's seat a stand-in plays while they are away."""
        return self.kind is SeatKind.BOT or self.away

    def sit(self, player: Player) -> None:
        """``player`` takes this seat."""
        self.kind, self.player, self.level, self.bot, self.away = (
            SeatKind.PLAYER, player, None, None, False)
        self.left_by = None

    def give_to_bot(self, level: BotLevel, bot: BotSettings | None = None,
                    left_by: tuple[str, str] | None = None) -> None:
        """A bot of ``level`` takes this seat (``bot``: its strength, drawn at game start;
        ``left_by``: the person it plays the rest of the game for)."""
        self.kind, self.player, self.level, self.bot, self.away = (
            SeatKind.BOT, None, level, bot, False)
        self.left_by = left_by

    def clear(self) -> None:
        """Nobody sits here any more."""
        self.kind, self.player, self.level, self.bot, self.away = (
            SeatKind.EMPTY, None, None, None, False)
        self.left_by = None

    def record(self) -> StoredSeat:
        """What the store keeps of this seat during a game (no token: it lives elsewhere)."""
        if self.kind is SeatKind.PLAYER and self.player is not None:
            return StoredSeat("player", player_id=self.player.player_id, name=self.player.name)
        if self.kind is SeatKind.BOT and self.level is not None and self.bot is not None:
            left_id, left_name = self.left_by or (None, None)
            return StoredSeat("bot", level=self.level.value, name=bot_name(self.level),
                              bot=self.bot.to_dict(), left_player_id=left_id,
                              left_name=left_name)
        raise ValueError(f"seat {self.index} is empty during a game")

    def info(self) -> SeatInfo:
        if self.kind is SeatKind.PLAYER and self.player is not None:
            return SeatInfo(self.index, "player", self.player.name, self.player.player_id, None,
                            self.player.connected, self.away)
        if self.kind is SeatKind.BOT and self.level is not None:
            return SeatInfo(self.index, "bot", bot_name(self.level), bot_id(self.level),
                            self.level.value, True, False)
        return SeatInfo(self.index, "empty", None, None, None, False, False)


class Seats(list[Seat]):
    """The seats of one table, in order; finding one raises the `ProtocolError` a client sees.

    >>> seats = Seats.empty(3)
    >>> seats.free(None).index, seats.at(2).index
    (0, 2)
    >>> seats.at(3)
    Traceback (most recent call last):
    ...
    wizard.protocol.errors.ProtocolError: seat must be 0-2, got 3
    """

    @classmethod
    def empty(cls, count: int) -> Seats:
        return cls(Seat(i) for i in range(count))

    def of(self, player: Player) -> Seat | None:
        """The seat of ``player``, if they sit here."""
        for seat in self:
            if seat.player is player:
                return seat
        return None

    def humans(self) -> list[Player]:
        return [s.player for s in self if s.kind is SeatKind.PLAYER and s.player]

    def at(self, index: int) -> Seat:
        """Raises `ProtocolError` ``no_such_seat`` outside the table."""
        if not 0 <= index < len(self):
            raise ProtocolError(ErrorCode.NO_SUCH_SEAT,
                                f"seat must be 0-{len(self) - 1}, got {index}")
        return self[index]

    def free(self, index: int | None, table_id: str = "") -> Seat:
        """Seat ``index`` if empty, or the first empty one (``None``) of table ``table_id``.

        Raises `ProtocolError` ``seat_taken`` or ``table_full``.
        """
        if index is not None:
            seat = self.at(index)
            if seat.kind is not SeatKind.EMPTY:
                raise ProtocolError(ErrorCode.SEAT_TAKEN, f"seat {index} is taken")
            return seat
        for seat in self:
            if seat.kind is SeatKind.EMPTY:
                return seat
        raise ProtocolError(ErrorCode.TABLE_FULL, f"table {table_id} has no free seat")

    def records(self, instead: dict[int, Seat] | None = None) -> list[StoredSeat]:
        """What the store keeps of the seats (`Seat.record` of each, or of its ``instead``)."""
        instead = instead or {}
        return [instead.get(seat.index, seat).record() for seat in self]

    def require_full(self) -> None:
        """Raises `ProtocolError` ``seats_open`` while a seat is empty (no game starts)."""
        empty = [s.index for s in self if s.kind is SeatKind.EMPTY]
        if empty:
            raise ProtocolError(ErrorCode.SEATS_OPEN,
                                f"seats {empty} are empty: fill them with players or bots")

    def draw_bots(self, rng: random.Random) -> None:
        """Draw each bot's strength and seed for a new game (`bots.draw_settings`); a bot
        that stood in for someone who left the last game now plays for itself."""
        for seat in self:
            if seat.kind is SeatKind.BOT and seat.level is not None:
                seat.bot = draw_settings(seat.level, rng)
                seat.left_by = None


def restore_seats(records: Sequence[StoredSeat],
                  player_for: Callable[[str, str], Player], *, waiting: bool = False) -> Seats:
    """The seats of a stored game, from their `Seat.record` form (``waiting``: of a table
    between games, whose seats may be empty and whose bots have no strength drawn yet).

    ``player_for(player_id, name)`` gives the (disconnected) player of a seat;
    raises `ValueError` for a record of an unknown kind or one that lacks a part.
    """
    seats = Seats.empty(len(records))
    for seat, record in zip(seats, records, strict=True):
        if record.kind == "bot" and record.level is not None:
            seat.kind, seat.level = SeatKind.BOT, BotLevel.parse(record.level)
            if not waiting:
                seat.bot = BotSettings.from_dict(record.bot)
                if record.left_player_id is not None:
                    seat.left_by = (record.left_player_id, record.left_name or "?")
        elif record.kind == "player" and record.player_id is not None and record.name is not None:
            seat.kind, seat.player = SeatKind.PLAYER, player_for(record.player_id, record.name)
        elif not (waiting and record.kind == "empty"):
            raise ValueError(f"seat {seat.index} ({record.kind!r}) does not restore: {record}")
    return seats


__all__ = ["Seat", "SeatKind", "Seats", "restore_seats"]
