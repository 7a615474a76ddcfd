"""Positions as arrays play a round as the engine's cores do, card for card."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wizard.ai.oi.positions import Positions, trick_winners
from wizard.engine import GameCore, WizardGame
from wizard.engine.core import PLAYING, ROUND_DONE
from wizard.engine.rules import trick_winner

PLAY_BASE = 21


def _playing_cores(players: int, seed: int, count: int) -> list[GameCore]:
    """``count`` copies of one game's round 4 (or the last, with 6 players and more), bid."""
    game = WizardGame(players, seed=seed)
    rng = random.Random(seed)
    target = min(4, game.core.total_rounds)
    while game.core.round_number < target or game.core.phase != PLAYING:
        player = game.current_player
        assert player is not None
        game.apply(player, rng.choice(game.legal_actions()))
    return [game.core.copy() for _ in range(count)]


def _same(positions: Positions, cores: list[GameCore]) -> None:
    for i, core in enumerate(cores):
        assert positions.hands[i].tolist() == core.hands
        assert positions.won[i].tolist() == core.tricks
        assert positions.trick[i, :positions.trick_size[i]].tolist() == core.trick
        assert int(positions.lead[i]) == core.lead
        assert int(positions.leader[i]) == core.leader
        assert int(positions.current[i]) == core.current
        assert int(positions.legal()[i]) == core.legal_mask() >> PLAY_BASE


@pytest.mark.parametrize(("players", "seed"), [(3, 1), (4, 2), (5, 3), (6, 4)])
def test_a_round_played_as_positions_is_the_engines(players: int, seed: int) -> None:
    cores = _playing_cores(players, seed, 8)
    positions = Positions.of(cores)
    rng = random.Random(seed)
    done = False
    while not done:
        _same(positions, cores)
        cards = []
        for core in cores:  # a different random legal card in each copy
            legal = core.legal_mask() >> PLAY_BASE
            cards.append(rng.choice([c for c in range(60) if legal >> c & 1]))
        positions.play(np.array(cards, np.int64))
        results = [core.apply(PLAY_BASE + card) for core, card in zip(cores, cards, strict=True)]
        done = results[0] >= ROUND_DONE
        assert all((r >= ROUND_DONE) == done for r in results)  # the copies move in lockstep
    for i, core in enumerate(cores):
        assert positions.won[i].tolist() == core.last_tricks
        assert positions.hands[i].tolist() == [0] * players


@settings(max_examples=200, deadline=None)
@given(trick=st.lists(st.integers(0, 59), min_size=3, max_size=6, unique=True),
       trump=st.integers(-1, 3))
def test_the_trick_goes_to_the_engines_winner(trick: list[int], trump: int) -> None:
    assert trick_winners(np.array([trick]), trump).tolist() == [trick_winner(trick, trump)]


def test_positions_are_of_one_round_and_taken_apart_independently() -> None:
    with pytest.raises(ValueError, match="no position"):
        Positions.of([])
    first, later = _playing_cores(4, 5, 1)[0], GameCore(4, seed=5)
    with pytest.raises(ValueError, match="one round"):
        Positions.of([first, later])
    with pytest.raises(ValueError, match="bids are in"):
        Positions.of([later]).play(np.array([0]))
    positions = Positions.of(_playing_cores(4, 6, 3))
    part = positions.take(np.array([0, 2]))
    legal = part.legal()
    part.play(np.array([int(mask).bit_length() - 1 for mask in legal], np.int64))
    assert positions.trick_size.tolist() == [0, 0, 0]  # the parts are copies
    assert part.trick_size.tolist() == [1, 1]
