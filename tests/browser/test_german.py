"""The client in German: a browser whose language is German (Playwright's ``locale="de-DE"``)
gets every screen of a short game against bots in German, and no word that only the English
catalog has shows on any of them; a language chosen in the header outlasts a reload and is
applied to the table on screen without losing the game."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from .helpers import ACTIONABLE, STEP_TIMEOUT_MS, Server, play_bots, play_step

I18N = Path(__file__).resolve().parents[2] / "static" / "i18n"
WORD = re.compile(r"[A-Za-zÄÖÜäöüß]{2,}")
#: the game's and the site's names are the same in both languages
SHARED = {"wizard", "online"}
#: player names in this test: not English words
NAMES = {"zora", "quirin"}
ANALYSIS_TIMEOUT_MS = 120_000


def catalog_words(code: str) -> set[str]:
    words: set[str] = set()
    for message in json.loads((I18N / f"{code}.json").read_text()).values():
        for text in message.values() if isinstance(message, dict) else [message]:
            words.update(w.lower() for w in WORD.findall(re.sub(r"\{\w+\}", " ", text)))
    return words


#: words of the English catalog that the German one never uses ("trick", "bid", "the", ...)
ENGLISH_ONLY = catalog_words("en") - catalog_words("de") - SHARED

#: what a person (or a screen reader) gets from the page: its visible text, the labels and
#: tooltips of its elements, placeholders, and the tab's title
PAGE_WORDS = """() => {
  const parts = [document.title, document.body.innerText];
  for (const el of document.querySelectorAll('[aria-label], [title], [placeholder]')) {
    for (const attr of ['aria-label', 'title', 'placeholder']) {
      if (el.hasAttribute(attr)) parts.push(el.getAttribute(attr));
    }
  }
  for (const el of document.querySelectorAll('svg title')) parts.push(el.textContent);
  return parts.join('\\n');
}"""


def assert_german(page: Page, screen: str, seen: set[str]) -> None:
    """No English-only word on the page; `screen` names where we are (kept in `seen`)."""
    text = page.evaluate(PAGE_WORDS)
    english = sorted({w for w in WORD.findall(text)
                      if w.lower() in ENGLISH_ONLY and w.lower() not in NAMES})
    assert english == [], f"English words on the {screen} screen: {english}\n---\n{text[:3000]}"
    seen.add(screen)


def test_the_english_only_words_are_a_sensible_set() -> None:
    assert {"trick", "bid", "round", "the", "your"} <= ENGLISH_ONLY
    assert not ({"bot", "lobby", "chat", "wizard"} & ENGLISH_ONLY)
    assert not (NAMES & (catalog_words("en") | catalog_words("de")))


def test_a_short_game_against_bots_is_german_on_every_screen(
        open_page: Callable[..., Page], server: Server) -> None:
    seen: set[str] = set()
    page = open_page(locale="de-DE", trick_show_ms=400, config={"roundShowMs": 30_000})
    expect(page.locator("html")).to_have_attribute("lang", "de")
    assert_german(page, "welcome", seen)
    page.fill("#name-input", "Zora")
    page.click("form.name-panel button[type=submit]")
    expect(page.locator("#conn")).to_have_attribute("data-state", "open")
    expect(page.locator(".topnav")).to_contain_text("Regeln")
    assert_german(page, "lobby", seen)
    assert page.title() == "Wizard online"

    page.click("#me")
    expect(page.locator("dialog .account-panel")).to_be_visible()
    assert_german(page, "account dialog", seen)
    page.click("dialog .dialog-close")

    page.click("#create-table")
    expect(page.locator(".waiting")).to_be_visible()
    assert_german(page, "waiting room", seen)
    page.click("#leave-table")
    page.wait_for_url(re.compile(r"#/$"))

    page.click(".topnav a[href='#/help']")
    expect(page.locator("#help-title")).to_have_text("So spielt man Wizard")
    assert_german(page, "rules", seen)

    play_bots(page, players=3, level="easy", rounds=2)
    expect(page.locator(".round-info")).to_contain_text("Runde 1 von 2")
    deadline = time.monotonic() + 120
    while not page.locator(".end .ranking").count():
        assert time.monotonic() < deadline, "the game did not end within 120 s"
        page.wait_for_selector(f"{ACTIONABLE}, #summary-continue", timeout=STEP_TIMEOUT_MS)
        if page.locator(".trick-card").count():
            assert_german(page, "trick", seen)
        if page.locator("#summary-continue").count():
            assert_german(page, "round end", seen)
            page.click("#summary-continue")
            expect(page.locator("#summary-continue")).to_have_count(0)
            continue
        if page.locator(".bid-btn:not([disabled])").count():
            assert_german(page, "bidding", seen)
        elif page.locator(".hand button.playable").count():
            assert_german(page, "play", seen)
        if not play_step(page):
            break
    expect(page.locator(".end h2")).to_have_text("Partie vorbei")
    assert_german(page, "game over", seen)

    if not server.history:
        pytest.skip("GET /api/games is not served: no replay or analysis")
    page.goto("/#/games")
    expect(page.locator(".game-row").first).to_be_visible()
    assert_german(page, "recent games", seen)
    page.locator(".game-row").first.get_by_role("link", name=re.compile("nachspielen$")).click()
    expect(page.locator("#replay-step")).to_have_text(re.compile(r"^Schritt 0 von \d+$"))
    page.click("#replay-forward")
    page.click("#replay-trick-forward")
    assert_german(page, "replay", seen)
    page.click("#replay-last")
    expect(page.locator(".end h2")).to_have_text("Endstand")
    assert_german(page, "replay end", seen)
    page.click("#analyse-btn")
    expect(page.locator(".analysis-seat")).to_have_count(1, timeout=ANALYSIS_TIMEOUT_MS)
    assert_german(page, "analysis", seen)
    marked = page.locator(".marked-card button")
    if marked.count():
        marked.first.click()
        expect(page.locator(".step-text .step-note")).to_contain_text("der Meister spielt")
        assert_german(page, "analysis step", seen)
    # the language switched on the replay keeps its step and the analysis shown
    step = page.locator("#replay-step").inner_text()
    page.select_option("#lang", "en")
    expect(page.locator("#analysis-title")).to_have_text("Analysis")
    expect(page.locator("#replay-step")).to_have_text(
        re.sub(r"Schritt (\d+) von (\d+)", r"Step \1 of \2", step))
    expect(page.locator(".analysis-seat")).to_have_count(1)
    page.select_option("#lang", "de")
    expect(page.locator("#analysis-title")).to_have_text("Analyse")

    page.goto("/#/leaderboard")
    expect(page.locator("#leaderboard-title")).to_have_text("Rangliste")
    expect(page.locator("#lb-provisional")).to_be_visible()
    page.check("#lb-provisional")
    expect(page.locator(".lb-table")).to_be_visible()
    assert_german(page, "leaderboard", seen)
    me = page.evaluate("() => window.__wizard.store.me.player_id")
    page.goto(f"/#/player/{me}")
    expect(page.locator("#profile-title")).to_contain_text("Zora")
    assert_german(page, "profile", seen)
    assert seen >= {"welcome", "lobby", "account dialog", "waiting room", "rules", "bidding",
                    "play", "trick", "round end", "game over", "recent games", "replay",
                    "replay end", "analysis", "leaderboard", "profile"}


def test_the_language_chosen_in_the_header_outlasts_a_reload_and_keeps_the_game(
        open_page: Callable[..., Page]) -> None:
    page = open_page("Quirin", locale="en-US")
    expect(page.locator("html")).to_have_attribute("lang", "en")
    expect(page.locator(".topnav")).to_contain_text("Rules")
    play_bots(page, players=3, level="easy")
    page.wait_for_selector(".bid-btn:not([disabled])", timeout=STEP_TIMEOUT_MS)
    url = page.url
    hand = page.locator(".hand button.card").count()
    page.select_option("#lang", "de")
    # the same table, drawn again in German: the game goes on, no reload and no new seat
    expect(page.locator("html")).to_have_attribute("lang", "de")
    expect(page.locator(".round-info")).to_contain_text("Runde 1 von")
    expect(page.locator(".topnav")).to_contain_text("Regeln")
    expect(page.locator("#leave-table")).to_have_text("Tisch verlassen")
    assert page.url == url and page.locator(".hand button.card").count() == hand
    assert play_step(page)  # a bid in German is taken like one in English
    page.reload()
    expect(page.locator("#conn")).to_have_attribute("data-state", "open")
    expect(page.locator("html")).to_have_attribute("lang", "de")
    expect(page.locator(".topnav")).to_contain_text("Regeln")
    expect(page.locator("#lang")).to_have_value("de")
    expect(page.locator(".felt")).to_be_visible()
    page.select_option("#lang", "en")
    expect(page.locator(".topnav")).to_contain_text("Rules")
    expect(page.locator("html")).to_have_attribute("lang", "en")


def test_a_language_switch_keeps_what_was_typed_and_chosen(
        open_page: Callable[..., Page]) -> None:
    page = open_page(None, locale="en-US")
    page.fill("#name-input", "Halbfertig")
    page.select_option("#lang", "de")
    expect(page.locator("html")).to_have_attribute("lang", "de")
    german = json.loads((I18N / "de.json").read_text())
    expect(page.locator("label[for='name-input']")).to_have_text(german["welcome.nameLabel"])
    expect(page.locator("#name-input")).to_have_value("Halbfertig")
    expect(page.locator("#name-input")).to_be_focused()
    page.select_option("#lang", "en")
    page.fill("#name-input", "Quirin")
    page.press("#name-input", "Enter")
    expect(page.locator("#join-id")).to_be_visible()
    # the lobby's forms: half filled in English, still so in German
    page.fill("#join-id", "t_halfway")
    page.select_option("#bots-level", "hard")
    page.select_option("#create-players", "5")
    page.select_option("#lang", "de")
    expect(page.locator(".topnav")).to_contain_text("Regeln")
    expect(page.locator("#join-id")).to_have_value("t_halfway")
    expect(page.locator("#bots-level")).to_have_value("hard")
    expect(page.locator("#create-players")).to_have_value("5")


def test_the_tutorial_speaks_german(open_page: Callable[..., Page]) -> None:
    seen: set[str] = set()
    page = open_page("Zora", locale="de-DE")
    page.click("#tutorial-start")
    page.wait_for_url(re.compile(r"#/table/"))
    panel = page.locator("#tutorial")
    expect(panel).to_have_attribute("data-step", "welcome")
    expect(panel.locator("h2")).to_have_text("Deine erste Partie")
    for _ in range(4):  # the first tips of the lesson, each dismissed in turn
        assert_german(page, f"tutorial {panel.get_attribute('data-step')}", seen)
        step = panel.get_attribute("data-step")
        page.click("#tutorial-next")
        expect(panel).not_to_have_attribute("data-step", step or "")
        if panel.is_hidden():
            break
    assert len(seen) >= 2
