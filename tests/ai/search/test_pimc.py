"""The search bot: obvious moves in hand-made positions, reproducibility, its public API."""

from __future__ import annotations

import pytest

from wizard.ai.registry import make_agent
from wizard.ai.search import Budget, SearchAgent, bid_values, card_values, pick, trump_values
from wizard.ai.search.prior import load_prior
from wizard.engine import Bid, GameCore, GameOptions, PlayCard, WizardGame, card_from_id
from wizard.engine.cards import ALL_CARDS_MASK

from .test_rollout import random_position

RED = 0  # red 1 is card 0, red 13 card 12
JESTERS = (56, 57)
WIZARD = 52


def rigged(hands: dict[int, list[int]], round_number: int, trump_card: int,
           options: GameOptions | None = None) -> WizardGame:
    """A 4-player game in ``round_number`` with the given hands, seat 0 dealing (seat 1 first)."""
    game = WizardGame(4, options or GameOptions(), seed=0)
    core = game.core = GameCore(4, seed=0, first_dealer=0,
                                dealer_chooses=bool(options and
                                                    options.wizard_trump_dealer_chooses))
    core.deal(round_number, 0)
    core.hands = [sum(1 << c for c in hands[seat]) for seat in range(4)]
    core.trump_card = trump_card
    core.trump_suit = -1 if trump_card >= 52 else trump_card // 13
    core.undealt_mask = ALL_CARDS_MASK & ~sum(core.hands) & ~(1 << trump_card)
    return game


def test_with_only_jesters_the_search_bids_zero_for_a_sure_20() -> None:
    game = rigged({1: list(JESTERS), 2: [5, 6], 3: [20, 21], 0: [30, 31]}, 2, trump_card=40)
    obs = game.observation(1)
    values = bid_values(obs, Budget(worlds=8, bid_window=None), seed=3)
    assert values[0].value == 20.0 and values[0].tricks == (1.0, 0.0, 0.0)
    assert max(values, key=lambda b: values[b].value) == 0
    assert SearchAgent(Budget(worlds=8), seed=3).act(obs) == Bid(0)


def test_the_last_card_of_a_trick_takes_the_trick_a_bid_still_needs() -> None:
    # round 2, seat 0 plays last; it bid 1 and holds a wizard and red 2; red 9, 10, 11 are
    # out. Throwing red 2 and winning later with the wizard makes the bid too; but the
    # wizard now and red 2 later may take a second trick; red 2 now keeps it exact.
    game = rigged({1: [8, 40], 2: [9, 41], 3: [10, 42], 0: [WIZARD, 1]}, 2, trump_card=45)
    for seat, bid in ((1, 0), (2, 0), (3, 0), (0, 1)):
        game.apply(seat, Bid(bid))
    for seat, card in ((1, 8), (2, 9), (3, 10)):
        game.apply(seat, PlayCard(card_from_id(card)))
    obs = game.observation(0)
    values = card_values(obs, Budget(worlds=16), seed=1)
    assert set(values) == {WIZARD, 1}
    assert values[1] == 30.0  # red 2 loses this trick, the wizard wins the last one: exact
    assert values[WIZARD] < 30.0  # red 2 may win the last trick when the others hold none
    assert SearchAgent(Budget(worlds=16), seed=1).act(obs) == PlayCard(card_from_id(1))


def test_same_position_budget_and_seed_give_the_same_values_and_move() -> None:
    game = random_position(seed=8, players=4, moves=90, options=GameOptions())
    player = game.current_player
    assert player is not None
    obs = game.observation(player)
    first = SearchAgent(Budget(worlds=6), seed=42, prior=load_prior())
    second = make_agent("search", seed=42, worlds=6)  # the master: with the OI prior
    assert first.act(obs) == second.act(obs)
    values = card_values(obs, Budget(worlds=6), seed=42) if obs.phase.value == "playing" else (
        {b: v.value for b, v in bid_values(obs, Budget(worlds=6), seed=42).items()})
    again = card_values(obs, Budget(worlds=6), seed=42) if obs.phase.value == "playing" else (
        {b: v.value for b, v in bid_values(obs, Budget(worlds=6), seed=42).items()})
    assert values == again


def test_trump_choice_is_searched_over_the_four_suits() -> None:
    options = GameOptions(wizard_trump_dealer_chooses=True)
    # seat 0 deals and turned a wizard; it holds three blue cards and a jester
    game = rigged({1: [0, 1, 2, 3], 2: [13, 14, 15, 16], 3: [26, 27, 28, 29],
                   0: [49, 50, 51, 56]}, 4, trump_card=53, options=options)
    game.core.phase = 2  # CHOOSING_TRUMP
    game.core.current = 0
    obs = game.observation(0)
    values = trump_values(obs, Budget(worlds=8), seed=2)
    assert set(values) == {0, 1, 2, 3}
    assert max(values, key=values.__getitem__) == 3  # blue: its own three high cards


def test_bad_requests_are_clear_errors() -> None:
    game = WizardGame(4, seed=1)
    obs = game.observation(game.current_player)
    with pytest.raises(ValueError, match="phase playing"):
        card_values(obs, Budget(worlds=2))
    with pytest.raises(ValueError, match="at least 1 world"):
        Budget(worlds=0)
    with pytest.raises(ValueError, match="no legal action"):
        bid_values(game.observation((game.current_player or 0) + 1), Budget(worlds=2))
    with pytest.raises(ValueError, match="worlds must be an integer"):
        make_agent("search", worlds="many")
    with pytest.raises(ValueError, match="no candidate"):
        pick({}, preferred=0)


def test_pick_samples_by_value_at_a_temperature() -> None:
    values = {1: 0.0, 2: 10.0}
    assert pick(values, preferred=1) == 2
    low = sum(pick(values, 1, temperature=10.0, uniform=u / 100) == 1 for u in range(100))
    # exp(-1) / (1 + exp(-1)) = 27 % of the draws take the worse action
    assert 25 <= low <= 29
