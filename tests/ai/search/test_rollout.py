"""The fast heuristic on GameCore ints makes the same choices as `HeuristicAgent`."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from wizard.ai.agents import HeuristicAgent
from wizard.ai.search.rollout import (
    finish_round,
    heuristic_action,
    heuristic_choice,
    heuristic_picks,
    rollout_score,
)
from wizard.engine import GameOptions, WizardGame, action_index


def random_position(seed: int, players: int, moves: int, options: GameOptions) -> WizardGame:
    """A game after ``moves`` random legal moves (fewer if it ends first)."""
    game = WizardGame(players, options, seed=seed)
    rng = random.Random(seed)
    for _ in range(moves):
        if game.is_finished:
            break
        player = game.current_player
        assert player is not None
        game.apply(player, rng.choice(game.observation(player).legal_actions))
    return game


options_strategy = st.builds(GameOptions, hidden_bids=st.booleans(),
                             forbid_even_bids=st.booleans(),
                             wizard_trump_dealer_chooses=st.booleans())


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.integers(3, 6), moves=st.integers(0, 400),
       options=options_strategy)
def test_the_fast_form_chooses_what_the_heuristic_agent_chooses(
        seed: int, players: int, moves: int, options: GameOptions) -> None:
    game = random_position(seed, players, moves, options)
    agent = HeuristicAgent()
    # from the position on, every seat's next decisions agree until the round ends
    for _ in range(3 * players):
        if game.is_finished:
            break
        player = game.current_player
        assert player is not None
        expected = action_index(agent.act(game.observation(player)))
        assert heuristic_action(game.core) == expected
        game.apply(player, agent.act(game.observation(player)))


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.integers(3, 6), moves=st.integers(0, 300))
def test_a_rollout_ends_the_round_as_heuristic_agents_playing_it_out(
        seed: int, players: int, moves: int) -> None:
    game = random_position(seed, players, moves, GameOptions())
    if game.is_finished:
        return
    core = game.core.copy()
    seat = game.current_player
    assert seat is not None
    points, tricks = rollout_score(core, seat)
    agent = HeuristicAgent()
    round_number = game.core.round_number
    while game.core.round_number == round_number and not game.is_finished:
        player = game.current_player
        assert player is not None
        game.apply(player, agent.act(game.observation(player)))
    result = game.round_history[-1]
    assert (result.tricks[seat], result.score_changes[seat]) == (tricks, points)
    assert list(result.tricks) == core.last_tricks


def test_finish_round_stops_at_the_round_boundary() -> None:
    game = WizardGame(4, seed=11)
    core = game.core.copy()
    finish_round(core)
    assert core.round_number == 2 and core.last_bids and sum(core.last_tricks) == 1


@st.composite
def plays(draw: st.DrawFn) -> tuple[list[int], int, int, int, int, int, int]:
    """A trick on the table, trump, lead, tricks still needed, seats, a legal mask and a
    card of it: anything `heuristic_choice` is asked, lead and trick drawn apart."""
    cards = draw(st.permutations(range(60)))
    players = draw(st.integers(3, 6))
    trick = cards[:draw(st.integers(0, players - 1))]
    legal_cards = cards[len(trick):len(trick) + draw(st.integers(1, 15))]
    legal = sum(1 << c for c in legal_cards)
    return (trick, draw(st.integers(-1, 3)), draw(st.integers(-1, 3)),
            draw(st.integers(-2, 3)), players, legal, draw(st.sampled_from(legal_cards)))


@settings(max_examples=500, deadline=None)
@given(play=plays(), seed=st.integers(0, 2**32))
def test_heuristic_picks_answers_as_the_heuristic_chooses(
        play: tuple[list[int], int, int, int, int, int, int], seed: int) -> None:
    trick, trump, lead, needed, players, legal, card = play
    picks = heuristic_picks(card, trick, trump, lead, needed, players)
    assert picks(legal) == (heuristic_choice(legal, trick, trump, lead, needed, players) == card)
    # and for the legal masks a swap of cards would give: some cards in, some out
    rng = random.Random(seed)
    for _ in range(20):
        other = legal ^ sum(1 << c for c in rng.sample(range(60), 3)) & ~sum(1 << c for c in trick)
        if other:
            chosen = heuristic_choice(other, trick, trump, lead, needed, players)
            assert picks(other) == (chosen == card)
