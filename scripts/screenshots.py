"""Take the README's screenshots of the browser client (docs/screenshots/*.png).

Starts its own ``wizard serve`` on a free loopback port (bots at once), drives Debian's
Chromium with Playwright, and writes: lobby.png, table.png (a trick in progress),
scoresheet.png (the score pad and chart after some rounds), game-over.png and phone.png.

    .venv/bin/python scripts/screenshots.py [--url http://127.0.0.1:8000]

With ``--url`` it uses a server that is already running (started with WIZARD_BOT_DELAY=0).
"""

from __future__ import annotations

import argparse
import contextlib
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

from playwright.sync_api import Browser, Page, expect, sync_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.browser.helpers import (  # noqa: E402
    CHROMIUM_ARGS,
    enter_name,
    play_bots,
    play_step,
    play_until,
    running_server,
)

OUT = ROOT / "docs" / "screenshots"


def new_page(browser: Browser, url: str, name: str, size: tuple[int, int] = (1360, 860),
             trick_show_ms: int = 0) -> Page:
    context = browser.new_context(viewport={"width": size[0], "height": size[1]}, base_url=url,
                                  device_scale_factor=1)
    context.set_default_timeout(15_000)
    context.add_init_script(f"window.__WIZARD_CONFIG__ = {{trickShowMs: {trick_show_ms}}}")
    page = context.new_page()
    page.goto("/")
    enter_name(page, name)
    return page


def tidy(page: Page) -> None:
    """Top of the page, no notices, no animation half-way."""
    page.mouse.move(0, 0)
    page.evaluate("() => window.scrollTo(0, 0)")
    page.evaluate("() => document.getElementById('toasts').replaceChildren()")
    page.wait_for_timeout(500)


def shoot(page: Page, name: str, selector: str | None = None) -> None:
    tidy(page)
    if selector is None:
        page.screenshot(path=OUT / name)
        return
    box = page.locator(selector).bounding_box()
    assert box is not None, selector
    page.screenshot(path=OUT / name, full_page=True, clip=box)


def open_table(browser: Browser, url: str, host: str, players: int, bots: int,
               hidden: bool = False) -> Page:
    page = new_page(browser, url, host)
    page.select_option("#create-players", str(players))
    if hidden:
        page.check("#opt-hidden")
    page.click("#create-table")
    page.wait_for_url("**/#/table/*")
    for seat in range(1, bots + 1):
        page.get_by_role("button", name=f"Add a bot to seat {seat + 1}").click()
        expect(page.locator(f".wait-seat[data-seat='{seat}']")).to_contain_text("Bot")
    return page


@contextlib.contextmanager
def server_url(url: str | None) -> Iterator[str]:
    if url:
        yield url.rstrip("/")
        return
    with tempfile.TemporaryDirectory() as tmp, running_server(Path(tmp)) as server:
        yield server.url


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--url", help="use this running server instead of starting one")
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    with server_url(args.url) as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=shutil.which("chromium"),
                                             args=CHROMIUM_ARGS, headless=True)
        try:
            # a finished game first, so the lobby has something under "Recent games"
            finisher = new_page(browser, url, "Morgan")
            play_bots(finisher, players=3, level="hard")
            play_until(finisher, ".end .ranking", 150)
            shoot(finisher, "game-over.png", ".felt-wrap")

            open_table(browser, url, "Lancelot", 4, 1, hidden=True)
            open_table(browser, url, "Vivian", 5, 3)
            lobby = new_page(browser, url, "Ada")
            expect(lobby.locator(".table-row")).to_have_count(2)
            shoot(lobby, "lobby.png")

            page = new_page(browser, url, "Ada", trick_show_ms=0)
            play_bots(page, players=4, level="medium")
            page.fill("#chat-input", "gl hf!")
            page.press("#chat-input", "Enter")
            play_until(page, ".round-info:has-text('Round 5')", 90)
            for _ in range(40):  # a trick in progress with me to play
                if (page.locator(".hand.my-turn").count()
                        and page.locator(".trick .trick-card").count() >= 2):
                    break
                play_step(page)
            shoot(page, "table.png")
            play_until(page, ".round-info:has-text('Round 9')", 120)
            shoot(page, "scoresheet.png", ".score-panel")

            phone = new_page(browser, url, "Eve", size=(390, 844))
            play_bots(phone, players=5)
            play_until(phone, ".round-info:has-text('Round 3')", 60)
            play_until(phone, ".hand.my-turn", 30)
            shoot(phone, "phone.png")
        finally:
            browser.close()
    for path in sorted(OUT.glob("*.png")):
        print(path.relative_to(ROOT))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
