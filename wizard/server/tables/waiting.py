"""What the store keeps of a table before its game starts, so it survives a restart.

A waiting table (its seats, host and settings) is stored each time its seats
change, before the change is made; its invite link (table id + invite, the
invite kept apart in ``table_invites``) works again after a restart or a crash.
Once a game starts the game's own record takes over (`restore.restore_table`),
and the waiting record is dropped; once it ends, the table as it waits for a
rematch is kept again (`rematch_record`, in the commit of the game's last move).

>>> from .seats import Seat
>>> seat_record(Seat(2)).kind
'empty'
"""

from __future__ import annotations

import msgspec

from wizard.ai.levels import BotLevel

from ..storage.records import EMPTY_SEAT, StoredSeat, TableSettings, WaitingTable
from ..storage.store import SqliteStore
from ..storage.visibility import new_game_id
from .player import Player
from .seats import Seat, SeatKind
from .state import TableState
from .status import TableStatus


def seat_record(seat: Seat) -> StoredSeat:
    """A seat of a waiting table as the store keeps it (bots by level: no strength yet)."""
    if seat.kind is SeatKind.PLAYER and seat.player is not None:
        return player_record(seat.player)
    if seat.kind is SeatKind.BOT and seat.level is not None:
        return bot_record(seat.level)
    return EMPTY_SEAT


def player_record(player: Player) -> StoredSeat:
    return StoredSeat("player", player_id=player.player_id, name=player.name)


def bot_record(level: BotLevel) -> StoredSeat:
    return StoredSeat("bot", level=level.value)


def table_record(table: TableState, seats: tuple[StoredSeat, ...],
                 host: Player | None) -> WaitingTable:
    """The whole waiting table with ``seats`` (as they will be) and ``host``."""
    return WaitingTable(options=table.options, private=table.private,
                        turn_seconds=table.turn_seconds, games=table.games, v=table.v,
                        rated=table.rated,
                        host=host.player_id if host is not None else None, seats=seats)


def waiting_record(table: TableState, seat: Seat, record: StoredSeat,
                   host: Player | None) -> WaitingTable:
    """The waiting table as it will be once ``seat`` is ``record`` and ``host`` hosts."""
    seats = tuple(record if s is seat else seat_record(s) for s in table.seats)
    return table_record(table, seats, host)


async def keep_waiting(store: SqliteStore, table: TableState, seat: Seat, record: StoredSeat,
                       host: Player | None) -> None:
    """Store ``table`` as it will be once ``seat`` is ``record`` and ``host`` hosts — before
    the change, so a failed write leaves the seats as they were.

    Only a table between games is kept this way (during one, its game's record is).
    """
    if table.status is not TableStatus.PLAYING:
        await store.table_waiting(table.table_id, waiting_record(table, seat, record, host))


def rematch_record(table: TableState, v: int) -> WaitingTable:
    """The table as it will wait for a rematch at version ``v``, once the moves being stored
    end its game (`SqliteStore.append` adds ``after_game``)."""
    record = table_record(table, tuple(seat_record(s) for s in table.seats), table.host)
    return msgspec.structs.replace(record, v=v)


def game_table_record(table: TableState) -> TableSettings:
    """Table settings kept with each game it starts: enough to rebuild it after a restart."""
    return TableSettings(players=len(table.seats), private=table.private,
                         turn_seconds=table.turn_seconds,
                         host=table.host.player_id if table.host else None,
                         v0=table.v + 1, game=table.games + 1, rated=table.rated)


async def store_game_start(store: SqliteStore, table: TableState, seed: int) -> None:
    """Store the game ``table`` starts with ``seed`` (its seats and bot settings drawn) and
    drop the waiting record: the game exists once the store has it."""
    await store.game_started(
        table.table_id, new_game_id(table.table_id, table.games + 1, private=table.private),
        options=table.options, seed=seed, seats=table.seats.records(),
        table_info=game_table_record(table))
    store.table_not_waiting(table.table_id)


__all__ = ["bot_record", "game_table_record", "keep_waiting", "player_record",
           "rematch_record", "seat_record", "store_game_start", "table_record",
           "waiting_record"]
