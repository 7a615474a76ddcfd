"""The card head: numpy, torch and ONNX score the cards alike; added to a trained net it
keeps the function; it survives export and the way back (`weights_from_onnx`), and a run
that adds it to the shipped policy trains and exports."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch", reason="the train extra (torch) is not installed")

import onnx
import onnxruntime as ort
import torch

from wizard.__main__ import main
from wizard.ai.policy import OnnxPolicy
from wizard.training.card_head import PLACE, card_scores, new_card_head
from wizard.training.card_sense import CARD_ACTIONS, sense
from wizard.training.network import PolicyNet
from wizard.training.onnx_graphs import (
    add_card_sense,
    mlp_policy,
    random_weights,
    weights_from_onnx,
    widen,
)
from wizard.training.teacher import TeacherConfig, play_teacher_games


@pytest.fixture(scope="module")
def rows() -> tuple[np.ndarray, np.ndarray]:
    played = play_teacher_games(TeacherConfig("heuristic", keep_plays=1.0), 2, seed=5)
    return played["features"].astype(np.float32), played["masks"]


def trained_head(width: int, seed: int = 1):  # type: ignore[no-untyped-def]
    """A head with non-zero output weights (as training leaves it)."""
    head = new_card_head(width, 8, seed=seed)
    rng = np.random.default_rng(seed)
    return dataclasses.replace(head, out=(rng.normal(0, 0.5, (8, 1)).astype(np.float32),
                                          np.array([0.3], np.float32)))


def test_a_new_head_keeps_the_function_and_a_trained_one_scores_only_cards(
        rows: tuple[np.ndarray, np.ndarray]) -> None:
    features, masks = rows
    base = add_card_sense(random_weights((32, 16), seed=2))
    before = PolicyNet.from_weights(base).outputs(features, masks)
    fresh = dataclasses.replace(base, cards=new_card_head(16, 8, seed=3))
    net = PolicyNet.from_weights(fresh)
    assert net.card_head == 8
    for old, new in zip(before, net.outputs(features, masks), strict=True):
        assert np.abs(old - new).max() < 1e-6
    scored = PolicyNet.from_weights(dataclasses.replace(base, cards=trained_head(16)))
    with torch.no_grad():
        plain, _, _ = PolicyNet.from_weights(base)(torch.from_numpy(features),
                                                   torch.from_numpy(masks))
        logits, _, _ = scored(torch.from_numpy(features), torch.from_numpy(masks))
    changed = (logits - plain).abs().numpy() > 1e-6
    changed &= masks  # illegal actions stay at -1e9 either way
    assert changed[:, CARD_ACTIONS].any()
    assert not changed[:, :CARD_ACTIONS.start].any() and not changed[:, CARD_ACTIONS.stop:].any()


def test_numpy_torch_and_onnx_score_the_cards_alike(rows: tuple[np.ndarray, np.ndarray],
                                                    tmp_path: Path) -> None:
    features, masks = rows
    weights = dataclasses.replace(add_card_sense(random_weights((32, 16), seed=4)),
                                  cards=trained_head(16, seed=6))
    net = PolicyNet.from_weights(weights)
    t_features, t_masks = torch.from_numpy(features), torch.from_numpy(masks)
    with torch.no_grad():
        h = torch.cat([t_features, net.card_sense(t_features, t_masks)], 1)
        for layer in net.trunk:
            h = torch.relu(layer(h))
        logits, _, _ = net(t_features, t_masks)
        plain = net.policy_head(h).numpy()
    assert weights.cards is not None
    reference = card_scores(h.numpy(), sense(features, masks), weights.cards)
    expected = plain + reference @ PLACE
    legal = masks
    assert np.abs(logits.numpy()[legal] - expected[legal]).max() < 1e-4
    model = mlp_policy(weights)
    served = ort.InferenceSession(model.SerializeToString()).run(
        None, {"features": features, "mask": masks})
    for ours, theirs in zip(net.outputs(features, masks), served, strict=True):
        assert np.abs(ours - theirs).max() < 1e-4
    path = tmp_path / "head.onnx"
    onnx.save(model, str(path))
    back = weights_from_onnx(path)
    assert back.cards is not None and back.cards.size == 8
    again = PolicyNet.from_weights(back).outputs(features, masks)
    for ours, theirs in zip(again, served, strict=True):
        assert np.abs(ours - theirs).max() < 1e-4
    with pytest.raises(ValueError, match="card head"):
        widen(back, (64, 32))
    with pytest.raises(ValueError, match="card-sense"):
        mlp_policy(dataclasses.replace(random_weights((8,), seed=1), cards=trained_head(8)))


def test_a_run_adds_the_head_to_policy_v2_and_exports_it(tmp_path: Path) -> None:
    out = tmp_path / "head"
    assert main(["train", "imitate", "--out", str(out), "--games", "4", "--teacher", "oi",
                 "--learner-seats", "0.5", "--opponents", "heuristic",
                 "--init", "models/default-v2.onnx", "--card-head", "16", "--eval-every", "100",
                 "--eval-games", "4", "--quiet"]) == 0
    record = json.loads((out / "checkpoint" / "policy.json").read_text())
    assert record["config"]["card_head"] == 16
    model = tmp_path / "with_head.onnx"
    assert main(["export", str(out / "checkpoint"), "--out", str(model)]) == 0
    card = OnnxPolicy(model).card
    assert card["card_head"] == 16 and "card head 16" in card["architecture"]
    assert main(["train", "imitate", "--out", str(tmp_path / "again"), "--games", "4",
                 "--init", str(model), "--eval-every", "100", "--eval-games", "4",
                 "--quiet"]) == 0  # a file with a head starts a run too


def test_a_head_of_another_size_is_refused_on_a_policy_that_has_one(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shipped = OnnxPolicy(Path("models/default.onnx")).card["card_head"]
    assert shipped == 64
    out = tmp_path / "other"
    assert main(["train", "imitate", "--out", str(out), "--games", "4",
                 "--init", "models/default.onnx", "--card-head", "16", "--quiet"]) == 2
    assert "already has a card head of 64 units" in capsys.readouterr().err
    assert not (out / "checkpoint").exists()  # nothing trained, nothing saved
