"""Reading the table (`wizard.ai.search.table`): the prior's weight follows how the others play."""

from __future__ import annotations

import pytest

from wizard.ai.agents.heuristic import HeuristicAgent
from wizard.ai.registry import make_agent
from wizard.ai.search.budget import GAME_PRIOR_WEIGHT, TABLE_PRIOR_WEIGHT
from wizard.ai.search.plays import observed_plays
from wizard.ai.search.table import (
    TableWeight,
    explained_plays,
    finished_reading,
    game_reading,
    heuristic_belief,
    round_reading,
    weight_at,
)
from wizard.engine import Observation, Phase, PlayCard, WizardGame
from wizard.engine.rules import legal_cards_mask

from .test_plays import true_deal


def position(opponents: str, seed: int, round_number: int = 6, tricks: int = 3,
             phase: Phase = Phase.PLAYING) -> tuple[WizardGame, Observation]:
    """Seat 0 (the heuristic) at a card decision of ``round_number`` after ``tricks`` full
    tricks (or at its bid, with ``phase`` bidding), the other three seats played by
    ``opponents``."""
    game = WizardGame(4, seed=seed)
    me = HeuristicAgent()
    others = [make_agent(opponents, seed=seed + k) for k in (1, 2, 3)]
    while True:
        seat = game.current_player
        assert seat is not None
        obs = game.observation(seat)
        if (seat == 0 and obs.round_number == round_number and obs.phase is phase
                and len(obs.played_cards) >= 4 * tricks):
            return game, obs
        game.apply(seat, (me if seat == 0 else others[seat - 1]).act(obs))


def at_bid(opponents: str, seed: int, round_number: int) -> Observation:
    """Seat 0 (the heuristic) at its bid in ``round_number``, the others ``opponents``."""
    return position(opponents, seed, round_number, tricks=0, phase=Phase.BIDDING)[1]


@pytest.mark.parametrize("seed", range(4))
def test_the_true_deal_explains_every_play_of_heuristic_players(seed: int) -> None:
    game, obs = position("heuristic", seed)
    real = true_deal(game, obs)
    explained, informative = explained_plays(obs, [real])
    choices = sum(legal_cards_mask(real[p.seat] | p.later, p.lead).bit_count() > 1
                  for p in observed_plays(obs))
    assert informative == choices > 0
    assert explained == informative


@pytest.mark.parametrize(("opponents", "seed"), [("heuristic", 3), ("oi", 4)])
def test_a_finished_round_is_read_with_the_hands_each_seat_really_held(
        opponents: str, seed: int) -> None:
    game = WizardGame(4, seed=seed)
    agents = [make_agent(opponents, seed=seed + k) for k in range(4)]
    choices = [0] * 6  # per round: the plays of seats 1-3 that had more than one legal card
    while game.round_number <= 5:
        seat = game.current_player
        assert seat is not None
        obs = game.observation(seat)
        if seat != 0 and obs.phase is Phase.PLAYING:
            choices[obs.round_number] += sum(isinstance(a, PlayCard)
                                             for a in obs.legal_actions) > 1
        game.apply(seat, agents[seat].act(obs))
    readings = [finished_reading(r, 0) for r in game.round_history]
    assert [m for _, m in readings] == choices[1:]
    assert readings[0] == (0, 0)  # one card each: no choice
    explained = sum(x for x, _ in readings)
    informative = sum(choices)
    assert informative >= 10
    if opponents == "heuristic":
        assert explained == informative  # their own hands explain every play
    else:
        assert explained < informative  # OI, given the same hands, chose otherwise
    assert game_reading(game.observation(0)) == (explained, informative)


