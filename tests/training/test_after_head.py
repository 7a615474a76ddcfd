"""The after-card tricks head: fitted last on the frozen trunk, read by the card lookahead only."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch", reason="the train extra (torch) is not installed")

from wizard.__main__ import main
from wizard.ai.encoding import BLOCKS
from wizard.ai.lookahead import CARD_COLUMNS
from wizard.ai.policy import AFTER_OUTPUT, OnnxPolicy
from wizard.engine import PLAY_BASE
from wizard.training.after_head import after_rows
from wizard.training.export import parity_observations
from wizard.training.network import PolicyNet
from wizard.training.onnx_graphs import weights_from_onnx, write_random_policy
from wizard.training.policy import NetPolicy
from wizard.training.runs import load_init
from wizard.training.teacher import TeacherConfig, play_teacher_games


def test_the_rows_after_a_card_are_the_ones_the_lookahead_asks_about() -> None:
    rows = play_teacher_games(TeacherConfig("heuristic", keep_plays=1.0, after_card_rows=True),
                              2, seed=5)
    after = after_rows(rows)
    played = rows["imitate"] & (rows["masks"][:, CARD_COLUMNS].sum(1) > 1)
    assert len(after["tricks"]) == played.sum() > 50  # one for each card decision with a choice
    hand, seen = BLOCKS["hand"].start, BLOCKS["played"].start
    for features, action in zip(after["features"], after["actions"], strict=True):
        card = int(action) - PLAY_BASE
        assert features[hand + card] == 0 and features[seen + card] == 1  # the card is played
    assert not after["imitate"].any()


@pytest.mark.parametrize("units", [0, 16])
def test_the_fitted_head_changes_only_what_the_lookahead_reads(tmp_path: Path,
                                                               units: int) -> None:
    init = write_random_policy(tmp_path, "base", hidden=(32,), seed=4)
    out = tmp_path / "after"
    command = ["train", "after-head", "--init", str(init), "--out", str(out), "--games", "30",
               "--epochs", "3", "--eval-games", "4", "--opponents", "heuristic", "--quiet",
               "--hidden-units", str(units)]
    assert main(command) == 0
    rows = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()]
    epochs = [r for r in rows if "margin" not in r]
    assert [r["epoch"] for r in epochs] == [1, 2, 3]
    kept = rows[-1]  # the kept epoch, with the evaluation one card ahead
    assert "margin" in kept and kept["held_out_after_loss"] <= kept["held_out_tricks_head_loss"]
    assert kept["held_out_after_loss"] == min([r["held_out_after_loss"] for r in epochs]
                                              + [kept["held_out_tricks_head_loss"]])
    assert (out / "learning_curve.png").is_file()
    assert not list(out.glob("table.*"))  # the table's scratch file is gone

    exported = tmp_path / "looking.onnx"
    assert main(["export", str(out / "checkpoint"), "--out", str(exported),
                 "--card-lookahead", "10"]) == 0
    card = json.loads(exported.with_suffix(".json").read_text())
    assert AFTER_OUTPUT in card["outputs"] and AFTER_OUTPUT in card["decisions"]
    assert (f"a ReLU layer of {units}" in card["architecture"]) == bool(units)
    reread = PolicyNet.from_weights(weights_from_onnx(exported))  # the file holds the layer
    assert (reread.after_deep.hidden.out_features if reread.after_deep else 0) == units
    features, masks = parity_observations(200, seed=3)
    before, now = OnnxPolicy(init).run(features, masks), OnnxPolicy(exported).run(features, masks)
    assert before.after is None and now.after is not None
    assert np.allclose(before.probs, now.probs, atol=1e-6)  # the cards as they were
    assert np.allclose(before.tricks, now.tricks, atol=1e-6)  # and the bids
    assert not np.allclose(now.after, now.tricks, atol=1e-3)
    assert (now.after[now.tricks == 0] == 0).all()  # no more tricks than cards either

    assert main([*command, "--resume"]) == 0  # a finished run is returned as it is
    assert len((out / "metrics.jsonl").read_text().splitlines()) == len(rows)
    again, _ = load_init(out / "checkpoint")  # a stage after it trains the trunk: no head
    assert isinstance(again, NetPolicy) and again.net.after_head is again.net.after_deep is None
    from_file, _ = load_init(exported)
    assert isinstance(from_file, NetPolicy)
    assert from_file.net.after_head is from_file.net.after_deep is None


def test_a_negative_layer_size_is_refused_before_anything_is_written(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "after"
    with pytest.raises(SystemExit) as refused:
        main(["train", "after-head", "--init", "models/default.onnx", "--out", str(out),
              "--hidden-units", "-3"])
    assert refused.value.code == 2
    assert "units must be a whole number, 0 (none) or more" in capsys.readouterr().err
    assert not out.exists()
