"""Actions: the fixed action space, JSON form and strict parsing of client input."""

from __future__ import annotations

import json

import pytest

from wizard.engine import (
    ACTIONS_BY_INDEX,
    BID_BASE,
    MAX_BID,
    NUM_ACTIONS,
    PLAY_BASE,
    TRUMP_BASE,
    Bid,
    ChooseTrump,
    PlayCard,
    Suit,
    action_from_dict,
    action_from_index,
    action_index,
    action_to_dict,
    card_from_id,
)


def test_action_space_layout() -> None:
    assert (BID_BASE, PLAY_BASE, TRUMP_BASE, NUM_ACTIONS) == (0, 21, 81, 85)
    assert len(ACTIONS_BY_INDEX) == NUM_ACTIONS
    assert ACTIONS_BY_INDEX[:21] == tuple(Bid(v) for v in range(21))
    assert ACTIONS_BY_INDEX[21:81] == tuple(PlayCard(card_from_id(c)) for c in range(60))
    assert ACTIONS_BY_INDEX[81:] == tuple(ChooseTrump(s) for s in Suit)
    assert MAX_BID == 20


def test_index_and_action_are_inverse_for_all_85_actions() -> None:
    for index, action in enumerate(ACTIONS_BY_INDEX):
        assert action_index(action) == index
        assert action_from_index(index) is action


def test_every_action_survives_a_json_round_trip_as_the_canonical_instance() -> None:
    for action in ACTIONS_BY_INDEX:
        data = json.loads(json.dumps(action_to_dict(action)))
        parsed = action_from_dict(data)
        assert parsed == action
        assert parsed is action


def test_action_json_matches_the_documented_format() -> None:
    assert Bid(2).to_dict() == {"type": "bid", "value": 2}
    assert PlayCard(card_from_id(17)).to_dict() == {"type": "play", "card": 17}
    assert ChooseTrump(Suit.RED).to_dict() == {"type": "trump", "suit": "red"}


def test_str_names_the_action() -> None:
    assert str(Bid(3)) == "bid 3"
    assert str(PlayCard(card_from_id(17))) == "play yellow 5"
    assert str(ChooseTrump(Suit.BLUE)) == "choose trump blue"


@pytest.mark.parametrize(
    ("bad", "named"),
    [
        # booleans, floats and strings are not ints
        ({"type": "bid", "value": True}, "value"),
        ({"type": "bid", "value": False}, "value"),
        ({"type": "bid", "value": 2.0}, "value"),
        ({"type": "bid", "value": "2"}, "value"),
        ({"type": "bid", "value": None}, "value"),
        ({"type": "play", "card": True}, "card"),
        ({"type": "play", "card": 17.0}, "card"),
        ({"type": "play", "card": "17"}, "card"),
        # out of range
        ({"type": "bid", "value": -1}, "value"),
        ({"type": "bid", "value": 21}, "value"),
        ({"type": "play", "card": -1}, "card"),
        ({"type": "play", "card": 60}, "card"),
        ({"type": "trump", "suit": "purple"}, "suit"),
        ({"type": "trump", "suit": "RED"}, "suit"),
        ({"type": "trump", "suit": 0}, "suit"),
        ({"type": "trump", "suit": None}, "suit"),
        # unknown or missing type
        ({"type": "pass"}, "type"),
        ({"type": None, "value": 1}, "type"),
        ({"type": ["bid"], "value": 1}, "type"),
        ({"type": {"bid": 1}, "value": 1}, "type"),
        ({"value": 1}, "type"),
        ({}, "type"),
        # missing and extra fields
        ({"type": "bid"}, "value"),
        ({"type": "play"}, "card"),
        ({"type": "trump"}, "suit"),
        ({"type": "bid", "value": 1, "card": 3}, "card"),
        ({"type": "play", "card": 3, "player": 0}, "player"),
        ({"type": "trump", "suit": "red", "value": 1}, "value"),
    ],
)
def test_action_from_dict_rejects_bad_input_naming_the_field(bad: object, named: str) -> None:
    with pytest.raises(ValueError, match=named):
        action_from_dict(bad)


@pytest.mark.parametrize("bad", [None, [], ["bid", 1], "bid", 3, Bid(1)])
def test_action_from_dict_rejects_non_objects(bad: object) -> None:
    with pytest.raises(ValueError, match="action must be an object"):
        action_from_dict(bad)


@pytest.mark.parametrize("bad", [Bid(-1), Bid(21), Bid(True), "bid 1", None, 3])
def test_action_index_rejects_bids_out_of_range_and_non_actions(bad: object) -> None:
    with pytest.raises(ValueError):
        action_index(bad)


@pytest.mark.parametrize("bad", [-1, 85, 1000])
def test_action_from_index_rejects_indices_outside_the_space(bad: int) -> None:
    with pytest.raises(ValueError, match="0-84"):
        action_from_index(bad)
