"""Names in narrow places: the score pad's column heads show a real name whole (set smaller,
on one line or two) at 3–6 players on a desktop (1280×800) and a phone (390×844), a bot as
"Bot 2" with its level on a line below, each head with the full name as its title and label,
and the pad without a sideways scrollbar; the header's name button shows a name whole on a
phone and carries the full name in its label."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from wizard.server.accounts.credentials import NAME_MAX

from .helpers import play_bots

PHONE = (390, 844)
DESKTOP = (1280, 800)
#: As long as the server allows: past what a sixth of the pad holds, cut, but labelled whole.
LONGEST = "Leopoldine-Konstanze von Hohenau"
#: As long again, for the header (a name is one player's at a time).
LONG_PHONE = "Bartholomäus-Friedrich von Linde"

#: Each player's head: what it shows, its title and label, the level line, whether the name is cut.
_HEADS = """() => [...document.querySelectorAll('.pad thead th.pcol')].map((th) => {
  const name = th.querySelector('.pad-name');
  const level = th.querySelector('.pad-level');
  return {
    shown: name.textContent.trim(), title: th.title, label: th.getAttribute('aria-label'),
    level: level ? level.textContent : null, size: parseFloat(getComputedStyle(name).fontSize),
    cut: name.scrollWidth > name.clientWidth + 0.5 || name.scrollHeight > name.clientHeight + 0.5,
  };
})"""


def heads(page: Page) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = page.evaluate(_HEADS)
    return found


def sideways(page: Page, selector: str) -> bool:
    return bool(page.locator(selector).evaluate("e => e.scrollWidth > e.clientWidth + 0.5"))


@pytest.mark.parametrize(("players", "name"), [
    (3, "Wilhelmina"), (4, "Konstantinos"), (5, "Friederike"),
    (6, "Maximilianus"), (6, "Bartholomea")])
def test_pad_heads_show_real_names_whole_with_the_full_name_in_the_label(
        open_page: Callable[..., Page], players: int, name: str) -> None:
    page = open_page(name, viewport=DESKTOP)
    play_bots(page, players=players, level="master")
    expect(page.locator(".pad thead th.pcol")).to_have_count(players)
    for width, height in (DESKTOP, PHONE):
        where = f"{name!r} and {players - 1} master bots at {width}×{height}"
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_timeout(50)  # one layout
        shown = heads(page)
        assert [h["title"] for h in shown] == [h["label"] for h in shown]
        for seat, head in enumerate(shown):
            assert not head["cut"], f"{where}: the head {head} is cut"
            assert head["size"] >= 8, f"{where}: {head} is too small to read"
            if seat == 0:
                assert head["shown"] == head["title"] == name, f"{where}: {head}"
            else:  # a bot: short, its level below
                assert head["title"] == f"Bot {seat + 1} (master)", f"{where}: {head}"
                assert (head["shown"], head["level"]) == (f"Bot {seat + 1}", "master"), where
        if width == DESKTOP[0]:
            assert not sideways(page, ".pad-scroll"), f"{where}: the pad scrolls sideways"
        assert not sideways(page, "html"), f"{where}: the page scrolls sideways"


def test_a_name_too_long_for_a_sixth_of_the_pad_is_cut_but_labelled_whole(
        open_page: Callable[..., Page]) -> None:
    assert len(LONGEST) == NAME_MAX
    page = open_page(LONGEST, viewport=DESKTOP)
    play_bots(page, players=6, level="master")
    mine = page.locator(".pad thead th.pcol.mine")
    expect(mine).to_have_attribute("title", LONGEST)
    expect(mine).to_have_attribute("aria-label", LONGEST)
    expect(page.get_by_role("columnheader", name=LONGEST)).to_have_count(1)
    assert heads(page)[0]["size"] >= 8
    assert not sideways(page, ".pad-scroll"), "the pad scrolls sideways"


def test_the_german_pad_shows_a_bot_short_with_its_level_below(
        open_page: Callable[..., Page]) -> None:
    page = open_page("Adelgunde", viewport=DESKTOP, locale="de-DE")
    play_bots(page, players=5, level="master")
    expect(page.locator(".pad thead th.pcol")).to_have_count(5)
    shown = heads(page)
    bot = (shown[1]["shown"], shown[1]["level"], shown[1]["label"])
    assert bot == ("Bot 2", "Meister", "Bot 2 (Meister)")
    assert not any(head["cut"] for head in shown), shown
    legend = page.locator(".chart .legend-item").nth(1)
    expect(legend).to_have_attribute("title", "Bot 2 (Meister)")
    expect(legend.locator(".legend-name")).to_have_text("Bot 2")


#: The header's name button: what it shows, whether that is cut, its title and label.
_ME = """() => {
  const me = document.querySelector('#me');
  return {shown: me.textContent, cut: me.scrollWidth > me.clientWidth + 0.5,
          title: me.title, label: me.getAttribute('aria-label')};
}"""


@pytest.mark.parametrize(("name", "locale"), [
    ("Gawain", "en-US"), ("Maximiliana", "en-US"), ("Maximiliana", "de-DE")])
def test_a_phone_shows_the_players_own_name_whole_in_the_header(
        open_page: Callable[..., Page], name: str, locale: str) -> None:
    page = open_page(name, viewport=PHONE, locale=locale)
    for where in ("the lobby", "a table"):
        if where == "a table":
            play_bots(page, players=3, level="easy")
        me: dict[str, Any] = page.evaluate(_ME)
        assert me["shown"] == name and not me["cut"], f"{name} in {where} ({locale}): {me}"
        assert me["title"].startswith(name) and me["label"] == me["title"], me
        assert not sideways(page, "html"), f"{where}: the page scrolls sideways"
        bar = page.locator(".topbar").bounding_box()
        lang = page.locator("#lang").bounding_box()
        assert bar is not None and lang is not None
        assert lang["x"] + lang["width"] <= bar["x"] + bar["width"], (
            f"{where}: the language switch is pushed out")


def test_a_name_longer_than_a_phone_header_holds_is_cut_and_labelled_whole(
        open_page: Callable[..., Page]) -> None:
    page = open_page(LONG_PHONE, viewport=PHONE)
    me: dict[str, Any] = page.evaluate(_ME)
    assert me["cut"], "the name is not cut: the test name is too short"
    assert me["label"] == me["title"] == f"{LONG_PHONE}: change your name"
