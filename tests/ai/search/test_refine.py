"""Worlds refined by card swaps under the heuristic's model (`wizard.ai.search.refine`)."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wizard.ai.agents.heuristic import expected_tricks
from wizard.ai.oi import load_networks
from wizard.ai.search.refine import SeatModel, refine, refined_deals
from wizard.ai.search.worlds import Knowledge, sample_hands
from wizard.engine import Observation, WizardGame

from .test_plays import true_deal
from .test_table import position


def heuristic_position(seed: int, round_number: int, tricks: int) -> tuple[WizardGame,
                                                                          Observation]:
    """Four heuristic players, a card decision in ``round_number`` after ``tricks`` tricks."""
    return position("heuristic", seed, round_number, tricks)


def placement_loss(obs: Observation, truth: list[int], deals: list[list[int]]) -> float:
    """The log loss of where the deals put each hidden card (scripts/world_fit.py's)."""
    knowledge = Knowledge.of(obs)
    loss = 0.0
    for seat in range(4):
        if seat == obs.player:
            continue
        for card in range(60):
            if knowledge.allowed[seat] >> card & 1:
                share = (sum(d[seat] >> card & 1 for d in deals) + 0.5) / (len(deals) + 1)
                loss -= math.log(share if truth[seat] >> card & 1 else 1.0 - share)
    return loss


def test_swaps_place_heuristic_players_cards_better_than_the_weighed_deals_alone() -> None:
    loss = {0: 0.0, 60: 0.0}
    for seed in range(12):
        game, obs = heuristic_position(300 + seed, 6 + seed % 4, 3)
        truth = true_deal(game, obs)
        for steps in loss:
            deals = refined_deals(obs, 32, random.Random(seed), bid_error=0.05,
                                  play_error=0.05, oversample=8, min_ess=0.03, steps=steps)
            loss[steps] += placement_loss(obs, truth, deals)
    assert loss[60] < loss[0] - 12 * 0.3, loss


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), round_number=st.integers(3, 12), tricks=st.integers(0, 2),
       steps=st.integers(0, 80))
def test_a_refined_deal_keeps_every_hand_size_void_and_card_the_seat_can_see(
        seed: int, round_number: int, tricks: int, steps: int) -> None:
    tricks = min(tricks, round_number - 2)
    _, obs = heuristic_position(seed, round_number, tricks)
    knowledge = Knowledge.of(obs)
    model = SeatModel(obs, 0.1, 0.1)
    rng = random.Random(seed)
    start = sample_hands(knowledge, rng)
    hands = refine(knowledge, model, start, steps, rng)
    assert [h.bit_count() for h in hands] == [h.bit_count() for h in start]
    assert hands[obs.player] == start[obs.player]
    union = 0
    for seat, hand in enumerate(hands):
        if seat != obs.player:
            assert hand & ~knowledge.allowed[seat] == 0  # voids and seen cards respected
            assert union & hand == 0
            union |= hand
    # the same generator state, the same chain
    rng2 = random.Random(seed)
    sample_hands(knowledge, rng2)
    assert refine(knowledge, model, start, steps, rng2) == hands


def test_a_seat_model_without_room_for_error_is_refused() -> None:
    _, obs = heuristic_position(1, 4, 1)
    for bid, play in ((0.0, 0.1), (0.1, 1.0), (-0.1, 0.1)):
        with pytest.raises(ValueError, match="error"):
            SeatModel(obs, bid, play)


def test_master_v6_refines_its_worlds_only_where_the_table_reads_like_the_heuristic() -> None:
    from wizard.ai.search import budget as budget_module
    from wizard.ai.search import pimc
    from wizard.ai.search.table import weight_at

    refined, usual = budget_module.master_budget(8, 8), budget_module.master_budget(8, 7)
    overall = load_networks()[0]

    def hands(obs: Observation, budget: pimc.Budget) -> list[tuple[int, ...]]:
        return [tuple(w.hands) for w in pimc._worlds(obs, budget, 3, "card", overall)]

    seen = {True: 0, False: 0}
    for opponents in ("heuristic", "oi"):
        for seed in range(3):
            _, obs = position(opponents, seed, round_number=8, tricks=5)
            like_heuristic = weight_at(pimc.TABLE_PRIOR_WEIGHT, obs, 3) <= pimc.HEURISTIC_TABLE
            seen[like_heuristic] += 1
            assert (hands(obs, refined) != hands(obs, usual)) == like_heuristic
    assert seen[True] and seen[False], seen
    # a bid: nothing played this round, the table reads as its prior belief (OI's weight
    # 0.74): the worlds of a master of version 7, so a stored bot plays on as it did
    game = WizardGame(4, seed=2)
    obs = game.observation(game.current_player)
    while not any(b is not None for b in obs.bids):
        game.apply(obs.player, obs.legal_actions[0])  # type: ignore[arg-type]
        obs = game.observation(game.current_player)
    bids = [tuple(w.hands) for w in pimc._worlds(obs, refined, 3, "bid", overall)]
    assert bids == [tuple(w.hands) for w in pimc._worlds(obs, usual, 3, "bid", overall)]
    with pytest.raises(ValueError, match="refine"):
        pimc.Budget(refine=-1)


@settings(max_examples=100, deadline=None)
@given(cards=st.sets(st.integers(0, 59), max_size=20), seed=st.integers(0, 200),
       players=st.integers(3, 6))
def test_the_seat_model_estimates_a_hand_s_tricks_as_the_heuristic_does(
        cards: set[int], seed: int, players: int) -> None:
    game = WizardGame(players, seed=seed)  # the deal's trump suit (or none) varies by seed
    obs = game.observation(game.current_player)
    model = SeatModel(obs, 0.1, 0.1)
    trump = obs.trump_suit.index if obs.trump_suit is not None else -1
    hand = sum(1 << c for c in cards)
    assert model.expected_tricks(hand) == expected_tricks(sorted(cards), trump, players)
