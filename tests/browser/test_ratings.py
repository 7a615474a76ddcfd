"""Ratings in the browser: a short game against bots is rated; the game-over screen shows the
rating change, the table the ratings beside the names, the lobby's leaderboard lists the
player, and the profile draws the rating history and links the game's replay."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Locator, Page, expect

from .conftest import Pages
from .helpers import Server, play_bots, play_until

RATING = re.compile(r"^\d+ ± \d+$")


@pytest.fixture(scope="module")
def rated(module_pages: Pages, server: Server) -> Iterator[Page]:
    """Rhea's finished one-round game against two easy bots (the fastest rated game)."""
    if not server.history:
        pytest.skip("the server keeps no games: nothing is rated")
    page = module_pages("Rhea")
    play_bots(page, players=3, level="easy", rounds=1)
    play_until(page, ".end .ranking", 60)
    yield page


def my_id(page: Page) -> str:
    return str(page.evaluate("() => window.__wizard.store.me.player_id"))


def test_the_game_over_screen_shows_the_rating_change(rated: Page) -> None:
    change = rated.locator(".end #rating-change")
    expect(change).to_have_text(re.compile(r"Your rating: 1500 → \d+ \([+−±]\d+\)"))
    after = int(change.locator(".rc-after").inner_text())
    delta = int(change.get_attribute("data-delta") or "")
    assert after - 1500 == delta
    expect(change).to_contain_text("provisional")


def test_the_table_shows_each_seats_rating_beside_the_name(rated: Page) -> None:
    after = rated.locator("#rating-change .rc-after").inner_text()
    # once rated, every seat (me and both bot seats: the easy level's rating) shows a rating
    expect(rated.locator(".seat .seat-rating")).to_have_count(3)
    expect(rated.locator(".seat.me .seat-rating")).to_have_text(after)
    # the next game at this table starts with them
    rated.click("#play-again")
    expect(rated.locator(".round-info")).to_contain_text("Round 1 of 1")
    expect(rated.locator(".seat.me .seat-rating")).to_have_text(after)
    expect(rated.locator(".seat:not(.me) .seat-rating")).to_have_count(2)
    bots = rated.locator(".seat:not(.me) .seat-rating").all_inner_texts()
    assert len(bots) == 2 and bots[0] == bots[1] and bots[0].isdigit()
    assert re.search(rf"rated {after}", rated.locator(".seat.me").get_attribute("aria-label") or "")
    play_until(rated, ".end .ranking", 60)
    expect(rated.locator("#rating-change")).to_have_text(re.compile(rf"Your rating: {after} → \d+"))


def turn(board: Locator, button: str) -> None:
    shown = board.locator("#lb-range").inner_text()
    board.locator(button).click()
    expect(board.locator("#lb-range")).not_to_have_text(shown)
    expect(board).to_have_attribute("aria-busy", "false")


def page_to(board: Locator, row: Locator) -> None:
    """Page the leaderboard from its first page forward until ``row`` is on it. The shared
    server rates other tests' games meanwhile, so a rank may move across a page while we
    turn them: a pass that misses the row starts again from the first page."""
    for _ in range(3):
        while board.locator("#lb-prev").is_enabled():
            turn(board, "#lb-prev")
        while not row.count() and board.locator("#lb-next").is_enabled():
            turn(board, "#lb-next")
        if row.count():
            break
    expect(row).to_be_visible()


def test_the_leaderboard_lists_the_player_with_provisional_ratings_shown(rated: Page) -> None:
    me = my_id(rated)
    rated.goto("/#/")
    expect(rated.locator("#tab-tables")).to_have_attribute("aria-current", "page")
    rated.click("#tab-leaderboard")
    rated.wait_for_url(re.compile(r"#/leaderboard$"))
    expect(rated.locator("#tab-leaderboard")).to_have_attribute("aria-current", "page")
    board = rated.locator(".leaderboard")
    expect(board.locator("#lb-range")).to_be_attached()
    # two rated games: provisional, so hidden until asked for ("Find me" says so)
    row = board.locator(f"tr[data-player='{me}']")
    expect(row).to_have_count(0)
    board.locator("#lb-me").click()
    expect(board.locator(".lb-note")).to_contain_text("show the provisional ratings")
    rated.check("#lb-provisional")
    expect(board).to_have_attribute("aria-busy", "false")
    # other tests' games are rated meanwhile, so ranks move: "Find me" asks for my page
    board.locator("#lb-me").click()
    expect(row).to_be_visible()
    expect(row).to_be_focused()
    expect(row.locator(".lb-rating")).to_have_text(RATING)
    expect(row).to_contain_text("provisional")
    bot = board.locator("tr[data-player='bot:easy']")
    page_to(board, bot)
    expect(bot).to_have_class(re.compile("landmark"))
    expect(bot.locator(".tag-bot")).to_have_text("bot")
    board.locator("#lb-me").click()
    row.get_by_role("link", name="Rhea").click()
    rated.wait_for_url(re.compile(rf"#/player/{re.escape(me)}$"))
    expect(rated.locator("#profile-title")).to_contain_text("Rhea")


def test_the_profile_draws_the_history_and_links_the_replays(rated: Page) -> None:
    rated.goto(f"/#/player/{my_id(rated)}")
    expect(rated.locator("#profile-rating")).to_have_text(RATING)
    expect(rated.locator("#profile-provisional")).to_contain_text("2 of 10 games")
    expect(rated.locator("#plays-like")).to_have_text(
        re.compile(r"^Plays like (an Easy|a Medium|a Hard|a Master) bot$"))
    chart = rated.locator("svg.rating-chart")
    expect(chart.locator("circle.rc-point")).to_have_count(2)
    line = re.compile(r"^M[\d.]+,[\d.]+ L[\d.]+,[\d.]+$")  # two points
    expect(chart.locator("path.rc-line")).to_have_attribute("d", line)
    expect(chart.locator(".rc-tick text").first).to_have_text(re.compile(r"^\d+$"))
    expect(rated.locator(".figure[data-figure='games'] dd")).to_have_text("2")
    games = rated.locator(".recent-games .game-row")
    expect(games).to_have_count(2)
    games.first.get_by_role("link", name=re.compile("Replay")).click()
    rated.wait_for_url(re.compile(r"#/replay/"))
    expect(rated.locator(".round-info")).to_contain_text("Round 1 of 1")
    expect(rated.locator("#replay-step")).to_contain_text("Step 0 of")
