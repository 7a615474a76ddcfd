"""Every agent plays legal full games; the heuristic follows the seed's rules; make_agent."""

from __future__ import annotations

import itertools

import pytest

from wizard.ai.agents import Agent, HeuristicAgent, RandomAgent
from wizard.ai.agents.heuristic import expected_tricks
from wizard.ai.registry import agent_names, make_agent
from wizard.engine import (
    Bid,
    ChooseTrump,
    GameOptions,
    Phase,
    PlayCard,
    Suit,
    WizardGame,
)

ALL_OPTIONS = [
    GameOptions(*flags) for flags in itertools.product((False, True), repeat=3)
]


def play_full_game(agents: list[Agent], options: GameOptions, seed: int) -> WizardGame:
    game = WizardGame(len(agents), options, seed=seed)
    while not game.is_finished:
        player = game.current_player
        assert player is not None
        obs = game.observation(player)
        action = agents[player].act(obs)
        assert action in obs.legal_actions, f"{agents[player].name} played an illegal {action}"
        game.apply(player, action)
    return game


@pytest.mark.parametrize("name", ["random", "heuristic"])  # the model: tests/ai/test_model.py
@pytest.mark.parametrize("num_players", [3, 4, 5, 6])
def test_every_agent_plays_legal_full_games(name: str, num_players: int) -> None:
    for k, options in enumerate(ALL_OPTIONS):
        agents = [make_agent(name, seed=k * 10 + seat) for seat in range(num_players)]
        game = play_full_game(agents, options, seed=1000 * num_players + k)
        assert len(game.round_history) == 60 // num_players


def test_random_agent_is_reproducible_from_its_seed() -> None:
    def moves(seed: int) -> list[object]:
        game = WizardGame(4, seed=9)
        agent = RandomAgent(seed)
        out = []
        for _ in range(40):
            player = game.current_player
            assert player is not None
            action = agent.act(game.observation(player))
            out.append(action)
            game.apply(player, action)
        return out

    assert moves(5) == moves(5)
    assert moves(5) != moves(6)


def test_random_agent_reset_with_seed_restarts_its_sequence() -> None:
    game = WizardGame(4, seed=2)
    obs = game.observation(game.current_player)
    agent = RandomAgent(1)
    first = [agent.act(obs) for _ in range(10)]
    agent.reset(1)
    assert [agent.act(obs) for _ in range(10)] == first


def test_agent_refuses_an_observation_without_legal_actions() -> None:
    game = WizardGame(4, seed=2)
    not_to_move = (game.current_player + 1) % 4
    with pytest.raises(ValueError, match="no legal action"):
        HeuristicAgent().act(game.observation(not_to_move))


def _position(trump_card: int | None, hand: list[int], num_players: int = 4,
              dealer: int = 3) -> WizardGame:
    """A round-N game where seat 0 bids first with ``hand`` (other hands untouched)."""
    game = WizardGame(num_players, seed=1, first_dealer=dealer)
    core = game.core
    rounds = len(hand)
    core.deal(rounds, dealer)
    others = [c for c in range(60) if c not in hand and c != trump_card]
    core.hands = [0] * num_players
    for c in hand:
        core.hands[0] |= 1 << c
    for seat in range(1, num_players):
        for c in others[(seat - 1) * rounds: seat * rounds]:
            core.hands[seat] |= 1 << c
    core.trump_card = -1 if trump_card is None else trump_card
    core.trump_suit = -1 if trump_card is None or trump_card >= 52 else trump_card // 13
    return game


def test_heuristic_expected_tricks_follow_the_seed_values() -> None:
    # wizard 0.95; trump 0.35 + 0.05*rank; king of a side suit 0.7 scaled by 2/opponents
    assert expected_tricks([52], trump_suit=-1, num_players=4) == pytest.approx(0.95)
    assert expected_tricks([12], trump_suit=0, num_players=4) == pytest.approx(0.35 + 0.05 * 13)
    assert expected_tricks([12], trump_suit=1, num_players=3) == pytest.approx(0.7)
    assert expected_tricks([12], trump_suit=1, num_players=6) < expected_tricks(
        [12], trump_suit=1, num_players=3)
    assert expected_tricks([56, 0, 14], trump_suit=-1, num_players=4) == 0


def test_heuristic_bids_the_closest_legal_value() -> None:
    # two wizards and a trump ace-equivalent: 0.95 + 0.95 + 1.0 = 2.9 -> bids 3
    game = _position(trump_card=40, hand=[52, 53, 51])  # trump blue; blue 13
    obs = game.observation(0)
    assert obs.phase is Phase.BIDDING and obs.current_player == 0
    assert HeuristicAgent().act(obs) == Bid(3)


