"""`Observation`: one seat's (or a spectator's) view, its JSON and what it must not show."""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Iterator

import pytest

from wizard.engine import (
    GameOptions,
    Observation,
    Phase,
    PlayCard,
    PlayedCard,
    Suit,
    WizardGame,
    card_from_id,
)

FIELDS = [
    "player", "num_players", "options", "phase", "round_number", "total_rounds", "dealer",
    "current_player", "hand", "hand_sizes", "trump_card", "trump_suit", "bids", "has_bid",
    "tricks_won", "scores", "trick_number", "trick_leader", "current_trick", "lead_suit",
    "played_cards", "last_trick", "round_history", "legal_actions", "winners",
]

ALL_OPTIONS = [
    GameOptions(hidden_bids=h, forbid_even_bids=f, wizard_trump_dealer_chooses=c)
    for h, f, c in itertools.product((False, True), repeat=3)
]


def positions(players: int, options: GameOptions, seed: int, every: int) -> Iterator[WizardGame]:
    """Every ``every``-th position of a random game, the finished one included."""
    game = WizardGame(players, options, seed=seed)
    rng = random.Random(seed)
    step = 0
    while not game.is_finished:
        if step % every == 0:
            yield game
        game.apply(game.current_player, rng.choice(game.legal_actions()))
        step += 1
    yield game


@pytest.mark.parametrize("options", ALL_OPTIONS, ids=lambda o: "-".join(
    k for k, v in o.to_dict().items() if v) or "plain")
def test_every_observation_survives_a_json_round_trip(options: GameOptions) -> None:
    checked = 0
    for players in (3, 4, 5, 6):
        for game in positions(players, options, seed=players * 10, every=23):
            for seat in [*range(players), None]:
                observation = game.observation(seat)
                data = json.loads(json.dumps(observation.to_dict()))
                assert list(data) == FIELDS
                assert Observation.from_dict(data) == observation
                checked += 1
    assert checked > 100


def test_observation_json_matches_the_documented_shape() -> None:
    game = WizardGame(3, seed=1, first_dealer=2)
    for pick in (0, 0, -1):
        game.apply(game.current_player, game.legal_actions()[pick])
    data = game.observation(0).to_dict()
    assert data["player"] == 0
    assert data["num_players"] == 3
    assert data["options"] == {
        "hidden_bids": False, "forbid_even_bids": True, "wizard_trump_dealer_chooses": False,
        "rounds": None,
    }
    assert data["phase"] == "playing"
    assert (data["round_number"], data["total_rounds"], data["dealer"]) == (1, 20, 2)
    assert data["current_player"] == 0
    assert data["hand"] == [game.hand(0)[0].to_dict()]
    assert data["hand_sizes"] == [1, 1, 1]
    assert data["trump_card"] == game.trump_card.to_dict()
    # the dealer may not bid 1: the bids would add up to the one card dealt
    assert data["bids"] == [0, 0, 0] and data["has_bid"] == [True, True, True]
    assert data["tricks_won"] == [0, 0, 0] and data["scores"] == [0, 0, 0]
    assert (data["trick_number"], data["trick_leader"]) == (1, 0)
    assert data["current_trick"] == [] and data["lead_suit"] is None
    assert data["played_cards"] == [] and data["last_trick"] is None
    assert data["round_history"] == [] and data["winners"] == []
    assert data["legal_actions"] == [{"type": "play", "card": game.hand(0)[0].id}]


def test_only_the_seat_to_move_sees_legal_actions() -> None:
    game = WizardGame(4, seed=3, first_dealer=0)
    assert game.observation(1).is_my_turn
    assert game.observation(1).legal_actions == tuple(game.legal_actions())
    for seat in (0, 2, 3, None):
        observation = game.observation(seat)
        assert not observation.is_my_turn
        assert observation.legal_actions == ()


def test_spectator_sees_no_hand_and_no_legal_actions() -> None:
    game = WizardGame(5, seed=3)
    spectator = game.observation(None)
    assert spectator.is_spectator and spectator.player is None
    assert spectator.hand == () and spectator.legal_actions == ()
    assert spectator.hand_sizes == (1, 1, 1, 1, 1)
    assert not game.observation(0).is_spectator


def test_only_the_own_hand_is_in_the_observation() -> None:
    game = WizardGame(4, seed=17, first_dealer=0)
    # mid round 6, so that the last trick on show is one of this round's
    while game.round_number < 6 or game.core.trick_number < 2:
        game.apply(game.current_player, game.legal_actions()[0])
    for seat in range(4):
        text = json.dumps(game.observation(seat).to_dict())
        for other in range(4):
            for card in game.hand(other):
                assert (json.dumps(card.to_dict()) in text) == (other == seat)


