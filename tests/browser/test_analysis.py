"""A game against bots played badly on purpose, then the master's analysis in its replay."""

from __future__ import annotations

import re
import time
from collections.abc import Callable

from playwright.sync_api import Page, expect

from .helpers import ACTIONABLE, STEP_TIMEOUT_MS, Server, click_move, play_bots

GAME_TIMEOUT_S = 240
ANALYSIS_TIMEOUT_MS = 120_000
WIZARDS = range(52, 56)


def losing_move(page: Page, bids_made: list[str]) -> bool:
    """Bid 0 whenever allowed, then throw the strongest card: a wizard whenever one is
    playable (a sure trick, so a bid of 0 is lost). Each bid is appended to `bids_made`
    (0 is forbidden to the last bidder when the others' bids already sum to the round's
    tricks). False once the game is over."""
    for _ in range(5):
        page.wait_for_selector(ACTIONABLE, timeout=STEP_TIMEOUT_MS)
        if page.locator(".end .ranking").count():
            return False
        zero = page.locator(".bid-btn:not([disabled])", has_text=re.compile(r"^0$"))
        bids = page.locator(".bid-btn:not([disabled])")
        cards = [int(x) for x in page.locator(".hand button.playable").evaluate_all(
            "els => els.map(e => e.dataset.card)")]
        bid = ""
        if zero.count():
            target = zero.first
            bid = "0"
        elif bids.count():
            target = bids.first
            bid = target.inner_text().strip()
        elif cards:
            wizards = [c for c in cards if c in WIZARDS]
            ranked = [c for c in cards if c < 52]
            card = wizards[0] if wizards else max(ranked, key=lambda c: c % 13) if ranked \
                else cards[0]
            target = page.locator(f'.hand button.playable[data-card="{card}"]')
        else:
            target = page.locator(".suit-btn").first
        handle = target.element_handle(timeout=STEP_TIMEOUT_MS)
        assert handle is not None
        if not click_move(page, handle):
            continue  # redrawn before the click: look again
        if bid:
            bids_made.append(bid)
        return True
    raise AssertionError("the controls kept being redrawn before they could be clicked")


def test_the_analysis_of_a_badly_played_game_marks_its_cards(
        open_page: Callable[..., Page], server: Server) -> None:
    assert server.history, "the history endpoints are needed for a replay"
    page = open_page("Lou")
    play_bots(page, players=4, level="easy")  # 15 rounds: more cards to lose points by
    deadline = time.monotonic() + GAME_TIMEOUT_S
    bids_made: list[str] = []
    while losing_move(page, bids_made):
        assert time.monotonic() < deadline, "the game did not end in time"
    expect(page.locator(".end .ranking")).to_be_visible()

    page.goto("/#/games")
    row = page.locator(".game-row", has_text="Lou").first
    row.get_by_role("link", name=re.compile("^Replay")).click()
    page.wait_for_url(re.compile(r"#/replay/"))
    expect(page.locator("#replay-step")).to_have_text(re.compile(r"^Step 0 of \d+$"))
    button = page.locator("#analyse-btn")
    expect(button).to_be_visible()
    button.click()
    # progress while it runs, then the report of Lou's seat only (a private game vs bots)
    expect(page.locator(".analysis-seat")).to_have_count(1, timeout=ANALYSIS_TIMEOUT_MS)
    seat = page.locator(".analysis-seat")
    expect(seat.locator("h3")).to_have_text("Lou")
    rows = seat.locator(".analysis-rounds tbody tr")
    expect(rows).to_have_count(15)
    assert bids_made[0] in ("0", "1")
    assert rows.first.locator("td").nth(0).inner_text() == bids_made[0]  # round 1's bid
    expect(seat.locator(".analysis-chart svg polyline")).to_have_count(2)
    marked = seat.locator(".marked-card")
    summary = seat.locator(".analysis-summary").inner_text().replace("\n", " ")
    assert marked.count() >= 1, f"no card of a deliberately bad game was marked ({summary})"
    assert {marked.nth(i).get_attribute("data-marker") for i in range(marked.count())} <= {
        "mistake", "blunder"}
    assert float(seat.locator(".play-loss").inner_text()) >= 15
    # a marked card shows its step in the replay, with the master's card in the step text
    step = int(marked.first.get_attribute("data-step") or "-1")
    marked.first.locator("button").click()
    expect(page.locator("#replay-step")).to_have_text(re.compile(rf"^Step {step + 1} of "))
    expect(page.locator(".step-text .step-note")).to_contain_text("the master plays")
    # a second look is instant: the stored analysis comes back at once after a reload
    marked_before = marked.count()
    page.reload()
    page.locator("#analyse-btn").click()
    expect(page.locator(".analysis-seat .marked-card")).to_have_count(marked_before)
