"""The site as a new player first sees it: the name screen claims no connection it is not
making, a table's invite link says whose table it is and how many seats are free before
it asks for the name, and the header says where the player is."""

from __future__ import annotations

import re
from collections.abc import Callable

from playwright.sync_api import Page, expect

from .helpers import enter_name, play_bots
from .test_table import create_table


def current_sections(page: Page) -> list[str]:
    return page.locator(".topnav a[aria-current]").all_inner_texts()


def test_the_name_screen_claims_no_connection(open_page: Callable[..., Page]) -> None:
    page = open_page()
    expect(page.locator("#name-input")).to_be_visible()
    expect(page.locator("#conn")).to_be_hidden()
    expect(page.get_by_text("Connecting").locator("visible=true")).to_have_count(0)
    page.wait_for_timeout(1500)  # it stays so while the guest reads the form
    expect(page.locator("#conn")).to_be_hidden()
    enter_name(page, "Nell")
    expect(page.locator("#conn")).to_be_visible()
    expect(page.locator("#conn")).to_have_text("Connected")


def test_the_header_says_where_i_am(open_page: Callable[..., Page]) -> None:
    page = open_page("Wren")
    expect(page.locator("#play-bots")).to_be_visible()
    assert current_sections(page) == ["Lobby"]
    play_bots(page, players=3, level="easy")
    assert current_sections(page) == []  # at a table: neither the lobby nor anything else
    page.goto("/#/help")
    expect(page.locator(".topnav a[aria-current]")).to_have_text("Rules")
    page.go_back()
    expect(page.locator(".felt")).to_be_visible()
    assert current_sections(page) == []


def test_an_invite_link_says_whose_table_it_is_before_asking_the_name(
        open_page: Callable[..., Page]) -> None:
    host = open_page("Ada")
    create_table(host, players=4, private=True)
    invite = host.locator("#invite-link").input_value()

    guest = open_page(path=invite[invite.index("/#/"):])  # a new guest: no name yet
    note = guest.locator("#invite-note")
    expect(note).to_have_text(
        "Ada invites you to a table for 4: 3 seats of 4 free. Choose your name to join.")
    expect(guest.locator("#conn")).to_be_hidden()
    expect(guest.locator("#name-input")).to_be_focused()
    enter_name(guest, "Bea")
    expect(guest.locator(".wait-seat[data-seat='1']")).to_contain_text("Bea")


def test_a_broken_invite_link_says_so_before_asking_the_name(
        open_page: Callable[..., Page]) -> None:
    host = open_page("Cyd")
    table_id = create_table(host, players=3, private=True)
    cut = open_page(path=f"/#/table/{table_id}/not-the-invite")
    expect(cut.locator("#invite-note")).to_have_text(re.compile(r"^This link does not open"))
    gone = open_page(path="/#/table/t_doesnotexist")
    expect(gone.locator("#invite-note")).to_have_text(re.compile(r"^This table is not open"))
    expect(gone.locator("#name-input")).to_be_visible()
