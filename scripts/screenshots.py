"""Take the README's screenshots of the browser client (docs/screenshots/*.png).

Starts its own ``wizard serve`` on a free loopback port (bots at once), drives Debian's
Chromium with Playwright, and writes: lobby.png, table.png (a trick in progress),
round-summary.png (the end of a round), last-trick.png (the previous trick on request),
scoresheet.png (the score pad and chart after some rounds), game-over.png, phone.png,
phone-bidding.png (the last round's bid on a phone), help.png (the rules page),
leaderboard.png (provisional ratings shown) and profile.png (a player's rating history).

    .venv/bin/python scripts/screenshots.py [--url http://127.0.0.1:8000] [--locale de-DE]

With ``--url`` it uses a server that is already running (started with WIZARD_BOT_DELAY=0).
With ``--locale`` the browser asks for that language (the client follows the browser's
locale) and the pictures go to docs/screenshots/<language>/ (e.g. de/) unless ``--out``
says where; the steps find their way by the page's structure and state, not its words.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from playwright.sync_api import Browser, Page, expect, sync_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.browser.helpers import (  # noqa: E402
    CHROMIUM_ARGS,
    TEST_CONFIG,
    autoplay_to_round,
    enter_name,
    play_bots,
    play_step,
    play_until,
    running_server,
)

SCREENSHOTS = ROOT / "docs" / "screenshots"
OUT = SCREENSHOTS  # where this run writes (main sets it from --out / --locale)
LOCALE: str | None = None  # the browser's locale (--locale); None: Chromium's default

#: The round and trick the table shows, from the page's store (test hooks): ``[round, trick]``.
_ROUND_TRICK = """() => {
  const m = location.hash.match(/^#\\/table\\/([^/]+)/);
  const game = m && window.__wizard.store.games.get(decodeURIComponent(m[1]));
  const o = game && game.shown && game.shown.observation;
  return o ? [o.round_number, o.phase === 'playing' ? o.trick_number : 0] : [0, 0];
}"""


def new_page(browser: Browser, url: str, name: str, size: tuple[int, int] = (1360, 860),
             trick_show_ms: int = 0, **config: int) -> Page:
    context = browser.new_context(viewport={"width": size[0], "height": size[1]}, base_url=url,
                                  device_scale_factor=1, locale=LOCALE)
    context.set_default_timeout(15_000)
    settings = {**TEST_CONFIG, "trickShowMs": trick_show_ms, **config}
    context.add_init_script(f"window.__WIZARD_CONFIG__ = {json.dumps(settings)}")
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


def play_to_round(page: Page, round_number: int, timeout_s: float, trick: int = 0) -> None:
    """Click moves until the table shows round ``round_number`` (and its trick ``trick``)."""
    play_until_true(page, lambda: page.evaluate(_ROUND_TRICK) >= [round_number, trick], timeout_s)


def play_until_true(page: Page, done: Callable[[], bool], timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while not done():
        assert time.monotonic() < deadline, f"not there within {timeout_s} s"
        if not play_step(page):
            break


def open_table(browser: Browser, url: str, host: str, players: int, bots: int,
               hidden: bool = False) -> Page:
    page = new_page(browser, url, host)
    page.select_option("#create-players", str(players))
    if hidden:
        page.check("#opt-hidden")
    page.click("#create-table")
    page.wait_for_url("**/#/table/*")
    for seat in range(1, bots + 1):
        page.click(f".wait-seat.wait-empty[data-seat='{seat}'] .seat-controls button")
        expect(page.locator(f".wait-seat.wait-bot[data-seat='{seat}']")).to_have_count(1)
    return page


def short_game(page: Page, level: str) -> None:
    """A two-round game against two bots, played to its rating change."""
    page.goto("/#/")
    page.select_option("#bots-players", "3")
    page.select_option("#bots-level", level)
    page.select_option("#bots-length", "short")
    page.fill("#bots-rounds", "2")
    page.click("#play-bots")
    page.wait_for_url("**/#/table/*")
    play_until(page, ".end .ranking", 60)
    expect(page.locator("#rating-change .rc-after")).to_be_visible()


def rating_shots(browser: Browser, url: str, morgan: Page) -> None:
    """A few more rated games, then the leaderboard (provisional shown) and Morgan's profile."""
    percival = new_page(browser, url, "Percival")
    for level in ("easy", "medium", "easy"):
        short_game(percival, level)
    for level in ("easy", "medium", "hard", "easy", "medium"):
        short_game(morgan, level)
    morgan.goto("/#/leaderboard")
    morgan.check("#lb-provisional")
    expect(morgan.locator(".lb-table tbody tr")).to_have_count(5)
    shoot(morgan, "leaderboard.png")
    me = morgan.evaluate("() => window.__wizard.store.me.player_id")
    morgan.goto(f"/#/player/{me}")
    expect(morgan.locator("svg.rating-chart circle")).to_have_count(6)
    shoot(morgan, "profile.png")
    morgan.goto("/#/")


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
    parser.add_argument("--locale", help="the browser's locale, e.g. de-DE (default: Chromium's)")
    parser.add_argument("--out", type=Path,
                        help="where the pictures go (default docs/screenshots, with --locale "
                             "docs/screenshots/<language>)")
    args = parser.parse_args()
    global OUT, LOCALE
    LOCALE = args.locale
    language = args.locale.split("-")[0].lower() if args.locale else None
    OUT = args.out or (SCREENSHOTS / language if language else SCREENSHOTS)
    OUT.mkdir(parents=True, exist_ok=True)
    with server_url(args.url) as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=shutil.which("chromium"),
                                             args=CHROMIUM_ARGS, headless=True)
        try:
            # a finished game first, so the lobby has something under "Recent games"
            # (a game against bots is listed for its own player only)
            finisher = new_page(browser, url, "Morgan")
            play_bots(finisher, players=3, level="hard")
            autoplay_to_round(finisher, 20, timeout_s=120)
            play_until(finisher, ".end .ranking", 60)
            shoot(finisher, "game-over.png", ".felt-wrap")

            open_table(browser, url, "Lancelot", 4, 1, hidden=True)
            open_table(browser, url, "Vivian", 5, 3)
            finisher.goto("/#/")
            expect(finisher.locator(".table-list .table-row")).to_have_count(2)
            expect(finisher.locator(".history-box .game-row")).to_have_count(1)
            shoot(finisher, "lobby.png")

            rating_shots(browser, url, finisher)

            # the end of round 1 held on screen, then the previous trick of round 2
            paced = new_page(browser, url, "Nimue", trick_show_ms=300, roundShowMs=600_000)
            play_bots(paced, players=4, level="medium")
            play_step(paced)  # the bid
            play_step(paced)  # the card
            expect(paced.locator("#round-summary")).to_be_visible()
            shoot(paced, "round-summary.png")
            paced.click("#summary-continue")
            play_to_round(paced, 2, 30, trick=2)  # until round 2's first trick is taken
            expect(paced.locator("#last-trick")).to_be_enabled()
            paced.click("#last-trick")
            expect(paced.locator("#last-trick-panel")).to_be_visible()
            shoot(paced, "last-trick.png")

            help_page = new_page(browser, url, "Ada", size=(1100, 1300))
            help_page.goto("/#/help")
            expect(help_page.locator("#help-title")).to_be_visible()
            shoot(help_page, "help.png")

            page = new_page(browser, url, "Ada", trick_show_ms=0)
            play_bots(page, players=4, level="medium")
            page.fill("#chat-input", "gl hf!")
            page.press("#chat-input", "Enter")
            play_to_round(page, 5, 90)
            for _ in range(40):  # a trick in progress with me to play
                if (page.locator(".hand.my-turn").count()
                        and page.locator(".trick .trick-card").count() >= 2):
                    break
                play_step(page)
            shoot(page, "table.png")
            play_to_round(page, 9, 120)
            shoot(page, "scoresheet.png", ".score-panel")

            phone = new_page(browser, url, "Eve", size=(390, 844))
            play_bots(phone, players=5)
            play_to_round(phone, 3, 60)
            play_until(phone, ".hand.my-turn", 30)
            shoot(phone, "phone.png")

            late = new_page(browser, url, "Gawain", size=(390, 844))
            play_bots(late, players=3, level="easy")
            autoplay_to_round(late, 20, timeout_s=120)
            shoot(late, "phone-bidding.png")
        finally:
            browser.close()
    for path in sorted(OUT.glob("*.png")):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
