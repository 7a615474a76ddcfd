"""The leaderboard and a player's profile, read from the rating tables (`storage.ratings`).

Every query walks an index of its own: the leaderboard ``ratings_by_ordinal``, a
profile its player's ``game_players`` and ``rating_history`` rows, so that a
player with 10,000 games answers in a few milliseconds (`scripts/bench_profile.py`).
A profile's counts cover every finished game of the player's; its list of recent
games only those the asker may list (`storage.visibility`): a private game appears
only to its players and spectators. An account holder whose profile is private
(``accounts.private``, schema 9) is left out of the leaderboard; whether a profile
may be shown is `is_private`'s answer, checked by the endpoint.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from wizard.server.ratings.model import (
    PROVISIONAL_GAMES,
    PlayerRating,
    display,
    is_provisional,
    near_level,
    uncertainty,
)

from .ratings import BOT_PREFIX
from .store import game_summary, iso_time
from .visibility import listed_condition

#: the most rating points a profile shows (the latest), and recent games it lists
HISTORY_POINTS = 100
RECENT_GAMES = 20


def landmarks(conn: sqlite3.Connection) -> dict[str, int]:
    """The bot levels' shown ratings: the scale's landmarks."""
    return {player[len(BOT_PREFIX):]: display(PlayerRating(mu, sigma))
            for player, mu, sigma in conn.execute(
                "SELECT player_id, mu, sigma FROM ratings WHERE bot = 1")}


def _rating(mu: float, sigma: float, games: int, marks: dict[str, int]) -> dict[str, Any]:
    rating = PlayerRating(mu, sigma)
    shown = display(rating)
    return {"rating": shown, "uncertainty": uncertainty(rating), "rated_games": games,
            "provisional": is_provisional(games), "near": near_level(shown, marks)}


_SHOWN = "games >= ? AND player_id NOT IN (SELECT player_id FROM accounts WHERE private != 0)"


def page_of(conn: sqlite3.Connection, player_id: str, limit: int,
            provisional: bool = False) -> int | None:
    """The offset of the leaderboard page of ``limit`` rows that lists ``player_id``
    (None: not on the board as asked for: unrated, private, or provisional and not
    asked for)."""
    floor = 0 if provisional else PROVISIONAL_GAMES
    row = conn.execute(f"SELECT ordinal FROM ratings WHERE player_id = ? AND {_SHOWN}",
                       (player_id, floor)).fetchone()
    if row is None:
        return None
    ahead = conn.execute(
        f"SELECT COUNT(*) FROM ratings WHERE {_SHOWN} AND "
        "(ordinal > ? OR (ordinal = ? AND player_id < ?))",
        (floor, row[0], row[0], player_id)).fetchone()[0]
    return int(ahead) // limit * limit


def leaderboard(conn: sqlite3.Connection, offset: int, limit: int,
                provisional: bool = False) -> dict[str, Any]:
    """A page of rated players (people and bots), best first; provisional ratings only
    with ``provisional``."""
    floor = 0 if provisional else PROVISIONAL_GAMES
    marks = landmarks(conn)
    shown = _SHOWN
    rows = conn.execute(
        f"SELECT player_id, name, bot, mu, sigma, games FROM ratings WHERE {shown} "
        "ORDER BY ordinal DESC, player_id LIMIT ? OFFSET ?", (floor, limit, offset)).fetchall()
    total = conn.execute(f"SELECT COUNT(*) FROM ratings WHERE {shown}", (floor,)).fetchone()[0]
    players = [{"rank": offset + k + 1, "player_id": player, "name": name, "bot": bool(bot),
                **_rating(mu, sigma, games, marks)}
               for k, (player, name, bot, mu, sigma, games) in enumerate(rows)]
    return {"players": players, "offset": offset, "limit": limit, "total": total}


def _has_games(conn: sqlite3.Connection, player_id: str) -> bool:
    return conn.execute("SELECT 1 FROM game_players WHERE player_id = ? LIMIT 1",
                        (player_id,)).fetchone() is not None


def resolve(conn: sqlite3.Connection, name: str, name_key: str) -> str | None:
    """The player id ``name`` names, if that player has finished a game: a player id
    (``p_…``, ``bot:<level>``), else the account whose claimed name has the unique form
    ``name_key`` (`wizard.server.tables.names.name_key`), else the rated player last seen
    under that name."""
    if _has_games(conn, name):
        return name
    row = conn.execute("SELECT player_id FROM accounts WHERE name_key = ?",
                       (name_key,)).fetchone()
    if row is not None:
        return str(row[0]) if _has_games(conn, row[0]) else None
    row = conn.execute("SELECT player_id FROM ratings WHERE name = ? ORDER BY updated DESC "
                       "LIMIT 1", (name,)).fetchone()
    return None if row is None else str(row[0])


def is_private(conn: sqlite3.Connection, player_id: str) -> bool:
    """Whether ``player_id``'s profile answers only to them (an account's choice)."""
    row = conn.execute("SELECT private FROM accounts WHERE player_id = ?",
                       (player_id,)).fetchone()
    return row is not None and bool(row[0])


def profile(conn: sqlite3.Connection, player_id: str, viewer_id: str | None
            ) -> dict[str, Any]:
    """``player_id``'s profile as ``viewer_id`` (None: anyone) may see it."""
    rated = conn.execute("SELECT name, mu, sigma, games FROM ratings WHERE player_id = ?",
                         (player_id,)).fetchone()
    account = conn.execute("SELECT name, private FROM accounts WHERE player_id = ?",
                           (player_id,)).fetchone()
    games, wins, average, made, rounds = conn.execute(
        "SELECT COUNT(*), COALESCE(SUM(won), 0), AVG(score), SUM(made), SUM(rounds) "
        "FROM game_players WHERE player_id = ?", (player_id,)).fetchone()
    analysed, lost = conn.execute(
        "SELECT COUNT(*), AVG(json_extract(a.report, '$.summary.bidding_loss') "
        "+ json_extract(a.report, '$.summary.play_loss')) FROM game_players AS gp "
        "JOIN analyses AS a ON a.game_id = gp.game_id AND a.seat = gp.seat "
        "WHERE gp.player_id = ?", (player_id,)).fetchone()
    history = conn.execute(
        "SELECT mu, sigma, at FROM rating_history WHERE player_id = ? ORDER BY seq DESC "
        "LIMIT ?", (player_id, HISTORY_POINTS)).fetchall()
    listed, params = listed_condition(viewer_id)
    recent = conn.execute(
        "SELECT DISTINCT games.id, games.table_id, games.seats, games.result, games.finished, "
        "games.table_info, (SELECT invite FROM table_invites "
        "WHERE table_invites.table_id = games.table_id), gp.finished "
        "FROM game_players AS gp JOIN games ON games.id = gp.game_id "
        f"WHERE gp.player_id = ? AND {listed} ORDER BY gp.finished DESC LIMIT ?",
        (player_id, *params, RECENT_GAMES)).fetchall()
    bot = player_id.startswith(BOT_PREFIX)
    name = account[0] if account else rated[0] if rated else _name_in(recent, player_id)
    return {
        "player_id": player_id,
        "name": name,
        "bot": bot,
        "level": player_id[len(BOT_PREFIX):] if bot else None,
        "account": account is not None,
        "private": bool(account and account[1]),
        "rating": _rating(rated[1], rated[2], rated[3], landmarks(conn)) if rated else None,
        "history": [{"at": iso_time(at), "rating": display(PlayerRating(mu, sigma)),
                     "uncertainty": uncertainty(PlayerRating(mu, sigma))}
                    for mu, sigma, at in reversed(history)],
        "games": games,
        "wins": wins,
        "average_score": None if average is None else round(average, 1),
        "bid_accuracy": round(made / rounds, 3) if rounds else None,
        "analysed_games": analysed,
        "expected_points_lost": None if lost is None else round(lost, 2),
        "recent_games": [game_summary(*row[:7]) for row in recent],
    }


def _name_in(recent: list[tuple[Any, ...]], player_id: str) -> str | None:
    for row in recent:
        for seat in game_summary(*row[:7])["players"]:
            if seat["player_id"] == player_id:
                return str(seat["name"])
    return None


__all__ = ["HISTORY_POINTS", "RECENT_GAMES", "is_private", "landmarks", "leaderboard", "page_of",
           "profile", "resolve"]
