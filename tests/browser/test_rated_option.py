"""The rated table option from the browser: both lobby forms offer it (rated by default); an
unrated table says so in the lobby, the waiting room and at the table; its finished game
shows no rating change, polls for none, and leaves the player unrated (docs/ratings.md)."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from playwright.sync_api import Page, Request, expect

from .helpers import Server, play_until


def test_an_unrated_created_table_is_badged_in_the_waiting_room_and_the_lobby_list(
        open_page: Callable[..., Page]) -> None:
    ada = open_page("Ida")
    ada.goto("/#/")
    expect(ada.locator("#create-rated")).to_be_checked()
    expect(ada.locator(".check:has(#create-rated) .hint")).to_have_text("counts for your rating")
    ada.select_option("#create-length", "short")
    ada.fill("#create-rounds", "4")
    ada.uncheck("#create-rated")
    ada.click("#create-table")
    ada.wait_for_url(re.compile(r"#/table/"))
    badges = ada.locator(".waiting .badges")
    expect(badges).to_contain_text("Short game · 4 rounds")
    expect(badges.locator(".badge", has_text="Unrated")).to_have_count(1)
    bob = open_page("Bo")
    row = bob.locator(".table-list .table-row", has_text="Ida's table")
    expect(row.locator(".badge", has_text="Unrated")).to_have_count(1)
    # a rated table (the default) carries no such badge
    bob.click("#create-table")
    bob.wait_for_url(re.compile(r"#/table/"))
    expect(bob.locator(".waiting .badges")).to_contain_text("Full game · 15 rounds")
    expect(bob.locator(".waiting .badges .badge", has_text="Unrated")).to_have_count(0)


def test_an_unrated_short_quick_game_changes_no_rating(
        open_page: Callable[..., Page], server: Server) -> None:
    if not server.history:
        pytest.skip("the server keeps no games: no profile to read")
    page = open_page("Unai")
    me = str(page.evaluate("() => window.__wizard.store.me.player_id"))
    expect(page.locator("#bots-rated")).to_be_checked()
    page.select_option("#bots-players", "3")
    page.select_option("#bots-level", "easy")
    page.select_option("#bots-length", "short")
    page.fill("#bots-rounds", "3")
    page.uncheck("#bots-rated")
    page.click("#play-bots")
    page.wait_for_url(re.compile(r"#/table/"))
    expect(page.locator(".table-head .tag-unrated")).to_have_text("Unrated")
    # the lobby's "Your tables" says so too; back to the table from there
    page.goto("/#/")
    mine = page.locator(".mine .table-row")
    expect(mine.locator(".tag-unrated")).to_have_text("Unrated")
    profile_fetches: list[str] = []

    def fetched(request: Request) -> None:
        if request.url.endswith(f"/api/players/{me}"):
            profile_fetches.append(request.url)

    page.on("request", fetched)
    mine.get_by_role("link", name="Return").click()
    expect(page.locator(".round-info")).to_contain_text("of 3")
    play_until(page, ".end .ranking", 120)
    expect(page.locator(".round-info")).to_have_text("Game over")
    expect(page.locator(".end #rating-change")).to_have_count(0)
    expect(page.locator(".end")).not_to_contain_text("rating")

    # the profile: the game counts, but no rating and no point in the rating history
    with page.expect_request(lambda r: r.url.endswith(f"/api/players/{me}")):
        page.goto(f"/#/player/{me}")
    expect(page.locator(".profile-head")).to_contain_text("Not rated yet.")
    expect(page.locator("#profile-rating")).to_have_count(0)
    expect(page.locator("svg.rating-chart")).to_have_count(0)
    expect(page.locator(".figure[data-figure='games'] dd")).to_have_text("1")
    # the table read my rating once (beside my name); the game's end polled for none
    assert len(profile_fetches) == 2, profile_fetches
    # nor is the player on the leaderboard, even with the provisional ratings shown
    page.goto("/#/leaderboard")
    with page.expect_response(lambda r: "/api/leaderboard?" in r.url
                              and "provisional=true" in r.url) as answer:
        page.check("#lb-provisional")
    assert me not in [p["player_id"] for p in answer.value.json()["players"]]
    expect(page.locator(f".leaderboard tr[data-player='{me}']")).to_have_count(0)


def test_an_unrated_table_fits_a_phone(open_page: Callable[..., Page]) -> None:
    """The Unrated tag beside the table's actions wraps above them on a phone: the page does
    not scroll sideways and Leave table stays on screen (every tutorial game is unrated)."""
    page = open_page("Uma", viewport=(390, 844))
    page.select_option("#bots-players", "3")
    page.select_option("#bots-level", "easy")
    page.uncheck("#bots-rated")
    page.click("#play-bots")
    page.wait_for_url(re.compile(r"#/table/"))
    expect(page.locator(".table-head .tag-unrated")).to_have_text("Unrated")
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
    leave = page.locator(".table-head #leave-table")
    expect(leave).to_be_visible()
    box = leave.bounding_box()
    assert box is not None and box["x"] + box["width"] <= 390
