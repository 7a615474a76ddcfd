"""What a player does in the browser, as small bounded steps the tests share."""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from playwright.sync_api import ElementHandle, Page, expect
from playwright.sync_api import Error as PlaywrightError

from .. import serve

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]

#: The client's settings every test page gets (``window.__WIZARD_CONFIG__``): ``testHooks``
#: exposes the page's socket and store as ``window.__wizard`` (a player's page has no such
#: object), which `autoplay_to_round` and some tests use.
TEST_CONFIG: dict[str, object] = {"testHooks": True}

#: Anything the player can act on now, or the end of the game.
ACTIONABLE = ".bid-btn:not([disabled]), .hand button.playable, .suit-btn, .end .ranking"
STEP_TIMEOUT_MS = 15_000


@dataclass
class Server:
    url: str
    log_path: Path
    history: bool  # does the server answer GET /api/games (the persistence issue)?


@contextlib.contextmanager
def running_server(tmp: Path) -> Iterator[Server]:
    """``wizard serve`` on a free loopback port, bots at once, its database under ``tmp``."""
    log_path = tmp / "server.log"
    with serve.running_server(log_path, WIZARD_DB=str(tmp / "wizard.db"),
                              WIZARD_TABLES_BROADCAST="0.1") as url:
        yield Server(url, log_path, history=serve.http_status(f"{url}/api/games?limit=1") == 200)


def enter_name(page: Page, name: str) -> None:
    page.fill("#name-input", name)
    page.click("form.name-panel button[type=submit]")
    expect(page.locator("#conn")).to_have_attribute("data-state", re.compile("open|reconnected"))


def play_bots(page: Page, players: int = 4, level: str = "medium",
              rounds: int | None = None) -> str:
    """Start a game against bots from the lobby (a short game of ``rounds`` when given);
    returns the table id from the URL."""
    page.goto("/#/")
    page.select_option("#bots-players", str(players))
    page.select_option("#bots-level", level)
    if rounds is not None:
        page.select_option("#bots-length", "short")
        page.fill("#bots-rounds", str(rounds))
    page.click("#play-bots")
    page.wait_for_url(re.compile(r"#/table/"))
    expect(page.locator(".felt")).to_be_visible()
    return table_id(page)


def table_id(page: Page) -> str:
    return page.url.split("#/table/", 1)[1]


class Observed:
    """What a click-through saw along the way (for assertions about the whole game)."""

    def __init__(self) -> None:
        self.actions = 0
        self.forbidden_bid_explained = 0
        self.illegal_cards_shown = 0


#: What decision the table shows (round, phase, trick, whose turn, who has bid, my hand's
#: size), read from the page's store (test hooks); null without them or off a table.
_DECISION = """() => {
  const w = window.__wizard;
  const m = location.hash.match(/^#\\/table\\/([^/]+)/);
  const game = w && m ? w.store.games.get(decodeURIComponent(m[1])) : null;
  const o = game && game.shown && game.shown.observation;
  return o ? JSON.stringify([o.round_number, o.phase, o.trick_number, o.current_player, o.has_bid,
                             (o.hand || []).length]) : null;
}"""

#: The move is taken once the clicked control is gone (removed or hidden) or the table shows
#: another decision: the table is redrawn in place (patch.js), so a control that is the same
#: in the next decision (bid 0 in the next round, a trump button) stays on the page.
_TAKEN = f"""([control, before]) => !control.isConnected || !control.getClientRects().length
  || ({_DECISION})() !== before"""


def click_move(page: Page, target: ElementHandle) -> bool:
    """Click a move's control and wait (bounded) until the move is taken: the control is
    gone or the table shows the next decision. False when the control was redrawn before
    the click could land (look it up again)."""
    before = page.evaluate(_DECISION)
    try:
        target.click(timeout=STEP_TIMEOUT_MS)
    except PlaywrightError as exc:
        if "not attached" not in str(exc):
            raise
        return False
    page.wait_for_function(_TAKEN, arg=[target, before], timeout=STEP_TIMEOUT_MS)
    return True


def play_step(page: Page, seen: Observed | None = None) -> bool:
    """Make one move by clicking (a legal bid, the first playable card, a trump suit).

    Returns False when the game is over. Waits (bounded) until the move is taken: the
    clicked control is gone or the table shows the next decision. A control redrawn between
    finding and clicking it (another update came in) is looked up again, a few times.
    """
    for _ in range(5):
        target = page.wait_for_selector(ACTIONABLE, timeout=STEP_TIMEOUT_MS)
        assert target is not None
        if page.locator(".end .ranking").count():
            return False
        if seen is not None:
            if page.locator(".bid-btn[disabled]").count():
                expect(page.locator("#bid-why")).to_contain_text("may not bid")
                seen.forbidden_bid_explained += 1
            if page.locator(".hand button.illegal").count():
                seen.illegal_cards_shown += 1
        if not click_move(page, target):
            continue
        if seen is not None:
            seen.actions += 1
        return True
    raise AssertionError("the controls kept being redrawn before they could be clicked")


def play_until(page: Page, done: str, timeout_s: float, seen: Observed | None = None) -> None:
    """Click moves until the selector ``done`` is on the page (bounded by ``timeout_s``)."""
    deadline = time.monotonic() + timeout_s
    while not page.locator(done).count():
        assert time.monotonic() < deadline, f"{done!r} did not appear within {timeout_s} s"
        if not play_step(page, seen):
            break


def hand_ids(page: Page) -> list[int]:
    return [int(x) for x in page.locator(".hand button.card").evaluate_all(
        "els => els.map(e => e.dataset.card)")]


def round_info(page: Page) -> str:
    return page.locator(".round-info").inner_text()


def ranking(page: Page) -> list[tuple[int, int]]:
    """``[(seat, score), ...]`` of the final ranking, best first."""
    rows = page.locator(".end .ranking li").evaluate_all(
        "els => els.map(e => [Number(e.dataset.seat), Number(e.dataset.score)])")
    return [(seat, score) for seat, score in rows]


#: In-page autopilot: plays the first legal action for me until round ``round`` asks me to
#: bid (or the game ends). It talks to the server through the client's own socket, so a
#: late round is reached in seconds instead of a click per card.
_AUTOPILOT = """async ([round, deadlineMs]) => {
  const w = window.__wizard;
  const tid = decodeURIComponent(location.hash.split('/').pop());
  const until = performance.now() + deadlineMs;
  while (performance.now() < until) {
    const game = w.store.games.get(tid);
    const latest = game && (game.queue.length ? game.queue[game.queue.length - 1] : game.shown);
    const obs = latest && latest.observation;
    if (obs) {
      if (obs.phase === 'finished') return 'finished';
      const mine = obs.current_player === obs.player && obs.legal_actions.length;
      if (obs.round_number >= round && obs.phase === 'bidding' && mine) return 'bidding';
      if (obs.round_number > round) return 'passed';
      if (mine) {
        const action = obs.legal_actions[0];
        try { await w.socket.request({type: 'act', table_id: tid, action}); } catch (e) {}
        continue;
      }
    }
    await new Promise((r) => setTimeout(r, 15));
  }
  return 'timeout';
}"""


def autoplay_to_round(page: Page, round_number: int, timeout_s: float = 60) -> None:
    """Play (through the page's socket) until round ``round_number`` asks me to bid."""
    result = page.evaluate(_AUTOPILOT, [round_number, timeout_s * 1000])
    assert result == "bidding", f"did not reach the bidding of round {round_number}: {result}"
    page.wait_for_selector(".bid-btn:not([disabled])", timeout=STEP_TIMEOUT_MS)
