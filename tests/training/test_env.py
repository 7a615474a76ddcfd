"""The training environments: rewards add up to scores; vectorised stepping."""

from __future__ import annotations

import random

import numpy as np
import pytest

from wizard.ai.encoding import FEATURE_SIZE, ActionSpace
from wizard.engine import NUM_ACTIONS, GameOptions
from wizard.training.env import VectorWizardEnv, WizardEnv


@pytest.mark.parametrize("num_players", [3, 4, 5, 6])
def test_rewards_of_a_seat_add_up_to_its_final_score(num_players: int) -> None:
    env = WizardEnv(num_players, GameOptions(hidden_bids=True), seed=num_players)
    rng = random.Random(num_players)
    obs = env.reset()
    totals = [0.0] * num_players
    done = False
    while not done:
        result = env.step(rng.choice(obs.legal_actions))
        totals = [t + r for t, r in zip(totals, result.rewards, strict=True)]
        done = result.done
        if not done:
            assert result.observation is not None
            obs = result.observation
    assert env.game is not None
    assert totals == pytest.approx([s / 100 for s in env.game.scores])


def test_reset_samples_among_the_player_counts() -> None:
    env = WizardEnv((3, 6), seed=1)
    counts = {env.reset().num_players for _ in range(30)}
    assert counts == {3, 6}


def test_step_before_reset_is_an_error() -> None:
    with pytest.raises(RuntimeError, match="reset"):
        WizardEnv(4).step(None)  # type: ignore[arg-type]


def test_vector_env_steps_many_games_and_restarts_finished_ones() -> None:
    env = VectorWizardEnv(6, num_players=(3, 4), seed=2)
    step = env.reset()
    assert step.features.shape == (6, FEATURE_SIZE)
    assert step.masks.shape == (6, NUM_ACTIONS)
    rng = np.random.default_rng(0)
    finished = 0
    rewards_by_game = np.zeros((6, 6))
    for _ in range(2000):
        actions = [int(rng.choice(np.flatnonzero(m))) for m in step.masks]
        step = env.step(actions)
        rewards_by_game += step.rewards
        for done in np.flatnonzero(step.dones):
            i = int(done)
            final = step.final_scores[i]
            assert final is not None
            assert rewards_by_game[i, : len(final)] == pytest.approx(np.array(final) / 100)
            rewards_by_game[i] = 0
            finished += 1
        for i, obs in enumerate(env.observations):
            assert np.array_equal(step.masks[i], ActionSpace.mask(obs))
    assert finished >= 6


def test_vector_env_reports_each_completed_round_with_its_rewards() -> None:
    vec = VectorWizardEnv(3, num_players=(3, 5), seed=4)
    state = vec.reset()
    rng = np.random.default_rng(4)
    rounds = 0
    for _ in range(600):
        actions = [int(rng.choice(np.flatnonzero(m))) for m in state.masks]
        state = vec.step(actions)
        for i, result in enumerate(state.round_results):
            players = len(result.tricks) if result is not None else 0
            assert (result is not None) == bool(state.rewards[i].any())
            if result is not None:
                rounds += 1
                assert sum(result.tricks) == result.round_number
                assert np.allclose(state.rewards[i, :players],
                                   np.array(result.score_changes) / 100)
    assert rounds > 10
