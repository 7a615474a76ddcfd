"""What the store keeps of a table before its game starts, so it survives a restart.

A waiting table (its seats, host and settings) is stored each time its seats
change, before the change is made; its invite link (table id + invite, the
invite kept apart in ``table_invites``) works again after a restart or a crash.
Once a game starts the game's own record takes over (`restore.restore_table`),
and the waiting record is dropped; once it ends, the table as it waits for a
rematch is kept again (`rematch_record`, in the commit of the game's last move).

>>> from .seats import Seat
>>> seat_record(Seat(2))
{'kind': 'empty'}
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from wizard.ai.levels import BotLevel
from wizard.engine import GameOptions

from .player import Player
from .seats import Seat, SeatKind, Seats

if TYPE_CHECKING:
    from .services import TableServices
    from .table import Table


def seat_record(seat: Seat) -> dict[str, Any]:
    """A seat of a waiting table as the store keeps it (bots by level: no strength yet)."""
    if seat.kind is SeatKind.PLAYER and seat.player is not None:
        return player_record(seat.player)
    if seat.kind is SeatKind.BOT and seat.level is not None:
        return bot_record(seat.level)
    return {"kind": "empty"}


def player_record(player: Player) -> dict[str, Any]:
    return {"kind": "player", "player_id": player.player_id, "name": player.name}


def bot_record(level: BotLevel) -> dict[str, Any]:
    return {"kind": "bot", "level": level.value}


def table_record(table: Table, seats: list[dict[str, Any]],
                 host: Player | None) -> dict[str, Any]:
    """The whole waiting table with ``seats`` (as they will be) and ``host``."""
    return {"options": table.options.to_dict(), "private": table.private,
            "turn_seconds": table.turn_seconds, "games": table.games, "v": table.v,
            "host": host.player_id if host is not None else None, "seats": seats}


def waiting_record(table: Table, seat: Seat, record: dict[str, Any],
                   host: Player | None) -> dict[str, Any]:
    """The waiting table as it will be once ``seat`` is ``record`` and ``host`` hosts."""
    seats = [record if s is seat else seat_record(s) for s in table.seats]
    return table_record(table, seats, host)


def rematch_record(table: Table, v: int) -> dict[str, Any]:
    """The table as it will wait for a rematch at version ``v``, once the moves being stored
    end its game (`SqliteStore.append` adds ``after_game``)."""
    record = table_record(table, [seat_record(s) for s in table.seats], table.host)
    return {**record, "v": v}


def game_table_record(table: Table) -> dict[str, Any]:
    """Table settings kept with each game it starts: enough to rebuild it after a restart."""
    return {"players": len(table.seats), "private": table.private,
            "turn_seconds": table.turn_seconds,
            "host": table.host.player_id if table.host else None,
            "v0": table.v + 1, "game": table.games + 1}


def restore_waiting(services: TableServices, table_id: str, record: dict[str, Any],
                    player_for: Callable[[str, str], Player]) -> Table:
    """Rebuild a waiting table from `table_record`; raises `ValueError` for a bad record."""
    from .table import Table  # the table module imports this one

    records = record["seats"]
    seats = Seats.empty(len(records))
    for seat, item in zip(seats, records, strict=True):
        if item["kind"] == "player":
            seat.kind, seat.player = SeatKind.PLAYER, player_for(item["player_id"], item["name"])
        elif item["kind"] == "bot":
            seat.kind, seat.level = SeatKind.BOT, BotLevel.parse(item["level"])
        elif item["kind"] != "empty":
            raise ValueError(f"seat {seat.index} has unknown kind {item['kind']!r}")
    table = Table(services, players=len(seats), options=GameOptions.from_dict(record["options"]),
                  private=bool(record["private"]), turn_seconds=int(record["turn_seconds"]),
                  table_id=table_id, seats=seats)
    table.games, table.v = int(record.get("games", 0)), int(record.get("v", 0))
    for player in table.humans():
        player.tables.add(table_id)
        if record.get("host") == player.player_id:
            table.host = player
    if table.host is None and table.humans():
        table.host = table.humans()[0]
    return table


__all__ = ["bot_record", "game_table_record", "player_record", "rematch_record",
           "restore_waiting", "seat_record", "table_record", "waiting_record"]
