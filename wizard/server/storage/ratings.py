"""Ratings as the store keeps them: rated in the transaction that stores a game's end.

`rate_game` is a `Step` of the commit that marks a game finished (`SqliteStore.append`,
`SqliteStore.game_finished`): inside that transaction it adds the game's line for
each of its players to ``game_players`` (what profiles count) and, when the game is
rated, rates it from the ratings the transaction finds (`wizard.server.ratings.model`),
numbering it in ``rated_games``. A crash either keeps the game's end and its rating
or neither; a game already counted is never counted again.

A game is rated when its table was rated (`TableSettings.rated`, default yes), at
least one person sat at it and at least two seats are players or bots. Bots are
the players ``bot:<level>``; a level at several seats of one game plays each seat,
and its rating becomes the mean of those seats' results. A person who left during
the game is rated with their seat's final place: the bot that took the seat over
(``StoredSeat.left_player_id``) played for them, and is not rated for it.

`rebuild` recomputes everything from the stored games, in the order they were rated
(games finished before ratings existed first, by finish time): the same numbers.
"""

from __future__ import annotations

import sqlite3
import time
from collections import defaultdict

import structlog

from wizard.server.ratings.model import PlayerRating, rate

from .records import GameStatus, StoredSeat, decode_result, decode_seats, decode_settings

log = structlog.get_logger(__name__)

BOT_PREFIX = "bot:"


def seat_player(seat: StoredSeat) -> str | None:
    """The rated player of a stored seat: a person's id, ``bot:<level>``, or None. A bot
    standing in for a person who left mid-game plays for them: the person's id."""
    if seat.kind == "bot" and seat.left_player_id:
        return seat.left_player_id
    if seat.kind == "bot" and seat.level:
        return BOT_PREFIX + seat.level
    if seat.kind == "player" and seat.player_id:
        return seat.player_id
    return None


def seat_name(seat: StoredSeat) -> str:
    if seat.kind == "bot" and seat.left_player_id:
        return seat.left_name or "?"
    if seat.kind == "bot":
        return seat.name or f"Bot ({seat.level})"
    return seat.name or "?"


def rate_game(game_id: str) -> _RateGame:
    """The `Step` that counts finished game ``game_id`` (see the module's docstring)."""
    return _RateGame(game_id)


class _RateGame:
    __slots__ = ("game_id",)

    def __init__(self, game_id: str) -> None:
        self.game_id = game_id

    def __call__(self, conn: sqlite3.Connection) -> None:
        # a fault here (a bug, a record that does not decode) must not undo the game's end:
        # the rating is left out (logged) and `rebuild` puts it right
        conn.execute("SAVEPOINT rating")
        try:
            count_game(conn, self.game_id)
        except sqlite3.Error:
            conn.execute("ROLLBACK TO rating")
            conn.execute("RELEASE rating")
            raise
        except Exception:
            log.exception("rating_failed", game=self.game_id)
            conn.execute("ROLLBACK TO rating")
        conn.execute("RELEASE rating")


def count_game(conn: sqlite3.Connection, game_id: str) -> bool:
    """Count finished game ``game_id`` in ``conn``'s open transaction; whether it was rated.

    Raises `ValueError` for a record that does not decode.
    """
    row = conn.execute("SELECT seats, result, table_info, COALESCE(finished, created) "
                       "FROM games WHERE id = ? AND status = ?",
                       (game_id, GameStatus.FINISHED)).fetchone()
    if row is None or conn.execute("SELECT 1 FROM game_players WHERE game_id = ? LIMIT 1",
                                   (game_id,)).fetchone() is not None:
        return False  # no such finished game, or counted already
    seats, result, info = decode_seats(row[0]), decode_result(row[1]), decode_settings(row[2])
    finished = float(row[3])
    if result is None or len(result.scores) != len(seats):
        return False
    entrants = [(index, player, seat) for index, seat in enumerate(seats)
                if (player := seat_player(seat)) is not None]
    conn.executemany(
        "INSERT INTO game_players (player_id, finished, game_id, seat, score, won, made, "
        "rounds) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [(player, finished, game_id, index, result.scores[index],
          int(index in result.winners),
          result.made[index] if len(result.made) == len(seats) else None,
          result.rounds or None) for index, player, _ in entrants])
    people = any(not player.startswith(BOT_PREFIX) for _, player, _ in entrants)
    if not info.rated or not people or len(entrants) < 2:
        return False
    ids = sorted({player for _, player, _ in entrants})
    marks = ",".join("?" * len(ids))
    known = {pid: (PlayerRating(mu, sigma), games) for pid, mu, sigma, games in conn.execute(
        f"SELECT player_id, mu, sigma, games FROM ratings WHERE player_id IN ({marks})", ids)}
    before = [known.get(player, (PlayerRating(), 0))[0] for _, player, _ in entrants]
    after = rate(before, [result.scores[index] for index, _, _ in entrants])
    seats_of: dict[str, list[PlayerRating]] = defaultdict(list)
    names: dict[str, str] = {}
    for (_, player, seat), rating in zip(entrants, after, strict=True):
        seats_of[player].append(rating)
        names[player] = seat_name(seat)
    seq = conn.execute("INSERT INTO rated_games (game_id) VALUES (?)", (game_id,)).lastrowid
    now = time.time()
    for player in ids:
        results = seats_of[player]
        mu = sum(r.mu for r in results) / len(results)
        sigma = sum(r.sigma for r in results) / len(results)
        games = known.get(player, (None, 0))[1] + 1
        conn.execute(
            "INSERT INTO ratings (player_id, name, bot, mu, sigma, ordinal, games, updated) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(player_id) DO UPDATE SET "
            "name = excluded.name, mu = excluded.mu, sigma = excluded.sigma, "
            "ordinal = excluded.ordinal, games = excluded.games, updated = excluded.updated",
            (player, names[player], int(player.startswith(BOT_PREFIX)), mu, sigma,
             PlayerRating(mu, sigma).ordinal, games, now))
        conn.execute("INSERT INTO rating_history (player_id, seq, mu, sigma, at) "
                     "VALUES (?, ?, ?, ?, ?)", (player, seq, mu, sigma, finished))
    return True


def rebuild(conn: sqlite3.Connection) -> tuple[int, int]:
    """Recompute every rating and profile line from the stored games in one transaction;
    returns ``(games counted, games rated)``. Games keep the order they were rated in;
    finished games never rated (stored before ratings existed) come first, by finish time."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        order = [row[0] for row in conn.execute(
            "SELECT games.id FROM games LEFT JOIN rated_games ON rated_games.game_id = games.id "
            "WHERE games.status = ? ORDER BY rated_games.seq IS NOT NULL, "
            "rated_games.seq, COALESCE(games.finished, games.created), games.id",
            (GameStatus.FINISHED,))]
        for table in ("ratings", "rating_history", "rated_games", "game_players"):
            conn.execute(f"DELETE FROM {table}")
        rated = 0
        for game_id in order:
            try:
                rated += count_game(conn, game_id)
            except ValueError as exc:
                log.warning("rating_skipped", game=game_id, error=str(exc))
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return len(order), rated


__all__ = ["BOT_PREFIX", "count_game", "rate_game", "rebuild", "seat_name", "seat_player"]
