"""Around the game: long names, a dropped network, toasts, a blank name, the score sheet,
"your turn" outside the page, rules and tooltips, bot games without a clock, touch play,
and chat that survives a reload and reaches spectators."""

from __future__ import annotations

import re
from collections.abc import Callable

from playwright.sync_api import Locator, Page, expect

from .helpers import autoplay_to_round, play_bots, play_step
from .test_table import add_bot, create_table

LONG = "W" * 32  # the longest name allowed, without a space to break it


def inside(inner: Locator, outer: Locator) -> bool:
    a, b = inner.bounding_box(), outer.bounding_box()
    assert a is not None and b is not None
    return (a["x"] >= b["x"] - 0.5 and a["y"] >= b["y"] - 0.5
            and a["x"] + a["width"] <= b["x"] + b["width"] + 0.5
            and a["y"] + a["height"] <= b["y"] + b["height"] + 0.5)


def truncated(element: Locator) -> bool:
    """Cut: wider than its box, or (a seat's name on two lines, clamped) taller."""
    return bool(element.evaluate(
        "e => e.scrollWidth > e.clientWidth || e.scrollHeight > e.clientHeight"))


def test_long_names_are_cut_with_an_ellipsis_everywhere(open_page: Callable[..., Page]) -> None:
    host = open_page(LONG, viewport=(1280, 800))
    table_id = create_table(host, players=3)
    me = host.locator("#me")
    assert inside(me, host.locator(".topbar")) and truncated(me)
    assert me.get_attribute("title") == f"{LONG}: change your name"

    guest = open_page("Ann", viewport=(1280, 800))
    row = guest.locator(f".table-row[data-table='{table_id}']")
    expect(row).to_be_visible()
    panel = guest.locator(".tables-panel")
    for button in ("Join", "Watch"):
        control = row.get_by_role("button", name=re.compile(f"^{button}"))
        expect(control).to_be_visible()
        assert inside(control, panel), f"the {button} button is pushed out of the table list"
    chip = row.locator(".chip-player")
    assert chip.get_attribute("title") == LONG and truncated(chip)
    assert guest.evaluate("() => document.documentElement.scrollWidth") <= 1280

    add_bot(host, 1)
    add_bot(host, 2)
    host.click("#start-game")
    expect(host.locator(".felt")).to_be_visible()
    seat_name = host.locator(".seat.me .seat-name-text")
    assert seat_name.get_attribute("title") == LONG and truncated(seat_name)
    legend = host.locator(".legend-item").first
    assert legend.get_attribute("title") == LONG
    assert inside(legend, host.locator(".score-panel"))
    assert inside(host.locator("#leave-table"), host.locator(".table-body"))
    assert host.evaluate("() => document.documentElement.scrollWidth") <= 1280


def test_a_dropped_network_is_shown_within_seconds_then_recovers(
        open_page: Callable[..., Page]) -> None:
    page = open_page("Nia", config={"heartbeatMs": 400})
    conn = page.locator("#conn")
    expect(conn).to_have_attribute("data-state", "open")
    # the network drops silently: nothing we send arrives, so no pong comes back
    page.evaluate("() => { window.__wizard.socket.ws.send = () => {}; }")
    expect(conn).to_have_attribute("data-state", "stalled", timeout=5_000)
    expect(conn).to_contain_text("Connection lost")
    # a little later the client gives the socket up and reconnects on its own
    expect(conn).to_have_attribute("data-state", re.compile("reconnected|open"), timeout=10_000)
    expect(conn).to_contain_text(re.compile("Reconnected|Connected"))


def test_the_same_toast_is_shown_once(open_page: Callable[..., Page]) -> None:
    page = open_page("Oli")
    create_table(page, players=3)
    # the most toasts on screen at any moment (they fade by themselves after a while)
    page.evaluate("""() => { window.__most = 0; const box = document.getElementById('toasts');
      new MutationObserver(() => { window.__most = Math.max(window.__most, box.children.length); })
        .observe(box, {childList: true}); }""")
    for k in range(9):  # the chat budget is a burst of 5: the last ones are refused
        page.fill("#chat-input", f"spam {k}")
        page.press("#chat-input", "Enter")
    expect(page.locator(".toast", has_text="Slow down")).to_have_count(1)
    page.wait_for_function("() => window.__wizard.socket.pending.size === 0")
    assert page.evaluate("() => window.__most") == 1


