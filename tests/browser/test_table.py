"""At the table: two people and bots, a spectator, a reload mid-round, a lost connection."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from playwright.sync_api import Page, WebSocket, expect

from .helpers import hand_ids, play_bots, play_step, play_until, round_info, table_id


def record_updates(page: Page) -> list[dict[str, Any]]:
    """Every ``update`` the page receives on its websocket (to check what it was sent).

    The page is reloaded so that its next websocket, the one recorded, is a fresh one
    (the saved token puts the player back).
    """
    updates: list[dict[str, Any]] = []

    def on_socket(ws: WebSocket) -> None:
        def on_frame(payload: str | bytes) -> None:
            message = json.loads(payload)
            if message.get("type") == "update":
                updates.append(message)

        ws.on("framereceived", on_frame)

    page.on("websocket", on_socket)
    page.reload()
    expect(page.locator("#conn")).to_have_attribute("data-state", "open")
    return updates


def create_table(page: Page, *, players: int, private: bool = False) -> str:
    page.goto("/#/")
    page.select_option("#create-players", str(players))
    page.select_option("#create-turn", "0")
    if private:
        page.check("#opt-private")
    page.click("#create-table")
    page.wait_for_url(re.compile(r"#/table/"))
    expect(page.locator(".waiting")).to_be_visible()
    return table_id(page)


def add_bot(page: Page, seat: int, level: str = "easy") -> None:
    row = page.locator(f".wait-seat[data-seat='{seat}']")
    row.get_by_label(f"Bot level for seat {seat + 1}").select_option(level)
    row.get_by_role("button", name=f"Add a bot to seat {seat + 1}").click()
    expect(row).to_contain_text(f"Bot ({level})")


def test_two_players_at_one_table_each_see_only_their_own_hand(
        open_page: Callable[..., Page]) -> None:
    ada = open_page("Ada")
    ada_updates = record_updates(ada)
    create_table(ada, players=4, private=True)
    add_bot(ada, 2, "hard")
    add_bot(ada, 3, "master")
    expect(ada.locator("#start-game")).to_be_disabled()
    expect(ada.locator("#start-why")).to_contain_text("1 open seat")
    invite = ada.locator("#invite-link").input_value()
    # a private table's link carries its invite: the table id alone opens nothing
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+/#/table/t_[\w-]+/[\w-]{22}", invite)

    bob = open_page("Bob")
    bob_updates = record_updates(bob)
    bob.goto(invite.rsplit("/", 1)[0])
    expect(bob.get_by_role("alert")).to_contain_text("private")
    bob.goto(invite)
    expect(bob.locator(".wait-seat[data-seat='1']")).to_contain_text("Bob")
    expect(bob.locator(".waiting")).to_contain_text("Waiting for Ada to start")
    expect(bob.locator("#start-game")).to_have_count(0)  # only the host starts
    expect(ada.locator(".wait-seat[data-seat='1']")).to_contain_text("Bob")

    ada.click("#start-game")
    for page in (ada, bob):
        expect(page.locator(".round-info")).to_contain_text("Round 1 of 15")
        expect(page.locator(".hand button.card")).to_have_count(1)
        expect(page.locator(".seat")).to_have_count(4)
    ada_cards, bob_cards = hand_ids(ada), hand_ids(bob)
    assert set(ada_cards).isdisjoint(bob_cards)
    # each sits at the bottom of its own view, the other one elsewhere at the table
    expect(ada.locator(".seat.me")).to_contain_text("Ada")
    expect(bob.locator(".seat.me")).to_contain_text("Bob")
    # and neither browser was ever sent the other's hand
    assert ada_updates and bob_updates
    assert all(u["observation"]["player"] == 0 for u in ada_updates)
    assert all(u["observation"]["player"] == 1 for u in bob_updates)
    bob_seen = {c["id"] for u in bob_updates for c in u["observation"]["hand"]}
    assert not bob_seen & set(ada_cards)

    # chat reaches the other player
    ada.fill("#chat-input", "good luck, Bob!")
    ada.press("#chat-input", "Enter")
    expect(bob.locator(".chat-lines")).to_contain_text("Ada good luck, Bob!")

    # both play round 1 by clicking; round 2 deals two cards to each
    for _ in range(20):
        if "Round 2" in round_info(ada):
            break
        for page in (ada, bob):
            if page.locator(".bid-btn:not([disabled]), .hand button.playable").count():
                play_step(page)
        ada.wait_for_timeout(100)
    expect(ada.locator(".round-info")).to_contain_text("Round 2 of 15")
    expect(bob.locator(".hand button.card")).to_have_count(2)


def test_spectator_sees_the_table_but_no_hand(open_page: Callable[..., Page]) -> None:
    host = open_page("Host")
    tid = create_table(host, players=3)
    add_bot(host, 1)
    add_bot(host, 2)

    watcher = open_page("Watcher")
    updates = record_updates(watcher)
    watcher.goto("/#/")
    row = watcher.locator(f".table-row[data-table='{tid}']")
    expect(row).to_contain_text("Host's table")  # the lobby list is live
    host.click("#start-game")
    expect(row).to_contain_text("in play")
    row.get_by_role("button", name="Watch Host's table").click()
    watcher.wait_for_url(re.compile(r"#/watch/"))
    expect(watcher.locator(".felt")).to_be_visible()
    expect(watcher.locator(".seat")).to_have_count(3)
    expect(watcher.locator(".watching-note")).to_contain_text("You are watching")
    expect(watcher.locator(".hand")).to_have_count(0)
    expect(watcher.locator(".bid-btn")).to_have_count(0)
    # the host plays on; the spectator follows, and never receives a hand
    play_until(host, ".trick-card", 20)
    expect(watcher.locator(".trick-card").first).to_be_visible()
    assert updates and all(u["observation"]["hand"] == [] for u in updates)
    assert all(u["observation"]["player"] is None for u in updates)


def test_reload_in_the_middle_of_a_round_and_continue(open_page: Callable[..., Page]) -> None:
    # the client's default pacing: a completed trick stays on screen for a moment
    page = open_page("Cleo", trick_show_ms=None)
    tid = play_bots(page, players=3, level="medium")
    # round 1 by keyboard: a digit bids, Enter plays the focused card
    page.wait_for_selector(".bid-btn:not([disabled])")
    legal = page.locator(".bid-btn:not([disabled])").first.get_attribute("data-bid")
    page.keyboard.press(str(legal))
    expect(page.locator(".bids")).to_have_count(0, timeout=15_000)
    play_until(page, ".hand button.playable, .round-info:has-text('Round 2')", 20)
    if page.locator(".hand button.playable").count():
        page.locator(".hand button.playable").first.focus()
        page.keyboard.press("Enter")
    # the completed trick is shown with its winner before it is collected
    expect(page.locator(".trick-caption")).to_contain_text("the trick")
    expect(page.locator(".trick.completed .trick-card.winner")).to_have_count(1)
    # into round 3 (3 cards each) and one card played: the middle of a round
    play_until(page, ".round-info:has-text('Round 3')", 60)
    # my bid (unless the last step already made it), then exactly one card: playing
    # "until my turn" could play two, as a card is clicked whenever it is my turn
    for _ in range(3):
        if len(hand_ids(page)) < 3:
            break
        play_step(page)
    before_hand, before_round = hand_ids(page), round_info(page)
    before_scores = page.locator(".seat .stat-score b").all_inner_texts()
    assert len(before_hand) == 2

    page.reload()
    expect(page.locator("#name-input")).to_have_count(0)  # the name was kept
    expect(page.locator(".felt")).to_be_visible()
    assert table_id(page) == tid
    expect(page.locator(".hand button.card")).to_have_count(len(before_hand))
    assert hand_ids(page) == before_hand
    assert page.locator(".seat .stat-score b").all_inner_texts() == before_scores
    assert round_info(page).split(" · ")[0] == before_round.split(" · ")[0]
    # and the game goes on from there
    play_until(page, ".round-info:has-text('Round 4')", 60)
    expect(page.locator(".hand button.card")).to_have_count(4)


def test_a_lost_connection_shows_reconnecting_then_reconnected(
        open_page: Callable[..., Page]) -> None:
    page = open_page("Dora")
    play_bots(page, players=3)
    cards = hand_ids(page)
    conn = page.locator("#conn")
    expect(conn).to_have_attribute("data-state", "open")
    page.evaluate("() => window.__wizard.socket.ws.close()")
    expect(conn).to_have_attribute("data-state", "reconnecting")
    expect(conn).to_contain_text("Reconnecting")
    expect(conn).to_have_attribute("data-state", "reconnected")
    expect(conn).to_contain_text("Reconnected")
    assert hand_ids(page) == cards
    play_step(page)  # still playing after the reconnect


def test_phone_width_table_fits_and_plays(open_page: Callable[..., Page]) -> None:
    page = open_page("Eve", viewport=(390, 844))
    play_bots(page, players=5)
    play_until(page, ".round-info:has-text('Round 2')", 30)
    expect(page.locator(".hand button.card")).to_have_count(2)
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 390, f"the page scrolls sideways on a phone: {width}px wide"
    for seat in page.locator(".seat").all():
        box = seat.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390
    play_step(page)
