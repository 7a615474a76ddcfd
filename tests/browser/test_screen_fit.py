"""Everything of the current decision fits one screen: hand, trick, trump and the bid
control inside the viewport for 3–6 players in rounds 1, 8 and the last, on a desktop
(1280×800) and a phone (390×844); played cards never cover a seat panel."""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import FloatRect, Page

from .helpers import autoplay_to_round, play_bots, play_step

DESKTOP = (1280, 800)
PHONE = (390, 844)
#: The smallest part of a card in the hand that stays visible (and can be hit).
MIN_CARD_SLICE_PX = 24


def box(page: Page, selector: str) -> FloatRect:
    found = page.locator(selector).first.bounding_box()
    assert found is not None, f"{selector} is not on the page"
    return found


def viewport(page: Page) -> tuple[int, int]:
    size = page.viewport_size
    assert size is not None
    return size["width"], size["height"]


def assert_in_view(page: Page, selector: str, where: str) -> None:
    width, height = viewport(page)
    b = box(page, selector)
    assert b["x"] >= 0 and b["y"] >= 0, f"{where}: {selector} starts outside the screen: {b}"
    assert b["x"] + b["width"] <= width + 0.5, f"{where}: {selector} is cut off on the right: {b}"
    assert b["y"] + b["height"] <= height + 0.5, f"{where}: {selector} is below the fold: {b}"


def card_slices(page: Page) -> list[float]:
    """How much of each hand card shows before the next one in its row covers it."""
    rows: list[list[dict[str, Any]]] = page.locator(".hand .hand-row").evaluate_all(
        "rows => rows.map(r => [...r.querySelectorAll('button.card')]"
        ".map(c => { const b = c.getBoundingClientRect(); return {x: b.x, y: b.y, w: b.width}; }))")
    flat = sorted((c for row in rows for c in row), key=lambda c: (round(c["y"]), c["x"]))
    slices = []
    for left, right in itertools.pairwise(flat):
        if round(left["y"]) == round(right["y"]):
            slices.append(right["x"] - left["x"])
    return slices


def check_fit(page: Page, where: str) -> None:
    for selector in (".hand", ".trick", ".trump", ".bids"):
        assert_in_view(page, selector, where)
    for selector in (".hand button.card", ".bid-btn"):
        for element in page.locator(selector).all():
            b = element.bounding_box()
            assert b is not None
            assert b["y"] + b["height"] <= viewport(page)[1] + 0.5, (
                f"{where}: a {selector} is below the fold")
    scroll_width = page.evaluate("() => document.documentElement.scrollWidth")
    assert scroll_width <= viewport(page)[0], f"{where}: the page scrolls sideways"
    slices = card_slices(page)
    assert not slices or min(slices) >= MIN_CARD_SLICE_PX, (
        f"{where}: hand cards are slivers: {slices}")


def overlaps(a: FloatRect, b: FloatRect) -> bool:
    return not (a["x"] + a["width"] <= b["x"] or b["x"] + b["width"] <= a["x"]
                or a["y"] + a["height"] <= b["y"] or b["y"] + b["height"] <= a["y"])


def check_trick_clear_of_seats(page: Page, where: str) -> None:
    cards = [c.bounding_box() for c in page.locator(".trick .trick-card .card").all()]
    seats = [s.bounding_box() for s in page.locator(".felt .seat").all()]
    assert cards and seats
    for card in cards:
        for seat in seats:
            assert card is not None and seat is not None
            assert not overlaps(card, seat), f"{where}: a played card covers a seat panel"


def in_both_sizes(page: Page, check: Callable[[Page, str], None], what: str) -> None:
    for size in (DESKTOP, PHONE):
        page.set_viewport_size({"width": size[0], "height": size[1]})
        # The table seen from its top: a tap on the phone before may have scrolled the page
        # (the window keeps that offset when it grows to the desktop size, 264 px at most, the
        # score sheet below the table), and a player who scrolled down scrolled on purpose.
        page.evaluate("window.scrollTo(0, 0)")
        page.wait_for_timeout(50)  # one layout
        check(page, f"{what} at {size[0]}×{size[1]}")


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_the_decision_fits_one_screen_in_every_round(
        open_page: Callable[..., Page], players: int) -> None:
    page = open_page(f"Fit{players}", viewport=DESKTOP)
    play_bots(page, players=players, level="easy")
    last = 60 // players
    for round_number in (1, 8, last):
        autoplay_to_round(page, round_number)
        in_both_sizes(page, check_fit, f"{players} players, round {round_number}")
        if round_number == 8:
            # into the play of round 8 until cards lie on the table
            for _ in range(3 * players):
                if page.locator(".hand.my-turn").count() and page.locator(".trick-card").count():
                    break
                play_step(page)
            in_both_sizes(page, check_trick_clear_of_seats,
                          f"{players} players, a trick of round 8")


#: Each phrase of the round caption and of the bid total, and the lines it takes.
_PHRASE_LINES = """() => [...document.querySelectorAll(
    '.round-info .keep-together, .bid-total .keep-together')]
  .map(e => [e.textContent, new Set([...e.getClientRects()].map(r => Math.round(r.top))).size])"""


def test_a_german_phone_breaks_the_round_caption_between_phrases_not_inside_one(
        open_page: Callable[..., Page]) -> None:
    # the widest caption: "Runde 12 von 12 · Stich 1 von 12", "Ansagen: 9/12 (3 drunter)"
    page = open_page("Lena", viewport=PHONE, locale="de-DE")
    play_bots(page, players=5, level="easy")
    autoplay_to_round(page, 12, timeout_s=90)
    deadline = time.monotonic() + 30
    while not page.locator(".round-info:has-text('Stich')").count():
        assert time.monotonic() < deadline, "the play of round 12 did not start"
        play_step(page)
    for width in (390, 360):
        page.set_viewport_size({"width": width, "height": PHONE[1]})
        page.wait_for_timeout(50)  # one layout
        phrases = page.evaluate(_PHRASE_LINES)
        texts = [text for text, _ in phrases]
        assert "Runde 12 von 12 ·" in texts and any(t.startswith("Stich ") for t in texts), texts
        assert len(phrases) == 3, texts  # round, trick and the bids' verdict
        for text, lines in phrases:
            assert lines == 1, f"at {width} px {text!r} is broken over {lines} lines"
        where = f"German at {width} px"
        assert_in_view(page, ".round-box", where)
        scroll_width = page.evaluate("() => document.documentElement.scrollWidth")
        assert scroll_width <= width, f"{where}: the page scrolls sideways"
