"""Long names at the seats: a name up to the server's longest is shown whole (set smaller,
on one line or two) in a seat of the usual width and height, on a phone (390×664) and a
desktop (1280×800), at 3–6 players; no seat runs into another seat, a played card or past
the screen's edge. A name too long even for that (32 wide letters) is cut, keeps its full
name as title and in the seat's label, and shows whole when focused."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from wizard.server.accounts.credentials import NAME_MAX

from .helpers import STEP_TIMEOUT_MS, play_step
from .test_screen_fit import overlaps

PHONE = (390, 664)
DESKTOP = (1280, 800)
#: Real long names, the last as long as the server allows.
LONGEST = "Anna-Maximiliane von Bartholomew"
NAMES = ["Maximiliane", "Bartholomew", LONGEST]
#: As wide as a name of the longest length gets: past what any seat holds, it is cut.
WIDEST = "W" * NAME_MAX

#: Each seat: its name as shown, its title, whether the text is cut, the panel's box and
#: the boxes of what sits on its edge (you, rating, dealer, the colour's bead on a phone).
_SEATS = """() => [...document.querySelectorAll('.felt .seat')].map((seat) => {
  const text = seat.querySelector('.seat-name-text');
  const box = (e) => {
    const b = e.getBoundingClientRect();
    return {x: b.x, y: b.y, width: b.width, height: b.height};
  };
  return {
    seat: Number(seat.dataset.seat), shown: text.textContent, title: text.title,
    label: seat.getAttribute('aria-label'), size: getComputedStyle(text).fontSize,
    cut: text.scrollWidth > text.clientWidth + 0.5 || text.scrollHeight > text.clientHeight + 0.5,
    box: box(seat),
    tabs: [...seat.querySelectorAll('.you, .seat-rating, .dealer, .seat-dot')].map(box),
  };
})"""


def seats(page: Page) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = page.evaluate(_SEATS)
    return found


def check_seats(page: Page, where: str, players: int) -> None:
    size = page.viewport_size
    assert size is not None
    shown = seats(page)
    assert len(shown) == players, where
    for seat in shown:
        assert not seat["cut"], f"{where}: the name {seat['title']!r} is cut ({seat['size']})"
        assert seat["shown"] == seat["title"], f"{where}: {seat}"
        assert seat["label"].startswith(seat["title"]), f"{where}: {seat}"
        assert float(seat["size"].removesuffix("px")) >= 8, f"{where}: {seat} is too small to read"
        for part in (seat["box"], *seat["tabs"]):
            assert part["x"] >= 0 and part["x"] + part["width"] <= size["width"] + 0.5, (
                f"{where}: seat {seat['seat']} runs past the screen's edge: {part}")
    for a, b in itertools.permutations(shown, 2):
        for part in (a["box"], *a["tabs"]):
            assert not overlaps(part, b["box"]), (
                f"{where}: seats {a['seat']} and {b['seat']} overlap")
    cards = [c.bounding_box() for c in page.locator(".trick .trick-card .card").all()]
    for card in cards:
        assert card is not None
        for seat in shown:
            assert not overlaps(card, seat["box"]), (
                f"{where}: a played card covers seat {seat['seat']}")
    scroll_width = page.evaluate("() => document.documentElement.scrollWidth")
    assert scroll_width <= size["width"], f"{where}: the page scrolls sideways"


def start(open_page: Callable[..., Page], name: str, players: int) -> Page:
    """A game of `players` against master bots ("Bot 2 (master)": long names too), the
    completed trick of round 1 held on the table."""
    page = open_page(name, viewport=DESKTOP, trick_show_ms=600_000, config={"roundShowMs": 0})
    page.goto("/#/")
    page.select_option("#bots-players", str(players))
    page.select_option("#bots-level", "master")
    page.click("#play-bots")
    expect(page.locator(".felt .seat")).to_have_count(players)
    return page


@pytest.mark.parametrize(("players", "name"), [
    (3, NAMES[0]), (4, NAMES[1]), (5, LONGEST), (6, LONGEST), (3, LONGEST), (6, NAMES[0])])
def test_long_names_are_whole_in_seats_that_keep_their_place(
        open_page: Callable[..., Page], players: int, name: str) -> None:
    assert len(LONGEST) == NAME_MAX
    page = start(open_page, name, players)
    play_step(page)  # the bid
    play_step(page)  # the one card of round 1
    expect(page.locator(".trick .trick-card")).to_have_count(players, timeout=15_000)
    for width, height in (PHONE, DESKTOP):
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_timeout(50)  # one layout
        check_seats(page, f"{name!r} and {players - 1} bots at {width}×{height}", players)


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP])
def test_a_name_too_wide_for_any_seat_is_cut_and_whole_on_focus(
        open_page: Callable[..., Page], viewport: tuple[int, int]) -> None:
    page = start(open_page, WIDEST, 4)
    page.set_viewport_size({"width": viewport[0], "height": viewport[1]})
    # our turn to bid: the bots before us have bid, and the seats stay as they are until we do
    page.wait_for_selector(".bid-btn:not([disabled])", timeout=STEP_TIMEOUT_MS)
    page.wait_for_timeout(50)
    name = page.locator(".seat.me .seat-name-text")
    expect(name).to_have_attribute("title", WIDEST)
    assert (page.locator(".seat.me").get_attribute("aria-label") or "").startswith(WIDEST)
    cut = "e => e.scrollWidth > e.clientWidth + 0.5 || e.scrollHeight > e.clientHeight + 0.5"
    assert name.evaluate(cut), "the widest name is not cut: the test name is too narrow"
    height = page.locator(".seat.me").evaluate("e => e.offsetHeight")
    name.focus()  # a keyboard user tabs to it
    assert not name.evaluate(cut), "the focused name is still cut"
    assert page.locator(".seat.me").evaluate("e => e.offsetHeight") == height, "the seat grew"
