"""Ratings stored with a game's end: persons and bots move, ties stay ties, unrated tables
change nothing, and a rebuild from the stored games gives the same numbers."""

from __future__ import annotations

import asyncio
import itertools
import sqlite3
from collections.abc import Sequence
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from wizard.engine import GameOptions
from wizard.server.storage.ratings import rebuild
from wizard.server.storage.records import GameResult, StoredSeat, TableSettings
from wizard.server.storage.store import SqliteStore

_ids = itertools.count()

Game = tuple[tuple[str, ...], tuple[int, ...], bool]  # seat players, scores, rated


def seat(who: str) -> StoredSeat:
    if who.startswith("bot:"):
        return StoredSeat("bot", level=who[4:], name=f"Bot ({who[4:]})")
    return StoredSeat("player", player_id=who, name=who.upper())


async def play(store: SqliteStore, players: Sequence[str], scores: Sequence[int], *,
               rated: bool = True) -> str:
    """One finished game, stored as a table stores it (the end and its rating together)."""
    table_id = f"t{next(_ids)}"
    game_id = f"{table_id}-1"
    await store.game_started(table_id, game_id, options=GameOptions(), seed=1,
                             seats=[seat(p) for p in players],
                             table_info=TableSettings(len(players), rated=rated))
    best = max(scores)
    await store.append(table_id, 1, [(0, 0)], finish=GameResult(
        list(scores), [i for i, s in enumerate(scores) if s == best], [3] * len(scores), 10))
    return game_id


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def dump(conn: sqlite3.Connection) -> list[list[tuple[Any, ...]]]:
    return [conn.execute(sql).fetchall() for sql in (
        "SELECT player_id, name, bot, mu, sigma, ordinal, games FROM ratings ORDER BY player_id",
        "SELECT player_id, seq, mu, sigma, at FROM rating_history ORDER BY player_id, seq",
        "SELECT seq, game_id FROM rated_games ORDER BY seq",
        "SELECT * FROM game_players ORDER BY player_id, finished, game_id, seat")]


async def in_store(games: Sequence[Game]) -> tuple[list[Any], list[Any], list[Any]]:
    """Play ``games`` into a fresh store; the ratings as played, after a rebuild, after a
    second rebuild."""
    store = SqliteStore(":memory:")
    await store.open()
    try:
        for players, scores, rated in games:
            await play(store, players, scores, rated=rated)
        played = await store.db.read(dump)
        writer = store.db._writer
        assert writer is not None
        rebuild(writer)
        once = await store.db.read(dump)
        rebuild(writer)
        twice = await store.db.read(dump)
    finally:
        await store.close()
    return played, once, twice


def test_a_game_against_bots_moves_the_person_and_the_bots() -> None:
    async def go() -> dict[str, Any]:
        store = SqliteStore(":memory:")
        await store.open()
        await play(store, ["p_ann", "bot:easy", "bot:hard"], [120, -30, 60])
        rows = await store.db.read(lambda c: {r[0]: r[1:] for r in c.execute(
            "SELECT player_id, mu, sigma, games, bot FROM ratings")})
        await store.close()
        return dict(rows)

    rows = run(go())
    assert set(rows) == {"p_ann", "bot:easy", "bot:hard"}
    assert rows["p_ann"][0] > rows["bot:hard"][0] > 25 > rows["bot:easy"][0]
    assert all(r[2] == 1 for r in rows.values())  # one game each
    assert [rows[p][3] for p in ("p_ann", "bot:easy")] == [0, 1]  # the bots are marked


def test_equal_scores_are_a_tie_and_an_unrated_table_changes_nothing() -> None:
    async def go() -> tuple[Any, Any, Any]:
        store = SqliteStore(":memory:")
        await store.open()
        await play(store, ["p_a", "p_b", "bot:medium"], [50, 50, 10])
        tied = await store.db.read(lambda c: c.execute(
            "SELECT mu, sigma FROM ratings WHERE player_id IN ('p_a', 'p_b')").fetchall())
        before = await store.db.read(dump)
        game = await play(store, ["p_a", "p_b", "bot:medium"], [90, -20, 10], rated=False)
        after = await store.db.read(dump)
        counted = await store.db.read(lambda c: c.execute(
            "SELECT COUNT(*) FROM game_players WHERE game_id = ?", (game,)).fetchone()[0])
        await store.close()
        return tied, (before, after), counted

    tied, (before, after), counted = run(go())
    assert tied[0] == tied[1]
    assert before[:3] == after[:3]  # ratings, their history and the rated games: unchanged
    assert counted == 3  # the unrated game still counts in its players' profiles


def test_a_game_of_bots_alone_is_not_rated_and_a_bot_at_two_seats_counts_once() -> None:
    played, _, _ = run(in_store([
        (("bot:easy", "bot:hard", "bot:easy"), (10, 20, 30), True),
        (("p_a", "bot:easy", "bot:easy"), (10, 20, 30), True)]))
    ratings_rows, _, rated_games, _ = played
    assert len(rated_games) == 1  # the game with a person
    assert {r[0]: r[6] for r in ratings_rows} == {"bot:easy": 1, "p_a": 1}


player_names = st.sampled_from(["p_a", "p_b", "p_c", "p_d", "bot:easy", "bot:medium",
                                "bot:hard", "bot:master"])
a_game = st.integers(min_value=2, max_value=6).flatmap(lambda n: st.tuples(
    st.lists(player_names, min_size=n, max_size=n).map(tuple),
    st.lists(st.integers(min_value=-50, max_value=50).map(lambda s: s * 10),
             min_size=n, max_size=n).map(tuple),
    st.booleans() | st.just(True)))


@settings(max_examples=25, deadline=None)
@given(st.lists(a_game, min_size=1, max_size=12))
def test_a_rebuild_gives_the_numbers_the_games_gave_as_they_ended(games: list[Game]) -> None:
    played, once, twice = run(in_store(games))
    assert once == played
    assert twice == played
