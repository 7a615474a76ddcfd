"""Names at a full table: six real names fit the seats and the score sheet whole, with the
full name (a bot's level too) on hover and in the labels, on a desktop and on a phone; a
name too long for its seat can be focused to read it whole."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from .helpers import play_bots

NAME = "Magdalena Wu"  # a real name of 12 characters
VIEWPORTS = [(1280, 800), (390, 844)]

#: Every seat name and score sheet column head: what it shows, its full name, and whether
#: any of it is cut (wider or taller than its box, an ellipsis).
_NAMES = """() => {
  const cut = (e) => e.scrollWidth > e.clientWidth || e.scrollHeight > e.clientHeight;
  const seats = [...document.querySelectorAll('.seat')].map((seat) => {
    const text = seat.querySelector('.seat-name-text');
    return {seat: Number(seat.dataset.seat), shown: text.innerText.replace(/\\s+/g, ' '),
            title: text.title, label: seat.getAttribute('aria-label'), cut: cut(text)};
  });
  const heads = [...document.querySelectorAll('.pad thead th.pcol')].map((th, seat) => {
    const name = th.querySelector('.pcol-name');
    return {seat, shown: name.innerText, title: th.title, label: th.getAttribute('aria-label'),
            cut: cut(name) || cut(th)};
  });
  return {seats, heads};
}"""


def full_name(seat: int) -> str:
    return NAME if seat == 0 else f"Bot {seat + 1} (master)"


def short_name(seat: int) -> str:
    return NAME if seat == 0 else f"Bot {seat + 1}"


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_six_names_fit_the_seats_and_the_score_sheet(
        open_page: Callable[..., Page], viewport: tuple[int, int]) -> None:
    page = open_page(NAME, viewport=viewport)
    play_bots(page, players=6, level="master")
    expect(page.locator(".seat")).to_have_count(6)
    expect(page.locator(".pad thead th.pcol")).to_have_count(6)
    names: dict[str, list[dict[str, Any]]] = page.evaluate(_NAMES)
    for seat in names["seats"]:
        n = seat["seat"]
        # "Bot 2", not "Bot 2 (mast…"; the player's whole name, not "T…"
        assert seat["shown"] == short_name(n) and not seat["cut"], seat
        assert seat["title"] == full_name(n), seat
        assert seat["label"].startswith(full_name(n)), seat
    for head in names["heads"]:
        n = head["seat"]
        assert head["shown"] == short_name(n) and not head["cut"], head  # not "Th…" / "Bo…"
        assert head["title"] == head["label"] == full_name(n), head
    # the level is shown beside a bot's name, not in it
    expect(page.locator(".seat[data-seat='1'] .seat-meta")).to_have_text("master")
    pad = page.locator(".pad-scroll")
    assert pad.evaluate("e => e.scrollWidth <= e.clientWidth"), "the pad is cut"
    assert page.evaluate("() => document.documentElement.scrollWidth") <= viewport[0]


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_a_name_too_long_for_its_seat_is_whole_on_focus(
        open_page: Callable[..., Page], viewport: tuple[int, int]) -> None:
    long_name = "Alexandra Featherstonehaugh-Pryce"[:32]
    page = open_page(long_name, viewport=viewport)
    play_bots(page, players=6, level="master")
    name = page.locator(".seat.me .seat-name-text")
    expect(name).to_have_attribute("title", long_name)
    cut = "e => e.scrollWidth > e.clientWidth || e.scrollHeight > e.clientHeight"
    assert name.evaluate(cut), "the long name is not cut: the test name is too short"
    name.focus()  # a keyboard user tabs to it
    assert not name.evaluate(cut), "the focused name is still cut"
    assert name.evaluate("e => e.innerText.replace(/\\s+/g, '')") == long_name.replace(" ", "")
    # a bot's short name always fits: it takes no place in the tab order
    assert page.locator(".seat[data-seat='1'] .seat-name-text").get_attribute("tabindex") is None
