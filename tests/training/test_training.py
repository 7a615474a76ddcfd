"""Training end to end at toy size: imitation, PPO, checkpoints, export with parity, the CLI."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch", reason="the train extra (torch) is not installed")

from wizard.__main__ import main
from wizard.ai.agents import ModelAgent
from wizard.ai.evaluate import evaluate
from wizard.ai.policy import OnnxPolicy
from wizard.ai.registry import make_agent
from wizard.training import export as export_module
from wizard.training.export import ExportError, export_policy, parity_observations
from wizard.training.imitate import ImitationConfig, train_imitation
from wizard.training.onnx_graphs import MlpWeights, mlp_policy
from wizard.training.policy import (
    CheckpointError,
    NetPolicy,
    load_checkpoint,
    save_checkpoint,
)
from wizard.training.ppo import PpoConfig, train_ppo
from wizard.training.progress import curve_series, evaluate_against_heuristics, plot_runs

TINY = ImitationConfig(games=300, hidden=(16,), chunk=50, eval_every=300, eval_games=12,
                       checkpoint_every=100, buffer_rows=50_000)


@pytest.fixture(scope="module")
def imitation_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("imitate")
    train_imitation(out, TINY, progress=False)
    return out


def test_imitation_writes_a_checkpoint_metrics_and_a_learning_curve(imitation_run: Path) -> None:
    record = json.loads((imitation_run / "checkpoint" / "policy.json").read_text())
    assert record["type"] == "mlp" and record["meta"]["games"] == 300
    lines = [json.loads(x) for x in (imitation_run / "metrics.jsonl").read_text().splitlines()]
    assert [x["total_games"] for x in lines] == list(range(50, 301, 50))
    assert "margin" in lines[-1] and lines[-1]["eval_games"] == 12
    assert lines[-1]["agreement"] > lines[0]["agreement"]  # it learns the teacher's cards
    assert (imitation_run / "learning_curve.png").stat().st_size > 1000


def test_export_passes_parity_and_the_model_plays(imitation_run: Path, tmp_path: Path) -> None:
    out = tmp_path / "smoke.onnx"
    card = export_policy(imitation_run / "checkpoint", out)
    assert card["parity"]["observations"] == 1000
    assert card["parity"]["max_abs_diff"] < 1e-4
    assert card["training"][0]["stage"] == "imitate"
    agent = make_agent("model", model_path=out)
    assert isinstance(agent, ModelAgent) and agent.name == "model:smoke"
    result = evaluate([agent, "heuristic", "heuristic"], games=3, seed=2)
    assert result.games == 3


def test_export_refuses_when_torch_and_onnxruntime_disagree(
        imitation_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def skewed(weights: MlpWeights, *, name: str = "x") -> object:
        w, b = weights.tricks  # a uniform shift would cancel in the softmax: tilt it
        tilted = b + np.linspace(0.0, 0.01, b.size, dtype=np.float32)
        return mlp_policy(MlpWeights(weights.trunk, weights.policy, (w, tilted),
                                     weights.value), name=name)

    monkeypatch.setattr(export_module, "mlp_policy", skewed)
    out = tmp_path / "skewed.onnx"
    with pytest.raises(ExportError, match="disagree"):
        export_policy(imitation_run / "checkpoint", out)
    assert not out.exists() and not out.with_suffix(".json").exists()


def test_parity_observations_come_from_real_games_of_every_size() -> None:
    features, masks = parity_observations(400)
    assert features.shape == (400, 315) and masks.shape == (400, 85)
    assert set(np.flatnonzero(features[:, :4].sum(axis=0))) == {0, 1, 2, 3}  # 3-6 players
    assert masks.any(axis=1).all()


def test_ppo_resumes_from_imitation_and_then_from_its_own_checkpoint(
        imitation_run: Path, tmp_path: Path) -> None:
    config = PpoConfig(games=12, envs=6, rollout=24, batch=128, eval_every=10_000,
                       eval_games=6, checkpoint_every=6)
    out = tmp_path / "ppo"
    train_ppo(out, config, init=imitation_run / "checkpoint", progress=False)
    record = json.loads((out / "checkpoint" / "policy.json").read_text())
    assert record["meta"]["games"] >= 12
    assert [t["stage"] for t in record["meta"]["training"]] == ["imitate", "ppo"]
    metrics = [json.loads(x) for x in (out / "metrics.jsonl").read_text().splitlines()]
    assert all("policy_loss" in m and "clip_fraction" in m for m in metrics)
    assert "margin" in metrics[-1]  # the final evaluation
    with pytest.raises(ValueError, match="already holds a run"):
        train_ppo(out, config, progress=False)
    longer = dataclasses.replace(config, games=18)
    train_ppo(out, longer, resume=True, progress=False)
    record = json.loads((out / "checkpoint" / "policy.json").read_text())
    assert record["meta"]["games"] >= 18
    assert [t["stage"] for t in record["meta"]["training"]] == ["imitate", "ppo", "ppo"]
    train_ppo(out, longer, resume=True, progress=False)  # complete already: a no-op
    again = json.loads((out / "checkpoint" / "policy.json").read_text())
    assert again["meta"] == record["meta"]


def test_checkpoints_round_trip_and_bad_ones_are_clear_errors(tmp_path: Path) -> None:
    policy = NetPolicy(hidden=(8,), seed=3)
    path = save_checkpoint(policy, tmp_path / "ck", {"games": 1})
    loaded = load_checkpoint(path)
    features, masks = parity_observations(20)
    assert np.array_equal(loaded.select(features, masks), policy.select(features, masks))
    with pytest.raises(CheckpointError, match=r"policy\.json is missing"):
        load_checkpoint(tmp_path / "nothing")
    broken = tmp_path / "broken"
    shutil.copytree(path, broken)
    (broken / "weights.pt").write_bytes(b"garbage")
    with pytest.raises(CheckpointError, match="cannot load the weights"):
        load_checkpoint(broken)
    old = tmp_path / "old"
    shutil.copytree(path, old)
    record = json.loads((old / "policy.json").read_text())
    (old / "policy.json").write_text(json.dumps({**record, "encoding_version": 0}))
    with pytest.raises(CheckpointError, match="encoding version 0"):
        load_checkpoint(old)
    (old / "policy.json").write_text("{")
    with pytest.raises(CheckpointError, match="cannot read"):
        load_checkpoint(old)


def test_the_cli_trains_exports_and_refuses_bad_input(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    assert main(["train", "imitate", "--out", str(out), "--games", "40", "--hidden", "8",
                 "--eval-every", "40", "--eval-games", "6", "--quiet"]) == 0
    assert main(["train", "imitate", "--out", str(out), "--games", "40", "--quiet"]) == 2
    assert "already holds a run" in capsys.readouterr().err
    ppo = tmp_path / "ppo"
    assert main(["train", "ppo", "--out", str(ppo), "--init", str(out / "checkpoint"),
                 "--games", "4", "--envs", "4", "--rollout", "16", "--eval-every", "100",
                 "--eval-games", "3", "--quiet"]) == 0
    model = tmp_path / "cli.onnx"
    assert main(["export", str(ppo / "checkpoint"), "--out", str(model)]) == 0
    assert OnnxPolicy(model).card["sizes"]["hidden"] == [8]
    assert main(["export", str(tmp_path / "missing"), "--out", str(tmp_path / "x.onnx")]) == 2
    assert "is not a checkpoint" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["train", "imitate", "--out", str(out), "--games", "4", "--hidden", "0"])


def test_the_cli_writes_the_evaluations_and_notes_into_the_model_card(
        imitation_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    model = tmp_path / "models" / "default.onnx"
    assert main(["export", str(imitation_run / "checkpoint"), "--out", str(model)]) == 0
    monkeypatch.setenv("WIZARD_MODELS_DIR", str(model.parent))
    capsys.readouterr()
    for name, agents in [("four", "model,heuristic,heuristic,heuristic"),
                         ("pair", "model,random,model,random")]:
        assert main(["evaluate", "--agents", agents, "--games", "8", "--seed", "4",
                     "--json", "--quiet"]) == 0
        (tmp_path / f"eval_{name}.json").write_text(capsys.readouterr().out)
    assert main(["export", str(imitation_run / "checkpoint"), "--out", str(model),
                 "--evaluations", str(tmp_path), "--note", "recipe=a script (GAMES=3)"]) == 0
    card = OnnxPolicy(model).card
    assert card["recipe"] == "a script (GAMES=3)"
    assert card["training_seconds"] >= 0
    four, pair = card["evaluation"]["four"], card["evaluation"]["pair"]
    assert four["command"] == ("wizard evaluate --agents model,heuristic,heuristic,heuristic "
                               "--games 8 --seed 4")
    result = json.loads((tmp_path / "eval_pair.json").read_text())
    model_seats, random_seats = result["agents"][0::2], result["agents"][1::2]
    assert len({a["name"] for a in model_seats}) == 1  # its two seats share one name
    assert pair["margin"] == round((sum(a["mean"] for a in model_seats)
                                    - sum(a["mean"] for a in random_seats)) / 2, 2)
    low, high = pair["margin_ci95"]  # paired by deal, as the evaluation gives it
    assert low < pair["margin"] < high
    printed = json.loads(capsys.readouterr().out.splitlines()[0])
    assert printed == {"four": four["margin"], "pair": pair["margin"]}
    assert main(["export", str(imitation_run / "checkpoint"), "--out", str(model),
                 "--note", "no equals sign"]) == 2
    assert "KEY=VALUE" in capsys.readouterr().err
    assert card["card_lookahead"] == 0.0 and OnnxPolicy(model).lookahead == 0.0
    assert main(["export", str(imitation_run / "checkpoint"), "--out", str(model),
                 "--card-lookahead", "20"]) == 0
    served = OnnxPolicy(model)
    assert served.lookahead == 20.0 and "card_lookahead" in served.card["decisions"]


def test_the_learning_curve_names_two_runs_of_one_stage_by_their_directories(
        imitation_run: Path, tmp_path: Path) -> None:
    for name in ("first", "second"):
        shutil.copytree(imitation_run, tmp_path / name)
    games = int(json.loads((imitation_run / "checkpoint" / "policy.json").read_text())
                ["meta"]["games"])
    series = curve_series([tmp_path / "first", tmp_path / "second"])
    assert [(label, shift) for label, _, shift in series] == [
        ("imitate (first)", 0), ("imitate (second)", games)]
    assert [label for label, _, _ in curve_series([imitation_run])] == ["imitate"]
    assert plot_runs([tmp_path / "first", tmp_path / "second"], tmp_path / "c.png", "two")


def test_the_periodic_evaluation_gives_the_same_numbers_in_worker_processes(
        imitation_run: Path) -> None:
    policy = load_checkpoint(imitation_run / "checkpoint")
    assert isinstance(policy, NetPolicy)
    alone = evaluate_against_heuristics(policy, 8, jobs=1)
    spread = evaluate_against_heuristics(policy, 8, jobs=2)  # they load the candidate, not
    assert alone == spread  # models/default.onnx: a different policy would differ here
