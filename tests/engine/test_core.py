"""`GameCore`, the fast path: deals, legal masks, unchecked apply, playout, copy, JSON."""

from __future__ import annotations

import json
import random
import struct

import pytest

from wizard.engine import GameCore, ids_of, mask_of
from wizard.engine.actions import PLAY_BASE, TRUMP_BASE
from wizard.engine.cards import ALL_CARDS_MASK
from wizard.engine.core import (
    BIDDING,
    CHOOSING_TRUMP,
    FINISHED,
    GAME_DONE,
    NOTHING,
    PLAYING,
    ROUND_DONE,
    TRICK_DONE,
    random_index,
)
from wizard.engine.deal import deal_orders, first_dealer_for
from wizard.engine.rules import LEAD_FREE, LEAD_NONE


def step_randomly(core: GameCore, rand: random.Random, moves: int) -> None:
    for _ in range(moves):
        if core.phase == FINISHED:
            return
        core.apply(random_index(core.legal_mask(), rand.random))


def dump(core: GameCore) -> str:
    return json.dumps(core.to_dict(), sort_keys=True)


def bits(mask: int) -> list[int]:
    return ids_of(mask)


# --- the deal -----------------------------------------------------------------------


def reference_deal_orders(seed: int, players: int) -> list[tuple[int, ...]]:
    """The documented algorithm, written out again (docs/rules.md, Determinism)."""
    rng = random.Random(f"wizard:{seed}")
    orders = []
    for round_number in range(1, 60 // players + 1):
        needed = min(players * round_number + 1, 60)
        raw = rng.getrandbits(64 * 60).to_bytes(8 * 60, "little")
        keys = struct.unpack("<60Q", raw)
        deck = list(range(60))
        for i in range(needed):
            j = i + (keys[i] * (60 - i) >> 64)
            deck[i], deck[j] = deck[j], deck[i]
        orders.append(tuple(deck[:needed]))
    return orders


@pytest.mark.parametrize("players", [3, 4, 5, 6])
@pytest.mark.parametrize("seed", [0, 1, -1, 123456789, 2**63 - 1])
def test_deal_orders_follow_the_documented_algorithm(players: int, seed: int) -> None:
    assert list(deal_orders(seed, players)) == reference_deal_orders(seed, players)


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_each_round_order_holds_distinct_cards_for_the_deal_and_the_turned_card(
    players: int,
) -> None:
    orders = deal_orders(42, players)
    assert len(orders) == 60 // players
    for round_number, order in enumerate(orders, start=1):
        assert len(order) == min(players * round_number + 1, 60)
        assert len(set(order)) == len(order)
        assert all(0 <= card < 60 for card in order)
    assert sorted(orders[-1]) == list(range(60))


def test_deal_orders_are_a_pure_function_of_the_seed() -> None:
    assert deal_orders(9, 4) == deal_orders(9, 4)
    assert deal_orders(9, 4) != deal_orders(10, 4)
    assert deal_orders(1, 4) != deal_orders(-1, 4)


def test_first_dealer_is_a_seat_drawn_from_the_seed() -> None:
    for players in (3, 4, 5, 6):
        dealers = [first_dealer_for(seed, players) for seed in range(60)]
        assert set(dealers) == set(range(players))
        assert dealers == [first_dealer_for(seed, players) for seed in range(60)]
    assert GameCore(4, 77).dealer == first_dealer_for(77, 4)


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_deal_gives_card_k_to_the_seat_k_places_left_of_the_dealer(players: int) -> None:
    core = GameCore(players, 5, first_dealer=1)
    for round_number in range(1, 60 // players + 1):
        dealer = (round_number + 2) % players
        core.deal(round_number, dealer)
        order = deal_orders(5, players)[round_number - 1]
        dealt = players * round_number
        for k in range(dealt):
            assert core.hands[(dealer + 1 + k) % players] >> order[k] & 1
        assert [h.bit_count() for h in core.hands] == [round_number] * players
        turned = order[dealt] if dealt < 60 else -1
        assert core.trump_card == turned
        union = 0
        for hand in core.hands:
            union |= hand
        turned_bit = 1 << turned if turned >= 0 else 0
        assert core.undealt_mask == ALL_CARDS_MASK ^ union ^ turned_bit
        assert core.current == core.leader == (dealer + 1) % players
        assert core.phase == BIDDING
        assert core.bids == [-1] * players and core.tricks == [0] * players


# --- legal masks ----------------------------------------------------------------------


def test_bidding_mask_allows_zero_to_the_round_number() -> None:
    core = GameCore(4, 1, first_dealer=0)
    core.deal(5, 0)
    assert bits(core.legal_mask()) == [0, 1, 2, 3, 4, 5]


def test_bidding_mask_drops_the_bid_that_would_make_the_sum_even_for_the_last_bidder() -> None:
    core = GameCore(4, 1, first_dealer=0)
    core.deal(5, 0)
    for bid in (1, 2, 0):
        assert core.forbidden_bid() == -1
        core.apply(bid)
    assert core.current == 0
    assert core.forbidden_bid() == 2
    assert bits(core.legal_mask()) == [0, 1, 3, 4, 5]


def test_no_forbidden_bid_when_the_others_overbid_or_the_option_is_off() -> None:
    core = GameCore(4, 1, first_dealer=0)
    core.deal(2, 0)
    for bid in (2, 2, 0):
        core.apply(bid)
    assert core.forbidden_bid() == -1
    assert bits(core.legal_mask()) == [0, 1, 2]
    lenient = GameCore(4, 1, first_dealer=0, forbid_even_bids=False)
    lenient.deal(2, 0)
    for bid in (1, 0, 0):
        lenient.apply(bid)
    assert lenient.forbidden_bid() == -1
    assert bits(lenient.legal_mask()) == [0, 1, 2]


def playing_core(hands: list[list[int]], trump_suit: int = -1) -> GameCore:
    core = GameCore(len(hands), 1, first_dealer=len(hands) - 1)
    core.round_number = len(hands[0])
    core.hands = [mask_of(h) for h in hands]
    core.trump_card, core.trump_suit = -1, trump_suit
    core.bids = [0] * len(hands)
    core.bid_count = len(hands)
    core.phase, core.current, core.leader = PLAYING, 0, 0
    return core


def test_playing_mask_is_the_legal_cards_shifted_into_the_action_space() -> None:
    core = playing_core([[0, 40, 52], [1, 41, 56], [2, 26, 27]])
    assert bits(core.legal_mask()) == [PLAY_BASE + c for c in (0, 40, 52)]
    core.apply(PLAY_BASE + 40)  # blue led
    assert core.lead == 3
    assert bits(core.legal_mask()) == [PLAY_BASE + c for c in (41, 56)]
    core.apply(PLAY_BASE + 41)
    assert bits(core.legal_mask()) == [PLAY_BASE + c for c in (2, 26, 27)]


def test_apply_tracks_the_lead_state() -> None:
    core = playing_core([[56, 0], [52, 1], [2, 3]])
    core.apply(PLAY_BASE + 56)
    assert core.lead == LEAD_NONE
    core.apply(PLAY_BASE + 52)
    assert core.lead == LEAD_FREE
    assert bits(core.legal_mask()) == [PLAY_BASE + 2, PLAY_BASE + 3]
    assert core.apply(PLAY_BASE + 2) == TRICK_DONE
    assert core.lead == LEAD_NONE and core.trick == []


def test_choosing_trump_mask_and_apply() -> None:
    seed = next(s for s in range(1000) if 52 <= deal_orders(s, 4)[0][4] < 56)
    core = GameCore(4, seed, first_dealer=2, dealer_chooses=True)
    assert core.phase == CHOOSING_TRUMP and core.current == 2 and core.trump_suit == -1
    assert bits(core.legal_mask()) == [TRUMP_BASE + s for s in range(4)]
    assert core.apply(TRUMP_BASE + 3) == NOTHING
    assert core.trump_suit == 3 and core.phase == BIDDING and core.current == 3
    plain = GameCore(4, seed, first_dealer=2)
    assert plain.phase == BIDDING and plain.trump_suit == -1


# --- apply outcomes -----------------------------------------------------------------


def test_apply_reports_trick_round_and_game_ends() -> None:
    core = GameCore(6, 3, first_dealer=0)
    rand = random.Random(3)
    outcomes = []
    while core.phase != FINISHED:
        outcomes.append(core.apply(random_index(core.legal_mask(), rand.random)))
    assert outcomes.count(GAME_DONE) == 1 and outcomes[-1] == GAME_DONE
    assert outcomes.count(ROUND_DONE) == 9
    # every round has r tricks: one ends the round, the others are TRICK_DONE
    assert outcomes.count(TRICK_DONE) == sum(range(1, 11)) - 10
    assert core.current == -1 and core.legal_mask() == 0
    with pytest.raises(RuntimeError, match="over"):
        core.apply(0)


def test_after_a_trick_and_a_round_the_last_fields_describe_them() -> None:
    core = playing_core([[0, 13], [5, 14], [9, 15]])
    core.bids = [0, 2, 0]
    assert core.apply(PLAY_BASE + 0) == NOTHING
    core.apply(PLAY_BASE + 5)
    assert core.apply(PLAY_BASE + 9) == TRICK_DONE
    assert core.last_trick == [0, 5, 9]
    assert (core.last_trick_leader, core.last_trick_winner) == (0, 2)
    assert core.current == core.leader == 2 and core.trick_number == 2
    core.apply(PLAY_BASE + 15)
    core.apply(PLAY_BASE + 13)
    assert core.apply(PLAY_BASE + 14) == ROUND_DONE
    assert core.last_trick == [15, 13, 14]
    assert (core.last_trick_leader, core.last_trick_winner) == (2, 2)
    assert core.last_bids == [0, 2, 0]
    assert core.last_tricks == [0, 0, 2]
    assert core.last_changes == [20, -20, -20]
    assert core.scores == [20, -20, -20]
    assert core.round_number == 3 and core.dealer == 0 and core.phase == BIDDING


# --- random moves, playout, copy ------------------------------------------------------


def test_random_index_returns_each_set_bit_for_its_share_of_0_to_1() -> None:
    mask = 0b1011_0100
    assert [random_index(mask, lambda k=k: (k + 0.5) / 4) for k in range(4)] == [2, 4, 5, 7]
    assert random_index(1 << 84, lambda: 0.999) == 84


@pytest.mark.parametrize("players", [3, 4, 5, 6])
@pytest.mark.parametrize("prefix", [0, 7, 55])
def test_playout_equals_the_same_moves_made_one_at_a_time(players: int, prefix: int) -> None:
    for seed in range(3):
        core = GameCore(players, seed, hidden_bids=True, dealer_chooses=True)
        step_randomly(core, random.Random(seed), prefix)
        stepped = core.copy()
        core.playout(random.Random(100 + seed).random)
        rand = random.Random(100 + seed).random
        while stepped.phase != FINISHED:
            stepped.apply(random_index(stepped.legal_mask(), rand))
        assert dump(core) == dump(stepped)
        assert core.phase == FINISHED


def test_copy_is_independent_of_the_original() -> None:
    core = GameCore(4, 8)
    step_randomly(core, random.Random(8), 61)
    before = dump(core)
    other = core.copy()
    assert dump(other) == before  # every stored slot (one the copy missed would not read)
    assert other.orders is core.orders  # the deal orders (not stored: the seed's) are shared
    other.playout(random.Random(1).random)
    assert dump(core) == before
    assert dump(other) != before
    # and the other way round
    copy = core.copy()
    core.playout(random.Random(2).random)
    assert dump(copy) == before


def test_to_dict_from_dict_round_trip_continues_identically() -> None:
    core = GameCore(5, 31, dealer_chooses=True)
    step_randomly(core, random.Random(31), 140)
    restored = GameCore.from_dict(json.loads(json.dumps(core.to_dict())))
    assert restored.to_dict() == core.to_dict()
    assert restored.orders == core.orders
    core.playout(random.Random(4).random)
    restored.playout(random.Random(4).random)
    assert dump(restored) == dump(core)


def test_to_dict_leaves_out_the_deal_orders_and_from_dict_needs_every_field() -> None:
    data = GameCore(4, 2).to_dict()
    assert "orders" not in data
    del data["scores"]
    with pytest.raises(ValueError, match="scores"):
        GameCore.from_dict(data)
