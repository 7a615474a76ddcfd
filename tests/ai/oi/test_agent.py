"""The OI agent: the trick-count DP, expected-score bids, P(make bid) play, legal full games."""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Callable
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wizard.ai.oi import (
    IMMEDIATE_KIND,
    IMMEDIATE_NAME,
    OVERALL_KIND,
    OVERALL_NAME,
    OIAgent,
    OnnxProbabilityNet,
    expected_bid_scores,
    load_networks,
    play_values,
    trick_distributions,
)
from wizard.ai.oi.features import OI_BLOCKS, OI_FEATURE_SIZE, OI_FEATURE_VERSION
from wizard.ai.policy import OnnxPolicy, PolicyError, models_dir
from wizard.ai.registry import make_agent
from wizard.engine import Bid, ChooseTrump, GameOptions, Phase, WizardGame, round_score
from wizard.training.oi_export import export_mlp

ALL_OPTIONS = [GameOptions(*flags) for flags in itertools.product((False, True), repeat=3)]
probability = st.floats(0.0, 1.0, allow_nan=False)
Net = Callable[[npt.NDArray[np.float32]], npt.NDArray[np.float32]]


def brute_force(probs: list[float]) -> list[float]:
    """P(exactly s events) by summing q(H, S) over every subset S."""
    out = [0.0] * (len(probs) + 1)
    for chosen in itertools.product((False, True), repeat=len(probs)):
        q = math.prod(p if c else 1.0 - p for p, c in zip(probs, chosen, strict=True))
        out[sum(chosen)] += q
    return out


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(probability, min_size=0, max_size=9), min_size=1, max_size=3)
       .filter(lambda rows: len({len(r) for r in rows}) == 1))
def test_dp_equals_brute_force_subset_enumeration(rows: list[list[float]]) -> None:
    dist = trick_distributions(np.array(rows, dtype=np.float64).reshape(len(rows), -1))
    for row, got in zip(rows, dist, strict=True):
        assert got == pytest.approx(brute_force(row), abs=1e-12)
        assert got.sum() == pytest.approx(1.0)


@settings(max_examples=100, deadline=None)
@given(st.lists(probability, min_size=1, max_size=7), st.data())
def test_play_values_follow_the_seed_formula(p_overall: list[float], data: st.DataObject) -> None:
    h = len(p_overall)
    legal = data.draw(st.lists(st.integers(0, h - 1), min_size=1, max_size=h, unique=True))
    p_immediate = data.draw(st.lists(probability, min_size=len(legal), max_size=len(legal)))
    bid = data.draw(st.integers(0, h + 2))
    won = data.draw(st.integers(0, 3))
    make, expected = play_values(np.array(p_overall), np.array(p_immediate), legal, bid, won)
    w = bid - won
    for k, card in enumerate(legal):
        rest = brute_force([p for i, p in enumerate(p_overall) if i != card])

        def q(t: int, rest: list[float] = rest) -> float:
            return rest[t] if 0 <= t < len(rest) else 0.0

        pi = p_immediate[k]
        assert make[k] == pytest.approx(pi * q(w - 1) + (1 - pi) * q(w), abs=1e-12)
        outcome = [pi * q(t - 1) + (1 - pi) * q(t) for t in range(h + 1)]
        score = sum(o * round_score(bid, won + t) for t, o in enumerate(outcome))
        assert expected[k] == pytest.approx(score, abs=1e-9)


def test_expected_bid_scores_use_wizard_scoring() -> None:
    dist = trick_distributions([1.0, 0.5])  # one sure trick, one coin flip
    scores = expected_bid_scores(dist, [0, 1, 2])
    assert scores.tolist() == pytest.approx([-15.0, 10.0, 15.0])


# --- agents on fake networks --------------------------------------------------------------


