"""Rebuild a table after a restart: from its stored game (seats, host, settings, and every
action replayed), or from the record it was kept as while it waited for a game."""

from __future__ import annotations

from collections.abc import Callable

from wizard.engine import WizardGame, action_from_dict

from ..storage.records import StoredGame, StoredWaiting
from .player import Player
from .seats import restore_seats
from .services import TableServices
from .table import Table, TableStatus


def restore_table(services: TableServices, stored: StoredGame,
                  player_for: Callable[[str, str], Player]) -> Table:
    """Rebuild a table from its stored game by replaying every action through the engine.

    ``player_for(player_id, name)`` gives the (disconnected) player of a seat.
    Raises `ValueError` (or the engine's `IllegalActionError`) for a record that
    does not replay: the caller marks it corrupt and goes on.
    """
    if stored.problem is not None:
        raise ValueError(stored.problem)
    info = stored.table_info
    if info.v0 is None:
        raise ValueError("the stored game has no table settings (v0)")
    seats = restore_seats(stored.seats, player_for)
    options = stored.options
    table = Table(services, players=len(seats), options=options, private=info.private,
                  turn_seconds=(services.settings.turn_seconds if info.turn_seconds is None
                                else info.turn_seconds),
                  table_id=stored.table_id, seats=seats, rated=info.rated)
    table.invite = stored.invite
    _seat_players(table, info.host)
    game = WizardGame(len(seats), options, seed=stored.seed)
    v0 = info.v0
    for k, step in enumerate(stored.actions):
        if step.seq != v0 + k + 1:
            raise ValueError(f"action {step.seq} out of order (expected {v0 + k + 1})")
        game.apply(step.seat, action_from_dict(step.action))
    table.game = game
    table.games = info.game
    table.v = v0 + len(stored.actions)
    table.moves = len(stored.actions)
    table.status = TableStatus.FINISHED if game.is_finished else TableStatus.PLAYING
    return table


def restore_waiting(services: TableServices, stored: StoredWaiting,
                    player_for: Callable[[str, str], Player]) -> Table:
    """Rebuild a waiting table from its record (`waiting.table_record`); raises `ValueError`
    for a record that does not decode or names an unknown seat kind or bot level."""
    if stored.problem is not None:
        raise ValueError(stored.problem)
    record = stored.record
    seats = restore_seats(record.seats, player_for, waiting=True)
    table = Table(services, players=len(seats), options=record.options, private=record.private,
                  turn_seconds=record.turn_seconds, table_id=stored.table_id, seats=seats,
                  rated=record.rated)
    table.games, table.v = record.games, record.v
    _seat_players(table, record.host)
    return table


def _seat_players(table: Table, host_id: str | None) -> None:
    """The restored table's people sit at it again; ``host_id`` hosts (else the first)."""
    for player in table.humans():
        player.tables.add(table.table_id)
        if host_id == player.player_id:
            table.host = player
    if table.host is None and table.humans():
        table.host = table.humans()[0]


__all__ = ["restore_table", "restore_waiting"]
