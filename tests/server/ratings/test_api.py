"""``GET /api/leaderboard`` and ``GET /api/players/{name}``: paging, bounds, profile fields,
private games hidden from strangers, unknown players."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import pytest

from wizard.ai.analysis import AnalysisBudget, GameRecord, build_report
from wizard.engine import GameOptions
from wizard.server.ratings.api import LEADERBOARD_MAX, OFFSET_MAX
from wizard.server.storage.analyses import AnalysisStore
from wizard.server.storage.records import GameResult, StoredSeat, TableSettings

from ..conftest import Harness, WsClient

_tables = itertools.count()


def token_of(client: WsClient) -> str:
    welcome: dict[str, Any] = next(m for m in client.messages if m["type"] == "welcome")
    return str(welcome["token"])


def seat_of(who: WsClient | str) -> StoredSeat:
    if isinstance(who, str):
        return StoredSeat("bot", level=who, name=f"Bot ({who})")
    return StoredSeat("player", player_id=who.player_id, name=who.label)


def finish(harness: Harness, seats: Sequence[WsClient | str], scores: Sequence[int], *,
           private: bool = False, made: int = 5) -> str:
    """A finished game stored as a table stores its end (with its rating)."""
    store = harness.server.store
    table_id = f"t_r{next(_tables)}"
    game_id = f"{table_id}-1"
    best = max(scores)

    async def write() -> None:
        await store.game_started(table_id, game_id, options=GameOptions(), seed=3,
                                 seats=[seat_of(s) for s in seats],
                                 table_info=TableSettings(len(seats), private))
        await store.append(table_id, 1, [(0, 0)], finish=GameResult(
            list(scores), [k for k, s in enumerate(scores) if s == best],
            [made] * len(scores), 20))

    harness.client.portal.call(write)  # type: ignore[union-attr]
    return game_id


def test_the_leaderboard_pages_best_first_and_leaves_provisional_ratings_out(
        harness: Harness) -> None:
    ann, bob = harness.player("Ann"), harness.player("Bob")
    for _ in range(10):
        finish(harness, [ann, "easy", "hard"], [200, -50, 80])
    finish(harness, [bob, "easy", "hard"], [100, 20, 10])
    board = harness.client.get("/api/leaderboard").json()
    names = [p["name"] for p in board["players"]]
    assert names[0] == "Ann" and "Bob" not in names  # Bob has played once: provisional
    assert {p["name"] for p in board["players"] if p["bot"]} == {"Bot (easy)", "Bot (hard)"}
    assert board["total"] == 3 and [p["rank"] for p in board["players"]] == [1, 2, 3]
    first = board["players"][0]
    assert first["provisional"] is False and first["rated_games"] == 10
    assert first["near"] in ("easy", "hard") and first["uncertainty"] > 0
    assert first["rating"] > board["players"][1]["rating"]
    every = harness.client.get("/api/leaderboard", params={"provisional": "true"}).json()
    assert "Bob" in [p["name"] for p in every["players"]]
    assert next(p for p in every["players"] if p["name"] == "Bob")["provisional"] is True
    page = harness.client.get("/api/leaderboard", params={"offset": 1, "limit": 1}).json()
    assert [p["rank"] for p in page["players"]] == [2] and page["total"] == 3


def test_the_leaderboard_finds_the_page_that_lists_a_player(harness: Harness) -> None:
    ann, bob, cid = harness.player("Ann"), harness.player("Bob"), harness.player("Cid")
    for _ in range(10):
        finish(harness, [ann, "easy", "hard"], [200, -50, 80])
    finish(harness, [bob, "easy", "hard"], [100, 20, 10])
    board = harness.client.get("/api/leaderboard", params={"provisional": "true"}).json()
    order = [p["player_id"] for p in board["players"]]
    assert len(order) == 4
    for rank, player in enumerate(order, start=1):
        page = harness.client.get("/api/leaderboard", params={
            "player": player, "limit": 3, "provisional": "true"}).json()
        assert page["offset"] == (rank - 1) // 3 * 3
        listed = next(p for p in page["players"] if p["player_id"] == player)
        assert listed["rank"] == rank
    # Bob is provisional: not on the default board; Cid has no rated game; nobody is
    for player, provisional in [(bob.player_id, "false"), (cid.player_id, "true"),
                                ("p_nobody", "true")]:
        missing = harness.client.get("/api/leaderboard", params={
            "player": player, "provisional": provisional})
        assert missing.status_code == 404
        assert missing.json()["error"] == "not_on_leaderboard"
    too_long = harness.client.get("/api/leaderboard", params={"player": "p" * 65})
    assert too_long.status_code == 400 and too_long.json()["error"] == "bad_request"


@pytest.mark.parametrize("params", [
    {"limit": 0}, {"limit": LEADERBOARD_MAX + 1}, {"offset": -1}, {"offset": OFFSET_MAX + 1},
    {"limit": "ten"}, {"provisional": "maybe"}])
def test_bad_leaderboard_parameters_get_400_bad_request(harness: Harness,
                                                        params: dict[str, Any]) -> None:
    response = harness.client.get("/api/leaderboard", params=params)
    assert response.status_code == 400 and response.json()["error"] == "bad_request"


def test_a_profile_has_the_rating_its_history_and_the_players_figures(
        harness: Harness) -> None:
    ann = harness.player("Ann")
    for k in range(3):
        finish(harness, [ann, "medium", "master"], [100 + k, 50, 120], made=8)
    profile = harness.client.get(f"/api/players/{ann.player_id}").json()
    assert profile["name"] == "Ann" and profile["bot"] is False
    assert profile["games"] == 3 and profile["wins"] == 0
    assert profile["average_score"] == 101.0 and profile["bid_accuracy"] == 0.4
    assert profile["analysed_games"] == 0 and profile["expected_points_lost"] is None
    assert profile["rating"]["provisional"] is True and profile["rating"]["rated_games"] == 3
    assert [p["rating"] for p in profile["history"]][-1] == profile["rating"]["rating"]
    assert len(profile["history"]) == 3 and len(profile["recent_games"]) == 3
    by_name = harness.client.get("/api/players/Ann").json()
    assert by_name["player_id"] == ann.player_id
    bot = harness.client.get("/api/players/bot:master").json()
    assert bot["bot"] is True and bot["level"] == "master" and bot["wins"] == 3


def seat_reports(losses: dict[int, tuple[float, float]]) -> list[dict[str, Any]]:
    """Seat reports as the analysis builds them (`build_report`), from one bid and one card
    per seat that lost (bidding, play) expected points."""
    decisions = []
    for seat, (bid_loss, play_loss) in losses.items():
        decisions += [
            {"seat": seat, "round": 1, "trick": 0, "kind": "bid", "played": 1, "master": 0,
             "expected": 20.0 - bid_loss, "master_expected": 20.0, "loss": bid_loss,
             "marker": None},
            {"seat": seat, "round": 1, "trick": 1, "kind": "card", "played": 5, "master": 6,
             "expected": 10.0 - play_loss, "master_expected": 10.0, "loss": play_loss,
             "marker": None, "forced": False}]
    record = GameRecord(len(losses), GameOptions(), 3, ())
    seats: list[dict[str, Any]] = build_report(record, sorted(losses), decisions,
                                               AnalysisBudget(worlds=2))["seats"]
    return seats


def test_the_profile_averages_the_points_lost_over_the_players_analysed_games(
        harness: Harness) -> None:
    ann = harness.player("Ann")
    first = finish(harness, [ann, "easy", "hard"], [100, 20, 60])
    second = finish(harness, ["medium", "easy", ann], [30, 20, 90])
    finish(harness, [ann, "easy", "hard"], [10, 20, 60])  # never analysed: not counted
    analyses = AnalysisStore(harness.server.store)  # as the analysis jobs store reports
    # Ann's seat lost 1.5 + 2.25 in the first game and 0.75 + 1.0 in the second; the other
    # seats lost more, so a report of the wrong seat would show
    for game_id, losses in ((first, {0: (1.5, 2.25), 1: (9.0, 9.0), 2: (4.0, 4.0)}),
                            (second, {0: (8.0, 8.0), 1: (6.0, 6.0), 2: (0.75, 1.0)})):
        harness.client.portal.call(  # type: ignore[union-attr]
            analyses.save, game_id, 2, seat_reports(losses))
    profile = harness.client.get(f"/api/players/{ann.player_id}").json()
    assert profile["games"] == 3 and profile["analysed_games"] == 2
    assert profile["expected_points_lost"] == (3.75 + 1.75) / 2
    easy = harness.client.get("/api/players/bot:easy").json()
    assert easy["analysed_games"] == 2 and easy["expected_points_lost"] == (18.0 + 12.0) / 2


def test_a_private_game_is_in_its_players_profile_for_them_only(harness: Harness) -> None:
    ann, bob, eve = harness.player("Ann"), harness.player("Bob"), harness.player("Eve")
    public = finish(harness, [ann, "easy", "easy"], [10, 0, 0])
    private = finish(harness, [ann, bob, "easy"], [30, 20, 0], private=True)

    def recent(token: str | None) -> list[str]:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        profile = harness.client.get(f"/api/players/{ann.player_id}", headers=headers).json()
        return [game["id"] for game in profile["recent_games"]]

    assert recent(None) == [public] and recent(token_of(eve)) == [public]
    assert recent(token_of(ann)) == [private, public]
    assert recent(token_of(bob)) == [private, public]


def test_an_unknown_player_is_404_no_such_player_and_a_long_name_400(harness: Harness) -> None:
    response = harness.client.get("/api/players/p_nobody")
    assert response.status_code == 404 and response.json()["error"] == "no_such_player"
    response = harness.client.get("/api/players/" + "x" * 65)
    assert response.status_code == 400 and response.json()["error"] == "bad_request"
