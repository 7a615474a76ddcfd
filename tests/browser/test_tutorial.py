"""The first-game tutorial: a newcomer is offered a guided game in the lobby (and always on the
rules page); it is an unrated three-round game against easy bots whose tips follow the table
(trump, bidding exactly, the card to play); skipping it (or saying no) is remembered, and the
tips panel covers nothing a player needs, on a desktop and on a phone."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, expect

from .test_screen_fit import DESKTOP, PHONE, assert_in_view, box, overlaps

OFFER = "Learn by playing: a guided round (2 minutes)"
#: What each tip of a move says (a phrase of its text).
PLAY_TIPS = {
    "lead": "You play the first card of this trick",
    "follow": "you must play",
    "free": "you may play any card",
    "open": "there is no suit to follow",
}
SUIT_NAMES = {"red": "Red", "yellow": "Yellow", "green": "Green", "blue": "Blue"}
SYMBOLS = {"red": "heart", "yellow": "star", "green": "leaf", "blue": "drop"}

_STEP_ON_SHOW = """() => {
  const panel = document.getElementById('tutorial');
  return panel && !panel.hidden && panel.dataset.step;
}"""
_SHOWN = """() => {
  const w = window.__wizard;
  const id = decodeURIComponent(location.hash.split('/')[2]);
  return {table: w.store.tables.get(id), obs: w.store.games.get(id).shown.observation};
}"""


def shown(page: Page) -> dict[str, Any]:
    result: dict[str, Any] = page.evaluate(_SHOWN)
    return result


def advance_to(page: Page, wanted: set[str]) -> str:
    """Press "Got it" on the tips before one of ``wanted`` (the table moves on meanwhile)."""
    panel = page.locator("#tutorial")
    for _ in range(10):
        step = str(page.wait_for_function(_STEP_ON_SHOW).json_value())
        if step in wanted:
            return step
        try:  # only that tip's button: the tip may have changed meanwhile (the bots play on)
            page.locator(f"#tutorial[data-step='{step}'] #tutorial-next").click(timeout=2_000)
        except PlaywrightError:
            continue
        expect(panel).not_to_have_attribute("data-step", step)
    raise AssertionError(f"no tip of {sorted(wanted)} came")


def start_tutorial(page: Page) -> None:
    offer = page.locator("#tutorial-offer")
    expect(offer).to_contain_text(OFFER)
    expect(offer).to_contain_text("does not count for your rating")
    page.click("#tutorial-start")
    page.wait_for_url(re.compile(r"#/table/"))
    expect(page.locator("#tutorial")).to_have_attribute("data-step", "welcome")


def test_a_newcomer_plays_a_guided_unrated_round_and_skipping_is_remembered(
        open_page: Callable[..., Page]) -> None:
    page = open_page("Newt", viewport=DESKTOP)
    start_tutorial(page)
    panel = page.locator("#tutorial")
    expect(panel).to_have_attribute("aria-label", "Tutorial")
    expect(panel).to_contain_text("Three short rounds against easy bots")
    # the guided game: three players, three rounds, unrated
    expect(page.locator(".table-head .tag-unrated")).to_have_text("Unrated")
    table = shown(page)["table"]
    assert table["rated"] is False
    assert len(table["seats"]) == 3
    assert shown(page)["obs"]["options"]["rounds"] == 3
    expect(page.locator(".round-info")).to_contain_text("of 3")
    page.click("#tutorial-next")

    # the turned-up card: trump, or why there is none
    step = advance_to(page, {"trump", "no_trump"})
    suit = shown(page)["obs"]["trump_suit"]
    if suit is None:
        assert step == "no_trump"
        expect(panel).to_contain_text("no suit is trump")
    else:
        assert step == "trump"
        expect(panel.locator("h2")).to_have_text(f"Trump: {SUIT_NAMES[suit]}")
        name = SUIT_NAMES[suit]
        expect(panel).to_contain_text(f"makes {name} ({SYMBOLS[suit]}) trump this round")

    # bidding exactly (and the bid not allowed, when I bid last)
    advance_to(page, {"bid"})
    expect(panel.locator("h2")).to_have_text("Bid exactly")
    expect(panel).to_contain_text("Exactly your bid scores 20 points plus 10 per trick")
    extra = panel.locator(".tutorial-extra")
    if page.locator(".bid-btn[disabled]").count():
        expect(extra).to_be_visible()
        expect(extra).to_contain_text("You bid last, so")
    else:
        expect(extra).to_be_hidden()
    page.locator(".bid-btn:not([disabled])").first.click()
    expect(panel).not_to_have_attribute("data-step", "bid")

    # my card: the tip says what the table asks of it
    step = advance_to(page, set(PLAY_TIPS))
    expect(panel).to_contain_text(PLAY_TIPS[step])
    expect(page.locator(".hand button.playable").first).to_be_visible()
    page.click("#tutorial-skip")
    expect(panel).to_have_count(0)
    # the game goes on without tips
    expect(page.locator(".hand button.playable").first).to_be_visible()
    assert page.evaluate("() => localStorage.getItem('wizard.tutorial')") == "skipped"

    # not offered again, but the rules page still has it
    page.goto("/#/")
    page.reload()
    expect(page.locator("#play-bots")).to_be_visible()
    expect(page.locator("#tutorial-offer")).to_have_count(0)
    page.goto("/#/help")
    expect(page.locator("#tutorial-help-start")).to_have_text(OFFER)


def test_no_thanks_is_remembered(open_page: Callable[..., Page]) -> None:
    page = open_page("Nell")
    expect(page.locator("#tutorial-offer")).to_be_visible()
    page.click("#tutorial-dismiss")
    expect(page.locator("#tutorial-offer")).to_have_count(0)
    page.reload()
    expect(page.locator("#play-bots")).to_be_visible()
    expect(page.locator("#tutorial-offer")).to_have_count(0)


def check_panel_clear(page: Page, where: str) -> None:
    """The decision stays on screen and the panel covers none of it (nor a seat)."""
    for selector in (".hand", ".trick", ".trump", ".bids", ".tutorial"):
        assert_in_view(page, selector, where)
    panel = box(page, "#tutorial")
    for selector in (".hand", ".trick", ".trump", ".bids", ".action-bar", ".felt .seat"):
        for element in page.locator(selector).all():
            other = element.bounding_box()
            assert other is not None
            assert not overlaps(panel, other), f"{where}: the tips panel covers {selector}"


def test_the_tips_cover_nothing_a_player_needs(open_page: Callable[..., Page]) -> None:
    page = open_page("Tess", viewport=DESKTOP)
    start_tutorial(page)
    advance_to(page, {"bid"})
    for size in (DESKTOP, PHONE):
        page.set_viewport_size({"width": size[0], "height": size[1]})
        expect(page.locator("#tutorial")).to_be_in_viewport()
        page.wait_for_timeout(50)  # one layout
        check_panel_clear(page, f"the bid tip at {size[0]}×{size[1]}")
