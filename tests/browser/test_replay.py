"""The replay viewer against a replay built by the engine itself, in the documented shape
of ``GET /api/games/{id}/replay`` (served to the page by Playwright's router). This checks
the client's reconstruction on its own; `test_game.py` replays a game the server stored.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from typing import Any

from playwright.sync_api import Page, Route, expect

from wizard.engine import GameOptions, WizardGame

GAME_ID = "g_engine_replay"


def engine_replay(num_players: int, seed: int, options: GameOptions) -> dict[str, Any]:
    """A random game (seeded) recorded as the history endpoint describes it."""
    game = WizardGame(num_players, options, seed=seed)
    rng = random.Random(seed)
    rounds: list[dict[str, Any]] = []

    def dealt(event: dict[str, Any]) -> None:
        hands = [[card.to_dict() for card in game.hand(seat)] for seat in range(num_players)]
        rounds.append({key: event[key] for key in ("round_number", "dealer", "trump_card",
                                                    "trump_suit")} | {"hands": hands})

    for event in game.start_events():
        dealt(event.to_dict())
    steps: list[dict[str, Any]] = []
    while not game.is_finished:
        seat = game.current_player
        assert seat is not None
        action = rng.choice(game.legal_actions(seat))
        events = [e.to_dict() for e in game.apply(seat, action)]
        for event in events:
            if event["type"] == "round_started":
                dealt(event)
        steps.append({"seq": len(steps) + 1, "seat": seat, "action": action.to_dict(),
                      "events": events})
    players = [{"seat": s, "name": f"Player {s + 1}", "kind": "bot" if s else "player",
                "level": "hard" if s else None} for s in range(num_players)]
    return {"id": GAME_ID, "num_players": num_players, "options": options.to_dict(),
            "players": players, "rounds": rounds, "steps": steps,
            "scores": list(game.scores), "winners": list(game.winners())}


def serve_history(page: Page, replay: dict[str, Any]) -> None:
    summary = {"id": GAME_ID, "table_id": "t_x", "num_players": replay["num_players"],
               "players": replay["players"], "scores": replay["scores"],
               "winners": replay["winners"], "finished": "2026-11-29T20:40:00Z"}

    def games(route: Route) -> None:
        route.fulfill(json={"games": [summary], "next_before": None})

    def one(route: Route) -> None:
        route.fulfill(body=json.dumps(replay), content_type="application/json")

    page.route(re.compile(r".*/api/games\?.*"), games)
    page.route(re.compile(rf".*/api/games/{GAME_ID}/replay$"), one)


def test_replay_steps_back_and_forth_and_ends_with_the_engine_scores(
        open_page: Callable[..., Page]) -> None:
    # wizard_trump_dealer_chooses: a turned Wizard brings trump choices into the steps
    replay = engine_replay(3, seed=11, options=GameOptions(wizard_trump_dealer_chooses=True))
    page = open_page("Rita")
    serve_history(page, replay)
    page.goto("/#/games")
    row = page.locator(".game-row").first
    expect(row).to_contain_text("Player 1")
    row.get_by_role("link", name=re.compile("^Replay")).click()
    total = len(replay["steps"])
    step = page.locator("#replay-step")
    expect(step).to_have_text(f"Step 0 of {total}")
    first = replay["rounds"][0]
    expect(page.locator(".replay-hand .card")).to_have_count(3)  # round 1: one card each
    expect(page.locator(".replay-hand[data-seat='0'] .card")).to_have_attribute(
        "data-card", str(first["hands"][0][0]["id"]))

    # forward through round 1: bids, then every card leaves its hand for the trick
    for i in range(1, total + 1):
        page.click("#replay-forward")
        action = replay["steps"][i - 1]["action"]
        if action["type"] == "play":
            break
    expect(step).to_have_text(f"Step {i} of {total}")
    expect(page.locator(".trick .trick-card")).to_have_count(1)
    expect(page.locator(".replay-hand .card")).to_have_count(2)
    page.click("#replay-back")
    expect(page.locator(".trick .trick-card")).to_have_count(0)
    expect(page.locator(".replay-hand .card")).to_have_count(3)

    page.click("#replay-last")
    expect(step).to_have_text(f"Step {total} of {total}")
    shown = page.locator(".end .ranking li").evaluate_all(
        "els => els.map(e => [Number(e.dataset.seat), Number(e.dataset.score)])")
    assert sorted(map(tuple, shown)) == sorted(enumerate(replay["scores"]))
    # the score pad's last row agrees, round by round totals included
    assert page.locator(".pad tbody tr.done").count() == 20
    last = page.locator(".pad tbody tr").nth(19).locator("td.score").all_inner_texts()
    assert [int(re.match(r"-?\d+", t).group()) for t in last] == replay["scores"]
    # and stepping back from the end undoes the last card
    page.click("#replay-back")
    expect(page.locator(".end")).to_have_count(0)
    expect(page.locator(".replay-hand .card")).to_have_count(1)


def test_replay_jumps_to_a_round_and_steps_by_trick_with_drawn_icons(
        open_page: Callable[..., Page]) -> None:
    replay = engine_replay(3, seed=5, options=GameOptions())
    page = open_page("Rolf")
    serve_history(page, replay)
    page.goto(f"/#/replay/{GAME_ID}")
    step = page.locator("#replay-step")
    total = len(replay["steps"])
    expect(step).to_have_text(f"Step 0 of {total}")
    # the first/last buttons are drawn (SVG), not font glyphs that may be missing
    for button in ("#replay-first", "#replay-last", "#replay-trick-back", "#replay-trick-forward"):
        expect(page.locator(f"{button} svg")).to_have_count(1)
        assert not re.search(r"[⏮⏭]", page.locator(button).inner_text())

    page.select_option("#replay-round", "5")
    expect(page.locator(".round-info")).to_contain_text("Round 5 of 20")
    expect(page.locator(".replay-hand .card")).to_have_count(15)  # the deal: 5 cards each
    expect(page.locator(".trick .trick-card")).to_have_count(0)
    at_deal = int(step.inner_text().split()[1])

    # by trick: the next press shows round 5's first trick complete, with its winner
    trick_ends = [k + 1 for k, s in enumerate(replay["steps"])
                  if any(e["type"] == "trick_completed" for e in s["events"])]
    first_of_round_5 = next(k for k in trick_ends if k > at_deal)
    page.click("#replay-trick-forward")
    expect(step).to_have_text(f"Step {first_of_round_5} of {total}")
    expect(page.locator(".trick.completed .trick-card")).to_have_count(3)
    expect(page.locator(".replay-hand .card")).to_have_count(12)
    page.click("#replay-trick-forward")
    second = next(k for k in trick_ends if k > first_of_round_5)
    expect(step).to_have_text(f"Step {second} of {total}")
    page.click("#replay-trick-back")
    expect(step).to_have_text(f"Step {first_of_round_5} of {total}")
    expect(page.locator("#replay-round")).to_have_value("5")