def test_current_trick_lead_suit_and_played_cards_during_play() -> None:
    game = WizardGame(4, seed=17, first_dealer=0)
    while game.round_number < 3 or game.phase is not Phase.PLAYING:
        game.apply(game.current_player, game.legal_actions()[0])
    leader = game.current_player
    assert leader is not None
    first = game.legal_actions()[0]
    assert isinstance(first, PlayCard)
    game.apply(leader, first)
    second = game.legal_actions()[-1]
    assert isinstance(second, PlayCard)
    game.apply(game.current_player, second)
    observation = game.observation(None)
    assert observation.current_trick == (
        PlayedCard(leader, first.card), PlayedCard((leader + 1) % 4, second.card))
    assert observation.played_cards == (first.card, second.card)
    assert observation.trick_leader == leader
    assert observation.hand_sizes[leader] == 2 and observation.hand_sizes[(leader + 2) % 4] == 3
    if first.card.suit is not None:
        assert observation.lead_suit is first.card.suit
    elif first.card.is_wizard:
        assert observation.lead_suit is None


def test_lead_suit_is_none_after_a_wizard_lead_and_set_after_a_jester_lead() -> None:
    game = WizardGame(3, seed=1, first_dealer=2)
    core = game.core
    core.round_number = 2
    # seat 0: wizard, jester; seat 1: jester, red 4; seat 2: blue 2, red 5
    core.hands = [1 << 52 | 1 << 56, 1 << 57 | 1 << 3, 1 << 40 | 1 << 4]
    core.trump_card, core.trump_suit = 20, Suit.YELLOW.index
    core.bids, core.bid_count = [0, 0, 0], 3
    core.phase, core.current, core.leader = 1, 0, 0
    game.apply(0, PlayCard(card_from_id(52)))
    assert game.observation(1).lead_suit is None
    game.apply(1, PlayCard(card_from_id(57)))
    assert game.observation(2).lead_suit is None  # a wizard lead frees the whole trick
    assert len(game.observation(2).legal_actions) == 2
    game.apply(2, PlayCard(card_from_id(40)))
    game.apply(0, PlayCard(card_from_id(56)))
    assert game.observation(1).lead_suit is None
    game.apply(1, PlayCard(card_from_id(3)))
    assert game.observation(2).lead_suit is Suit.RED
    assert game.observation(2).legal_actions == (PlayCard(card_from_id(4)),)
    assert game.observation(2).trump_suit is Suit.YELLOW


def test_finished_game_observation_names_the_winners() -> None:
    game = WizardGame(6, seed=4)
    while not game.is_finished:
        game.apply(game.current_player, game.legal_actions()[0])
    observation = game.observation(2)
    assert observation.phase is Phase.FINISHED
    assert observation.current_player is None
    assert observation.winners == tuple(game.winners())
    assert len(observation.round_history) == 10
    assert observation.hand == () and observation.legal_actions == ()


def valid_dict() -> dict[str, object]:
    game = WizardGame(4, seed=2)
    for _ in range(9):
        game.apply(game.current_player, game.legal_actions()[-1])
    return game.observation(game.current_player).to_dict()


@pytest.mark.parametrize(
    ("field", "bad"),
    [
        ("phase", "dealing"),
        ("player", True),
        ("player", "0"),
        ("current_player", 1.0),
        ("hand", {"id": 1}),
        ("hand", [{"id": 60}]),
        ("bids", [True, None, None, None]),
        ("bids", "none"),
        ("has_bid", [1, 0, 0, 0]),
        ("hand_sizes", [1.0, 2, 2, 2]),
        ("trump_suit", "purple"),
        ("trump_card", {"id": 53, "kind": "jester", "suit": None, "rank": 0}),
        ("legal_actions", [{"type": "bid", "value": 21}]),
        ("options", {"hidden_bids": 1}),
        ("options", {"colour": True}),
        ("round_history", [{"round_number": 1}]),
    ],
)
def test_observation_from_dict_rejects_bad_fields(field: str, bad: object) -> None:
    data = valid_dict()
    data[field] = bad
    with pytest.raises(ValueError):
        Observation.from_dict(data)


@pytest.mark.parametrize("field", FIELDS)
def test_observation_from_dict_names_a_missing_field(field: str) -> None:
    data = valid_dict()
    del data[field]
    with pytest.raises(ValueError, match=field):
        Observation.from_dict(data)


@pytest.mark.parametrize("bad", [None, [], "observation"])
def test_observation_from_dict_rejects_non_objects(bad: object) -> None:
    with pytest.raises(ValueError, match="observation must be an object"):
        Observation.from_dict(bad)