def test_a_line_typed_while_the_last_one_is_on_its_way_is_kept(
        open_page: Callable[..., Page]) -> None:
    page = open_page("Ola")
    create_table(page, players=3)
    # a slow network: every answer of the server reaches the page half a second late
    page.evaluate("""() => { const socket = window.__wizard.socket;
      const receive = socket._receive.bind(socket);
      socket._receive = (message) => setTimeout(() => receive(message), 500); }""")
    page.fill("#chat-input", "first line")
    page.press("#chat-input", "Enter")
    page.fill("#chat-input", "second line, still being typed")
    expect(page.locator(".chat-lines")).to_contain_text("first line")
    page.wait_for_function("() => window.__wizard.socket.pending.size === 0")
    # the first line's answer cleared the box only of what it sent, not of what came after
    expect(page.locator("#chat-input")).to_have_value("second line, still being typed")


def test_a_name_of_only_spaces_says_why_it_is_refused(open_page: Callable[..., Page]) -> None:
    page = open_page()
    page.fill("#name-input", "    ")
    page.click("form.name-panel button[type=submit]")
    expect(page.locator("#name-problem")).to_contain_text("spaces alone are not a name")
    expect(page.locator("#name-input")).to_have_attribute("aria-invalid", "true")
    page.fill("#name-input", "Pia")
    expect(page.locator("#name-problem")).to_be_empty()
    page.click("form.name-panel button[type=submit]")
    expect(page.locator("#me")).to_have_text("Pia")


def test_the_score_sheet_is_whole_and_its_title_clear_of_the_header(
        open_page: Callable[..., Page]) -> None:
    page = open_page("Quin", viewport=(1280, 800))
    play_bots(page, players=6, level="easy")
    autoplay_to_round(page, 4)
    pad = page.locator(".pad-scroll")
    assert pad.evaluate("e => e.scrollWidth <= e.clientWidth"), "the 6-player pad is cut off"
    expect(page.locator(".pad thead th.pcol")).to_have_count(6)
    # on a phone the sheet sits below the table: the link scrolls it up to the header
    page.set_viewport_size({"width": 390, "height": 844})
    page.locator(".head-actions a[href='#score-sheet']").click()
    page.wait_for_function("() => Math.abs(document.querySelector('#score-sheet')"
                           ".getBoundingClientRect().top - parseFloat(getComputedStyle("
                           "document.querySelector('#score-sheet')).scrollMarginTop)) < 4")
    title = page.locator("#score-title").bounding_box()
    bar = page.locator(".topbar").bounding_box()
    assert title is not None and bar is not None
    assert title["y"] >= bar["y"] + bar["height"], "the title is under the sticky header"


NOTIFICATION_STUB = """
window.__notes = [];
window.Notification = class {
  constructor(title, options) { window.__notes.push([title, options && options.body]); }
  addEventListener() {}
  close() {}
  static get permission() { return "granted"; }
  static requestPermission() { return Promise.resolve("granted"); }
};
Object.defineProperty(document, "hidden", {get: () => true});
localStorage.setItem("wizard.notify", "on");
"""


def test_your_turn_shows_in_the_title_and_icon_and_notifies(
        open_page: Callable[..., Page]) -> None:
    page = open_page("Rae", init_script=NOTIFICATION_STUB)
    play_bots(page, players=3, level="easy")
    page.wait_for_selector(".bid-btn:not([disabled])")
    assert page.title().startswith("▶ Your turn · ")
    expect(page.locator("link[rel=icon]")).to_have_attribute("data-turn", "yes")
    notes = page.evaluate("() => window.__notes")
    assert notes and notes[0][0] == "Wizard: your turn" and "bid" in notes[0][1]
    page.evaluate("""() => { window.__icons = [];
      const icon = () => document.querySelector('link[rel=icon]').dataset.turn;
      new MutationObserver(() => window.__icons.push(icon()))
        .observe(document.head, {attributes: true, subtree: true}); }""")
    play_step(page)
    play_step(page)
    icons = page.evaluate("() => window.__icons")
    assert "no" in icons, "the mark stays after my move"
    expect(page.locator("#alert-notify")).to_have_attribute("aria-pressed", "true")
    sound = page.locator("#alert-sound")
    expect(sound).to_have_attribute("aria-pressed", "false")  # off unless asked for
    sound.click()
    expect(page.locator("#alert-sound")).to_have_attribute("aria-pressed", "true")
    assert page.evaluate("() => localStorage.getItem('wizard.sound')") == "on"
    page.goto("/#/")
    assert not page.title().startswith("▶")


