"""Games of every length: a short game (``GameOptions(rounds=k)``) is the first k rounds.

The checked game keeps every invariant of `test_properties` at every length; the fast
`GameCore` ends at the same round; a short game's deals, scores and events are those
of the full game with the same seed and actions, cut after round k.
"""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.engine.test_properties import SEEDS, play_checked_game
from wizard.engine import MAX_ROUNDS, GameCore, GameOptions, WizardGame, total_rounds
from wizard.engine.core import FINISHED, GAME_DONE, ROUND_DONE, random_index


@st.composite
def lengths(draw: st.DrawFn) -> tuple[int, GameOptions]:
    """A player count and options with a round count from 1 to that count's full game."""
    players = draw(st.integers(min_value=3, max_value=6))
    rounds = draw(st.integers(min_value=1, max_value=60 // players))
    flags = draw(st.tuples(st.booleans(), st.booleans(), st.booleans()))
    return players, GameOptions(*flags, rounds=rounds)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(length=lengths(), seed=SEEDS, choice_seed=st.integers(0, 2**32 - 1))
def test_a_short_game_keeps_every_invariant_and_ends_after_its_rounds(
    length: tuple[int, GameOptions], seed: int, choice_seed: int
) -> None:
    players, options = length
    game, actions = play_checked_game(players, options, seed, choice_seed)
    assert game.is_finished and game.total_rounds == options.rounds
    assert game.round_history[-1].round_number == options.rounds
    assert game.winners() == [s for s, v in enumerate(game.scores) if v == max(game.scores)]
    observation = game.observation(0)
    assert (observation.round_number, observation.total_rounds) == (options.rounds,) * 2
    assert observation.options.rounds == options.rounds
    # stored and restored: the finished game reads back the same
    restored = WizardGame.from_dict(json.loads(json.dumps(game.to_dict())))
    assert json.dumps(restored.to_dict()) == json.dumps(game.to_dict())
    assert restored.is_finished and restored.total_rounds == options.rounds
    # the same actions in the full game: the same rounds, which go on past the short one
    full = WizardGame(players, _without_rounds(options), seed=seed)
    for player, action in actions:
        full.apply(player, action)
    assert full.round_history == game.round_history
    assert full.is_finished == (options.rounds == 60 // players)


def _without_rounds(options: GameOptions) -> GameOptions:
    return GameOptions(options.hidden_bids, options.forbid_even_bids,
                       options.wizard_trump_dealer_chooses)


@settings(max_examples=40, deadline=None)
@given(length=lengths(), seed=SEEDS, rand_seed=st.integers(0, 2**32 - 1),
       prefix=st.integers(min_value=0, max_value=200))
def test_the_fast_path_ends_at_the_same_round_and_its_playout_equals_stepping(
    length: tuple[int, GameOptions], seed: int, rand_seed: int, prefix: int
) -> None:
    players, options = length
    core = GameCore(players, seed, hidden_bids=options.hidden_bids,
                    forbid_even_bids=options.forbid_even_bids,
                    dealer_chooses=options.wizard_trump_dealer_chooses, rounds=options.rounds)
    assert len(core.orders) == core.total_rounds == options.rounds
    rand = random.Random(rand_seed).random
    for _ in range(prefix):
        if core.phase == FINISHED:
            break
        core.apply(random_index(core.legal_mask(), rand))
    restored = GameCore.from_dict(json.loads(json.dumps(core.to_dict())))
    assert restored.orders == core.orders
    stepped, played_out = core.copy(), core.copy()
    played_out.playout(random.Random(rand_seed).random)
    rand = random.Random(rand_seed).random
    results = []
    while stepped.phase != FINISHED:
        result = stepped.apply(random_index(stepped.legal_mask(), rand))
        if result >= ROUND_DONE:
            results.append((stepped.round_number, result))
    assert json.dumps(played_out.to_dict()) == json.dumps(stepped.to_dict())
    assert stepped.round_number == options.rounds and stepped.current == -1
    if results:
        assert results[-1] == (options.rounds, GAME_DONE)
        assert all(r == ROUND_DONE for _, r in results[:-1])


@settings(max_examples=30, deadline=None)
@given(players=st.integers(min_value=3, max_value=6), seed=SEEDS)
def test_a_short_games_deals_are_the_first_deals_of_the_full_game(players: int, seed: int
                                                                  ) -> None:
    rounds = random.Random(seed).randint(1, 60 // players)
    assert GameCore(players, seed, rounds=rounds).orders == GameCore(players, seed).orders[:rounds]


@pytest.mark.parametrize(("players", "rounds"), [(3, 21), (4, 16), (5, 13), (6, 11), (4, 0),
                                                 (4, -1)])
def test_a_game_longer_than_the_deck_allows_is_refused_naming_the_count(players: int,
                                                                        rounds: int) -> None:
    full = 60 // players
    message = f"rounds must be 1-{full} for {players} players, got {rounds}"
    if 1 <= rounds <= MAX_ROUNDS:
        with pytest.raises(ValueError, match=message):
            WizardGame(players, GameOptions(rounds=rounds), seed=1)
    with pytest.raises(ValueError, match=message):
        GameCore(players, 1, rounds=rounds)
    with pytest.raises(ValueError, match=message):
        total_rounds(players, rounds)


def test_every_player_count_plays_every_length_through_the_checked_game() -> None:
    for players in range(3, 7):
        for rounds in range(1, 60 // players + 1):
            game = WizardGame(players, GameOptions(rounds=rounds), seed=rounds)
            while not game.is_finished:
                player = game.current_player
                assert player is not None
                game.apply(player, game.legal_actions()[-1])
            assert len(game.round_history) == game.total_rounds == rounds
