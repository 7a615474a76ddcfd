"""Worlds weighted by the other seats' card plays under OI's play (`wizard.ai.search.oi_plays`)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from wizard.ai.oi import load_networks
from wizard.ai.search.oi_plays import OIPlayInference
from wizard.ai.search.plays import observed_plays
from wizard.ai.search.worlds import Knowledge, sample_hands
from wizard.engine import WizardGame
from wizard.engine.rules import legal_cards_mask

from .test_plays import true_deal
from .test_table import position

OVERALL, IMMEDIATE = load_networks()


@pytest.mark.parametrize("seed", range(6))
def test_the_true_deal_explains_oi_players_plays_and_random_deals_do_not(seed: int) -> None:
    game, obs = position("oi", seed, round_number=7, tricks=2)
    model = OIPlayInference(OVERALL, IMMEDIATE, 0.1)
    real = true_deal(game, obs)
    plays = [p for p in observed_plays(obs)
             if legal_cards_mask(real[p.seat] | p.later, p.lead).bit_count() > 1]
    assert plays
    # under the real hands every informative play is one of the cards OI rates best
    held = np.array([[real[p.seat] | p.later] for p in plays], np.uint64)
    for play, hand in zip(plays, held, strict=True):
        _, hit = model._choices(obs, play, hand, [legal_cards_mask(int(hand[0]), play.lead)])
        assert hit[0], play
    truth = model.log_likelihoods(obs, [real])[0]
    knowledge = Knowledge.of(obs)
    rng = random.Random(seed)
    sampled = model.log_likelihoods(obs, [sample_hands(knowledge, rng) for _ in range(64)])
    assert sum(sampled) / len(sampled) < truth


def test_nothing_played_says_nothing_and_a_model_without_room_for_error_is_refused() -> None:
    game = WizardGame(4, seed=5)
    obs = game.observation(game.current_player)
    model = OIPlayInference(OVERALL, IMMEDIATE)
    assert model.log_likelihoods(obs, [[0, 0, 0, 0], [0, 0, 0, 0]]) == [0.0, 0.0]
    assert model.log_likelihoods(obs, []) == []
    for error in (0.0, 1.0, -0.1):
        with pytest.raises(ValueError, match="play error"):
            OIPlayInference(OVERALL, IMMEDIATE, error)
