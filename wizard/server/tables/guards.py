"""What a request needs before it may change a table: each check raises the
`ProtocolError` the client sees (and changes nothing), or lets the request through.

They read the table (`TableState`), under its lock, and never change it.

>>> from types import SimpleNamespace
>>> from .seats import Seats
>>> table = SimpleNamespace(table_id="t_1", status=TableStatus.PLAYING, seats=Seats.empty(3))
>>> require_seat_changes(table)
Traceback (most recent call last):
...
wizard.protocol.errors.ProtocolError: seats cannot change while a game is being played
"""

from __future__ import annotations

from wizard.engine import GameOptions, total_rounds
from wizard.protocol import ErrorCode, ProtocolError

from ..net.connection import Connection
from ..settings import Settings
from .player import Outlet, Player
from .seats import Seat
from .state import TableState
from .status import TableStatus


def check_player_tables(player: Player, settings: Settings) -> None:
    """Raises `ProtocolError` ``player_table_limit`` if ``player`` may sit at no more tables."""
    if len(player.tables) >= settings.max_tables_per_player:
        raise ProtocolError(ErrorCode.PLAYER_TABLE_LIMIT,
                            f"you sit at {len(player.tables)} tables, the most allowed; "
                            "leave one first")


def check_game_length(players: int, options: GameOptions) -> None:
    """Raises `ProtocolError` ``bad_message`` if a game of ``options.rounds`` rounds does not
    fit a table of ``players`` (more rounds than 60 / players).

    >>> check_game_length(4, GameOptions(rounds=16))
    Traceback (most recent call last):
    ...
    wizard.protocol.errors.ProtocolError: rounds must be 1-15 for 4 players, got 16
    """
    try:
        total_rounds(players, options.rounds)
    except ValueError as exc:
        raise ProtocolError(ErrorCode.BAD_MESSAGE, str(exc)) from None


def require_open(table: TableState) -> None:
    """Raises ``no_such_table`` once the table is closed."""
    if table.status is TableStatus.CLOSED:
        raise ProtocolError(ErrorCode.NO_SUCH_TABLE, f"table {table.table_id} is closed")


def require_seated(table: TableState, player: Player) -> Seat:
    """``player``'s seat; raises ``not_seated`` if they have none at the table."""
    seat = table.seats.of(player)
    if seat is None:
        raise ProtocolError(ErrorCode.NOT_SEATED, f"you have no seat at table {table.table_id}")
    return seat


def require_at_table(table: TableState, connection: Connection) -> Seat | None:
    """The seat of ``connection``'s player, ``None`` for a spectator; raises ``not_seated``
    if the connection neither sits at nor watches the table."""
    player = connection.player
    seat = table.seats.of(player) if player is not None else None
    if seat is None and connection not in table.spectators:
        raise ProtocolError(ErrorCode.NOT_SEATED,
                            f"you neither sit at nor watch table {table.table_id}")
    return seat


def require_host(table: TableState, player: Player) -> None:
    """Raises ``not_host`` unless ``player`` hosts the table."""
    if player is not table.host:
        raise ProtocolError(ErrorCode.NOT_HOST, "only the host may do that")


def require_seat_changes(table: TableState) -> None:
    """Raises ``already_started`` while a game is played: its seats stay as they are."""
    if table.status is TableStatus.PLAYING:
        raise ProtocolError(ErrorCode.ALREADY_STARTED,
                            "seats cannot change while a game is being played")


def require_waiting(table: TableState) -> None:
    """Raises ``already_started`` unless the table waits for its first game."""
    if table.status is not TableStatus.WAITING:
        raise ProtocolError(ErrorCode.ALREADY_STARTED, "the game has already started")


def require_finished(table: TableState) -> None:
    """Raises ``not_finished`` unless the table's game is over (a rematch follows one)."""
    if table.status is not TableStatus.FINISHED:
        raise ProtocolError(ErrorCode.NOT_FINISHED, "a rematch follows a finished game")


def require_spectator_room(table: TableState, connection: Outlet, limit: int) -> None:
    """Raises ``spectator_limit`` if a new spectator would be one past ``limit``."""
    if connection not in table.spectators and len(table.spectators) >= limit:
        raise ProtocolError(ErrorCode.SPECTATOR_LIMIT,
                            f"table {table.table_id} has {limit} spectators already")


__all__ = ["check_player_tables", "require_at_table", "require_finished", "require_host",
           "require_open", "require_seat_changes", "require_seated", "require_spectator_room",
           "require_waiting"]
