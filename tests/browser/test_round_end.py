"""The end of a trick and of a round, as a player sees it: the last trick resolves on the
round it belongs to, a round summary follows, then the new deal; the caption's grammar;
the trick sweeping to its winner (not with reduced motion); the previous trick on
request; the bid overview; a click on the table does not skip anything."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from playwright.sync_api import Page, expect

from .helpers import play_bots, play_step, play_until

#: Long enough holds to see each stage; short enough for a quick test.
PACED = {"trickShowMs": 900, "roundShowMs": 1500}

# Every change of the table, as the player saw it (duplicates dropped).
RECORDER = """() => {
  window.__seen = [];
  const text = (sel) => {
    const el = document.querySelector(sel);
    return el ? el.textContent : null;
  };
  const snap = () => {
    const trick = document.querySelector('.trick');
    const me = document.querySelector('.seat.me');
    const s = {
      round: text('.round-info'), caption: text('.trick-caption'), trump: text('.trump-text span'),
      summary: text('#round-summary h2'),
      hand: document.querySelectorAll('.hand button.card').length,
      sweep: Boolean(document.querySelector('.trick.sweep')),
      winner: trick && trick.dataset.winner !== undefined ? Number(trick.dataset.winner) : null,
      winnerName: null, me: me ? Number(me.dataset.seat) : null,
    };
    if (s.winner !== null) {
      const seat = document.querySelector(`.seat[data-seat="${s.winner}"] .seat-name-text`);
      s.winnerName = seat ? seat.getAttribute('title') : null;
    }
    const last = window.__seen[window.__seen.length - 1];
    if (!last || JSON.stringify(last) !== JSON.stringify(s)) window.__seen.push(s);
  };
  new MutationObserver(snap).observe(document.getElementById('main'),
    {childList: true, subtree: true, characterData: true, attributes: true});
  snap();
}"""


def seen(page: Page) -> list[dict[str, Any]]:
    states: list[dict[str, Any]] = page.evaluate("() => window.__seen")
    return states


def round_of(state: dict[str, Any]) -> int:
    match = re.match(r"Round (\d+)", state["round"] or "")
    assert match, state
    return int(match.group(1))


def test_a_round_ends_with_its_last_trick_then_a_summary_then_the_new_deal(
        open_page: Callable[..., Page]) -> None:
    page = open_page("Rhea", config=PACED)
    play_bots(page, players=3, level="easy")
    page.evaluate(RECORDER)
    first_trump = page.locator(".trump-text span").inner_text()
    play_step(page)  # the bid
    play_step(page)  # the one card of round 1
    expect(page.locator("#round-summary")).to_be_visible(timeout=15_000)
    # the summary stands over round 1's table: its round, its trump, an empty hand
    summary = page.locator("#round-summary")
    expect(summary).to_contain_text("Round 1 is over")
    expect(summary.locator("tbody tr")).to_have_count(3)
    expect(summary.locator("tr.mine")).to_contain_text("You")
    expect(summary.locator("tr.mine .sum-verdict")).to_have_text(
        re.compile(r"made your bid|missed by \d+"))
    expect(page.locator(".round-info")).to_have_text(re.compile(r"^Round 1 of 20"))
    assert page.locator(".trump-text span").inner_text() == first_trump
    expect(page.locator(".hand button.card")).to_have_count(0)
    # then the new deal
    expect(page.locator(".round-info")).to_contain_text("Round 2 of 20", timeout=10_000)
    expect(summary).to_have_count(0)
    expect(page.locator(".hand button.card")).to_have_count(2)

    states = seen(page)
    held = [s for s in states if s["caption"] or s["summary"]]
    assert any(s["caption"] for s in held) and any(s["summary"] for s in held)
    for state in held:
        # nothing of the next deal while the old trick or the summary is shown
        assert round_of(state) == 1 and state["hand"] == 0, state
        assert state["trump"] == first_trump, state
    order = [("caption" if s["caption"] else "summary" if s["summary"] else
              "deal" if round_of(s) == 2 else "before") for s in states]
    compact = [k for i, k in enumerate(order) if i == 0 or order[i - 1] != k]
    assert compact[-3:] == ["caption", "summary", "deal"] or \
        compact[-4:] == ["caption", "before", "summary", "deal"], compact
    # the trick swept to its winner between the caption and the summary
    assert any(s["sweep"] and s["winner"] is not None for s in states)


def test_the_caption_names_the_winner_in_good_grammar(open_page: Callable[..., Page]) -> None:
    page = open_page("Sol", config={"trickShowMs": 600, "roundShowMs": 0})
    play_bots(page, players=3, level="easy")
    page.evaluate(RECORDER)
    play_until(page, ".round-info:has-text('Round 4')", 60)
    captions = [s for s in seen(page) if s["caption"]]
    assert captions
    for state in captions:
        if state["winner"] == state["me"]:
            assert state["caption"] == "You take the trick", state
        else:
            assert state["caption"] == f"{state['winnerName']} takes the trick", state
    words = page.evaluate("""async () => {
      const felt = await import('/static/js/felt.js');
      return [felt.trickWinnerText('Ada', true), felt.trickWinnerText('Ada', false)];
    }""")
    assert words == ["You take the trick", "Ada takes the trick"]


def test_reduced_motion_shows_no_sweep(open_page: Callable[..., Page]) -> None:
    page = open_page("Tam", config={"trickShowMs": 400, "roundShowMs": 0},
                     reduced_motion="reduce")
    play_bots(page, players=3, level="easy")
    page.evaluate(RECORDER)
    play_until(page, ".round-info:has-text('Round 3')", 60)
    states = seen(page)
    assert any(s["caption"] for s in states)
    assert not any(s["sweep"] for s in states)


def test_last_trick_review_bid_overview_and_no_skip_by_click(
        open_page: Callable[..., Page]) -> None:
    # a trick stays 4 s: the two clicks below must land while it is still on show, even
    # on a loaded machine
    page = open_page("Uma", config={"trickShowMs": 4000, "roundShowMs": 0})
    play_bots(page, players=3, level="easy")
    expect(page.locator("#last-trick")).to_be_disabled()  # no trick yet this round
    play_step(page)  # round 1: the bid
    play_step(page)  # and the one card
    expect(page.locator(".round-info")).to_contain_text("Round 2", timeout=15_000)
    page.wait_for_selector(".bid-btn:not([disabled])")
    play_step(page)  # my bid in round 2
    play_until(page, ".hand.my-turn, .trick-caption", 30)
    bids = [int(t) for t in page.locator(".seat .stat-bid b").all_inner_texts()]
    total = sum(bids)
    verdict = f"{total - 2} over" if total > 2 else f"{2 - total} under" if total < 2 else "even"
    expect(page.locator("#bid-total")).to_have_text(f"Bids: {total} of 2 ({verdict})")

    # the first trick of round 2 completes; a click on the table does not skip its display
    play_until(page, ".trick-caption", 30)
    page.locator(".felt").click(position={"x": 20, "y": 20})
    page.locator(".trick").click(force=True)
    expect(page.locator(".trick-caption")).to_be_visible(timeout=100)
    winner = page.locator(".trick").get_attribute("data-winner")
    expect(page.locator(".trick-caption")).to_have_count(0, timeout=10_000)

    # now the previous trick can be looked at again, as long as wanted
    review = page.locator("#last-trick")
    expect(review).to_be_enabled()
    review.click()
    panel = page.locator("#last-trick-panel")
    expect(panel.locator(".review-cards li")).to_have_count(3)
    expect(panel.locator(".review-cards li.winner")).to_have_attribute("data-seat", str(winner))
    expect(panel.locator(".review-winner")).to_have_text(re.compile(r"^(You|.+) took the trick\.$"))
    page.keyboard.press("Escape")
    expect(panel).to_have_count(0)
    page.keyboard.press("l")
    expect(panel).to_be_visible()
