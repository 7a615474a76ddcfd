"""Expert iteration: teacher games labelled by a searcher's values, learned as soft targets."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch", reason="the train extra (torch) is not installed")

from wizard.__main__ import main
from wizard.ai.encoding import BLOCKS
from wizard.ai.lookahead import after_card
from wizard.ai.policy import OnnxPolicy
from wizard.engine import MAX_BID, PLAY_BASE, TRUMP_BASE
from wizard.training.imitate import ImitationConfig, train_imitation
from wizard.training.network import PolicyNet
from wizard.training.onnx_graphs import random_weights, widen
from wizard.training.policy import CheckpointError, NetPolicy, load_checkpoint
from wizard.training.runs import load_init
from wizard.training.teacher import ROW_KEYS, TeacherConfig, play_teacher_games


def test_labelled_rows_carry_the_labellers_soft_values_and_its_choice_is_played() -> None:
    rows = play_teacher_games(TeacherConfig("oi", labeller="oi", keep_plays=1.0,
                                            soft_temperature=5.0), 2, seed=3)
    targets = rows["targets"].astype(np.float32)
    assert np.allclose(targets.sum(1), 1.0, atol=1e-2)  # a distribution on every row
    assert (targets[~rows["masks"]] == 0).all()  # only over legal actions
    cards = rows["imitate"]
    soft = (targets[cards] > 0).sum(1) > 1
    assert soft.mean() > 0.3, "most card decisions with a choice get a soft target"
    chosen = targets[cards].argmax(1)
    assert (chosen == rows["actions"][cards]).mean() > 0.95  # the labeller's best is played
    bids = ~cards
    assert ((targets[bids] > 0).sum(1) == 1).all()  # bids stay one-hot (the tricks head bids)


def test_soft_targets_are_learned_as_distributions() -> None:
    rows = play_teacher_games(TeacherConfig("oi", labeller="oi", keep_plays=1.0), 1, seed=4)
    batch = dict(rows)
    batch["features"] = batch["features"].astype(np.float32)
    policy = NetPolicy(hidden=(32,), lr=3e-3, seed=1)
    first = policy.update(batch)["imitation_loss"]
    for _ in range(150):
        last = policy.update(batch)["imitation_loss"]
    targets = batch["targets"].astype(np.float32)[batch["imitate"]]
    entropy = -np.sum(np.where(targets > 0, targets * np.log(np.maximum(targets, 1e-9)), 0), 1)
    assert last < first
    assert last < float(entropy.mean()) + 0.2  # cross-entropy near the targets' own entropy


def test_a_run_labelled_by_the_master_starts_from_a_checkpoint_and_says_so(
        tmp_path: Path) -> None:
    base = tmp_path / "base"
    train_imitation(base, ImitationConfig(games=20, hidden=(16,), chunk=10, eval_every=20,
                                          eval_games=4, buffer_rows=20_000), progress=False)
    out = tmp_path / "expert"
    assert main(["train", "imitate", "--out", str(out), "--games", "2", "--teacher", "oi",
                 "--labeller", "search", "--init", str(base / "checkpoint"), "--eval-every",
                 "100", "--eval-games", "4", "--quiet"]) == 0
    record = json.loads((out / "checkpoint" / "policy.json").read_text())
    stages = record["meta"]["training"]
    assert [s["stage"] for s in stages] == ["imitate", "imitate"]
    assert stages[-1]["config"]["labeller"] == "search"
    policy = load_checkpoint(out / "checkpoint")
    assert isinstance(policy, NetPolicy) and policy.net.hidden == (16,)
    assert main(["train", "imitate", "--out", str(tmp_path / "bad"), "--games", "2",
                 "--labeller", "heuristic", "--eval-games", "4", "--quiet"]) == 2


def test_a_run_starts_from_an_exported_policy_file_with_its_weights_and_history(
        tmp_path: Path) -> None:
    shipped = Path("models/default.onnx")
    policy, history = load_init(shipped)
    assert isinstance(policy, NetPolicy)
    card = json.loads(shipped.with_suffix(".json").read_text())
    assert history[:-1] == card["training"] and history[-1]["file"] == str(shipped)
    rows = play_teacher_games(TeacherConfig("heuristic"), 1, seed=5)
    features = rows["features"].astype(np.float32)
    served = OnnxPolicy(shipped).session.run(["probs", "tricks", "value"],
                                             {"features": features, "mask": rows["masks"]})
    for ours, theirs in zip(policy.net.outputs(features, rows["masks"]), served, strict=True):
        assert np.abs(ours - theirs).max() < 1e-4  # the same network, now trainable
    assert policy.net.after_head is None  # the shipped after-card head is not carried over

    out = tmp_path / "warm"
    assert main(["train", "imitate", "--out", str(out), "--games", "2", "--teacher", "oi",
                 "--labeller", "oi", "--init", str(shipped), "--eval-every", "100",
                 "--eval-games", "4", "--quiet"]) == 0
    stages = json.loads((out / "checkpoint" / "policy.json").read_text())["meta"]["training"]
    assert [s["stage"] for s in stages][-2:] == ["exported", "imitate"]

    broken = tmp_path / "broken.onnx"
    broken.write_bytes(b"not a model")
    with pytest.raises(CheckpointError, match=r"broken\.onnx"):
        load_init(broken)
    other = tmp_path / "old.onnx"
    other.write_bytes(shipped.read_bytes())
    other.with_suffix(".json").write_text(json.dumps({"encoding_version": 0}))
    with pytest.raises(CheckpointError, match="encoding version 0"):
        load_init(other)
    assert main(["train", "imitate", "--out", str(tmp_path / "bad"), "--games", "2",
                 "--init", str(broken), "--eval-games", "4", "--quiet"]) == 2


def test_the_learner_at_the_table_plays_its_own_moves_and_only_its_seats_become_rows(
        tmp_path: Path) -> None:
    shipped = tmp_path / "learner-1.onnx"  # as training writes it: no card, no lookahead
    shipped.write_bytes(Path("models/default.onnx").read_bytes())
    config = TeacherConfig("oi", labeller="oi", keep_plays=1.0, explore_bids=0.0,
                           learner_seats=0.25, opponents=("heuristic",))
    rows = play_teacher_games(config, 3, seed=6, learner=shipped)
    policy, _ = load_init(shipped)
    cards = rows["imitate"]
    features = rows["features"][cards].astype(np.float32)
    probs, _, _ = policy.net.outputs(features, rows["masks"][cards])
    # every kept card is the learner's own choice, not the labeller's best
    assert (probs.argmax(1) == rows["actions"][cards]).mean() > 0.99
    targets = rows["targets"].astype(np.float32)[cards]
    assert (targets.argmax(1) != rows["actions"][cards]).any()  # the labels disagree at times
    teacher_rows = play_teacher_games(dataclasses.replace(config, learner_seats=0.0), 3, seed=6)
    assert len(rows["actions"]) < len(teacher_rows["actions"]) / 2  # a seat or two of each game
    choices = play_teacher_games(dataclasses.replace(config, labeller=None), 2, seed=7,
                                 learner=shipped)
    picked = choices["targets"].astype(np.float32)[choices["imitate"]]
    assert ((picked > 0).sum(1) == 1).all()  # without a labeller: the teacher's choice, one-hot
    assert (picked.argmax(1) != choices["actions"][choices["imitate"]]).any()


def test_a_run_with_the_learner_at_the_table_trains_on_its_own_games(tmp_path: Path) -> None:
    out = tmp_path / "dagger"
    assert main(["train", "imitate", "--out", str(out), "--games", "4", "--teacher", "oi",
                 "--labeller", "oi", "--learner-seats", "0.5", "--opponents", "heuristic,oi",
                 "--init", "models/default.onnx", "--eval-every", "100", "--eval-games", "4",
                 "--workers", "2", "--card-lookahead", "20", "--after-card-rows",
                 "--quiet"]) == 0
    record = json.loads((out / "checkpoint" / "policy.json").read_text())
    config = record["meta"]["training"][-1]["config"]
    assert config["learner_seats"] == 0.5 and config["opponents"] == ["heuristic", "oi"]
    assert config["card_lookahead"] == 20.0  # the learner plays its cards one card ahead
    assert config["after_card_rows"]  # and its tricks head learns the rows after the card
    learners = sorted((out / "learner").glob("learner-*.onnx"))
    assert learners and all(OnnxPolicy(path).lookahead == 20.0 for path in learners)
    assert record["meta"]["games"] == 4


def test_widening_keeps_the_function_and_refuses_to_narrow(tmp_path: Path) -> None:
    weights = random_weights((64, 48), seed=3)
    rows = play_teacher_games(TeacherConfig("heuristic"), 1, seed=8)
    features, masks = rows["features"].astype(np.float32), rows["masks"]
    narrow = PolicyNet.from_weights(weights).outputs(features, masks)
    wide_net = PolicyNet.from_weights(widen(weights, (96, 64), seed=1))
    assert wide_net.hidden == (96, 64)
    for before, after in zip(narrow, wide_net.outputs(features, masks), strict=True):
        assert np.abs(before - after).max() < 0.02
    with pytest.raises(ValueError, match="narrow"):
        widen(weights, (32, 64))
    with pytest.raises(ValueError, match="hidden layers"):
        widen(weights, (512,))
    out = tmp_path / "wide"
    assert main(["train", "imitate", "--out", str(out), "--games", "2", "--teacher", "oi",
                 "--learner-seats", "0.5", "--init", "models/default-v1.onnx", "--widen", "320,256",
                 "--eval-every", "100", "--eval-games", "4", "--quiet"]) == 0
    policy = load_checkpoint(out / "checkpoint")
    assert isinstance(policy, NetPolicy) and policy.net.hidden == (320, 256)


def test_costly_card_decisions_weigh_more_in_the_imitation_loss() -> None:
    shipped = Path("models/default.onnx")
    config = TeacherConfig("oi", keep_plays=1.0, explore_bids=0.0, learner_seats=0.5,
                           opponents=("heuristic",), cost_weight=1.0)
    rows = play_teacher_games(config, 2, seed=9, learner=shipped)
    cost = rows["cost"].astype(np.float32)
    cards = rows["imitate"] & (rows["masks"].sum(1) > 1)
    assert (cost[~rows["imitate"]] == 1.0).all()  # bids are not weighed
    assert (cost[cards] >= 1.0).all() and cost[cards].max() > 2.0  # some choices cost much
    assert len(np.unique(cost[cards])) > 5
    plain = play_teacher_games(dataclasses.replace(config, cost_weight=0.0), 2, seed=9,
                               learner=shipped)
    assert (plain["cost"] == 1.0).all()
    assert np.array_equal(plain["targets"], rows["targets"])  # the same labels, reweighed
    # the loss is the cost-weighted mean: a row of cost 3 counts as three rows of cost 1
    batch = {k: v[cards][:8] for k, v in rows.items()}
    batch["features"] = batch["features"].astype(np.float32)
    batch["cost"] = np.array([3, 1, 1, 1, 1, 1, 1, 1], np.float16)
    costly = NetPolicy(hidden=(16,), seed=2).update(batch)["imitation_loss"]
    repeated = {k: np.concatenate([v[:1], v[:1], v]) for k, v in batch.items()}
    repeated["cost"] = np.ones(10, np.float16)
    same = NetPolicy(hidden=(16,), seed=2).update(repeated)["imitation_loss"]
    assert costly == pytest.approx(same, rel=1e-5)
    batch["cost"] = np.ones(8, np.float16)
    assert NetPolicy(hidden=(16,), seed=2).update(batch)["imitation_loss"] != pytest.approx(
        same, rel=1e-3)
    with pytest.raises(ValueError, match="action_scores"):
        play_teacher_games(TeacherConfig("heuristic", cost_weight=1.0), 1, seed=1)


def test_rows_after_the_card_follow_each_card_decision_with_a_choice() -> None:
    config = TeacherConfig("heuristic", keep_plays=1.0, explore_bids=0.0)
    plain = play_teacher_games(config, 2, seed=10)
    rows = play_teacher_games(dataclasses.replace(config, after_card_rows=True), 2, seed=10)
    after = ~rows["imitate"] & ~rows["masks"][:, :MAX_BID + 1].any(1)  # neither bid nor card
    choices = plain["imitate"] & (plain["masks"].sum(1) > 1) & (plain["actions"] < TRUMP_BASE)
    assert after.sum() == choices.sum() > 50
    kept = {k: v[~after] for k, v in rows.items()}
    for key in ROW_KEYS:  # the same games, the same decision rows
        assert np.array_equal(kept[key], plain[key]), key
    decisions = np.flatnonzero(after) - 1  # each follows its decision
    assert rows["imitate"][decisions].all()
    cards = rows["actions"][decisions].astype(np.int64) - PLAY_BASE
    expected, masks = after_card(rows["features"][decisions].astype(np.float32), cards)
    assert np.array_equal(rows["features"][after], expected.astype(np.float16))
    assert np.array_equal(rows["masks"][after], masks)
    assert np.array_equal(rows["tricks"][after], rows["tricks"][decisions])  # the round's
    assert (rows["targets"][after] == 0).all()  # nothing for the policy head


def test_an_explored_card_is_random_and_drops_the_seats_earlier_rows_of_the_round() -> None:
    config = TeacherConfig("heuristic", keep_plays=1.0, explore_bids=0.0, after_card_rows=True)
    plain = play_teacher_games(config, 2, seed=11)
    rows = play_teacher_games(dataclasses.replace(config, explore_cards=1.0), 2, seed=11)
    bids = rows["masks"][:, :MAX_BID + 1].any(1)
    after = ~rows["imitate"] & ~bids
    follows = np.zeros(len(after), bool)  # an after-row right behind its own decision
    follows[1:] = rows["imitate"][:-1] & (rows["actions"][:-1] == rows["actions"][1:])
    explored = np.flatnonzero(after & ~follows)
    # a seat explores its first card with a choice each round: its bid row is gone
    assert len(explored) > 20 and bids.sum() < plain["masks"][:, :MAX_BID + 1].any(1).sum() / 2
    cards = rows["actions"][explored].astype(np.int64) - PLAY_BASE
    features = rows["features"][explored]
    assert (features[np.arange(len(cards)), BLOCKS["played"].start + cards] == 1).all()
    assert not rows["masks"][explored, PLAY_BASE + cards].any()  # it left the hand
    with pytest.raises(ValueError, match="after_card_rows"):
        play_teacher_games(TeacherConfig("heuristic", explore_cards=0.1), 1, seed=1)