def test_reading_the_game_knows_a_table_of_heuristics_at_the_next_rounds_first_bid() -> None:
    """Read in the round only, every bid sees the prior; over the game, by round 5 the
    weight leans on the search against heuristics; against OI it stays the prior's."""
    against_heuristics = [at_bid("heuristic", s, 5) for s in range(6)]
    against_oi = [at_bid("oi", s, 5) for s in range(6)]
    for obs in against_heuristics + against_oi:
        assert TABLE_PRIOR_WEIGHT.weight(obs, seed=1) == pytest.approx(0.74)
    assert max(GAME_PRIOR_WEIGHT.weight(o, seed=1) for o in against_heuristics) < 0.32
    prior = GAME_PRIOR_WEIGHT.at(GAME_PRIOR_WEIGHT.prior)
    assert [GAME_PRIOR_WEIGHT.weight(o, seed=1) for o in against_oi].count(prior) >= 5


@pytest.mark.parametrize("opponents", ["heuristic", "oi"])
def test_the_belief_is_the_larger_of_the_rounds_and_the_games(opponents: str) -> None:
    # the game may tell the master that its table plays like its rollouts; where it does
    # not, a round whose plays read like the heuristic still lowers OI's weight
    lower = 0
    for seed in range(4):
        _, obs = position(opponents, seed, round_number=6, tricks=3)
        x, m = round_reading(obs, 1, GAME_PRIOR_WEIGHT.deals)
        earlier_x, earlier_m = game_reading(obs)
        this_round = heuristic_belief(x, m, GAME_PRIOR_WEIGHT.prior)
        over_game = heuristic_belief(x + earlier_x, m + earlier_m, GAME_PRIOR_WEIGHT.prior)
        weight = GAME_PRIOR_WEIGHT.weight(obs, seed=1)
        assert weight == GAME_PRIOR_WEIGHT.at(max(this_round, over_game))
        lower += weight < GAME_PRIOR_WEIGHT.at(over_game)
    if opponents == "oi":  # a round of OI plays the heuristic would have made lowered it
        assert lower >= 1


def test_the_weight_leans_on_the_search_against_heuristics_and_on_oi_against_oi() -> None:
    weight = TableWeight(low=0.5, high=0.8, prior=0.5)
    against_heuristics = [weight.weight(position("heuristic", s)[1], seed=1) for s in range(6)]
    against_oi = [weight.weight(position("oi", s)[1], seed=1) for s in range(6)]
    # three tricks in, the plays have said who sits at the table
    assert sum(against_heuristics) / 6 < 0.56
    assert sum(against_oi) / 6 > 0.74
    assert sum(w > 0.7 for w in against_oi) >= 4 and max(against_heuristics) < 0.6


def test_before_any_play_the_weight_is_the_prior_beliefs() -> None:
    game = WizardGame(4, seed=5)
    obs = game.observation(game.current_player)
    assert obs.phase is Phase.BIDDING
    assert TableWeight(0.5, 0.8, prior=0.5).weight(obs, seed=3) == pytest.approx(0.65)
    assert TableWeight(0.5, 0.8, prior=0.2).weight(obs, seed=3) == pytest.approx(0.74)
    assert weight_at(0.8, obs, seed=3) == 0.8


def test_the_same_position_and_seed_give_the_same_weight() -> None:
    _, obs = position("oi", 7)
    weight = TableWeight(deals=8)
    assert len({weight.weight(obs, seed=2) for _ in range(3)}) == 1


def test_one_unexplained_play_outweighs_several_explained_ones() -> None:
    assert heuristic_belief(5, 5, 0.5) > 0.9
    assert heuristic_belief(5, 6, 0.5) < 0.5
    assert heuristic_belief(0, 0, 0.3) == pytest.approx(0.3)


@pytest.mark.parametrize("kwargs", [{"low": 0.9, "high": 0.8}, {"low": -0.1},
                                    {"high": 1.2}, {"prior": 0.0}, {"prior": 1.0},
                                    {"deals": 0}])
def test_a_table_weight_out_of_range_is_refused(kwargs: dict[str, float]) -> None:
    with pytest.raises(ValueError):
        TableWeight(**kwargs)  # type: ignore[arg-type]
