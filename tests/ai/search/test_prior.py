"""The master bot's OI prior: OI's scores per action, the blend, and what the master plays."""

from __future__ import annotations

import pytest

from wizard.ai.agents import HeuristicAgent
from wizard.ai.levels import BotLevel, BotSettings
from wizard.ai.levels.agent import LevelAgent
from wizard.ai.levels.strength import move_draw
from wizard.ai.oi import OIAgent
from wizard.ai.registry import make_agent
from wizard.ai.search import (
    GAME_PRIOR_WEIGHT,
    TABLE_PRIOR_WEIGHT,
    Budget,
    SearchAgent,
    action_values,
    blend,
    master_budget,
    master_prior_weight,
    pick,
)
from wizard.ai.search.prior import blended_values, load_prior
from wizard.ai.search.table import weight_at
from wizard.engine import ACTIONS_BY_INDEX, GameOptions, Observation, Phase, action_index

from .test_rollout import random_position


@pytest.fixture(scope="module")
def prior() -> OIAgent:
    agent = load_prior()
    assert agent is not None, "the shipped OI networks must load"
    return agent


def positions(phase: Phase, count: int = 4) -> list[Observation]:
    found = []
    for seed in range(200):
        game = random_position(seed, 4, (seed * 37) % 300, GameOptions())
        player = game.current_player
        if game.is_finished or player is None:
            continue
        obs = game.observation(player)
        if obs.phase is phase and len(obs.legal_actions) > 1:
            found.append(obs)
            if len(found) == count:
                return found
    raise AssertionError(f"only {len(found)} positions in phase {phase.value}")


@pytest.mark.parametrize("phase", [Phase.BIDDING, Phase.PLAYING])
def test_oi_scores_every_legal_action_and_its_best_is_the_move_oi_bids(
        prior: OIAgent, phase: Phase) -> None:
    for obs in positions(phase):
        scores = prior.action_scores(obs)
        assert sorted(scores) == sorted(action_index(a) for a in obs.legal_actions)
        if phase is Phase.BIDDING:  # OI bids the best expected score
            assert ACTIONS_BY_INDEX[max(scores, key=scores.__getitem__)] == prior.act(obs)


def test_with_full_weight_on_the_prior_the_master_bids_as_oi_does(prior: OIAgent) -> None:
    budget = Budget(worlds=2, bid_window=None)
    for obs in positions(Phase.BIDDING):
        master = SearchAgent(budget, seed=3, prior=prior, prior_weight=1.0)
        assert master.act(obs) == prior.act(obs)


def test_the_blend_lies_between_the_search_and_oi(prior: OIAgent) -> None:
    for obs in positions(Phase.PLAYING, 2) + positions(Phase.BIDDING, 2):
        search = action_values(obs, Budget(worlds=4), 7)
        scores = prior.action_scores(obs)
        mixed = blended_values(obs, Budget(worlds=4), 7, prior)
        assert sorted(mixed) == sorted(search)
        for action, value in mixed.items():
            low, high = sorted((search[action], scores[action]))
            assert low - 1e-9 <= value <= high + 1e-9
        assert blended_values(obs, Budget(worlds=4), 7, None) == search
        assert blend(search, scores, 0.0) == search


def test_the_master_with_its_prior_replays_the_same_moves() -> None:
    first, second = make_agent("search", seed=5, worlds=4), make_agent("search", seed=5, worlds=4)
    assert isinstance(first, SearchAgent) and first.prior is not None
    for obs in positions(Phase.PLAYING, 3) + positions(Phase.BIDDING, 3):
        assert first.act(obs) == second.act(obs)
    master = LevelAgent("master")
    bot = BotSettings(BotLevel.MASTER, 90, seed=11)
    for move, obs in enumerate(positions(Phase.PLAYING, 3)):
        assert master.act_as_bot(obs, bot, move) == LevelAgent("master").act_as_bot(obs, bot, move)


def test_bad_prior_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="prior weight"):
        blend({1: 1.0}, {1: 2.0}, 1.5)
    with pytest.raises(ValueError, match="prior weight"):
        SearchAgent(prior_weight=-0.1)
    with pytest.raises(ValueError, match="prior_weight must be a number"):
        make_agent("search", prior_weight="half")
    assert make_agent("search", prior_weight=0).prior is None  # type: ignore[attr-defined]


