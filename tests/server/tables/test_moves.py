"""A move is applied once the store has it; the game's last move carries its result; the bot
moves that follow a move at once share its commit."""

from __future__ import annotations

import asyncio
from typing import Any, cast

import pytest

from wizard.engine import Bid, WizardGame, action_index
from wizard.server.storage.errors import StoreFullError
from wizard.server.storage.records import GameResult
from wizard.server.storage.store import SqliteStore
from wizard.server.tables.moves import Move, moves_from, store_moves
from wizard.server.tables.turns import Mover


class Store:
    """Keeps what `append` was given; ``full`` makes it refuse like a full disk."""

    def __init__(self, full: bool = False) -> None:
        self.full = full
        self.appended: list[tuple[Any, ...]] = []
        self.between_games: Any = None

    async def append(self, table_id: str, seq: int, moves: list[tuple[int, int]], *,
                     finish: tuple[list[int], list[int]] | None = None,
                     between_games: dict[str, Any] | None = None) -> None:
        if self.full:
            raise StoreFullError("disk full")
        self.appended.append((table_id, seq, moves, finish))
        self.between_games = between_games


def first_legal(game: WizardGame, by: Mover = Mover.PLAYER) -> Move:
    seat = game.current_player
    assert seat is not None
    action = game.legal_actions()[0]
    return Move(seat, action, game.check(seat, action), by)


def play(store: Store, game: WizardGame, seq: int, between_games: Any = None,
         bots: int = 0) -> list[Move]:
    """Store the first legal move (and up to ``bots`` that follow at once), then apply them
    as the table does; returns the moves."""
    def next_move(after: WizardGame, made: int) -> Move | None:
        return first_legal(after, Mover.BOT) if made <= bots else None

    moves, after = moves_from(game, first_legal(game), next_move if bots else None)
    asyncio.run(store_moves(cast(SqliteStore, store), "t_1", seq, moves, after, between_games))
    for move in moves:
        game.apply_index(move.action_index)
    return moves


def test_a_move_is_stored_then_applied() -> None:
    store, game = Store(), WizardGame(3, seed=4)
    seat, before = game.current_player, game.to_dict()
    play(store, game, 1)
    assert game.to_dict() != before
    assert store.appended == [("t_1", 1, [(seat, action_index(Bid(0)))], None)]


def test_a_move_the_store_refuses_changes_nothing() -> None:
    store, game = Store(full=True), WizardGame(3, seed=4)
    before = game.to_dict()
    with pytest.raises(StoreFullError):
        play(store, game, 1, bots=2)
    assert game.to_dict() == before and store.appended == []


def test_the_moves_that_follow_at_once_are_decided_on_a_copy_and_stored_in_one_commit() -> None:
    store, game = Store(), WizardGame(4, seed=5)
    reference = game.clone()
    before = game.to_dict()
    first = first_legal(game)
    seen: list[int] = []

    def next_move(after: WizardGame, made: int) -> Move | None:
        seen.append(made)
        assert game.to_dict() == before  # decided on the copy: the table's game waits
        return first_legal(after, Mover.BOT) if made < 3 else None

    moves, after = moves_from(game, first, next_move)
    assert seen == [1, 2, 3] and len(moves) == 3 and game.to_dict() == before
    for move in moves:  # the same moves, one after the other, give the same game
        reference.apply_index(move.action_index)
    assert after is not None and after.to_dict() == reference.to_dict()
    asyncio.run(store_moves(cast(SqliteStore, store), "t_1", 7, moves, after))
    [(_, seq, stored, finish)] = store.appended  # one commit, versions 7, 8, 9
    assert seq == 7 and [seat for seat, _ in stored] == [m.seat for m in moves]
    assert [index for _, index in stored] == [action_index(m.action) for m in moves]
    assert finish is None


def test_the_last_move_is_stored_with_the_result_and_only_then_ends_the_game() -> None:
    game = WizardGame(3, seed=6)
    seq = 0
    while True:  # up to the game's last move
        trial = game.clone()
        trial.apply(trial.current_player, trial.legal_actions()[0])  # type: ignore[arg-type]
        if trial.is_finished:
            break
        seq += 1
        play(Store(), game, seq)
    refused = Store(full=True)
    with pytest.raises(StoreFullError):
        play(refused, game, seq + 1)
    assert not game.is_finished
    store = Store()
    play(store, game, seq + 1)
    assert game.is_finished
    (_, stored_seq, _, result), = store.appended
    assert stored_seq == seq + 1 and result == GameResult(
        game.scores, game.winners(),
        [sum(r.bids[s] == r.tricks[s] for r in game.round_history) for s in range(3)], 20)


def test_a_run_of_bot_moves_stops_at_the_end_of_the_game_and_carries_its_result() -> None:
    game, seq = WizardGame(3, seed=6), 0
    while not game.is_finished:
        store = Store()
        moves = play(store, game, seq + 1, bots=5)
        [(_, stored_seq, stored, result)] = store.appended
        assert stored_seq == seq + 1 and len(stored) == len(moves) <= 6
        seq += len(moves)
        assert (result if result is None else (result.scores, result.winners)) == (
            (game.scores, game.winners()) if game.is_finished else None)
    assert seq == 3 * sum(1 + r for r in range(1, 21))  # every bid and card, each stored once


def test_only_the_last_move_stores_the_table_as_it_waits_for_a_rematch() -> None:
    game, seq, asked = WizardGame(3, seed=6), 0, []

    def between_games() -> dict[str, Any]:
        asked.append(seq)
        return {"games": 1}

    while not game.is_finished:
        seq += 1
        store = Store()
        play(store, game, seq, between_games)
        assert store.between_games == ({"games": 1} if game.is_finished else None)
    assert asked == [seq]  # built once, for the commit that ends the game