class CountingNet:
    """A fake network: a fixed function of the rows, counting its calls."""

    def __init__(self, fn: Net) -> None:
        self.fn = fn
        self.calls = 0

    def __call__(self, x: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        self.calls += 1
        assert x.shape[1] == OI_FEATURE_SIZE
        return self.fn(x)


def wizard_only(x: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """p = 1 for wizards, 0 for everything else."""
    return x[:, OI_BLOCKS["kind"].start].astype(np.float32)


def trump_only(x: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """p = 0.9 for trump number cards, 0.05 for the rest."""
    return np.where(x[:, OI_BLOCKS["kind"].start + 2] > 0, 0.9, 0.05).astype(np.float32)


def test_the_agent_bids_the_best_expected_score() -> None:
    game = WizardGame(4, seed=12)
    for _ in range(2):  # round 1 -> round 2 (play out round 1)
        while game.phase is not Phase.BIDDING or game.round_number < 2:
            player = game.current_player
            assert player is not None
            game.apply(player, game.legal_actions()[0])
    player = game.current_player
    assert player is not None
    obs = game.observation(player)
    agent = OIAgent(wizard_only, wizard_only)
    wizards = sum(c.is_wizard for c in obs.hand)
    legal = [a.value for a in obs.legal_actions if isinstance(a, Bid)]
    expected = wizards if wizards in legal else None
    action = agent.act(obs)
    assert isinstance(action, Bid)
    if expected is not None:
        assert action.value == expected


def test_one_batched_call_per_network_per_decision() -> None:
    overall, immediate = CountingNet(trump_only), CountingNet(trump_only)
    agent = OIAgent(overall, immediate)
    game = WizardGame(5, GameOptions(wizard_trump_dealer_chooses=True), seed=3)
    decisions = 0
    while not game.is_finished:
        player = game.current_player
        assert player is not None
        before = (overall.calls, immediate.calls)
        game.apply(player, agent.act(game.observation(player)))
        decisions += 1
        assert overall.calls - before[0] <= 1
        assert immediate.calls - before[1] <= 1
    assert overall.calls > 0 and immediate.calls > 0
    assert overall.calls < decisions


def test_dealer_names_the_suit_that_scores_best() -> None:
    # find a deal whose turned card is a wizard, so the dealer chooses trump
    for seed in range(500):
        game = WizardGame(3, GameOptions(wizard_trump_dealer_chooses=True), seed=seed)
        for _ in range(12):
            if game.phase is Phase.CHOOSING_TRUMP and game.round_number >= 3:
                break
            player = game.current_player
            assert player is not None
            game.apply(player, game.legal_actions()[0])
            while game.phase is Phase.PLAYING:
                player = game.current_player
                assert player is not None
                game.apply(player, game.legal_actions()[0])
        if game.phase is Phase.CHOOSING_TRUMP and game.round_number >= 3:
            break
    else:
        pytest.fail("no deal with a turned wizard found")
    player = game.current_player
    assert player is not None
    obs = game.observation(player)
    counts = [sum(c.suit is not None and c.suit.index == s for c in obs.hand) for s in range(4)]
    action = OIAgent(trump_only, trump_only).act(obs)
    assert isinstance(action, ChooseTrump)
    assert counts[action.suit.index] == max(counts)


# --- shipped-format networks --------------------------------------------------------------


def write_random_networks(directory: Path, seed: int = 0, hidden: int = 16,
                          version: int = OI_FEATURE_VERSION) -> Path:
    rng = np.random.default_rng(seed)
    for name, kind in ((OVERALL_NAME, OVERALL_KIND), (IMMEDIATE_NAME, IMMEDIATE_KIND)):
        layers = [
            ((rng.standard_normal((OI_FEATURE_SIZE, hidden)) * 0.1).astype(np.float32),
             np.zeros(hidden, np.float32)),
            ((rng.standard_normal((hidden, 1)) * 0.5).astype(np.float32), np.zeros(1, np.float32)),
        ]
        path = export_mlp(layers, directory / f"{name}.onnx", name)
        card = {"name": name, "kind": kind, "feature_version": version}
        path.with_suffix(".json").write_text(json.dumps(card))
    return directory


@pytest.fixture(scope="module")
def random_networks(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_random_networks(tmp_path_factory.mktemp("oi"))


@pytest.mark.parametrize("num_players", [3, 4, 5, 6])
def test_oi_plays_legal_full_games_with_every_option(random_networks: Path,
                                                     num_players: int) -> None:
    for k, options in enumerate(ALL_OPTIONS):
        agents = [make_agent("oi", seed=k * 10 + s, model_dir=random_networks,
                             exploration=0.1 if s == 0 else 0.0) for s in range(num_players)]
        assert all(isinstance(a, OIAgent) for a in agents)
        game = WizardGame(num_players, options, seed=100 * num_players + k)
        while not game.is_finished:
            player = game.current_player
            assert player is not None
            obs = game.observation(player)
            action = agents[player].act(obs)
            assert action in obs.legal_actions
            game.apply(player, action)
        assert len(game.round_history) == 60 // num_players


def test_oi_is_reproducible_from_its_seed(random_networks: Path) -> None:
    def actions(seed: int) -> list[object]:
        agent = make_agent("oi", seed=seed, model_dir=random_networks, exploration=0.5)
        game = WizardGame(4, seed=5)
        out = []
        while not game.is_finished and len(out) < 80:
            player = game.current_player
            assert player is not None
            action = agent.act(game.observation(player))
            out.append(action)
            game.apply(player, action)
        return out

    assert actions(1) == actions(1)
    assert actions(1) != actions(2)


def test_missing_networks_are_a_clear_error_not_a_silent_heuristic(tmp_path: Path) -> None:
    with pytest.raises(PolicyError, match="oi_overall"):
        make_agent("oi", model_dir=tmp_path)
    with pytest.raises(PolicyError, match="does not exist"):
        load_networks(tmp_path)


def test_a_network_with_the_wrong_card_is_refused(random_networks: Path, tmp_path: Path) -> None:
    path = tmp_path / "x.onnx"
    path.write_bytes((random_networks / f"{OVERALL_NAME}.onnx").read_bytes())
    path.with_suffix(".json").write_text(json.dumps({"kind": OVERALL_KIND, "feature_version": 0}))
    with pytest.raises(PolicyError, match="feature version"):
        OnnxProbabilityNet(path, OVERALL_KIND)
    with pytest.raises(PolicyError, match="kind"):
        OnnxProbabilityNet(random_networks / f"{OVERALL_NAME}.onnx", IMMEDIATE_KIND)
    # an OI network is not an action policy
    with pytest.raises(PolicyError, match="not an action policy"):
        OnnxPolicy(random_networks / f"{OVERALL_NAME}.onnx")


def test_the_shipped_networks_load() -> None:
    overall, immediate = load_networks(models_dir())
    x = np.zeros((3, OI_FEATURE_SIZE), np.float32)
    for net in (overall, immediate):
        p = net(x)
        assert p.shape == (3,)
        assert ((p >= 0) & (p <= 1)).all()
    assert isinstance(make_agent("oi"), OIAgent)


def test_networks_of_feature_version_1_are_still_served_the_rows_they_learned(
        tmp_path: Path) -> None:
    old = load_networks(write_random_networks(tmp_path / "v1", version=1))
    new = load_networks(write_random_networks(tmp_path / "v2"))
    game = WizardGame(4, seed=3)
    while True:  # a decision with a card in the trick
        player = game.current_player
        assert player is not None
        obs = game.observation(player)
        if obs.phase is Phase.PLAYING and obs.current_trick and len(obs.hand) > 2:
            break
        game.apply(player, game.legal_actions()[0])
    lead = OI_BLOCKS["lead"]
    rows = {}
    for version, nets in ((1, old), (2, new)):
        agent = OIAgent(*nets)
        assert agent.feature_version == version
        decision = agent.decide(obs, record=True)
        assert decision.features is not None
        rows[version] = decision.features
    assert not rows[1][:, lead].any()
    assert (rows[2][:, lead].sum(axis=1) == 1).all()
    with pytest.raises(ValueError, match="different feature versions"):
        OIAgent(old[0], new[1])


def test_bad_agent_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="exploration"):
        OIAgent(wizard_only, wizard_only, exploration=1.5)
    with pytest.raises(ValueError, match="objective"):
        OIAgent(wizard_only, wizard_only, objective="win")
