"""Masters v9 and v10: OI plays the other seats in the rollouts at a table unlike the
heuristic (v10: averaged with the heuristic's rollouts in the same worlds)."""

from __future__ import annotations

import dataclasses

import pytest

from wizard.ai.agents.heuristic import HeuristicAgent
from wizard.ai.oi import OIAgent, load_networks
from wizard.ai.registry import make_agent
from wizard.ai.search import blend
from wizard.ai.search.budget import (
    DEFAULT_BUDGET,
    GAME_PRIOR_WEIGHT,
    OI_MIX,
    OI_ROLLOUT_PRIOR_WEIGHT,
    V8_BUDGET,
    V9_BUDGET,
    Budget,
    master_budget,
    opponents_gate,
)
from wizard.ai.search.oi_rollout import oi_finish, oi_values
from wizard.ai.search.pimc import SearchAgent, _worlds, action_values, master_values
from wizard.engine import Phase, WizardGame, round_score

NETWORKS = load_networks()
ME = 0


def _game(others: str, rounds: int, seed: int, cards_into_round: int = 0) -> WizardGame:
    """A 4-player game after ``rounds`` rounds (and ``cards_into_round`` cards of the next),
    seat 0 the heuristic, the others ``others`` ("oi" or "heuristic")."""
    oi, heuristic = OIAgent(*NETWORKS), HeuristicAgent()
    game = WizardGame(4, seed=seed)
    while len(game.round_history) < rounds or len(game.core.played) < cards_into_round:
        player = game.current_player
        assert player is not None
        agent = oi if player != ME and others == "oi" else heuristic
        game.apply(player, agent.act(game.observation(player)))
    return game


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_rollouts_end_the_round_as_oi_and_the_heuristic_play_it(seed: int) -> None:
    oi, heuristic = OIAgent(*NETWORKS), HeuristicAgent()
    same = total = 0
    for rounds in (2, 4, 6):
        game = _game("oi", rounds, seed, cards_into_round=5)
        [points] = oi_finish([game.core.copy()], ME, *NETWORKS)
        start = len(game.round_history)
        while len(game.round_history) == start:  # the same round played on by the agents
            player = game.current_player
            assert player is not None
            agent = heuristic if player == ME else oi
            game.apply(player, agent.act(game.observation(player)))
        result = game.round_history[-1]
        total += 1
        same += points == round_score(result.bids[ME], result.tricks[ME])
    assert same == total


def test_cores_at_different_points_of_a_round_finish_as_each_would_alone() -> None:
    cores = [_game("oi", 5, 9, cards_into_round=k).core.copy() for k in (1, 3, 3, 7, 12, 23)]
    alone = [oi_finish([core.copy()], ME, *NETWORKS)[0] for core in cores]
    assert oi_finish([core.copy() for core in cores], ME, *NETWORKS) == alone
    assert oi_finish([], ME, *NETWORKS) == []


def test_a_rollout_may_start_with_the_other_seats_still_to_bid() -> None:
    game = WizardGame(4, seed=5)
    while game.current_player != ME:
        player = game.current_player
        assert player is not None
        game.apply(player, HeuristicAgent().act(game.observation(player)))
    core = game.core.copy()
    core.apply(1)  # seat 0 bids 1; OI bids for the seats after it
    [points] = oi_finish([core], ME, *NETWORKS)
    assert points in (round_score(1, 0), round_score(1, 1))  # round 1: one trick
    with pytest.raises(ValueError, match="bids before"):
        oi_finish([game.core.copy()], ME, *NETWORKS)


def test_the_gate_opens_at_a_table_of_oi_players_and_stays_shut_at_heuristics() -> None:
    assert not opponents_gate(_game("oi", 0, 7).observation(ME))  # nothing played yet
    assert opponents_gate(_game("oi", 4, 7, cards_into_round=4).observation(ME))
    for rounds in range(1, 9):
        assert not opponents_gate(_game("heuristic", rounds, 7).observation(ME))


def _at_turn(game: WizardGame) -> WizardGame:
    while game.current_player != ME:
        player = game.current_player
        assert player is not None
        game.apply(player, OIAgent(*NETWORKS).act(game.observation(player)))
    return game


