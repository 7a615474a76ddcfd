"""Rollouts in lockstep play the heuristic's cards and end the rounds as `finish_round` does."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wizard.ai.oi.positions import Positions
from wizard.ai.search.lockstep import finish, heuristic_bids, heuristic_cards
from wizard.ai.search.rollout import finish_round, heuristic_card
from wizard.engine import GameCore, WizardGame
from wizard.engine.core import BIDDING, PLAYING, ROUND_DONE

PLAY_BASE = 21


def _round_copies(players: int, seed: int, count: int) -> list[GameCore]:
    """``count`` copies of a random round of a random game, each played on by a random number
    of random legal cards (the round not ended): tricks at every stage, any bids."""
    rng = random.Random(seed)
    game = WizardGame(players, seed=seed)
    target = rng.randint(1, game.core.total_rounds)
    while game.core.round_number < target or game.core.phase != PLAYING:
        player = game.current_player
        assert player is not None
        game.apply(player, rng.choice(game.legal_actions()))
    copies = []
    for _ in range(count):
        core = game.core.copy()
        for _ in range(rng.randrange(core.round_number * players)):  # never the last card
            legal = core.legal_mask() >> PLAY_BASE
            assert core.apply(PLAY_BASE + rng.choice(
                [c for c in range(60) if legal >> c & 1])) < ROUND_DONE
        copies.append(core)
    return copies


@settings(max_examples=60, deadline=None)
@given(st.integers(3, 6), st.integers(0, 10**6))
def test_the_heuristics_card_in_every_position_at_once_is_its_card_in_each(
        players: int, seed: int) -> None:
    cores = _round_copies(players, seed, 12)
    assert heuristic_cards(Positions.of(cores)).tolist() == [heuristic_card(c) for c in cores]


@pytest.mark.parametrize(("players", "seed"), [(3, 1), (4, 2), (4, 3), (5, 4), (6, 5)])
def test_rounds_finished_in_lockstep_end_as_finish_round_ends_them(players: int,
                                                                   seed: int) -> None:
    cores = _round_copies(players, seed, 20)  # different numbers of cards left
    me = seed % players
    bids, won = finish([core.copy() for core in cores], me, heuristic_bids)
    for core in cores:
        finish_round(core)
    assert bids.tolist() == [core.last_bids[me] for core in cores]
    assert won.tolist() == [core.last_tricks[me] for core in cores]


def test_a_rollout_may_start_while_the_others_still_bid_but_not_before_me() -> None:
    for seed in range(6):
        core = GameCore(4, seed=seed)
        me = core.current
        core.apply(heuristic_bids([core])[0])
        bids, won = finish([core.copy()], me, heuristic_bids)
        finish_round(core)
        assert (bids[0], won[0]) == (core.last_bids[me], core.last_tricks[me])
    fresh = GameCore(4, seed=1)
    assert fresh.phase == BIDDING
    with pytest.raises(ValueError, match="bids before"):
        finish([fresh], fresh.current, heuristic_bids)
    assert finish([], 0, heuristic_bids)[0].tolist() == []
