"""The table is updated in place: a control held (or under the pointer) while an update
arrives that leaves it be is still the one on the page, and clicking it makes the move."""

from __future__ import annotations

from collections.abc import Callable

from playwright.sync_api import ElementHandle, Page, expect

from .helpers import STEP_TIMEOUT_MS, play_bots, play_step
from .test_table import add_bot, create_table


def attached(handle: ElementHandle) -> bool:
    return bool(handle.evaluate("e => e.isConnected"))


def test_a_bid_button_outlives_another_players_update(open_page: Callable[..., Page]) -> None:
    ada = open_page("Ada")
    tid = create_table(ada, players=3)
    add_bot(ada, 2)
    bob = open_page("Bob")
    bob.goto(f"/#/table/{tid}")
    expect(ada.locator(".wait-seat[data-seat='1']")).to_contain_text("Bob")
    ada.click("#start-game")
    expect(ada.locator(".round-info")).to_contain_text("Round 1 of")
    for _ in range(10):  # Bob may bid before Ada
        if ada.locator(".bid-btn:not([disabled])").count():
            break
        if bob.locator(".bid-btn:not([disabled])").count():
            play_step(bob)
        ada.wait_for_timeout(100)
    button = ada.wait_for_selector(".bid-btn:not([disabled])", timeout=STEP_TIMEOUT_MS)
    assert button is not None
    bid = button.get_attribute("data-bid")

    bob.context.close()  # Ada's table hears that Bob went offline, and redraws
    expect(ada.locator(".seat[data-seat='1']")).to_contain_text("offline")
    assert attached(button), "the bid button was thrown away by an update that did not change it"
    button.click()
    expect(ada.locator(".seat.me .stat-bid b")).to_have_text(str(bid))


def test_a_card_held_through_the_bidding_is_played_by_a_click(
        open_page: Callable[..., Page]) -> None:
    ada = open_page("Ada", trick_show_ms=600_000)  # the taken trick stays: no next deal yet
    play_bots(ada, players=3, level="easy")
    card = ada.wait_for_selector(".hand button.card", timeout=STEP_TIMEOUT_MS)
    assert card is not None
    card_id = card.get_attribute("data-card")
    # my bid and the bots' moves arrive as updates; none of them changes my one card
    ada.wait_for_selector(".bid-btn:not([disabled])", timeout=STEP_TIMEOUT_MS)
    ada.locator(".bid-btn:not([disabled])").first.click()
    ada.wait_for_selector(".hand button.playable", timeout=STEP_TIMEOUT_MS)
    assert attached(card), "my card was thrown away by updates that did not change it"
    assert "playable" in (card.get_attribute("class") or "")
    card.click()
    expect(ada.locator(f".trick .card[data-card='{card_id}']")).to_have_count(1)
    expect(ada.locator(f".hand button.card[data-card='{card_id}']")).to_have_count(0)
