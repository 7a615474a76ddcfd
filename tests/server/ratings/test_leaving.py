"""Leaving does not dodge a loss: a person who leaves mid-game is rated with their seat's
final place (the bot that took the seat over played for them), also across a restart;
in a rematch the bot plays for itself."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from wizard.engine import GameOptions
from wizard.server.storage.ratings import rebuild
from wizard.server.storage.records import GameResult, StoredSeat, TableSettings
from wizard.server.storage.store import SqliteStore

from ..conftest import Harness, WsClient
from ..storage.test_ratings import dump, seat
from ..tables.test_table import play_to_end, table_id_of
from .test_rated_option import served

SHORT = {"rounds": 2}


def rated(harness: Harness) -> dict[str, dict[str, Any]]:
    page = harness.client.get("/api/leaderboard", params={"provisional": "true"}).json()
    return {p["player_id"]: p for p in page["players"]}


def three_at_a_table(harness: Harness) -> tuple[WsClient, WsClient, str]:
    """Ann and Ben with an easy bot at a short game that has just started."""
    ann, ben = harness.player("Ann"), harness.player("Ben")
    ann.ok({"type": "create_table", "players": 3, "options": SHORT, "turn_seconds": 0})
    table_id = table_id_of(ann)
    ben.ok({"type": "join_table", "table_id": table_id})
    ann.ok({"type": "add_bot", "table_id": table_id, "level": "easy"})
    ann.ok({"type": "start_game", "table_id": table_id})
    return ann, ben, table_id


def ben_is_rated_with_his_seat(harness: Harness, ann: WsClient, ben: WsClient,
                               table_id: str, seat: int) -> None:
    final = ann.last_update(table_id)["observation"]
    ratings = rated(harness)
    assert ben.player_id in ratings and ratings[ben.player_id]["name"] == "Ben"
    assert set(ratings) == {ann.player_id, ben.player_id, "bot:easy"}  # no bot:medium
    profile = harness.client.get(f"/api/players/{ben.player_id}").json()
    assert profile["games"] == 1 and profile["rating"]["rated_games"] == 1
    assert profile["average_score"] == final["scores"][seat]
    assert profile["wins"] == int(seat in final["winners"])


def test_a_person_who_leaves_mid_game_is_rated_with_the_seats_final_place(
        harness: Harness) -> None:
    ann, ben, table_id = three_at_a_table(harness)
    seat = ben.seat[table_id]
    ben.ok({"type": "leave_table", "table_id": table_id})
    taken = ann.wait_for(lambda m: m["type"] == "table" and m["table_id"] == table_id
                         and m["seats"][seat]["kind"] == "bot")
    assert taken["seats"][seat]["level"] == "medium"
    play_to_end([ann], table_id)
    ben_is_rated_with_his_seat(harness, ann, ben, table_id, seat)

    # the rematch is the bot's own game: Ben is not rated again, bot:medium is
    before = rated(harness)[ben.player_id]["rated_games"]
    ann.ok({"type": "rematch", "table_id": table_id})
    play_to_end([ann], table_id)
    after = rated(harness)
    assert after[ben.player_id]["rated_games"] == before
    assert after["bot:medium"]["rated_games"] == 1


def test_leaving_then_a_restart_still_rates_the_leaver(tmp_path: Path) -> None:
    db = str(tmp_path / "wizard.db")
    with served(db) as first:
        ann, ben, table_id = three_at_a_table(first)
        seat = ben.seat[table_id]
        ben.ok({"type": "leave_table", "table_id": table_id})
        token = ann.token
    with served(db) as second:
        ann = second.connect("Ann")
        ann.hello("Ann", token)
        ann.seat[table_id] = 0
        table = ann.wait_for(lambda m: m["type"] == "table" and m["table_id"] == table_id)
        assert table["seats"][seat]["kind"] == "bot"
        play_to_end([ann], table_id)
        ben_is_rated_with_his_seat(second, ann, ben, table_id, seat)


def test_a_rebuild_rates_the_leaver_the_same_way() -> None:
    async def go() -> tuple[list[Any], list[Any]]:
        store = SqliteStore(":memory:")
        await store.open()
        try:
            stand_in = StoredSeat("bot", level="medium", name="Bot (medium)",
                                  left_player_id="p_ben", left_name="Ben")
            await store.game_started("t_1", "t_1-1", options=GameOptions(), seed=1,
                                     seats=[seat("p_ann"), stand_in, seat("bot:easy")],
                                     table_info=TableSettings(3))
            await store.append("t_1", 1, [(0, 0)], finish=GameResult([10, 50, 30], [1],
                                                                      [1, 2, 1], 2))
            played = await store.db.read(dump)
            writer = store.db._writer
            assert writer is not None
            rebuild(writer)
            return played, await store.db.read(dump)
        finally:
            await store.close()

    played, rebuilt = asyncio.run(go())
    assert played == rebuilt
    ratings, _, _, lines = played
    assert [(row[0], row[1]) for row in ratings] == [
        ("bot:easy", "Bot (easy)"), ("p_ann", "P_ANN"), ("p_ben", "Ben")]
    ben = next(line for line in lines if line[0] == "p_ben")
    assert (ben[3], ben[4], ben[5]) == (1, 50, 1)  # seat 1, its score, its win
