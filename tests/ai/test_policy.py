"""ONNX policies and the model agent: the contract, bids by expected score, refusing bad files."""

from __future__ import annotations

import dataclasses
import json
import random
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from wizard.ai.agents import ModelAgent
from wizard.ai.encoding import FEATURE_SIZE, ActionSpace, encode_batch, encode_observation
from wizard.ai.lookahead import CARD_COLUMNS, after_card, card_rows
from wizard.ai.policy import (
    SCORE_TABLE,
    TRICKS_SIZE,
    OnnxPolicy,
    PolicyError,
    bid_scores,
    choose,
    with_bid,
)
from wizard.ai.registry import make_agent
from wizard.engine import PLAY_BASE, Bid, GameOptions, Phase, WizardGame
from wizard.engine.rules import round_score
from wizard.training.onnx_graphs import mlp_policy, random_weights, write_random_policy


@pytest.fixture(scope="module")
def policy_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_random_policy(tmp_path_factory.mktemp("models"), "tiny", hidden=(32,), seed=3)


def observations(num_players: int, seed: int, options: GameOptions | None = None) -> list:
    """Every decision of one game played by the first legal action."""
    game = WizardGame(num_players, options or GameOptions(), seed=seed)
    out = []
    while not game.is_finished:
        player = game.current_player
        obs = game.observation(player)
        out.append(obs)
        game.apply(player, obs.legal_actions[-1])
    return out


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


def test_probabilities_are_zero_at_illegal_actions_and_tricks_beyond_the_hand(
        policy_path: Path) -> None:
    obs = observations(4, seed=2, options=GameOptions(wizard_trump_dealer_chooses=True))
    features, masks = encode_batch(obs), ActionSpace.mask_batch(obs)
    out = OnnxPolicy(policy_path).run(features, masks)
    assert np.all(out.probs[~masks] == 0.0)
    assert np.allclose(out.probs.sum(axis=1), 1.0, atol=1e-5)
    cards = np.array([o.round_number for o in obs])
    beyond = np.arange(TRICKS_SIZE)[None, :] > cards[:, None]
    assert np.all(out.tricks[beyond] == 0.0)
    assert np.allclose(out.tricks.sum(axis=1), 1.0, atol=1e-5)


def test_cards_follow_the_most_probable_legal_action(policy_path: Path) -> None:
    policy = OnnxPolicy(policy_path)
    plays = [o for o in observations(4, seed=9) if o.phase is Phase.PLAYING][:30]
    for obs in plays:
        mask = ActionSpace.mask(obs)
        probs = policy.run(encode_observation(obs)[None, :], mask[None, :]).probs[0]
        assert ModelAgent(policy).act(obs) == ActionSpace.action(int(np.argmax(probs)))


def test_bids_maximise_the_expected_score_under_the_tricks_head(policy_path: Path) -> None:
    policy = OnnxPolicy(policy_path)
    bids_seen = set()
    for obs in [o for o in observations(3, seed=5) if o.phase is Phase.BIDDING][:20]:
        features = encode_observation(obs)[None, :]
        mask = ActionSpace.mask(obs)
        expected = {}
        for action in obs.legal_actions:
            assert isinstance(action, Bid)
            asked = with_bid(features, np.array([action.value]))
            tricks = policy.run(asked, mask[None, :]).tricks[0]
            expected[action.value] = sum(p * round_score(action.value, t)
                                         for t, p in enumerate(tricks))
        chosen = ModelAgent(policy).act(obs)
        assert isinstance(chosen, Bid)
        assert expected[chosen.value] == pytest.approx(max(expected.values()), abs=1e-3)
        bids_seen.add(chosen.value)
    assert len(bids_seen) > 1  # not a constant: the bid depends on the hand