def test_heuristic_avoids_the_forbidden_bid_by_taking_the_nearest_other() -> None:
    game = _position(trump_card=40, hand=[52, 1, 2], dealer=0)  # seat 0 is dealer: bids last
    core = game.core
    # seats 1..3 bid 1, 0, 1 -> seat 0 may not bid 1 (sum would be 3)
    for value in (1, 0, 1):
        game.apply(game.current_player, Bid(value))
    obs = game.observation(0)
    assert Bid(1) not in obs.legal_actions
    assert core.current == 0
    assert HeuristicAgent().act(obs) == Bid(0)  # expected 0.95: 0 is nearer than 2


def _playing(trick: list[int], hand: list[int], bid: int, won: int, trump_suit: int,
             num_players: int = 4) -> WizardGame:
    """Seat ``len(trick)`` to play into ``trick`` led by seat 0, holding ``hand``."""
    game = WizardGame(num_players, seed=3, first_dealer=num_players - 1)
    core = game.core
    rounds = 5
    core.deal(rounds, num_players - 1)
    core.phase = 1
    core.trump_card = -1
    core.trump_suit = trump_suit
    core.bids = [1] * num_players
    me = len(trick)
    core.bids[me] = bid
    core.tricks = [0] * num_players
    core.tricks[me] = won
    core.leader = 0
    core.trick = list(trick)
    from wizard.engine.rules import lead_of
    core.lead = lead_of(trick)
    core.current = me
    core.hands[me] = sum(1 << c for c in hand)
    return game


def test_heuristic_needing_a_trick_and_last_wins_with_the_cheapest_winner() -> None:
    # red 5 led, red 9 on it; last seat holds red 10, red 13, wizard: cheapest winner is red 10
    game = _playing(trick=[4, 8, 1], hand=[9, 12, 52], bid=1, won=0, trump_suit=-1)
    assert HeuristicAgent().act(game.observation(3)) == PlayCard(game.hand(3)[0])


def test_heuristic_needing_a_trick_not_last_plays_the_strongest_winner() -> None:
    game = _playing(trick=[4], hand=[9, 12, 52], bid=1, won=0, trump_suit=-1)
    action = HeuristicAgent().act(game.observation(1))
    assert action == PlayCard(game.hand(1)[2])  # the wizard


def test_heuristic_needing_a_trick_that_cannot_win_plays_its_weakest() -> None:
    # wizard already led: nothing wins; weakest of red 10, blue 2 (trump), jester = jester
    game = _playing(trick=[52], hand=[9, 40, 56], bid=1, won=0, trump_suit=3)
    action = HeuristicAgent().act(game.observation(1))
    assert isinstance(action, PlayCard) and action.card.id == 56


def test_heuristic_needing_no_trick_throws_the_strongest_loser() -> None:
    # red 9 led; holding red 3, red 8 and red 12: strongest that still loses is red 8
    game = _playing(trick=[8], hand=[2, 7, 11], bid=0, won=0, trump_suit=-1)
    action = HeuristicAgent().act(game.observation(1))
    assert isinstance(action, PlayCard) and action.card.id == 7


def test_heuristic_needing_no_trick_with_only_winners_plays_its_weakest() -> None:
    game = _playing(trick=[0], hand=[7, 11], bid=0, won=0, trump_suit=-1)
    action = HeuristicAgent().act(game.observation(1))
    assert isinstance(action, PlayCard) and action.card.id == 7


def test_heuristic_names_the_suit_it_holds_most_of_as_trump() -> None:
    options = GameOptions(wizard_trump_dealer_chooses=True)
    for seed in range(400):
        game = WizardGame(4, options, seed=seed)
        while not game.is_finished and game.phase is not Phase.CHOOSING_TRUMP:
            player = game.current_player
            game.apply(player, HeuristicAgent().act(game.observation(player)))
        if game.phase is Phase.CHOOSING_TRUMP:
            break
    else:
        pytest.fail("no turned wizard in 400 seeded games")
    obs = game.observation(game.current_player)
    counts = {s: sum(1 for c in obs.hand if c.suit is s) for s in Suit}
    action = HeuristicAgent().act(obs)
    assert isinstance(action, ChooseTrump)
    assert counts[action.suit] == max(counts.values())


def test_make_agent_knows_its_names_and_rejects_others() -> None:
    assert {"random", "heuristic", "model"} <= set(agent_names())
    with pytest.raises(ValueError, match="unknown agent 'nope'"):
        make_agent("nope")
