"""Worlds weighted by the other seats' card plays under OI's play (`wizard.ai.search.oi_plays`)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from wizard.ai.oi import load_networks, make_oi_agent
from wizard.ai.search.oi_plays import OIPlayInference
from wizard.ai.search.plays import observed_plays
from wizard.ai.search.worlds import Knowledge, sample_hands
from wizard.engine import Observation, Phase, WizardGame
from wizard.engine.rules import legal_cards_mask

OVERALL, IMMEDIATE = load_networks()


def oi_position(seed: int, round_number: int, tricks: int = 1) -> tuple[WizardGame,
                                                                       Observation]:
    """A game of four OI players at a card decision in ``round_number`` after at least
    ``tricks`` full tricks, with the observation of the seat to move."""
    game = WizardGame(4, seed=seed)
    agent = make_oi_agent()
    while True:
        me = game.current_player
        assert me is not None
        obs = game.observation(me)
        if (obs.round_number == round_number and obs.phase is Phase.PLAYING
                and len(obs.played_cards) >= 4 * tricks + len(obs.current_trick)
                and len(obs.legal_actions) > 1):
            return game, obs
        game.apply(me, agent.act(obs))


def true_deal(game: WizardGame, obs: Observation) -> list[int]:
    return [0 if seat == obs.player else sum(1 << c.id for c in game.hand(seat))
            for seat in range(4)]


@pytest.mark.parametrize("seed", range(6))
def test_the_true_deal_explains_oi_players_plays_and_random_deals_do_not(seed: int) -> None:
    game, obs = oi_position(seed, 7)
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