def test_rules_page_tooltips_and_bot_levels_explained(open_page: Callable[..., Page]) -> None:
    page = open_page("Sam")
    page.get_by_role("link", name="Rules").click()
    expect(page.locator("#help-title")).to_have_text("How to play Wizard")
    for section in ("The cards", "Following suit", "Trump", "Scoring", "Table options"):
        expect(page.locator(".help-page h2", has_text=section)).to_have_count(1)
    assert page.locator(".help-cards .card").count() >= 8
    expect(page.locator(".help-cards .kind-wizard")).to_have_count(1)
    expect(page.locator(".help-cards .kind-jester")).to_have_count(1)

    page.goto("/#/")
    for option in ("#opt-even", "#opt-hidden", "#opt-dealer", "#opt-private"):
        tip = page.locator(f".check:has({option})").get_attribute("title")
        assert tip and len(tip) > 20, f"{option} has no tooltip"
    assert page.locator("#create-turn").get_attribute("title")
    expect(page.locator("#bots-turn")).to_have_value("0")  # no clock against bots by default
    expect(page.locator("#level-help")).to_contain_text("random move")
    page.select_option("#bots-level", "master")
    expect(page.locator("#level-help")).to_contain_text("full strength")
    page.select_option("#bots-level", "easy")
    expect(page.locator("#level-help")).to_contain_text("good for learning")


def test_a_game_against_bots_has_no_turn_clock(open_page: Callable[..., Page]) -> None:
    page = open_page("Tom")
    tid = play_bots(page, players=3)
    page.wait_for_selector(".bid-btn:not([disabled])")
    expect(page.locator(".clock")).to_have_count(0)
    assert page.evaluate(f"() => window.__wizard.store.tables.get('{tid}').turn_seconds") == 0


def test_touch_play_selects_then_confirms(open_page: Callable[..., Page]) -> None:
    # the taken trick stays on show: with no pause the next round's deal comes at once and
    # may hold the same card again (one round in thirty), which would look like no play
    page = open_page("Una", viewport=(390, 844), has_touch=True, is_mobile=True,
                     trick_show_ms=600_000)
    play_bots(page, players=3, level="easy")
    page.locator(".bid-btn:not([disabled])").first.tap()
    card = page.locator(".hand button.playable").first
    expect(card).to_be_visible(timeout=15_000)
    card_id = card.get_attribute("data-card")
    card.tap()
    chosen = page.locator(f".hand button[data-card='{card_id}']")
    expect(chosen).to_have_class(re.compile(r"\bselected\b"))
    confirm = page.locator("#confirm-play")
    expect(confirm).to_contain_text("Play ")
    expect(page.locator(".trick .card[data-card='" + str(card_id) + "']")).to_have_count(0)
    confirm.tap()
    expect(page.locator(".trick .card[data-card='" + str(card_id) + "']")).to_have_count(1)
    expect(page.locator(f".hand button[data-card='{card_id}']")).to_have_count(0)
    expect(page.locator("#confirm-play")).to_have_count(0)


def test_chat_survives_a_reload_and_reaches_a_later_spectator(
        open_page: Callable[..., Page]) -> None:
    host = open_page("Vera")
    table_id = create_table(host, players=3)
    host.fill("#chat-input", "welcome, all")
    host.press("#chat-input", "Enter")
    expect(host.locator(".chat-lines")).to_contain_text("welcome, all")
    host.reload()
    expect(host.locator(".chat-lines")).to_contain_text("Vera welcome, all")
    watcher = open_page("Walt")
    watcher.goto(f"/#/watch/{table_id}")
    expect(watcher.locator(".chat-lines")).to_contain_text("Vera welcome, all")


def test_html_in_a_name_and_in_chat_is_shown_as_text(open_page: Callable[..., Page]) -> None:
    name = "<img src=x onerror=window.p=1>"
    host = open_page(name)
    create_table(host, players=3)
    expect(host.locator(".wait-seat[data-seat='0']")).to_contain_text(name)
    host.fill("#chat-input", "<b id=boom>bold</b><script>window.q=1</script>")
    host.press("#chat-input", "Enter")
    expect(host.locator(".chat-lines")).to_contain_text("<b id=boom>bold</b><script>")
    assert host.locator("#boom").count() == 0
    assert host.locator(".chat-lines img, .wait-seats img").count() == 0
    assert host.evaluate("[window.p, window.q]") == [None, None]
