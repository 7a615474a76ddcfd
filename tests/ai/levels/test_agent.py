"""Bot levels: reproducible moves, strengths in range, the configured random-move rate."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from wizard.ai.decision import AgentSpec, act_with_strength
from wizard.ai.levels import STRENGTH_RANGES, BotLevel, BotSettings
from wizard.ai.levels.agent import LevelAgent, brain_for, moves_before
from wizard.ai.levels.settings import BOT_VERSION, HARD_POLICY
from wizard.ai.levels.strength import random_move_chance
from wizard.ai.registry import make_agent
from wizard.engine import Action, GameOptions, Observation, Phase, WizardGame
from wizard.training.onnx_graphs import write_random_policy

from ..search.test_rollout import random_position


def test_an_evaluated_level_draws_its_strength_per_game_in_range() -> None:
    for level in BotLevel:
        low, high = STRENGTH_RANGES[level]
        agent = LevelAgent(level)
        strengths = set()
        for seed in range(60):
            agent.reset(seed)
            strengths.add(agent.bot.strength)
        assert low <= min(strengths) and max(strengths) <= high and len(strengths) > 5


def test_same_seed_and_move_number_give_the_same_move() -> None:
    game = random_position(seed=21, players=4, moves=70, options=GameOptions())
    player = game.current_player
    assert player is not None
    obs = game.observation(player)
    for level in ("easy", "medium", "master"):
        bot = BotSettings(BotLevel(level), STRENGTH_RANGES[BotLevel(level)][0], seed=77)
        moves = {LevelAgent(level).act_as_bot(obs, bot, 70) for _ in range(3)}
        assert len(moves) == 1
        # the server's path (a decider with the bot's settings) plays the same move
        spec = AgentSpec(f"bot:{level}", bot, 70)
        assert act_with_strength(make_agent(f"bot:{level}"), spec, obs) in moves


def test_random_moves_come_at_the_configured_rate() -> None:
    game = WizardGame(4, seed=5)
    for _ in range(30):  # a position with several legal cards
        player = game.current_player
        assert player is not None
        game.apply(player, game.observation(player).legal_actions[0])
    player = game.current_player
    assert player is not None
    obs = game.observation(player)
    assert len(obs.legal_actions) > 1
    agent = LevelAgent("easy")
    for strength in (5, 25):
        bot = BotSettings(BotLevel.EASY, strength, seed=9)
        trials = 4000
        randoms = sum(agent.act_as_bot(obs, bot, move)[1] == "random" for move in range(trials))
        expected = sum(random_move_chance(strength + d) for d in range(-5, 6)) / 11
        sigma = (expected * (1 - expected) / trials) ** 0.5
        assert abs(randoms / trials - expected) < 4 * sigma


def test_hard_plays_the_model_only_when_it_ships(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WIZARD_MODELS_DIR", str(tmp_path))
    assert brain_for(BotLevel.HARD) == "search"
    (tmp_path / "default.onnx").write_bytes(b"")  # the model agent's file is not hard's
    assert brain_for(BotLevel.HARD) == "search"
    (tmp_path / f"{HARD_POLICY}.onnx").write_bytes(b"")
    assert brain_for(BotLevel.HARD) == "model"
    assert brain_for(BotLevel.MASTER) == "search" and brain_for(BotLevel.EASY) == "heuristic"


def test_a_hard_bot_plays_the_policy_file_of_its_version(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WIZARD_MODELS_DIR", str(tmp_path))
    write_random_policy(tmp_path, HARD_POLICY, hidden=(16,), seed=1)
    game = WizardGame(4, seed=3)
    obs = game.observation(game.current_player)
    new = BotSettings(BotLevel.HARD, 80, seed=2, version=BOT_VERSION)
    old = BotSettings(BotLevel.HARD, 80, seed=2, version=3)
    agent = LevelAgent("hard")
    moves = [m for m in range(40) if agent.act_as_bot(obs, new, m)[1] != "random"]
    assert {agent.act_as_bot(obs, new, m)[1] for m in moves} == {"bot:hard:model"}
    # without models/default-v1.onnx a version-3 bot cannot play its policy: it searches
    assert {agent.act_as_bot(obs, old, m)[1] for m in moves} == {"bot:hard:search"}
    write_random_policy(tmp_path, "default-v1", hidden=(16,), seed=2)
    agent = LevelAgent("hard")
    assert {agent.act_as_bot(obs, old, m)[1] for m in moves} == {"bot:hard:model"}


def game_observations(seed: int) -> list[Observation]:
    """Every decision of a four-player game played by the first legal action."""
    game, out = WizardGame(4, seed=seed), []
    while not game.is_finished:
        obs = game.observation(game.current_player)
        out.append(obs)
        game.apply(obs.player, obs.legal_actions[0])
    return out


def test_a_hard_bot_plays_the_policys_cards_by_probability_not_one_card_ahead(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The same weights twice: one model card asks for the lookahead (nearly alone: 0.001
    # points per logit), the other does not. The `model` agent looks ahead; a level not.
    looking, plain = tmp_path / "looking", tmp_path / "plain"
    for directory in (looking, plain):
        directory.mkdir()
        for name in ("default", HARD_POLICY):  # the model agent's file and hard's
            write_random_policy(directory, name, hidden=(16,), seed=1)
    for name in ("default", HARD_POLICY):
        card = looking / f"{name}.json"
        card.write_text(json.dumps({**json.loads(card.read_text()), "card_lookahead": 0.001}))
    plays = [obs for obs in game_observations(seed=4) if obs.phase is Phase.PLAYING
             and len(obs.legal_actions) > 1]

    def choices(directory: Path) -> tuple[list[tuple[Action, str]], list[Action]]:
        monkeypatch.setenv("WIZARD_MODELS_DIR", str(directory))
        agent, bot = LevelAgent("hard"), BotSettings(BotLevel.HARD, 80, seed=2)
        model = make_agent("model")
        return ([agent.act_as_bot(obs, bot, move) for move, obs in enumerate(plays)],
                [model.act(obs) for obs in plays])

    hard_plain, model_plain = choices(plain)
    hard_looking, model_looking = choices(looking)
    assert hard_looking == hard_plain
    assert model_looking != model_plain


def test_move_numbers_count_every_bid_and_card_before() -> None:
    game = WizardGame(3, seed=2)
    moves = 0
    while game.core.round_number < 4:
        player = game.current_player
        assert player is not None
        obs = game.observation(player)
        assert moves_before(obs) == moves
        game.apply(player, obs.legal_actions[-1])
        moves += 1


def test_unknown_levels_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown bot level 'godlike'"):
        LevelAgent("godlike")
    with pytest.raises(ValueError, match="unknown agent 'bot:godlike'"):
        make_agent("bot:godlike")


def test_an_unusable_model_file_makes_hard_play_the_search(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WIZARD_MODELS_DIR", str(tmp_path))
    (tmp_path / f"{HARD_POLICY}.onnx").write_bytes(b"not a model")
    game = WizardGame(4, seed=3)
    obs = game.observation(game.current_player)
    bot = BotSettings(BotLevel.HARD, 80, seed=1)
    agent = LevelAgent("hard")
    moves = {agent.act_as_bot(obs, bot, move) for move in range(20)}
    assert {by for _, by in moves} <= {"bot:hard:search", "random"}


def test_a_registered_agent_can_be_a_level_brain(monkeypatch: pytest.MonkeyPatch) -> None:
    from wizard.ai.agents import RandomAgent
    from wizard.ai.levels import settings as levels
    from wizard.ai.registry import register_agent

    register_agent("test-brain", lambda seed=None, **_: RandomAgent(seed))
    monkeypatch.setitem(levels.BRAINS, BotLevel.MEDIUM, "test-brain")
    game = WizardGame(4, seed=3)
    obs = game.observation(game.current_player)
    bot = BotSettings(BotLevel.MEDIUM, 55, seed=4)
    medium = make_agent("bot:medium")  # as the server builds it: brains from the registry
    assert isinstance(medium, LevelAgent)
    moves = [medium.act_as_bot(obs, bot, move) for move in range(30)]
    assert {by for _, by in moves} <= {"bot:medium:test-brain", "random"}
    assert any(by == "bot:medium:test-brain" for _, by in moves)
