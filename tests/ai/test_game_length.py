"""Bots, features and analysis at every game length (``GameOptions(rounds=k)``)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from wizard.ai.analysis import AnalysisBudget, GameRecord, analyse_game
from wizard.ai.encoding import BLOCKS, FEATURE_SIZE, encode_into
from wizard.ai.registry import agent_names, make_agent
from wizard.ai.search.worlds import world_core
from wizard.engine import Action, GameOptions, WizardGame
from wizard.engine.core import FINISHED


def play(agents: list[str], options: GameOptions, seed: int
         ) -> tuple[WizardGame, list[tuple[int, Action]]]:
    players = [make_agent(name) for name in agents]
    for index, agent in enumerate(players):
        agent.reset(seed + index)
    game = WizardGame(len(agents), options, seed=seed)
    actions = []
    while not game.is_finished:
        seat = game.current_player
        assert seat is not None
        action = players[seat].act(game.observation(seat))
        actions.append((seat, action))
        game.apply(seat, action)
    return game, actions


# the shipped agents by name (the registry can hold test agents other modules registered)
SHIPPED = ["bot:easy", "bot:hard", "bot:master", "bot:medium", "heuristic", "model", "oi",
           "search"]


def test_the_shipped_agents_are_registered() -> None:
    assert set(SHIPPED) <= set(agent_names())


@pytest.mark.parametrize("name", SHIPPED)
def test_every_agent_plays_a_short_game_to_its_end(name: str) -> None:
    game, _ = play([name, "random", "random", "random"], GameOptions(rounds=2), seed=5)
    assert [r.round_number for r in game.round_history] == [1, 2]


def test_progress_is_the_round_of_the_games_own_length() -> None:
    game = WizardGame(4, GameOptions(rounds=3), seed=2)
    while game.round_number < 2:
        seat = game.current_player
        assert seat is not None
        game.apply(seat, game.legal_actions()[0])
    out = np.zeros(FEATURE_SIZE, np.float32)
    encode_into(game.observation(game.current_player), out)
    assert FEATURE_SIZE == 315  # the shipped models' input layout is unchanged
    assert out[BLOCKS["progress"].start] == pytest.approx(2 / 3)


def test_a_search_world_ends_where_the_short_game_ends() -> None:
    game = WizardGame(3, GameOptions(rounds=2), seed=4)
    while game.round_number < 2:
        seat = game.current_player
        assert seat is not None
        game.apply(seat, game.legal_actions()[0])
    seat = game.current_player
    assert seat is not None
    core = world_core(game.observation(seat), list(game.core.hands))
    core.playout(random.Random(1).random)
    assert core.phase == FINISHED and core.round_number == 2


def test_the_analysis_of_a_short_game_reports_its_rounds() -> None:
    game, actions = play(["heuristic"] * 4, GameOptions(rounds=3), seed=8)
    record = GameRecord(4, game.options, game.seed, tuple(actions))
    report = analyse_game(record, [0], AnalysisBudget(worlds=1))
    assert [row["round"] for row in report["seats"][0]["rounds"]] == [1, 2, 3]
    assert report["seats"][0]["summary"]["actual_total"] == game.scores[0]
