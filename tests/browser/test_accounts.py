"""Accounts in the browser: a guest claims their name with a password, logs in on another
device (the same player), changes the password (the other device is signed out), logs out;
each refusal is shown in words beside its form."""

from __future__ import annotations

import re
from collections.abc import Callable

from playwright.sync_api import Page, expect


def player_id(page: Page) -> str:
    return str(page.evaluate("() => window.__wizard.store.me.player_id"))


def open_me(page: Page) -> None:
    page.click("#me")
    expect(page.locator("dialog .account-panel")).to_be_visible()


def test_claim_log_in_elsewhere_change_password_and_log_out(open_page: Callable[..., Page]) -> None:
    # the browser tests share one server: a claimed name is the account's for every later
    # test, so it is one that no other test plays under
    quilla = open_page("Quilla")
    account_id = player_id(quilla)
    open_me(quilla)
    quilla.fill("#claim-password", "short")
    quilla.click("#claim-form button[type=submit]")
    expect(quilla.locator("#claim-form-problem")).to_have_text(
        "A password has 8 to 128 characters.")
    quilla.fill("#claim-password", "correct horse")
    quilla.click("#claim-form button[type=submit]")
    expect(quilla.locator("#account-status")).to_contain_text("Quilla")
    quilla.click("dialog .dialog-close")
    expect(quilla.locator("#me")).to_have_attribute("title", "Quilla: your account")

    # another device: the welcome screen's login, a wrong password first
    phone = open_page()
    phone.click(".login-panel summary")
    phone.fill("#login-name", "quilla")
    phone.fill("#login-password", "wrong horse")
    phone.click("#login-form button[type=submit]")
    expect(phone.locator("#login-form-problem")).to_have_text("Wrong password.")
    phone.fill("#login-password", "correct horse")
    phone.click("#login-form button[type=submit]")
    expect(phone.locator("#conn")).to_have_attribute("data-state", re.compile("open|reconnected"))
    expect(phone.locator("#me")).to_have_text("Quilla")
    assert player_id(phone) == account_id

    # someone else cannot play under the claimed name, in any case: the welcome form says
    # why and keeps them there until they choose another name
    other = open_page()
    other.fill("#name-input", "QUILLA")
    other.click("form.name-panel button[type=submit]")
    expect(other.locator("#name-problem")).to_contain_text("belongs to an account")
    expect(other.locator("#name-input")).to_be_visible()
    expect(other.locator("#conn")).to_be_hidden()  # no "Connecting…" while a name is asked for
    other.fill("#name-input", "Otto")
    other.click("form.name-panel button[type=submit]")
    expect(other.locator("#conn")).to_have_attribute("data-state", re.compile("open|reconnected"))
    expect(other.locator("#me")).to_have_text("Otto")

    # a new password on the phone signs the first device out: it is back at the welcome
    # form, which says the name is an account's (log in, or play as someone else)
    open_me(phone)
    phone.fill("#old-password", "correct horse")
    phone.fill("#new-password", "battery staple")
    phone.click("#password-form button[type=submit]")
    expect(phone.locator("dialog")).to_have_count(0)
    expect(phone.locator("#conn")).to_have_attribute("data-state", re.compile("open|reconnected"))
    expect(phone.locator("#me")).to_have_attribute("title", "Quilla: your account")
    assert player_id(phone) == account_id
    expect(quilla.locator("#name-problem")).to_contain_text("belongs to an account")

    # log out: the phone too is signed out; logging in again (new password) is Quilla again
    open_me(phone)
    phone.click("#logout")
    expect(phone.locator("#name-problem")).to_contain_text("belongs to an account")
    phone.click(".login-panel summary")
    phone.fill("#login-name", "Quilla")
    phone.fill("#login-password", "correct horse")
    phone.click("#login-form button[type=submit]")
    expect(phone.locator("#login-form-problem")).to_have_text("Wrong password.")
    phone.fill("#login-password", "battery staple")
    phone.click("#login-form button[type=submit]")
    expect(phone.locator("#conn")).to_have_attribute("data-state", re.compile("open|reconnected"))
    expect(phone.locator("#me")).to_have_attribute("title", "Quilla: your account")
    assert player_id(phone) == account_id