def test_the_search_reads_its_weight_from_the_table_unless_given_one() -> None:
    assert make_agent("search").prior_weight == GAME_PRIOR_WEIGHT  # type: ignore[attr-defined]
    assert make_agent("search-v7").prior_weight == TABLE_PRIOR_WEIGHT  # type: ignore[attr-defined]
    assert make_agent("search", prior_weight=0.8).prior_weight == 0.8  # type: ignore[attr-defined]
    assert make_agent("search-v4").prior_weight == 0.8  # type: ignore[attr-defined]
    assert make_agent("search-v3").prior_weight == 0.5  # type: ignore[attr-defined]


def test_without_the_networks_the_master_is_the_plain_search(tmp_path: object) -> None:
    assert load_prior(str(tmp_path)) is None


def test_a_master_bot_weighs_oi_as_its_version_says(prior: OIAgent) -> None:
    # bot version 7 reads OI's weight from the table, version 6 weighs it 0.8, a master
    # stored before it 0.5: each bot plays its own blend's choice, and on some positions
    # the choices differ
    assert (master_prior_weight(5), master_prior_weight(6)) == (0.5, 0.8)
    assert master_prior_weight(7) == master_prior_weight(9) == TABLE_PRIOR_WEIGHT
    assert master_prior_weight(10) == GAME_PRIOR_WEIGHT
    heuristic = HeuristicAgent()
    apart = 0
    for seed in range(100):
        game = random_position(seed, 4, (seed * 37) % 300, GameOptions())
        player = game.current_player
        if game.is_finished or player is None or len(game.legal_actions()) < 2:
            continue
        obs = game.observation(player)
        draw = move_draw(100, 3, seed, len(obs.legal_actions), varies=True)
        if draw.random_pick >= 0:
            continue
        search = action_values(obs, master_budget(draw.worlds, 6), 3, prior.overall)
        scores = prior.action_scores(obs)
        preferred = action_index(heuristic.act(obs))
        chosen = {version: pick(blend(search, scores,
                                      weight_at(master_prior_weight(version), obs, 3)),
                                preferred, draw.value_temperature, draw.uniform)
                  for version in (5, 6, 7)}
        if len(set(chosen.values())) == 1:
            continue
        apart += 1
        for version, action in chosen.items():
            bot = BotSettings(BotLevel.MASTER, 100, seed=3, version=version)
            played, _ = LevelAgent("master").act_as_bot(obs, bot, seed)
            assert action_index(played) == action
    assert apart >= 3


def test_master_v8_reads_the_table_over_the_game_and_a_v7_bot_still_reads_the_round(
        prior: OIAgent) -> None:
    # at round 4's first bid among heuristic players, v7 (bot version 9) knows nothing of
    # the table yet and weighs OI 0.74; v8 (bot version 10) read rounds 1-3 and leans on
    # its search: each bot plays its own values
    from .test_table import at_bid

    assert not master_budget(32, 9).whole_game and master_budget(32, 10).whole_game
    apart = 0
    for seed in range(4):
        obs = at_bid("heuristic", seed, 4)
        assert weight_at(master_prior_weight(9), obs, 3) == pytest.approx(0.74)
        assert weight_at(master_prior_weight(10), obs, 3) < 0.45
        chosen = {}
        for version in (9, 10):
            bot = BotSettings(BotLevel.MASTER, 100, seed=3, version=version)
            draw = move_draw(bot.strength, bot.seed, 7, len(obs.legal_actions), varies=True)
            values = blended_values(obs, master_budget(draw.worlds, version), 3, prior,
                                    master_prior_weight(version))
            chosen[version] = pick(values, action_index(HeuristicAgent().act(obs)),
                                   draw.value_temperature, draw.uniform)
            played, _ = LevelAgent("master").act_as_bot(obs, bot, 7)
            assert draw.random_pick >= 0 or action_index(played) == chosen[version]
        apart += chosen[9] != chosen[10]
    assert apart >= 1
