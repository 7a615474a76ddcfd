"""A move is applied once the store has it; the game's last move carries its result."""

from __future__ import annotations

import asyncio
from typing import Any, cast

import pytest

from wizard.engine import WizardGame
from wizard.server.storage.db import StoreFullError
from wizard.server.storage.store import SqliteStore
from wizard.server.tables.moves import store_then_apply


class Store:
    """Keeps what `append` was given; ``full`` makes it refuse like a full disk."""

    def __init__(self, full: bool = False) -> None:
        self.full = full
        self.appended: list[tuple[Any, ...]] = []

    async def append(self, table_id: str, seq: int, seat: int, action: dict[str, Any], *,
                     finish: tuple[list[int], list[int]] | None = None,
                     between_games: dict[str, Any] | None = None) -> None:
        if self.full:
            raise StoreFullError("disk full")
        self.appended.append((table_id, seq, seat, action, finish))
        self.between_games = between_games


def play(store: Store, game: WizardGame, seq: int,
         between_games: Any = None) -> tuple[WizardGame, list[Any]]:
    seat = game.current_player
    assert seat is not None
    action = game.legal_actions()[0]
    return asyncio.run(store_then_apply(cast(SqliteStore, store), "t_1", seq, game, seat,
                                        action, game.check(seat, action), between_games))


def test_a_move_is_stored_then_applied() -> None:
    store, game = Store(), WizardGame(3, seed=4)
    seat, before = game.current_player, game.to_dict()
    after, events = play(store, game, 1)
    assert after is game and game.to_dict() != before
    assert store.appended == [("t_1", 1, seat, {"type": "bid", "value": 0}, None)]
    assert isinstance(events, list)


def test_a_move_the_store_refuses_changes_nothing() -> None:
    store, game = Store(full=True), WizardGame(3, seed=4)
    before = game.to_dict()
    with pytest.raises(StoreFullError):
        play(store, game, 1)
    assert game.to_dict() == before and store.appended == []


def test_the_last_move_is_stored_with_the_result_and_only_then_ends_the_game() -> None:
    game = WizardGame(3, seed=6)
    seq = 0
    while True:  # up to the game's last move
        trial = game.clone()
        trial.apply(trial.current_player, trial.legal_actions()[0])  # type: ignore[arg-type]
        if trial.is_finished:
            break
        seq += 1
        game, _ = play(Store(), game, seq)
    refused = Store(full=True)
    with pytest.raises(StoreFullError):
        play(refused, game, seq + 1)
    assert not game.is_finished
    store = Store()
    finished, events = play(store, game, seq + 1)
    assert finished.is_finished and not game.is_finished  # the table takes the new game
    (_, stored_seq, _, _, result), = store.appended
    assert stored_seq == seq + 1 and result == (finished.scores, finished.winners())
    assert events[-1].to_dict()["type"] == "game_finished"


def test_only_the_last_move_stores_the_table_as_it_waits_for_a_rematch() -> None:
    game, seq, asked = WizardGame(3, seed=6), 0, []

    def between_games() -> dict[str, Any]:
        asked.append(seq)
        return {"games": 1}

    while not game.is_finished:
        seq += 1
        store = Store()
        game, _ = play(store, game, seq, between_games)
        assert store.between_games == ({"games": 1} if game.is_finished else None)
    assert asked == [seq]  # built once, for the commit that ends the game
