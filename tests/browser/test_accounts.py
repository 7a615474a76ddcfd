"""Accounts in the browser: a guest claims their name with a password, logs in on another
device (the same player), changes the password (the other device is signed out), logs out;
each refusal is shown in words beside its form."""

from __future__ import annotations

import re
from collections.abc import Callable

from playwright.sync_api import Page, expect


def player_id(page: Page) -> str:
    return str(page.evaluate("() => window.__wizard.store.me.player_id"))


def left(page: Page, account_id: str) -> None:
    """Wait until the page plays as someone other than the account."""
    me = "window.__wizard.store.me"
    page.wait_for_function(f"id => {me} && {me}.player_id !== id", arg=account_id)


def open_me(page: Page) -> None:
    page.click("#me")
    expect(page.locator("dialog .account-panel")).to_be_visible()


def test_claim_log_in_elsewhere_change_password_and_log_out(open_page: Callable[..., Page]) -> None:
    vera = open_page("Vera")
    account_id = player_id(vera)
    open_me(vera)
    vera.fill("#claim-password", "short")
    vera.click("#claim-form button[type=submit]")
    expect(vera.locator("#claim-form-problem")).to_have_text("A password has 8 to 128 characters.")
    vera.fill("#claim-password", "correct horse")
    vera.click("#claim-form button[type=submit]")
    expect(vera.locator("#account-status")).to_contain_text("Vera")
    vera.click("dialog .dialog-close")
    expect(vera.locator("#me")).to_have_attribute("title", "Vera: your account")

    # another device: the welcome screen's login, a wrong password first
    phone = open_page()
    phone.click(".login-panel summary")
    phone.fill("#login-name", "vera")
    phone.fill("#login-password", "wrong horse")
    phone.click("#login-form button[type=submit]")
    expect(phone.locator("#login-form-problem")).to_have_text("Wrong password.")
    phone.fill("#login-password", "correct horse")
    phone.click("#login-form button[type=submit]")
    expect(phone.locator("#conn")).to_have_attribute("data-state", re.compile("open|reconnected"))
    expect(phone.locator("#me")).to_have_text("Vera")
    assert player_id(phone) == account_id

    # someone else cannot claim the name, in any case
    other = open_page("VERA")
    open_me(other)
    other.fill("#claim-password", "another horse")
    other.click("#claim-form button[type=submit]")
    expect(other.locator("#claim-form-problem")).to_contain_text("already has an account")

    # a new password on the phone signs the first device out (it plays on as a new guest)
    open_me(phone)
    phone.fill("#old-password", "correct horse")
    phone.fill("#new-password", "battery staple")
    phone.click("#password-form button[type=submit]")
    expect(phone.locator("dialog")).to_have_count(0)
    expect(phone.locator("#conn")).to_have_attribute("data-state", re.compile("open|reconnected"))
    expect(phone.locator("#me")).to_have_attribute("title", "Vera: your account")
    left(vera, account_id)
    assert player_id(phone) == account_id
    expect(vera.locator("#me")).to_have_attribute("title", re.compile("change your name$"))

    # log out: the phone is a guest again
    open_me(phone)
    phone.click("#logout")
    left(phone, account_id)
    expect(phone.locator("#me")).to_have_attribute("title", re.compile("change your name$"))
    open_me(phone)
    expect(phone.locator("#claim-form")).to_be_visible()
