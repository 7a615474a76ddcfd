"""Card sense: the derived features say which card wins, and torch and ONNX compute them alike."""

from __future__ import annotations

import random

import numpy as np
import pytest

pytest.importorskip("torch", reason="the train extra (torch) is not installed")

import onnxruntime as ort
import torch

from wizard.ai.agents import HeuristicAgent
from wizard.ai.encoding import ActionSpace, encode_observation
from wizard.engine import GameOptions, Phase, WizardGame
from wizard.engine.cards import CARD_RANK, CARD_SUIT, FIRST_WIZARD
from wizard.engine.rules import trick_winner
from wizard.training.card_sense import SENSE_SIZE, SENSED_SIZE, sense
from wizard.training.network import PolicyNet
from wizard.training.onnx_graphs import (
    MlpWeights,
    add_card_sense,
    mlp_policy,
    random_weights,
)
from wizard.training.teacher import TeacherConfig, play_teacher_games


def positions(games: int) -> list[tuple[object, np.ndarray]]:
    """Observations of card decisions from heuristic games, 3-6 players, trump chosen or turned."""
    agent, out = HeuristicAgent(), []
    for seed in range(games):
        players = random.Random(seed).choice((3, 4, 5, 6))
        game = WizardGame(players, GameOptions(wizard_trump_dealer_chooses=seed % 2 == 0),
                          seed=seed)
        while not game.is_finished:
            seat = game.current_player
            assert seat is not None
            obs = game.observation(seat)
            if obs.phase is Phase.PLAYING:
                row = sense(encode_observation(obs)[None], ActionSpace.mask(obs)[None])[0]
                out.append((obs, row))
            game.apply(seat, agent.act(obs))
    return out


def test_beaten_says_exactly_whether_a_card_would_take_the_trick_now() -> None:
    checked = 0
    for obs, row in positions(8):
        assert row.shape == (SENSE_SIZE,)
        trick = [played.card.id for played in obs.current_trick]
        trump = obs.trump_suit.index if obs.trump_suit else -1
        legal = {action.card.id for action in obs.legal_actions}
        assert {c for c in range(60) if row[180 + c] == 1.0} == legal
        for card in legal:
            if trick:
                wins = trick_winner([*trick, card], trump) == len(trick)
                assert (row[60 + card] == 0.0) == wins, (trick, card, trump)
                checked += 1
            else:
                assert row[60 + card] == 0.0  # nothing to beat it yet
    assert checked > 1000


def test_higher_counts_the_unseen_cards_above_each_card_of_its_suit() -> None:
    for obs, row in positions(2)[::7]:
        seen = {c.id for c in obs.hand} | {c.id for c in obs.played_cards}
        if obs.trump_card is not None:
            seen.add(obs.trump_card.id)
        for card in range(FIRST_WIZARD):
            above = [c for c in range(FIRST_WIZARD) if c not in seen and
                     CARD_SUIT[c] == CARD_SUIT[card] and CARD_RANK[c] > CARD_RANK[card]]
            assert row[card] == pytest.approx(len(above) / 13.0)


def test_torch_and_onnx_compute_the_same_sense_and_zero_weights_keep_the_function() -> None:
    rows = play_teacher_games(TeacherConfig("heuristic", keep_plays=1.0), 2, seed=3)
    features, masks = rows["features"].astype(np.float32), rows["masks"]
    plain = random_weights((32, 16), seed=2)
    sensing = add_card_sense(plain)
    assert sensing.trunk[0][0].shape[0] == SENSED_SIZE
    net = PolicyNet.from_weights(sensing)
    assert net.sense and not PolicyNet.from_weights(plain).sense
    torch_sense = net.card_sense(torch.from_numpy(features), torch.from_numpy(masks)).numpy()
    assert np.array_equal(torch_sense, sense(features, masks))
    for before, after in zip(PolicyNet.from_weights(plain).outputs(features, masks),
                             net.outputs(features, masks), strict=True):
        assert np.abs(before - after).max() < 1e-5
    first, bias = sensing.trunk[0]
    first = first.copy()
    first[-SENSE_SIZE:] = np.random.default_rng(0).normal(0, 0.1, first[-SENSE_SIZE:].shape)
    weights = MlpWeights([(first, bias), *sensing.trunk[1:]], sensing.policy, sensing.tricks,
                         sensing.value)
    session = ort.InferenceSession(mlp_policy(weights).SerializeToString())
    served = session.run(None, {"features": features, "mask": masks})
    trained = PolicyNet.from_weights(weights).outputs(features, masks)
    for ours, theirs in zip(trained, served, strict=True):
        assert np.abs(ours - theirs).max() < 1e-4
    with pytest.raises(ValueError, match="already reads"):
        add_card_sense(sensing)
