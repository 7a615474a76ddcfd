"""On a phone (touch, the browser's bars leaving 390×664) the trump, the round and whose
turn it is stay in view in late rounds: after a card is tapped and after the page is
scrolled to its bottom (score sheet, chat); the round's toast covers none of them, nor
the hand or the bid buttons."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import FloatRect, Page, expect

from .helpers import autoplay_to_round, play_bots
from .test_screen_fit import overlaps

#: What must stay readable, each a list of places that may show it (the felt's own boxes at
#: the top of the table, or the strip under the top bar once those are scrolled away).
SHOWN = {
    "trump": ".felt-top .trump, .turn-strip:not([hidden]) .strip-trump",
    "round": ".felt-top .round-info, .turn-strip:not([hidden]) .strip-round",
    # the prompt: "Your bid: …", "Your turn: …"
    "your turn": ".action-bar .prompt, .turn-strip:not([hidden]) .strip-turn.mine",
}


def visible_boxes(page: Page, selector: str) -> list[FloatRect]:
    boxes = [el.bounding_box() for el in page.locator(selector).all() if el.is_visible()]
    return [b for b in boxes if b is not None and b["width"] > 0]


def check_in_view(page: Page, where: str) -> None:
    size = page.viewport_size
    assert size is not None
    topbar = page.locator(".topbar").bounding_box()
    assert topbar is not None
    toasts = visible_boxes(page, ".toast")
    for what, selector in SHOWN.items():
        seen = [b for b in visible_boxes(page, selector)
                if b["y"] >= topbar["y"] + topbar["height"] - 0.5 and b["x"] >= 0
                and b["x"] + b["width"] <= size["width"] + 0.5
                and b["y"] + b["height"] <= size["height"] + 0.5]
        assert seen, f"{where}: the {what} is out of view"
        assert any(not any(overlaps(b, t) for t in toasts) for b in seen), (
            f"{where}: a toast covers the {what}")
    for covered in visible_boxes(page, ".hand button.card, .bid-btn, #confirm-play"):
        assert not any(overlaps(covered, t) for t in toasts), (
            f"{where}: a toast covers the hand or the bids")


@pytest.mark.parametrize(("players", "round_number", "height"),
                         [(3, 20, 664), (3, 19, 844), (6, 5, 664)])
def test_trump_round_and_turn_stay_in_view_on_a_phone(
        open_page: Callable[..., Page], players: int, round_number: int, height: int) -> None:
    page = open_page(f"Phone{players}{height}", viewport=(390, height),
                     has_touch=True, is_mobile=True)
    play_bots(page, players=players, level="easy")
    autoplay_to_round(page, round_number)
    where = f"{players} players, round {round_number}, 390×{height}"
    expect(page.locator(".toast").last).to_be_visible()  # the last round's result
    check_in_view(page, f"{where}, bidding")
    page.locator(".bid-btn:not([disabled])").first.tap()
    card = page.locator(".hand button.playable").first
    expect(card).to_be_visible(timeout=15_000)
    card.tap()
    expect(page.locator("#confirm-play")).to_be_visible()
    check_in_view(page, f"{where}, a card tapped")
    page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    expect(page.locator(".turn-strip")).to_be_visible()
    check_in_view(page, f"{where}, scrolled to the chat")
    page.evaluate("window.scrollTo(0, 0)")
    expect(page.locator(".turn-strip")).to_be_hidden()  # the felt shows it all again
