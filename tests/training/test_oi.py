"""OI training: ONNX/torch parity, a tiny end-to-end run, metrics, the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

from wizard.__main__ import main
from wizard.ai.oi import IMMEDIATE_KIND, OVERALL_KIND, OIAgent, OnnxProbabilityNet, load_networks
from wizard.ai.oi.features import OI_FEATURE_SIZE, OI_FEATURE_VERSION
from wizard.ai.registry import make_agent
from wizard.engine import WizardGame
from wizard.training.oi import NumpyMLP, OITrainConfig, ProbabilityMLP, train_oi
from wizard.training.oi_export import export_mlp
from wizard.training.oi_metrics import brier, calibration_bins, max_calibration_gap


def test_onnx_and_numpy_match_torch(tmp_path: Path) -> None:
    torch.manual_seed(0)
    model = ProbabilityMLP((24, 8))
    with torch.no_grad():  # push the weights away from a near-constant output
        for p in model.parameters():
            p.mul_(3.0)
    path = export_mlp(model.linear_layers(), tmp_path / "n.onnx", "n")
    path.with_suffix(".json").write_text(json.dumps(
        {"kind": OVERALL_KIND, "feature_version": OI_FEATURE_VERSION}))
    x = np.random.default_rng(1).integers(0, 2, (64, OI_FEATURE_SIZE)).astype(np.float32)
    with torch.no_grad():
        expected = model.probability(torch.from_numpy(x)).numpy()
    assert expected.std() > 0.05
    np.testing.assert_allclose(OnnxProbabilityNet(path, OVERALL_KIND)(x), expected, atol=1e-5)
    np.testing.assert_allclose(NumpyMLP(model)(x), expected, atol=1e-5)


def test_brier_and_calibration_bins() -> None:
    labels = np.array([0, 0, 1, 1], np.float32)
    predicted = np.array([0.05, 0.15, 0.85, 0.95], np.float32)
    assert brier(labels, predicted) == pytest.approx((0.05**2 + 0.15**2) / 2)
    bins = calibration_bins(labels, predicted)
    assert [b["count"] for b in bins] == [1, 1, 0, 0, 0, 0, 0, 0, 1, 1]
    assert max_calibration_gap(bins) == pytest.approx(0.15)
    assert np.isnan(max_calibration_gap(bins, min_share=0.3))  # no bin holds 30 % of the cards


def test_a_tiny_training_run_writes_usable_networks(tmp_path: Path) -> None:
    config = OITrainConfig(games=3, bootstrap_games=2, games_per_epoch=2, heldout_games=1,
                           players=(3,), hidden=(8,), seed=5)
    summary = train_oi(config, tmp_path, command="test", progress=False)
    for name, kind in (("oi_overall", OVERALL_KIND), ("oi_immediate", IMMEDIATE_KIND)):
        card = json.loads((tmp_path / f"{name}.json").read_text())
        assert card["kind"] == kind
        assert card["feature_version"] == OI_FEATURE_VERSION
        assert card["architecture"].startswith(f"mlp {OI_FEATURE_SIZE}-8-1")
        assert card["training_command"] == "test"
    epochs = [json.loads(line) for line in (tmp_path / "metrics.jsonl").read_text().splitlines()]
    assert [e["games"] for e in epochs] == [2, 2, 1]
    assert epochs[0]["bootstrap"] and not epochs[1]["bootstrap"]
    assert epochs[1]["learning_rate"] < epochs[0]["learning_rate"]
    assert all(0.0 <= e["overall_brier"] <= 1.0 for e in epochs)
    assert (tmp_path / "calibration.png").read_bytes()[:4] == b"\x89PNG"
    assert summary["heldout"]["overall_samples"] > 0
    assert len(summary["calibration"]["overall (p_O)"]) == 10
    overall, immediate = load_networks(tmp_path)
    agent = OIAgent(overall, immediate)
    game = WizardGame(3, seed=2)
    while not game.is_finished:
        player = game.current_player
        assert player is not None
        game.apply(player, agent.act(game.observation(player)))
    assert isinstance(make_agent("oi", model_dir=tmp_path), OIAgent)


def test_train_oi_refuses_bad_arguments(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["train", "oi", "--out", str(tmp_path), "--players", "2,4"])
    assert exc.value.code == 2
    assert "players must be numbers 3-6" in capsys.readouterr().err
    assert main(["train", "oi", "--out", str(tmp_path), "--bootstrap-games", "0"]) == 2
    assert "bootstrap_games" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


def test_training_is_reproducible_from_its_seed(tmp_path: Path) -> None:
    config = OITrainConfig(games=1, bootstrap_games=1, games_per_epoch=1, heldout_games=1,
                           players=(3,), hidden=(8,), seed=9)
    for run in ("a", "b"):
        train_oi(config, tmp_path / run, progress=False)
    for name in ("oi_overall.onnx", "oi_immediate.onnx", "metrics.jsonl"):
        first = (tmp_path / "a" / name).read_bytes()
        second = (tmp_path / "b" / name).read_bytes()
        if name.endswith(".jsonl"):  # identical but for the elapsed seconds
            strip = [{k: v for k, v in json.loads(line).items() if k != "elapsed_s"}
                     for line in first.decode().splitlines()]
            assert strip == [{k: v for k, v in json.loads(line).items() if k != "elapsed_s"}
                             for line in second.decode().splitlines()]
        else:
            assert first == second


def test_the_cli_trains_and_installs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out, models = tmp_path / "run", tmp_path / "models"
    code = main(["train", "oi", "--games", "1", "--bootstrap-games", "1", "--heldout-games", "1",
                 "--players", "3", "--hidden", "8", "--quiet", "--out", str(out),
                 "--install", str(models)])
    assert code == 0
    assert "max_calibration_gap" in json.loads(capsys.readouterr().out)
    assert sorted(p.name for p in models.iterdir()) == [
        "oi_immediate.json", "oi_immediate.onnx", "oi_overall.json", "oi_overall.onnx"]
    assert isinstance(make_agent("oi", model_dir=models), OIAgent)
