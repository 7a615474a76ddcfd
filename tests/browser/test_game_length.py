"""A short game from the browser: the length is chosen in the lobby, listed, played to its
last round, and its score sheet and replay have that many rounds."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

from .helpers import Server, play_bots, play_until, ranking


def test_a_created_short_table_shows_its_length_in_the_lobby_list(
        open_page: Callable[..., Page]) -> None:
    ada = open_page("Ada")
    ada.goto("/#/")
    expect(ada.locator("#create-rounds")).to_be_disabled()
    ada.select_option("#create-players", "5")
    ada.select_option("#create-length", "short")
    rounds = ada.locator("#create-rounds")
    expect(rounds).to_be_enabled()
    expect(rounds).to_have_attribute("max", "12")
    rounds.fill("4")
    ada.click("#create-table")
    ada.wait_for_url(re.compile(r"#/table/"))
    expect(ada.locator(".waiting .badges")).to_contain_text("Short game · 4 rounds")
    bob = open_page("Bob")
    row = bob.locator(".table-list .table-row", has_text="Ada's table")
    expect(row.locator(".badges")).to_contain_text("Short game · 4 rounds")


def test_a_short_quick_game_plays_three_rounds_and_replays_them(
        open_page: Callable[..., Page], server: Server) -> None:
    page = open_page("Cy")
    play_bots(page, players=3, level="easy", rounds=3)
    expect(page.locator(".round-info")).to_contain_text("Round 1 of 3")
    play_until(page, ".end .ranking", 120)
    expect(page.locator(".round-info")).to_have_text("Game over")
    # the score sheet: three rounds, all played, the last holding the final scores
    expect(page.locator(".pad tbody tr")).to_have_count(3)
    expect(page.locator(".pad tbody tr.done")).to_have_count(3)
    final = dict(ranking(page))
    last_row = page.locator(".pad tbody tr").nth(2).locator("td.score")
    pad_scores = [int(re.match(r"-?\d+", t).group()) for t in last_row.all_inner_texts()]
    assert pad_scores == [final[seat] for seat in range(3)]
    if not server.history:
        pytest.skip("GET /api/games is not served: nothing to replay")
    page.goto("/#/games")
    page.locator(".game-row").first.get_by_role("link", name=re.compile("Replay")).click()
    page.wait_for_url(re.compile(r"#/replay/"))
    expect(page.locator(".round-info")).to_contain_text("Round 1 of 3")
    expect(page.locator("#replay-round option")).to_have_count(3)
    expect(page.locator(".pad tbody tr")).to_have_count(3)
