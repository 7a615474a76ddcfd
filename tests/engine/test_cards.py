"""Cards: the fixed id layout, the canonical `Card` objects, masks and card JSON."""

from __future__ import annotations

import json
import random

import pytest

from wizard.engine import (
    ALL_CARDS,
    NUM_CARDS,
    SUITS,
    Card,
    CardKind,
    Suit,
    card_by_id,
    card_from_id,
    ids_of,
    mask_of,
    new_shuffled_deck,
)
from wizard.engine.cards import (
    ALL_CARDS_MASK,
    CARD_RANK,
    CARD_SUIT,
    JESTER_MASK,
    SUIT_MASKS,
    WIZARD_MASK,
    check_card_id,
    is_jester,
    is_wizard,
)


@pytest.mark.parametrize(
    ("suit", "first_id"),
    [(Suit.RED, 0), (Suit.YELLOW, 13), (Suit.GREEN, 26), (Suit.BLUE, 39)],
)
def test_each_suit_holds_ranks_1_to_13_in_id_order(suit: Suit, first_id: int) -> None:
    cards = [card_from_id(first_id + k) for k in range(13)]
    assert [c.rank for c in cards] == list(range(1, 14))
    assert {c.suit for c in cards} == {suit}
    assert {c.kind for c in cards} == {CardKind.NUMBER}


def test_ids_52_to_55_are_wizards_and_56_to_59_jesters_without_suit_or_rank() -> None:
    for card_id in range(52, 56):
        card = card_from_id(card_id)
        assert (card.kind, card.suit, card.rank) == (CardKind.WIZARD, None, 0)
        assert card.is_wizard and not card.is_jester
        assert is_wizard(card_id) and not is_jester(card_id)
    for card_id in range(56, 60):
        card = card_from_id(card_id)
        assert (card.kind, card.suit, card.rank) == (CardKind.JESTER, None, 0)
        assert card.is_jester and not card.is_wizard
        assert is_jester(card_id) and not is_wizard(card_id)


def test_deck_has_60_distinct_cards_with_the_official_counts() -> None:
    assert NUM_CARDS == 60
    assert [c.id for c in ALL_CARDS] == list(range(60))
    kinds = [c.kind for c in ALL_CARDS]
    assert kinds.count(CardKind.NUMBER) == 52
    assert kinds.count(CardKind.WIZARD) == 4
    assert kinds.count(CardKind.JESTER) == 4
    assert len({(c.suit, c.rank) for c in ALL_CARDS if c.kind is CardKind.NUMBER}) == 52


def test_card_from_id_returns_the_canonical_object_and_id_goes_back() -> None:
    for card_id in range(NUM_CARDS):
        card = card_from_id(card_id)
        assert card is ALL_CARDS[card_id]
        assert card.id == card_id
        assert card_by_id(card_id) is card


@pytest.mark.parametrize("bad", [-1, 60, 100, True, False, 1.0, "3", None])
def test_card_from_id_rejects_anything_but_an_int_0_to_59(bad: object) -> None:
    with pytest.raises(ValueError, match="card id"):
        card_from_id(bad)


def test_check_card_id_names_the_field_in_its_message() -> None:
    assert check_card_id(7, "lead") == 7
    with pytest.raises(ValueError, match=r"^lead "):
        check_card_id(60, "lead")


def test_per_id_tables_agree_with_the_card_objects() -> None:
    for card in ALL_CARDS:
        expected_suit = card.suit.index if card.suit is not None else -1
        assert CARD_SUIT[card.id] == expected_suit
        assert CARD_RANK[card.id] == card.rank


def test_masks_partition_the_deck() -> None:
    masks = [*SUIT_MASKS, WIZARD_MASK, JESTER_MASK]
    union = 0
    for mask in masks:
        assert union & mask == 0
        union |= mask
    assert union == ALL_CARDS_MASK == (1 << 60) - 1
    assert ids_of(SUIT_MASKS[Suit.GREEN.index]) == list(range(26, 39))
    assert ids_of(WIZARD_MASK) == [52, 53, 54, 55]
    assert ids_of(JESTER_MASK) == [56, 57, 58, 59]


def test_mask_of_and_ids_of_are_inverse() -> None:
    assert mask_of([0, 2]) == 0b101
    assert ids_of(0b101) == [0, 2]
    assert ids_of(0) == []
    rng = random.Random(5)
    for _ in range(50):
        ids = sorted(rng.sample(range(NUM_CARDS), rng.randrange(NUM_CARDS + 1)))
        assert ids_of(mask_of(ids)) == ids


def test_suit_index_round_trip() -> None:
    assert [s.index for s in SUITS] == [0, 1, 2, 3]
    assert Suit.from_index(2) is Suit.GREEN
    for suit in Suit:
        assert Suit.from_index(suit.index) is suit
    with pytest.raises(IndexError):
        Suit.from_index(4)


def test_card_json_matches_the_documented_format() -> None:
    assert card_from_id(17).to_dict() == {"id": 17, "kind": "number", "suit": "yellow", "rank": 5}
    assert card_from_id(53).to_dict() == {"id": 53, "kind": "wizard", "suit": None, "rank": 0}
    assert card_from_id(59).to_dict() == {"id": 59, "kind": "jester", "suit": None, "rank": 0}


def test_every_card_survives_a_json_round_trip() -> None:
    for card in ALL_CARDS:
        assert Card.from_dict(json.loads(json.dumps(card.to_dict()))) is card


@pytest.mark.parametrize(
    "bad",
    [
        [17],
        "17",
        None,
        {},
        {"id": 60, "kind": "number", "suit": "red", "rank": 1},
        {"id": True, "kind": "number", "suit": "red", "rank": 2},
        {"id": 17, "kind": "number", "suit": "red", "rank": 5},
        {"id": 17, "kind": "number", "suit": "yellow", "rank": 6},
        {"id": 53, "kind": "jester", "suit": None, "rank": 0},
        {"id": 17, "kind": "number", "suit": "yellow", "rank": 5, "extra": 1},
        {"id": 17, "kind": "number", "suit": "yellow"},
    ],
)
def test_card_from_dict_rejects_malformed_or_inconsistent_json(bad: object) -> None:
    with pytest.raises(ValueError):
        Card.from_dict(bad)


def test_str_reads_like_a_card() -> None:
    assert str(card_from_id(0)) == "red 1"
    assert str(card_from_id(51)) == "blue 13"
    assert str(card_from_id(52)) == "wizard (52)"
    assert str(card_from_id(56)) == "jester (56)"


def test_new_shuffled_deck_is_a_permutation_determined_by_the_rng() -> None:
    deck = new_shuffled_deck(random.Random(3))
    assert sorted(c.id for c in deck) == list(range(60))
    assert deck == new_shuffled_deck(random.Random(3))
    assert deck != new_shuffled_deck(random.Random(4))
    assert deck != list(ALL_CARDS)
