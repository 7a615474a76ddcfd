"""Rebuild a table from its stored game: seats, host, settings, and every action replayed."""

from __future__ import annotations

from collections.abc import Callable

import msgspec

from wizard.engine import WizardGame, action_from_dict

from ..storage.records import StoredGame
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
    seats = restore_seats([msgspec.structs.asdict(seat) for seat in stored.seats], player_for)
    options = stored.options
    table = Table(services, players=len(seats), options=options, private=info.private,
                  turn_seconds=(services.settings.turn_seconds if info.turn_seconds is None
                                else info.turn_seconds),
                  table_id=stored.table_id, seats=seats)
    table.invite = stored.invite
    for player in table.humans():
        player.tables.add(table.table_id)
        if info.host == player.player_id:
            table.host = player
    if table.host is None and table.humans():
        table.host = table.humans()[0]
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


__all__ = ["restore_table"]
