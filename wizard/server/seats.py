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

import asyncio
import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from wizard.ai.levels import BotLevel, BotSettings

from .bots import bot_id, bot_name
from .player import Player
from .protocol import SeatInfo


class SeatKind(enum.StrEnum):
    EMPTY = "empty"
    PLAYER = "player"
    BOT = "bot"


@dataclass(slots=True)
class Seat:
    """One seat. ``away``: its player's grace ran out and a stand-in plays for them."""

    index: int
    kind: SeatKind = SeatKind.EMPTY
    player: Player | None = None
    level: BotLevel | None = None
    bot: BotSettings | None = None
    away: bool = False
    grace: asyncio.TimerHandle | None = None

    @property
    def played_by_bot(self) -> bool:
        """A bot seat, or a person's seat a stand-in plays while they are away."""
        return self.kind is SeatKind.BOT or self.away

    def record(self) -> dict[str, Any]:
        """What the store keeps of this seat during a game (no token: it lives elsewhere)."""
        if self.kind is SeatKind.PLAYER and self.player is not None:
            return {"kind": "player", "player_id": self.player.player_id,
                    "name": self.player.name}
        if self.kind is SeatKind.BOT and self.level is not None and self.bot is not None:
            return {"kind": "bot", "level": self.level.value, "name": bot_name(self.level),
                    "bot": self.bot.to_dict()}
        raise ValueError(f"seat {self.index} is empty during a game")

    def info(self) -> SeatInfo:
        if self.kind is SeatKind.PLAYER and self.player is not None:
            return SeatInfo(self.index, "player", self.player.name, self.player.player_id, None,
                            self.player.connected, self.away)
        if self.kind is SeatKind.BOT and self.level is not None:
            return SeatInfo(self.index, "bot", bot_name(self.level), bot_id(self.level),
                            self.level.value, True, False)
        return SeatInfo(self.index, "empty", None, None, None, False, False)

    def cancel_grace(self) -> None:
        """Stop this seat's grace timer, if one runs."""
        if self.grace is not None:
            self.grace.cancel()
            self.grace = None


def restore_seats(records: Sequence[dict[str, Any]],
                  player_for: Callable[[str, str], Player]) -> list[Seat]:
    """The seats of a stored game, from their `Seat.record` form.

    ``player_for(player_id, name)`` gives the (disconnected) player of a seat;
    raises `ValueError` for a record of an unknown kind.
    """
    seats = [Seat(i) for i in range(len(records))]
    for seat, record in zip(seats, records, strict=True):
        if record["kind"] == "bot":
            seat.kind, seat.level = SeatKind.BOT, BotLevel.parse(record["level"])
            seat.bot = BotSettings.from_dict(record["bot"])
        elif record["kind"] == "player":
            seat.kind, seat.player = SeatKind.PLAYER, player_for(record["player_id"],
                                                                 record["name"])
        else:
            raise ValueError(f"seat {seat.index} has unknown kind {record.get('kind')!r}")
    return seats


__all__ = ["Seat", "SeatKind", "restore_seats"]
