"""The round summary as a player sees it: opaque over the table (nothing of the seat panels
behind it prints through, not even while it comes in), and placed on the felt so that it
hides nothing a player still needs (the trump, the round, the bids so far, the controls)."""

from __future__ import annotations

import io
import os
from collections.abc import Callable

import numpy as np
import pytest
from PIL import Image
from playwright.sync_api import FloatRect, Locator, Page, expect

from .helpers import play_bots, play_step, play_until

#: The summary stays until Continue (long hold); tricks resolve at once.
HOLD = {"trickShowMs": 0, "roundShowMs": 600_000}
VIEWPORTS = {"desktop": (1280, 800), "phone": (390, 844)}
SEATS_VISIBILITY = """(value) => {
  for (const seat of document.querySelectorAll('.felt .seat')) seat.style.visibility = value;
}"""
#: Opacity values below 1 in the keyframes of the summary's entrance animation.
FADING_KEYFRAMES = """(el) => {
  const name = getComputedStyle(el).animationName;
  const faded = [];
  for (const sheet of document.styleSheets) {
    for (const rule of sheet.cssRules) {
      if (rule.type !== CSSRule.KEYFRAMES_RULE || rule.name !== name) continue;
      for (const frame of rule.cssRules) {
        const opacity = frame.style.opacity;
        if (opacity !== '' && Number(opacity) < 1) faded.push(`${frame.keyText} ${opacity}`);
      }
    }
  }
  return faded;
}"""
#: What the player still needs while the summary is shown: none of it may be under the summary.
NEEDED = (".table-head", ".trump", ".round-info", "#bid-total", "#last-trick", ".action-bar")


def opaque_parts(page: Page, summary: Locator) -> list[bytes]:
    """Screenshots of the summary as a cross: its rounded corners, and the outermost pixel of
    its border (anti-aliased where the box sits between pixels), show the table behind it."""
    box = summary.bounding_box()
    assert box is not None
    r = 18  # the border radius, and a pixel or two of its anti-aliasing
    x, y, w, h = box["x"] + 1, box["y"] + 1, box["width"] - 2, box["height"] - 2
    across = FloatRect(x=x, y=y + r, width=w, height=h - 2 * r)
    down = FloatRect(x=x + r, y=y, width=w - 2 * r, height=h)
    return [page.screenshot(clip=clip, animations="disabled") for clip in (across, down)]


def overlaps(a: FloatRect, b: FloatRect) -> bool:
    return (a["x"] < b["x"] + b["width"] and b["x"] < a["x"] + a["width"]
            and a["y"] < b["y"] + b["height"] and b["y"] < a["y"] + a["height"])


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_the_round_summary_is_opaque_and_hides_nothing_needed(
        open_page: Callable[..., Page], players: int) -> None:
    page = open_page("Opal", config=HOLD, viewport=VIEWPORTS["desktop"])
    play_bots(page, players=players, level="easy")
    play_step(page)  # the bid of round 1
    play_step(page)  # its one card
    summary = page.locator("#round-summary")
    expect(summary).to_be_visible(timeout=15_000)
    assert summary.evaluate(FADING_KEYFRAMES) == [], "the summary fades in over the seats"
    dump = os.environ.get("SUMMARY_SHOTS")  # a folder: look at the pages
    for label, (width, height) in VIEWPORTS.items():
        page.set_viewport_size({"width": width, "height": height})
        page.evaluate("() => document.getAnimations().forEach((a) => a.finish())")
        if dump:
            page.screenshot(path=f"{dump}/{players}-{label}.png")
        shown = opaque_parts(page, summary)
        page.evaluate(SEATS_VISIBILITY, "hidden")
        hidden = opaque_parts(page, summary)
        page.evaluate(SEATS_VISIBILITY, "")
        case = f"{players} players, {label}"
        assert shown == hidden, f"the seat panels show through the summary ({case})"

        box = summary.bounding_box()
        assert box is not None
        assert box["x"] >= 0 and box["x"] + box["width"] <= width, (label, box)
        for selector in NEEDED:
            needed = page.locator(selector)
            if not needed.count():
                continue
            other = needed.bounding_box()
            assert other is not None
            assert not overlaps(box, other), f"the summary covers {selector} ({case})"


def changed_pixels(before: bytes, after: bytes) -> int:
    """How many pixels differ between two PNG screenshots of the same size."""
    a, b = (np.asarray(Image.open(io.BytesIO(png)).convert("RGB")) for png in (before, after))
    return int((a != b).any(axis=2).sum())


def test_the_game_over_panel_is_opaque_over_the_seats(open_page: Callable[..., Page]) -> None:
    # With the panel 95 % opaque, hiding the seats behind it changed 60,000 of its pixels;
    # opaque, a handful change (the compositor's rounding at translucent rounded corners).
    page = open_page("Opaline", config={"trickShowMs": 0, "roundShowMs": 0},
                     viewport=VIEWPORTS["desktop"])
    play_bots(page, players=5, level="easy", rounds=1)
    play_until(page, ".end .ranking", 60)
    panel = page.locator(".end")
    for label, (width, height) in VIEWPORTS.items():
        page.set_viewport_size({"width": width, "height": height})
        page.evaluate("() => document.getAnimations().forEach((a) => a.finish())")
        box = panel.bounding_box()
        assert box is not None
        inset = 20  # past the rounded corners and the anti-aliased border
        clip = FloatRect(x=box["x"] + inset, y=box["y"] + inset,
                         width=box["width"] - 2 * inset, height=box["height"] - 2 * inset)
        shown = page.screenshot(clip=clip, animations="disabled")
        page.evaluate(SEATS_VISIBILITY, "hidden")
        hidden = page.screenshot(clip=clip, animations="disabled")
        page.evaluate(SEATS_VISIBILITY, "")
        changed = changed_pixels(shown, hidden)
        area = clip["width"] * clip["height"]
        assert changed < 0.002 * area, (
            f"the seat panels show through the game-over panel ({label}: {changed} pixels)")
