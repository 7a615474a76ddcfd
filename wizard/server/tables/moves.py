"""A move is applied once the store has it: the store first, then the game changes.

A move the store could not keep (disk full, ``StoreError``) is not applied, so
the game on the table is always the one a restart would rebuild. The move that
ends a game is stored together with its result and the table as it then waits
for a rematch, in one commit.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from wizard.engine import Action, Event, WizardGame

from ..storage.store import SqliteStore


async def store_then_apply(store: SqliteStore, table_id: str, seq: int, game: WizardGame,
                           seat: int, action: Action, index: int,
                           between_games: Callable[[], dict[str, Any]] | None = None,
                           ) -> tuple[WizardGame, list[Event]]:
    """Store ``seat``'s ``action`` as version ``seq``, then apply it (``index``, checked).

    Returns the game after the move and its events. In the last round the move is
    tried on a copy first (its result, and ``between_games()``: the table as it
    will wait for a rematch, go into the same commit), and the copy is returned:
    the table takes it as its game. Raises what `SqliteStore.append` raises, with
    ``game`` unchanged.
    """
    if game.round_number != game.total_rounds:
        await store.append(table_id, seq, seat, action.to_dict())
        return game, game.apply_index(index)
    trial = game.clone()
    events = trial.apply_index(index)
    result = (trial.scores, trial.winners()) if trial.is_finished else None
    waiting = between_games() if result is not None and between_games is not None else None
    await store.append(table_id, seq, seat, action.to_dict(), finish=result,
                       between_games=waiting)
    return trial, events


__all__ = ["store_then_apply"]