def test_a_batch_of_bids_and_cards_decides_each_row_as_it_would_alone(policy_path: Path) -> None:
    # The pool sends bids, trump choices and cards in one batch; one ONNX call serves them all.
    policy = OnnxPolicy(policy_path)
    obs = observations(4, seed=6, options=GameOptions(wizard_trump_dealer_chooses=True))
    features, masks = encode_batch(obs), ActionSpace.mask_batch(obs)
    assert {o.phase for o in obs} >= {Phase.BIDDING, Phase.PLAYING}
    for lookahead in (0.0, 20.0):  # the cards one card ahead, or by probability
        together = policy.logits(features, masks, lookahead=lookahead)
        alone = np.concatenate([policy.logits(features[i:i + 1], masks[i:i + 1],
                                              lookahead=lookahead) for i in range(len(obs))])
        assert np.allclose(together, alone, atol=1e-4)
        assert np.array_equal(together.argmax(axis=1), alone.argmax(axis=1))
        assert all(masks[i, together[i].argmax()] for i in range(len(obs)))
    rows = np.full(len(obs), 20.0, np.float32)
    rows[::2] = 0.0  # a lookahead per row: the pool's batch of bots of two versions
    mixed = policy.logits(features, masks, lookahead=rows)
    assert np.allclose(mixed[::2], policy.logits(features, masks, lookahead=0.0)[::2], atol=1e-4)
    assert np.allclose(mixed[1::2], together[1::2], atol=1e-4)


def test_a_card_lookahead_adds_each_cards_expected_score_after_it(policy_path: Path) -> None:
    # The engine plays each legal card; the tricks head values the seat's view after it.
    policy = OnnxPolicy(policy_path)
    rng = random.Random(3)
    game, checked = WizardGame(4, seed=8), 0
    while not game.is_finished:
        seat = game.current_player
        obs = game.observation(seat)
        if obs.phase is Phase.PLAYING and len(obs.legal_actions) > 1:
            features, mask = encode_observation(obs)[None, :], ActionSpace.mask(obs)[None, :]
            plain = policy.logits(features, mask, lookahead=0.0)[0]
            looked = policy.logits(features, mask, lookahead=20.0)[0]
            for action in obs.legal_actions:
                after = game.clone()
                after.apply(seat, action)
                view = after.observation(seat)
                if view.round_number != obs.round_number or (
                        view.tricks_won != obs.tricks_won
                        and view.tricks_won[seat] == obs.tricks_won[seat]):
                    continue  # a new round, or another seat's trick (not in the features)
                tricks = policy.run(encode_observation(view)[None, :],
                                    ActionSpace.mask(view)[None, :]).tricks
                expected = bid_scores(tricks, np.array([obs.bids[seat]]))[0]
                column = ActionSpace.index(action)
                assert looked[column] == pytest.approx(plain[column] + expected / 20.0, abs=1e-3)
                checked += 1
            assert np.array_equal(looked <= -1e8, plain <= -1e8)  # the same legal cards
        game.apply(seat, rng.choice(obs.legal_actions))
    assert checked > 50


def test_a_policy_plays_the_lookahead_its_model_card_names(policy_path: Path,
                                                           tmp_path: Path) -> None:
    assert OnnxPolicy(policy_path).lookahead == 0.0  # no card_lookahead: probabilities alone
    path = tmp_path / "looking.onnx"
    path.write_bytes(policy_path.read_bytes())
    card = json.loads(policy_path.with_suffix(".json").read_text())
    path.with_suffix(".json").write_text(json.dumps({**card, "card_lookahead": 20}))
    policy = OnnxPolicy(path)
    assert policy.lookahead == 20.0
    plays = [o for o in observations(4, seed=9) if o.phase is Phase.PLAYING
             and len(o.legal_actions) > 1]
    features, masks = encode_batch(plays), ActionSpace.mask_batch(plays)
    assert np.allclose(policy.logits(features, masks),
                       policy.logits(features, masks, lookahead=20.0), atol=1e-4)
    assert not np.array_equal(policy.logits(features, masks),
                              policy.logits(features, masks, lookahead=0.0))
    for bad in ("20", -1, True, None):
        path.with_suffix(".json").write_text(json.dumps({**card, "card_lookahead": bad}))
        with pytest.raises(PolicyError, match="card_lookahead"):
            OnnxPolicy(path)


def test_with_bid_reads_like_the_observation_after_that_bid() -> None:
    game = WizardGame(3, seed=11)
    seat = game.current_player
    before = game.observation(seat)
    game.apply(seat, Bid(1))
    after = encode_observation(game.observation(seat))
    guessed = with_bid(encode_observation(before)[None, :], np.array([1]))[0]
    own = slice(274, 279)
    assert np.array_equal(guessed[own], after[own])
    assert guessed[-1] == pytest.approx(after[-1])


