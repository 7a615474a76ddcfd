"""The batched features are `card_features`'s, row for row, for many hands at once."""

from __future__ import annotations

import dataclasses
import random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from wizard.ai.oi.batch import bid_features, hand_features
from wizard.ai.oi.features import card_features, immediate_exact, overall_exact, situation_of
from wizard.engine import WizardGame
from wizard.engine.cards import ALL_CARDS_MASK, ids_of


@settings(max_examples=60, deadline=None)
@given(players=st.integers(3, 6), seed=st.integers(0, 10_000), round_number=st.integers(1, 10),
       bids_seen=st.integers(0, 5), hands=st.integers(1, 6), version=st.sampled_from([1, 2]))
def test_every_hand_gets_the_rows_card_features_gives_it(
        players: int, seed: int, round_number: int, bids_seen: int, hands: int,
        version: int) -> None:
    game = WizardGame(players, seed=seed)
    obs = game.observation(game.current_player)
    rounds = min(round_number, 59 // players)  # the seat's hand when it bid: `rounds` cards
    rng = random.Random(seed)
    base = dataclasses.replace(situation_of(obs), round_number=rounds,
                               cards_in_other_hands=(players - 1) * rounds)
    # the seat bids after `bids_seen` others, with made-up bids before it
    bids = list(base.bids)
    for k in range(min(bids_seen, players - 1)):
        bids[(base.me - 1 - k) % players] = rng.randint(0, rounds)
    turned = obs.trump_card.id if obs.trump_card is not None else -1
    free = ids_of(ALL_CARDS_MASK & ~(1 << turned if turned >= 0 else 0))
    masks = []
    for _ in range(hands):
        mask = 0
        for card in rng.sample(free, rounds):
            mask |= 1 << card
        masks.append(mask)
    sit = dataclasses.replace(base, bids=tuple(bids), wanted=tuple(bids),
                              position=min(bids_seen, players - 1),
                              hand=tuple(ids_of(masks[0])), hand_mask=masks[0])
    rows, exact = bid_features(sit, np.array(masks, np.uint64), turned, version)
    assert rows.shape[0] == hands * rounds
    for i, mask in enumerate(masks):
        hand = tuple(ids_of(mask))
        seen = mask | (1 << turned if turned >= 0 else 0)
        own = dataclasses.replace(sit, hand=hand, hand_mask=mask, unseen=ALL_CARDS_MASK & ~seen)
        block = slice(i * rounds, (i + 1) * rounds)
        np.testing.assert_array_equal(rows[block], card_features(own, hand, version))
        want = [overall_exact(own, card) for card in hand]
        assert [None if np.isnan(x) else x for x in exact[block]] == want


@settings(max_examples=60, deadline=None)
@given(players=st.integers(3, 6), seed=st.integers(0, 10_000), moves=st.integers(0, 400),
       hands=st.integers(1, 5), version=st.sampled_from([1, 2]))
def test_every_hand_in_a_trick_gets_the_rows_and_exact_cases_card_features_gives_it(
        players: int, seed: int, moves: int, hands: int, version: int) -> None:
    game = WizardGame(players, seed=seed)
    rng = random.Random(seed)
    for _ in range(moves):  # somewhere in a game: bidding or playing, any trick
        player = game.current_player
        if player is None:
            break
        game.apply(player, rng.choice(game.legal_actions()))
    player = game.current_player
    if player is None:
        return
    obs = game.observation(player)
    sit = situation_of(obs)
    seen = ALL_CARDS_MASK & ~sit.unseen & ~sit.hand_mask
    # other hands of the same size from the cards the seat cannot see
    free = ids_of(sit.unseen | sit.hand_mask)
    masks = [sit.hand_mask]
    for _ in range(hands - 1):
        masks.append(sum(1 << c for c in rng.sample(free, len(sit.hand))))
    rows, overall, immediate = hand_features(sit, np.array(masks, np.uint64), seen, version)
    for i, mask in enumerate(masks):
        hand = tuple(ids_of(mask))
        own = dataclasses.replace(sit, hand=hand, hand_mask=mask,
                                  unseen=ALL_CARDS_MASK & ~(mask | seen))
        np.testing.assert_array_equal(rows[i], card_features(own, hand, version))
        got = [[None if np.isnan(x) else x for x in row] for row in (overall[i], immediate[i])]
        assert got == [[overall_exact(own, c) for c in hand],
                       [immediate_exact(own, c) for c in hand]]
