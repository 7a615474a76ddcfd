"""A whole game against three bots played by clicking, then its replay from the history."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass

import pytest
from playwright.sync_api import Page, expect

from .conftest import Pages
from .helpers import Observed, Server, play_bots, play_step, play_until, ranking, round_info

GAME_TIMEOUT_S = 170


@dataclass
class FinishedGame:
    page: Page
    table_id: str
    final: list[tuple[int, int]]  # (seat, score), best first
    seen: Observed


@pytest.fixture(scope="module")
def finished_game(module_pages: Pages) -> FinishedGame:
    page = module_pages("Ada")
    table = play_bots(page, players=4, level="easy")
    seen = Observed()
    play_until(page, ".end .ranking", GAME_TIMEOUT_S, seen)
    return FinishedGame(page, table, ranking(page), seen)


def test_a_full_game_against_three_bots_ends_in_a_ranking(
        finished_game: FinishedGame, module_pages: Pages) -> None:
    page, final = finished_game.page, finished_game.final
    # 4 players: 15 rounds, 1+2+…+15 = 120 cards and 15 bids of mine, all clicked
    assert finished_game.seen.actions == 120 + 15
    expect(page.locator(".end h2")).to_have_text("Game over")
    assert sorted(seat for seat, _ in final) == [0, 1, 2, 3]
    scores = [score for _, score in final]
    assert scores == sorted(scores, reverse=True)
    assert page.locator(".end .ranking li.winner").count() >= 1
    expect(page.locator(".end .ranking li").first).to_have_class(re.compile("winner"))
    expect(page.locator(".end .ranking li", has_text="(you)")).to_have_count(1)
    expect(page.locator(".round-info")).to_have_text("Game over")
    # the score pad has all 15 rounds, and its last row holds the final scores
    assert page.locator(".pad tbody tr.done").count() == 15
    last_row = page.locator(".pad tbody tr").nth(14).locator("td.score")
    pad_scores = [int(re.match(r"-?\d+", t).group()) for t in last_row.all_inner_texts()]
    assert pad_scores == [dict(final)[seat] for seat in range(4)]
    # the chart draws one line per player through 16 points (the start and 15 rounds)
    lines = page.locator(".chart polyline")
    assert lines.count() == 4
    assert len(lines.first.get_attribute("points").split()) == 16
    # the rules showed up in the interface along the way
    assert finished_game.seen.illegal_cards_shown > 0, "never saw a card disabled by the rules"
    module_pages.assert_clean()


def test_a_forbidden_bid_is_disabled_and_explained(module_pages: Pages) -> None:
    # The last bidder of a round may not make the bids add up to the cards dealt. Whether
    # this seat ever bids last with such a bid in reach depends on the deal (about 6 % of
    # 4-player games against easy bots never give it one, simulated), so this plays until
    # it happens, at most four games; `play_step` checks the explanation when it does.
    page = module_pages("Bea")
    seen = Observed()
    for _ in range(4):
        play_bots(page, players=4, level="easy")
        deadline = time.monotonic() + GAME_TIMEOUT_S
        while not seen.forbidden_bid_explained and play_step(page, seen):
            assert time.monotonic() < deadline, "the game did not end in time"
        if seen.forbidden_bid_explained:
            break
    assert seen.forbidden_bid_explained > 0, "four games without a forbidden bid explained"
    module_pages.assert_clean()


def test_replay_of_the_finished_game_steps_to_the_same_final_scores(
        finished_game: FinishedGame, module_pages: Pages, server: Server) -> None:
    if not server.history:
        pytest.skip("GET /api/games is not served yet (persistence issue): nothing to replay")
    page = finished_game.page
    page.goto("/#/games")
    row = page.locator(".game-row").first
    expect(row).to_be_visible()
    row.get_by_role("link", name=re.compile("Replay")).click()
    page.wait_for_url(re.compile(r"#/replay/"))
    step = page.locator("#replay-step")
    expect(step).to_have_text(re.compile(r"^Step 0 of \d+$"))
    total = int(step.inner_text().rsplit(" ", 1)[1])
    assert total == 4 * 15 + 4 * 120  # every bid and every card of 15 rounds
    expect(page.locator("#replay-back")).to_be_disabled()
    page.click("#replay-forward")
    expect(step).to_have_text(f"Step 1 of {total}")
    expect(page.locator(".step-text")).to_contain_text("bids")
    page.click("#replay-back")
    expect(step).to_have_text(f"Step 0 of {total}")
    # walk every step with the keyboard; the hands shrink and tricks appear on the way
    page.locator("#replay-forward").focus()
    for i in range(1, total + 1):
        page.keyboard.press("ArrowRight")
        if i % 97 == 0:
            expect(step).to_have_text(f"Step {i} of {total}")
    expect(step).to_have_text(f"Step {total} of {total}")
    expect(page.locator("#replay-forward")).to_be_disabled()
    replayed = [(int(s), int(v)) for s, v in page.locator(".end .ranking li").evaluate_all(
        "els => els.map(e => [e.dataset.seat, e.dataset.score])")]
    assert replayed == finished_game.final
    module_pages.assert_clean()


def test_play_again_starts_a_new_game_at_the_same_table(
        finished_game: FinishedGame, module_pages: Pages) -> None:
    page = finished_game.page
    page.goto(f"/#/table/{finished_game.table_id}")
    page.click("#play-again")
    expect(page.locator(".end")).to_have_count(0)
    expect(page.locator(".round-info")).to_contain_text("Round 1 of 15")
    expect(page.locator(".seat .stat-score b")).to_have_text(["0", "0", "0", "0"])
    assert round_info(page).startswith("Round 1")
    module_pages.assert_clean()