@pytest.mark.parametrize("cards", [0, 6])  # a bid, then a card
def test_at_an_oi_table_the_master_blends_oi_rollouts_at_their_weight(cards: int) -> None:
    observation = _at_turn(_game("oi", 5, 11, cards_into_round=cards)).observation(ME)
    assert observation.phase is (Phase.BIDDING if cards == 0 else Phase.PLAYING)
    budget = master_budget(8, 11)
    prior = OIAgent(*NETWORKS)
    values = master_values(observation, budget, 3, prior, GAME_PRIOR_WEIGHT, NETWORKS[0],
                           NETWORKS)
    what = "bid" if cards == 0 else "card"
    worlds = _worlds(observation, budget, 3, what, NETWORKS[0])
    searched = oi_values(observation, worlds, sorted(values), *NETWORKS)
    assert values == blend(searched, prior.action_scores(observation), OI_ROLLOUT_PRIOR_WEIGHT)
    trusting = master_values(observation, budget, 3, prior, GAME_PRIOR_WEIGHT, NETWORKS[0],
                             NETWORKS, oi_weight=0.3)
    assert trusting == blend(searched, prior.action_scores(observation), 0.3)
    v8 = master_values(observation, dataclasses.replace(budget, oi_worlds=0), 3, prior,
                       GAME_PRIOR_WEIGHT, NETWORKS[0], NETWORKS)
    assert values != v8


def test_at_a_table_of_heuristics_master_v9_is_master_v8() -> None:
    prior = OIAgent(*NETWORKS)
    for cards in (0, 5, 9):
        observation = _at_turn(_game("heuristic", 4, 13, cards_into_round=cards)
                               ).observation(ME)
        v9 = master_values(observation, dataclasses.replace(V8_BUDGET, worlds=6, oi_worlds=6),
                           2, prior, GAME_PRIOR_WEIGHT, NETWORKS[0], NETWORKS)
        v8 = master_values(observation, dataclasses.replace(V8_BUDGET, worlds=6), 2, prior,
                           GAME_PRIOR_WEIGHT, NETWORKS[0], NETWORKS)
        assert v9 == v8


@pytest.mark.parametrize("cards", [0, 6])
def test_master_v10_averages_oi_and_heuristic_rollouts_in_the_same_worlds(cards: int) -> None:
    observation = _at_turn(_game("oi", 5, 11, cards_into_round=cards)).observation(ME)
    budget = master_budget(8, 12)
    assert budget.oi_mix == OI_MIX == 0.5 and master_budget(8, 11).oi_mix == 0.0
    prior = OIAgent(*NETWORKS)
    values = master_values(observation, budget, 3, prior, GAME_PRIOR_WEIGHT, NETWORKS[0],
                           NETWORKS)
    worlds = _worlds(observation, budget, 3, "bid" if cards == 0 else "card", NETWORKS[0])
    by_oi = oi_values(observation, worlds, sorted(values), *NETWORKS)
    by_heuristic = action_values(observation, budget, 3, NETWORKS[0])  # v8's search
    assert sorted(by_heuristic) == sorted(values)
    mean = {a: (v + by_heuristic[a]) / 2 for a, v in by_oi.items()}
    assert values == blend(mean, prior.action_scores(observation), OI_ROLLOUT_PRIOR_WEIGHT)
    v9 = master_values(observation, master_budget(8, 11), 3, prior, GAME_PRIOR_WEIGHT,
                       NETWORKS[0], NETWORKS)
    assert v9 == blend(by_oi, prior.action_scores(observation), OI_ROLLOUT_PRIOR_WEIGHT)
    assert values != v9


def test_at_a_table_of_heuristics_master_v10_is_master_v8() -> None:
    prior = OIAgent(*NETWORKS)
    for cards in (0, 7):
        observation = _at_turn(_game("heuristic", 3, 17, cards_into_round=cards)
                               ).observation(ME)
        v10 = master_values(observation, master_budget(6, 12), 2, prior, GAME_PRIOR_WEIGHT,
                            NETWORKS[0], NETWORKS)
        v8 = master_values(observation, master_budget(6, 10), 2, prior, GAME_PRIOR_WEIGHT,
                           NETWORKS[0], NETWORKS)
        assert v10 == v8


def test_search_is_master_v10_and_search_v9_stays_runnable() -> None:
    master, v9 = make_agent("search", seed=1), make_agent("search-v9", seed=1)
    assert isinstance(master, SearchAgent) and isinstance(v9, SearchAgent)
    assert master.budget == DEFAULT_BUDGET == master_budget(32, 12)
    assert v9.budget == V9_BUDGET and v9.opponents is not None and v9.name == "search-v9"
    game = _at_turn(_game("oi", 3, 5))
    observation = game.observation(ME)
    assert v9.act(observation) in observation.legal_actions


def test_a_budget_refuses_a_negative_number_of_oi_worlds_or_a_mix_outside_0_1() -> None:
    with pytest.raises(ValueError, match="oi_worlds"):
        Budget(oi_worlds=-1)
    for mix in (-0.1, 1.5):
        with pytest.raises(ValueError, match="oi_mix"):
            Budget(oi_mix=mix)
    with pytest.raises(ValueError, match="OI rollouts' weight"):
        SearchAgent(oi_weight=1.5)
