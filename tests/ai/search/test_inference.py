"""Worlds weighted by OI's bidding explain the other seats' bids (`wizard.ai.search.inference`)."""

from __future__ import annotations

import random

import pytest

from wizard.ai.agents.heuristic import expected_tricks
from wizard.ai.oi import load_networks
from wizard.ai.registry import make_agent
from wizard.ai.search import Budget, SearchAgent
from wizard.ai.search.inference import BidInference, effective_sample_size, temper
from wizard.ai.search.pimc import action_values
from wizard.ai.search.worlds import played_by_seat, sample_worlds
from wizard.engine import GameOptions, ids_of

from .test_rollout import random_position

OVERALL, _ = load_networks()


def test_inferred_hands_fit_the_bids_better_than_uniform_ones_across_positions() -> None:
    # every seat bids with OI; at a later decision of seat `me`, the other seats' sampled
    # hands (with what they played back) are nearer their bids under inference
    oi = make_agent("oi")
    gaps = {"uniform": 0.0, "inferred": 0.0}
    for seed in range(12):
        game = random_position(seed, 4, 0, GameOptions())
        while True:
            me = game.current_player
            assert me is not None
            obs = game.observation(me)
            if obs.round_number >= 4 and obs.phase.value == "playing":
                break
            game.apply(me, oi.act(obs))
        trump = obs.trump_suit.index if obs.trump_suit is not None else -1
        gone = played_by_seat([c.id for c in obs.played_cards], 4, (obs.dealer + 1) % 4, trump)
        weigh = BidInference(OVERALL).log_weights
        for name, worlds in (
                ("uniform", sample_worlds(obs, 32, random.Random(seed))),
                ("inferred", sample_worlds(obs, 32, random.Random(seed), weigh=weigh))):
            for seat, bid in enumerate(obs.bids):
                if seat == me or bid is None:
                    continue
                for world in worlds:
                    held = world.hands[seat] | gone[seat]  # its hand when it bid
                    estimate = expected_tricks(ids_of(held), trump, 4)
                    gaps[name] += abs(estimate - bid) / len(worlds)
    assert gaps["inferred"] < gaps["uniform"], gaps


def test_tempering_keeps_a_quarter_of_the_candidates_effective() -> None:
    weights = [0.0] + [-200.0] * 99
    assert effective_sample_size(weights) == pytest.approx(1.0)
    assert effective_sample_size(temper(weights, 0.25)) >= 25.0 - 1e-6
    assert temper([0.0, -0.1], 0.25) == [0.0, -0.1]


def test_the_same_seed_gives_the_same_values_and_a_bad_budget_is_refused() -> None:
    game = random_position(3, 4, 40, GameOptions())
    me = game.current_player
    assert me is not None
    obs = game.observation(me)
    budget = Budget(worlds=8, inference=10.0)
    assert action_values(obs, budget, 5, OVERALL) == action_values(obs, budget, 5, OVERALL)
    agent = SearchAgent(budget, seed=5, bid_model=OVERALL)
    assert agent.act(obs) in obs.legal_actions
    with pytest.raises(ValueError, match="inference"):
        Budget(inference=0.0)
    with pytest.raises(ValueError, match="oversample"):
        Budget(oversample=0)
    with pytest.raises(ValueError, match="temperature"):
        BidInference(OVERALL, 0.0)


def test_a_master_bot_plays_with_the_worlds_of_its_version() -> None:
    # version 1 (stored before inference) searches uniform worlds, as search-v1 does;
    # version 2 weighs them by the bids: its values differ once bids are seen; version 3
    # by the plays too: its values differ once cards are played
    from wizard.ai.levels import BotLevel, BotSettings, LevelAgent
    from wizard.ai.search import master_budget
    from wizard.ai.search.prior import blended_values, master_prior

    assert master_budget(32, 1).inference is None
    assert master_budget(32, 2).inference is not None and master_budget(32, 2).plays is None
    assert master_budget(32, 3).plays is not None
    prior = master_prior()
    assert prior is not None
    differ = seen = played = differ_plays = 0
    for seed in range(10):
        game = random_position(seed, 4, 30 + seed, GameOptions())
        me = game.current_player
        if me is None or len(game.legal_actions()) < 2:
            continue
        obs = game.observation(me)
        old = blended_values(obs, master_budget(8, 1), seed, prior)
        new = blended_values(obs, master_budget(8, 2), seed, prior)
        if any(b is not None for seat, b in enumerate(obs.bids) if seat != me):
            seen += 1
            differ += old != new
        else:
            assert old == new  # no bid seen: nothing to weigh by
        for version in (1, 2, 3):
            bot = BotSettings(BotLevel.MASTER, 100, seed=seed, version=version)
            action, _ = LevelAgent("master").act_as_bot(obs, bot, 0)
            assert action == LevelAgent("master").act_as_bot(obs, bot, 0)[0]
    assert seen >= 4 and differ >= seen - 1
    for seed in range(10):  # later in the game, with cards played: version 3 reads them
        game = random_position(seed, 4, 60 + 7 * seed, GameOptions())
        me = game.current_player
        if me is None or len(game.legal_actions()) < 2:
            continue
        obs = game.observation(me)
        if obs.phase.value == "playing" and len(obs.played_cards) > len(obs.current_trick):
            played += 1
            differ_plays += (blended_values(obs, master_budget(8, 2), seed, prior)
                             != blended_values(obs, master_budget(8, 3), seed, prior))
    assert played >= 3 and differ_plays >= played - 1
