"""The client's test hooks: only a page the tests open exposes its socket and store."""

from __future__ import annotations

from collections.abc import Callable

from playwright.sync_api import Page


def test_a_players_page_keeps_its_socket_and_store_to_itself(
        open_page: Callable[..., Page]) -> None:
    player = open_page("Pia", config={"testHooks": False})  # as a player's browser loads it
    assert player.evaluate("() => typeof window.__wizard") == "undefined"
    tester = open_page("Tess")  # the tests' pages set testHooks
    assert tester.evaluate("() => typeof window.__wizard.socket.request") == "function"
    assert tester.evaluate("() => window.__wizard.store.me.name") == "Tess"
