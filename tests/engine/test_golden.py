"""Recorded games (tests/data/golden_games.json) must replay identically.

The file was written once by scripts/make_golden_games.py and is never regenerated
here: it pins the deal (seed → cards) and the rules across refactors. A failure
means games recorded by users would no longer replay.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from wizard.engine import (
    GameFinished,
    GameOptions,
    RoundCompleted,
    RoundStarted,
    WizardGame,
    action_from_dict,
)

GOLDEN = Path(__file__).resolve().parent.parent / "data" / "golden_games.json"
GAMES: list[dict[str, Any]] = json.loads(GOLDEN.read_text())["games"]


def game_id(game: dict[str, Any]) -> str:
    return f"{game['num_players']}p-seed{game['seed']}"


def test_the_golden_file_covers_every_player_count_and_option_combination() -> None:
    assert len(GAMES) >= 12
    assert {g["num_players"] for g in GAMES} == {3, 4, 5, 6}
    combos = {GameOptions.from_dict(g["options"]) for g in GAMES}
    assert combos == {GameOptions(*flags) for flags in itertools.product((False, True), repeat=3)}
    assert any("first_dealer" not in g for g in GAMES)
    assert any(g["seed"] < 0 for g in GAMES)


@pytest.mark.parametrize("recorded", GAMES, ids=game_id)
def test_recorded_game_replays_identically(recorded: dict[str, Any]) -> None:
    game = WizardGame(
        recorded["num_players"],
        GameOptions.from_dict(recorded["options"]),
        seed=recorded["seed"],
        first_dealer=recorded.get("first_dealer"),
    )
    trump_cards = [game.trump_card.id if game.trump_card else None]
    round_scores = []
    finished = None
    for player, action_data in recorded["actions"]:
        assert not game.is_finished
        assert game.current_player == player
        for event in game.apply(player, action_from_dict(action_data)):
            if isinstance(event, RoundCompleted):
                round_scores.append(list(event.result.scores))
            elif isinstance(event, RoundStarted):
                trump_cards.append(event.trump_card.id if event.trump_card else None)
            elif isinstance(event, GameFinished):
                finished = event
    assert game.is_finished
    assert finished is not None and list(finished.scores) == recorded["final_scores"]
    assert game.scores == recorded["final_scores"]
    if "round_scores" in recorded:
        assert round_scores == recorded["round_scores"]
        assert [list(r.scores) for r in game.round_history] == recorded["round_scores"]
    if "trump_cards" in recorded:
        assert trump_cards == recorded["trump_cards"]
