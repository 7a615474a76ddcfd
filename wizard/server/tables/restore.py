"""Rebuild a table from its stored game: seats, host, settings, and every action replayed."""

from __future__ import annotations

import json
from collections.abc import Callable

from wizard.engine import GameOptions, WizardGame, action_from_dict

from ..storage.db import StoredGame
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
    info = json.loads(stored.table_info)
    seats = restore_seats(json.loads(stored.seats), player_for)
    options = GameOptions.from_dict(json.loads(stored.options))
    table = Table(services, players=len(seats), options=options,
                  private=bool(info.get("private", False)),
                  turn_seconds=int(info.get("turn_seconds", services.settings.turn_seconds)),
                  table_id=stored.table_id, seats=seats)
    for player in table.humans():
        player.tables.add(table.table_id)
        if info.get("host") == player.player_id:
            table.host = player
    if table.host is None and table.humans():
        table.host = table.humans()[0]
    game = WizardGame(len(seats), options, seed=stored.seed)
    v0 = int(info["v0"])
    for k, (seq, seat_index, action_json, _) in enumerate(stored.actions):
        if seq != v0 + k + 1:
            raise ValueError(f"action {seq} out of order (expected {v0 + k + 1})")
        game.apply(seat_index, action_from_dict(json.loads(action_json)))
    table.game = game
    table.games = int(info.get("game", 1))
    table.v = v0 + len(stored.actions)
    table.moves = len(stored.actions)
    table.status = TableStatus.FINISHED if game.is_finished else TableStatus.PLAYING
    return table


__all__ = ["restore_table"]
