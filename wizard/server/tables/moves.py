"""A move is applied once the store has it: the store first, then the game changes.

A move the store could not keep (disk full, ``StoreError``) is not applied, so
the game on the table is always the one a restart would rebuild. The move that
ends a game is stored together with its result and the table as it then waits
for a rematch, in one commit.

The moves that follow a move at once (bots without a think time, decided on the
event loop) are decided on a copy of the game and stored in the same commit as
the move before them: a bot's move and the bot moves after it are one commit,
one step of the table and one write to each socket, not one of each per move.
(The table stores a person's own move on its own: its update is what they wait
for.)
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import NamedTuple

from wizard.engine import Action, WizardGame, action_index

from ..storage.records import WaitingTable, game_result
from ..storage.store import SqliteStore
from .seats import Seats
from .services import TableServices
from .turns import Mover, TurnRunner, due_turn


class Move(NamedTuple):
    """A checked move: ``seat`` plays ``action`` (``action_index`` from `WizardGame.check`),
    chosen by ``by``. (A named tuple: one is made for every move.)"""

    seat: int
    action: Action
    action_index: int
    by: Mover


NextMove = Callable[[WizardGame, int], "Move | None"]
"""``next_move(game, made)``: the move due in ``game`` (after ``made`` moves of the run) if
it can be made at once, else ``None``."""


def next_bot_move(seats: Seats, v: int, moves: int, services: TableServices,
                  turns: TurnRunner, *, turn_seconds: int) -> NextMove:
    """The `NextMove` of a table at version ``v``, ``moves`` into its game: the move of the
    bot due, decided now; ``None`` when it cannot be (a person's turn, a decision off the
    loop) or the run went once round the table (a table of bots and away players goes on
    in later steps, through the bot gate)."""

    def next_move(game: WizardGame, made: int) -> Move | None:
        seat = game.current_player
        assert seat is not None  # the game is not over
        if made >= len(seats):
            return None
        turn = due_turn(seats[seat], v + made, moves + made, services,
                        turn_seconds=turn_seconds, trick_completed=False)
        if turn is None:
            return None
        action = turns.decide_now(turn, game)
        return None if action is None else Move(seat, action, action_index(action), turn.mover)

    return next_move


def moves_from(game: WizardGame, first: Move,
               next_move: NextMove | None = None) -> tuple[list[Move], WizardGame | None]:
    """``first`` and the moves ``next_move`` adds at once after it, and the game after them.

    Each move is decided on a copy of ``game`` as the moves before it left it;
    ``game`` itself is unchanged. Without ``next_move`` the run is ``first`` alone, and
    the copy is made only in the last round (``None`` before): the commit of a game's
    last move carries the result.

    >>> game = WizardGame(3, seed=7)
    >>> bid = Move(0, game.legal_actions()[0], game.check(0, game.legal_actions()[0]),
    ...            Mover.PLAYER)
    >>> moves_from(game, bid)
    ([Move(seat=0, action=Bid(value=0), action_index=0, by=<Mover.PLAYER: 'player'>)], None)
    >>> def bot(after: WizardGame, made: int) -> Move:
    ...     action = after.legal_actions()[0]
    ...     return Move(after.current_player, action, after.check(after.current_player, action),
    ...                 Mover.BOT)
    >>> moves, after = moves_from(game, bid, lambda after, made: bot(after, made)
    ...                           if made < 3 else None)
    >>> [m.seat for m in moves], after.phase.value, game.current_player
    ([0, 1, 2], 'playing', 0)
    """
    if next_move is None and game.round_number != game.total_rounds:
        return [first], None
    after = game.clone()
    after.apply_index(first.action_index)
    moves = [first]
    while next_move is not None and not after.is_finished:
        move = next_move(after, len(moves))
        if move is None:
            break
        after.apply_index(move.action_index)
        moves.append(move)
    return moves, after


def store_moves(store: SqliteStore, table_id: str, seq: int, moves: Sequence[Move],
                after: WizardGame | None,
                between_games: Callable[[], WaitingTable] | None = None) -> Awaitable[None]:
    """Store ``moves`` as versions ``seq``, ``seq + 1``, … in one commit (await the result);
    each goes to the store as its seat and its checked action index.

    ``after`` is the game after them (`moves_from`): if it is over, its result and
    ``between_games()`` (the table as it will wait for a rematch) go into the same
    commit. Raises (or the awaitable raises) what `SqliteStore.append` raises; then
    nothing is stored.
    """
    result = game_result(after) if after is not None and after.is_finished else None
    waiting = between_games() if result is not None and between_games is not None else None
    return store.append(table_id, seq, [(m.seat, m.action_index) for m in moves],
                        finish=result, between_games=waiting)


__all__ = ["Move", "NextMove", "moves_from", "next_bot_move", "store_moves"]
