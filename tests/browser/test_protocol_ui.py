"""Protocol details a player notices: hidden bids, and a missed update repaired by ``sync``."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from playwright.sync_api import Page, WebSocketRoute, expect

from .helpers import play_step


def start_table(page: Page, *, players: int, hidden_bids: bool) -> None:
    page.goto("/#/")
    page.select_option("#create-players", str(players))
    page.select_option("#create-turn", "0")
    if hidden_bids:
        page.check("#opt-hidden")
    page.click("#create-table")
    page.wait_for_url(re.compile(r"#/table/"))
    for seat in range(1, players):
        page.get_by_role("button", name=f"Add a bot to seat {seat + 1}").click()
    page.click("#start-game")
    expect(page.locator(".round-info")).to_contain_text("Round 1")


def test_hidden_bids_read_bid_placed_until_everyone_has_bid(
        open_page: Callable[..., Page]) -> None:
    page = open_page("Hugo")
    start_table(page, players=3, hidden_bids=True)
    # the first bidder moves round by round: within three rounds a bot bids before me
    placed = page.locator(".seat:not(.me) .stat-bid", has_text="bid placed")
    for _ in range(40):
        page.wait_for_selector(".bid-btn:not([disabled]), .hand button.playable")
        if page.locator(".bid-btn").count() and placed.count():
            break
        play_step(page)
    expect(placed.first).to_be_visible()
    expect(page.locator(".seat:not(.me)[aria-label*='bid placed']").first).to_be_visible()
    play_step(page)  # my bid completes the bidding: every bid is shown as a number
    expect(page.locator(".seat .stat-bid", has_text="bid placed")).to_have_count(0)
    for bid in page.locator(".seat .stat-bid b").all_inner_texts():
        assert bid.isdigit()


def test_a_missed_update_makes_the_client_sync(open_page: Callable[..., Page]) -> None:
    page = open_page()
    sent: list[dict[str, Any]] = []
    dropped: list[int] = []
    sent_before_drop: list[int] = []

    def route(ws: WebSocketRoute) -> None:
        server = ws.connect_to_server()

        def from_page(message: str | bytes) -> None:
            sent.append(json.loads(message))
            server.send(message)

        def from_server(message: str | bytes) -> None:
            data = json.loads(message)
            # drop the first update at v 3 (re-sends after a sync repeat an older v): the
            # next one arrives with a gap in v
            if data.get("type") == "update":
                dropped.append(data["v"])
                if data["v"] == 3 and not sent_before_drop:
                    sent_before_drop.append(len(sent))
                    return
            ws.send(message)

        ws.on_message(from_page)
        server.on_message(from_server)

    page.route_web_socket(re.compile(r".*/ws$"), route)
    page.fill("#name-input", "Ivy")
    page.click("form.name-panel button[type=submit]")
    expect(page.locator("#play-bots")).to_be_visible()
    page.select_option("#bots-players", "3")
    page.click("#play-bots")
    expect(page.locator(".felt")).to_be_visible()
    for _ in range(10):
        if dropped and max(dropped) >= 4:  # v 3 was dropped and a later update came
            break
        play_step(page)
    assert sent_before_drop and max(dropped) >= 4, "the game did not produce enough updates"
    syncs: list[dict[str, Any]] = []
    for _ in range(100):  # at most 5 s
        syncs = [m for m in sent[sent_before_drop[0]:] if m["type"] == "sync"]
        if syncs:
            break
        page.wait_for_timeout(50)
    assert syncs, "the client saw a v gap and did not send sync"
    assert isinstance(syncs[0].get("id"), int)
    play_step(page)  # and the game goes on