def test_bid_scores_are_the_wizard_scores_weighted_by_probability() -> None:
    tricks = np.zeros((1, TRICKS_SIZE), np.float32)
    tricks[0, [0, 1]] = 0.5
    assert bid_scores(tricks, np.array([0])).tolist() == [0.5 * 20 - 0.5 * 10]
    assert SCORE_TABLE[3, 3] == 50 and SCORE_TABLE[0, 2] == -20


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


def test_a_missing_model_file_is_a_clear_error_not_a_heuristic() -> None:
    with pytest.raises(PolicyError, match=r"missing\.onnx does not exist"):
        make_agent("model", model_path="/definitely/missing.onnx")


def test_a_corrupt_model_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "corrupt.onnx"
    path.write_bytes(b"this is not an onnx file at all")
    with pytest.raises(PolicyError, match="cannot load"):
        make_agent("model", model_path=path)


def test_a_corrupt_model_card_is_refused(policy_path: Path, tmp_path: Path) -> None:
    copy = tmp_path / "card.onnx"
    copy.write_bytes(policy_path.read_bytes())
    copy.with_suffix(".json").write_text("{not json")
    with pytest.raises(PolicyError, match="cannot read model card"):
        OnnxPolicy(copy)


def test_a_policy_from_another_encoding_version_is_refused(policy_path: Path,
                                                           tmp_path: Path) -> None:
    copy = tmp_path / "old.onnx"
    copy.write_bytes(policy_path.read_bytes())
    copy.with_suffix(".json").write_text(json.dumps({"name": "old", "encoding_version": 0}))
    with pytest.raises(PolicyError, match="encoding version 0"):
        make_agent("model", model_path=copy)


def test_a_policy_of_the_old_logits_only_contract_is_refused(tmp_path: Path) -> None:
    weight = numpy_helper.from_array(np.zeros((FEATURE_SIZE, 85), np.float32), "w")
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["features", "w"], ["logits"])], "old",
        [helper.make_tensor_value_info("features", TensorProto.FLOAT, ["batch", FEATURE_SIZE])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 85])], [weight])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    path = tmp_path / "logits.onnx"
    onnx.save(model, str(path))
    with pytest.raises(PolicyError, match="lacks mask, probs, tricks"):
        OnnxPolicy(path)


def test_a_policy_with_the_wrong_feature_count_is_refused(tmp_path: Path) -> None:
    from wizard.training.onnx_graphs import random_mlp_policy

    model = random_mlp_policy((8,), seed=1)
    model.graph.input[0].type.tensor_type.shape.dim[1].dim_value = FEATURE_SIZE + 1
    path = tmp_path / "wrong.onnx"
    onnx.save(model, str(path))
    with pytest.raises(PolicyError, match="316"):  # refused at load or by our shape check
        OnnxPolicy(path)


def test_a_policy_with_an_after_card_head_looks_ahead_through_it(tmp_path: Path) -> None:
    # The lookahead reads `after_tricks` where the file has it; the bids keep reading `tricks`.
    weights = random_weights((32,), seed=3)
    after = random_weights((32,), seed=11).tricks
    path = tmp_path / "after.onnx"
    onnx.save(mlp_policy(dataclasses.replace(weights, after=after)), str(path))
    plain_path = tmp_path / "plain.onnx"
    onnx.save(mlp_policy(weights), str(plain_path))
    policy, plain = OnnxPolicy(path), OnnxPolicy(plain_path)
    obs = observations(4, seed=9)
    features, masks = encode_batch(obs), ActionSpace.mask_batch(obs)
    assert np.allclose(policy.logits(features, masks, lookahead=0.0),
                       plain.logits(features, masks, lookahead=0.0), atol=1e-5)  # bids, cards
    looked = policy.logits(features, masks, lookahead=20.0)
    rows = card_rows(features, masks)
    assert rows.size > 10
    for row in rows:
        cards = np.flatnonzero(masks[row, CARD_COLUMNS])
        view, view_masks = after_card(np.repeat(features[row:row + 1], len(cards), 0), cards)
        out = policy.run(view, view_masks)
        assert out.after is not None
        bid = np.full(len(cards), obs[row].bids[obs[row].player])
        expected = bid_scores(out.after, bid)
        base = policy.logits(features[row:row + 1], masks[row:row + 1], lookahead=0.0)[0]
        assert np.allclose(looked[row, PLAY_BASE + cards], base[PLAY_BASE + cards] + expected / 20,
                           atol=1e-3)
        assert not np.allclose(expected, bid_scores(out.tricks, bid), atol=1e-2)
