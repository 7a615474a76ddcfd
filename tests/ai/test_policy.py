"""ONNX policies and the model agent: masking, temperature, refusing wrong files."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from wizard.ai.agents import HeuristicAgent, ModelAgent, make_agent
from wizard.ai.encoding import FEATURE_SIZE, ActionSpace, encode_observation
from wizard.ai.policy import OnnxPolicy, PolicyError, choose
from wizard.engine import WizardGame
from wizard.training.onnx_graphs import write_random_policy


@pytest.fixture(scope="module")
def policy_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_random_policy(tmp_path_factory.mktemp("models"), "tiny", hidden=(32,), seed=3)


def test_model_agent_plays_only_legal_actions_through_a_whole_game(policy_path: Path) -> None:
    agent = make_agent("model", model_path=policy_path)
    assert isinstance(agent, ModelAgent) and agent.name == "model:tiny"
    game = WizardGame(5, seed=4)
    while not game.is_finished:
        player = game.current_player
        obs = game.observation(player)
        action = agent.act(obs)
        assert action in obs.legal_actions
        game.apply(player, action)


def test_the_policy_takes_its_best_legal_action(policy_path: Path) -> None:
    policy = OnnxPolicy(policy_path)
    game = WizardGame(4, seed=9)
    obs = game.observation(game.current_player)
    logits = policy.logits(encode_observation(obs)[None, :])[0]
    mask = ActionSpace.mask(obs)
    best = int(np.flatnonzero(mask)[np.argmax(logits[mask])])
    assert ModelAgent(policy).act(obs) == ActionSpace.action(best)


def test_choose_never_picks_an_illegal_action_even_when_it_scores_highest() -> None:
    logits = np.zeros(85, np.float32)
    logits[0] = 100.0
    mask = np.zeros(85, bool)
    mask[[3, 7]] = True
    assert choose(logits, mask) in (3, 7)
    for draw in np.linspace(0, 0.999, 25):
        assert choose(logits, mask, temperature=1.0, uniform=float(draw)) in (3, 7)


def test_sampling_follows_the_softmax_at_the_temperature() -> None:
    logits = np.array([0.0, np.log(3.0)] + [0.0] * 83, np.float32)
    mask = np.zeros(85, bool)
    mask[[0, 1]] = True
    picks = [choose(logits, mask, temperature=1.0, uniform=u) for u in np.linspace(0, 0.999, 400)]
    assert abs(picks.count(1) / len(picks) - 0.75) < 0.02  # p = 3 / (1 + 3)


def test_a_policy_with_the_wrong_feature_count_is_refused(tmp_path: Path) -> None:
    import onnx

    from wizard.training.onnx_graphs import random_mlp_policy

    model = random_mlp_policy((8,), seed=1)
    model.graph.input[0].type.tensor_type.shape.dim[1].dim_value = FEATURE_SIZE + 1
    path = tmp_path / "wrong.onnx"
    onnx.save(model, str(path))
    with pytest.raises(PolicyError, match="316"):  # refused at load or by our shape check
        OnnxPolicy(path)


def test_a_policy_from_another_encoding_version_is_refused(policy_path: Path,
                                                           tmp_path: Path) -> None:
    copy = tmp_path / "old.onnx"
    copy.write_bytes(policy_path.read_bytes())
    copy.with_suffix(".json").write_text(json.dumps({"name": "old", "encoding_version": 0}))
    with pytest.raises(PolicyError, match="encoding version 0"):
        OnnxPolicy(copy)
    assert isinstance(make_agent("model", model_path=copy), HeuristicAgent)
