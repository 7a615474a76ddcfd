"""Quick game and Create table offer the same rule options with the same defaults, each
turn clock says why its default is what it is, and a quick game is dealt with the rules
chosen."""

from __future__ import annotations

from collections.abc import Callable

from playwright.sync_api import Page, expect

from .helpers import play_bots, table_id

RULES = ("even", "hidden", "dealer")


def test_both_forms_offer_the_same_rules_and_explain_their_clocks(
        open_page: Callable[..., Page]) -> None:
    page = open_page("Ivo")
    for rule in RULES:
        quick, create = page.locator(f"#bots-{rule}"), page.locator(f"#opt-{rule}")
        expect(quick).to_be_visible()
        assert quick.is_checked() == create.is_checked(), rule
        labels = [page.locator(f"label[for='{p}-{rule}']").inner_text() for p in ("bots", "opt")]
        assert labels[0] == labels[1], labels
    expect(page.locator("#bots-turn")).to_have_value("0")
    expect(page.locator("#create-turn")).to_have_value("60")
    expect(page.locator("#bots-turn-why")).to_have_text(
        "No turn clock by default: the bots wait for you.")
    expect(page.locator("#create-turn-why")).to_have_text(
        "A 60 s turn clock by default: nobody keeps the table waiting.")
    expect(page.locator("#create-turn")).to_have_attribute("aria-describedby", "create-turn-why")


def test_a_quick_game_is_dealt_with_the_rules_chosen(open_page: Callable[..., Page]) -> None:
    page = open_page("Jon")
    page.check("#bots-hidden")
    page.check("#bots-dealer")
    page.uncheck("#bots-even")
    play_bots(page, players=3, level="easy")
    options = page.evaluate("(id) => window.__wizard.store.tables.get(id).options", table_id(page))
    assert options["hidden_bids"] is True
    assert options["wizard_trump_dealer_chooses"] is True
    assert options["forbid_even_bids"] is False
