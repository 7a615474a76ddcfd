"""The lobby: the name is asked once, tables appear live, invite links, accessible cards."""

from __future__ import annotations

import re
from collections.abc import Callable

from playwright.sync_api import Page, expect

from .helpers import play_bots


def test_name_is_asked_once_and_kept_across_reloads(open_page: Callable[..., Page]) -> None:
    page = open_page()
    expect(page.locator("#name-input")).to_be_focused()
    page.fill("#name-input", "Merlin")
    page.keyboard.press("Enter")
    expect(page.locator("#me")).to_have_text("Merlin")
    token = page.evaluate("() => localStorage.getItem('wizard.token')")
    assert token and len(token) >= 16
    page.reload()
    expect(page.locator("#me")).to_have_text("Merlin")
    expect(page.locator("#name-input")).to_have_count(0)
    expect(page.locator("#play-bots")).to_be_visible()


def test_tables_appear_in_the_lobby_live_and_can_be_joined(
        open_page: Callable[..., Page]) -> None:
    watcher = open_page("Watcher")
    expect(watcher.locator(".tables-panel")).to_be_visible()
    host = open_page("Hana")
    host.select_option("#create-players", "5")
    host.check("#opt-hidden")
    host.click("#create-table")
    host.wait_for_url(re.compile(r"#/table/"))
    row = watcher.locator(".table-row", has_text="Hana's table")
    expect(row).to_be_visible()  # no reload: the list is pushed by the server
    expect(row).to_contain_text("1/5 seated")
    expect(row).to_contain_text("Hidden bids")
    row.get_by_role("button", name="Join Hana's table").click()
    watcher.wait_for_url(re.compile(r"#/table/"))
    expect(watcher.locator(".wait-seat[data-seat='1']")).to_contain_text("Watcher")
    expect(host.locator(".wait-seat[data-seat='1']")).to_contain_text("Watcher")


def test_unknown_invite_link_says_so(open_page: Callable[..., Page]) -> None:
    page = open_page("Finn")
    page.goto("/#/table/t_doesnotexist")
    expect(page.get_by_role("alert")).to_contain_text("no such table")
    page.get_by_role("link", name="Back to the lobby", exact=True).click()
    expect(page.locator("#play-bots")).to_be_visible()


def test_cards_and_controls_are_labelled_for_screen_readers(
        open_page: Callable[..., Page]) -> None:
    page = open_page("Gus")
    play_bots(page, players=3)
    card = page.locator(".hand button.card").first
    label = card.get_attribute("aria-label") or ""
    assert re.match(r"^(Wizard|Jester|(Red|Yellow|Green|Blue) \d{1,2})", label), label
    expect(page.locator(".trump")).to_have_attribute("aria-label", re.compile(r"^Trump: "))
    for bid in page.locator(".bid-btn").all():
        assert re.match(r"^Bid \d+", bid.get_attribute("aria-label") or "")
    # suit cards carry their suit as a shape too, not only as a colour
    number_cards = page.locator(".hand button.card[class*='suit-'] svg.card-big path")
    for path in number_cards.all():
        assert path.get_attribute("d")
