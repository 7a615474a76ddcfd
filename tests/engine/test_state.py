"""Value types of a game: options, results and events, and their JSON round trips."""

from __future__ import annotations

import dataclasses
import itertools
import json
import random

import pytest

from wizard.engine import (
    Event,
    GameFinished,
    GameOptions,
    Phase,
    PlayedCard,
    RoundCompleted,
    RoundResult,
    RoundStarted,
    Suit,
    TrickCompleted,
    TrickResult,
    TrumpChosen,
    WizardGame,
    card_from_id,
    event_from_dict,
)


def json_round_trip(data: object) -> object:
    return json.loads(json.dumps(data))


def events_of_games() -> list[Event]:
    """Every event of a few random games, with trump choices among them."""
    events: list[Event] = []
    for players, seed in ((3, 1), (4, 2), (5, 3), (6, 4)):
        game = WizardGame(players, GameOptions(wizard_trump_dealer_chooses=True), seed=seed)
        events += game.start_events()
        rng = random.Random(seed)
        while not game.is_finished:
            action = rng.choice(game.legal_actions())
            events += game.apply(game.current_player, action)
    return events


EVENTS = events_of_games()


def a_trick() -> TrickResult:
    return next(e.trick for e in EVENTS if isinstance(e, TrickCompleted))


def test_phase_values_are_the_json_names() -> None:
    assert [p.value for p in Phase] == ["choosing_trump", "bidding", "playing", "finished"]


# --- options ------------------------------------------------------------------------


@pytest.mark.parametrize("flags", list(itertools.product((False, True), repeat=3)))
def test_options_survive_a_json_round_trip(flags: tuple[bool, bool, bool]) -> None:
    options = GameOptions(*flags)
    data = options.to_dict()
    assert data == dict(zip(
        ("hidden_bids", "forbid_even_bids", "wizard_trump_dealer_chooses"), flags, strict=True),
        rounds=None)
    assert GameOptions.from_dict(json_round_trip(data)) == options


@pytest.mark.parametrize("rounds", [None, 1, 7, 20])
def test_a_short_game_survives_a_json_round_trip(rounds: int | None) -> None:
    options = GameOptions(hidden_bids=True, rounds=rounds)
    assert options.to_dict()["rounds"] == rounds
    assert GameOptions.from_dict(json_round_trip(options.to_dict())) == options


def test_options_stored_before_game_length_mean_the_full_game() -> None:
    stored = {"hidden_bids": False, "forbid_even_bids": True, "wizard_trump_dealer_chooses": False}
    assert GameOptions.from_dict(stored).rounds is None


def test_options_defaults_and_missing_keys() -> None:
    assert GameOptions() == GameOptions(False, True, False)
    assert GameOptions.from_dict(None) == GameOptions()
    assert GameOptions.from_dict({}) == GameOptions()
    assert GameOptions.from_dict({"hidden_bids": True}) == GameOptions(hidden_bids=True)


@pytest.mark.parametrize(
    ("bad", "named"),
    [
        ({"hidden_bids": 1}, "hidden_bids"),
        ({"forbid_even_bids": "yes"}, "forbid_even_bids"),
        ({"wizard_trump_dealer_chooses": None}, "wizard_trump_dealer_chooses"),
        ({"colour": True}, "colour"),
        ({"rounds": 0}, "rounds must be an integer 1-20 or null .*got 0"),
        ({"rounds": 21}, "rounds .*got 21"),
        ({"rounds": True}, "rounds .*got True"),
        ({"rounds": 2.0}, "rounds .*got 2.0"),
        ({"rounds": "3"}, "rounds .*got '3'"),
        ([], "options must be an object"),
        ("hidden", "options must be an object"),
    ],
)
def test_options_from_dict_rejects_unknown_keys_and_non_booleans(bad: object, named: str) -> None:
    with pytest.raises(ValueError, match=named):
        GameOptions.from_dict(bad)


def test_options_are_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        GameOptions().hidden_bids = True


# --- results ------------------------------------------------------------------------


def test_played_card_round_trip_and_format() -> None:
    played = PlayedCard(2, card_from_id(17))
    assert played.to_dict() == {"player": 2, "card": card_from_id(17).to_dict()}
    assert PlayedCard.from_dict(json_round_trip(played.to_dict())) == played
    for bad in ({"player": True, "card": card_from_id(1).to_dict()}, {"player": 1}, [1, 17]):
        with pytest.raises(ValueError):
            PlayedCard.from_dict(bad)


def test_trick_result_format_carries_its_trump_card_and_suit() -> None:
    trick = TrickResult(
        round_number=3, trick_number=2,
        cards=(PlayedCard(1, card_from_id(40)), PlayedCard(2, card_from_id(56)),
               PlayedCard(0, card_from_id(41))),
        winner=0, trump_card=card_from_id(52), trump_suit=Suit.GREEN,
    )
    data = trick.to_dict()
    assert data["trump_card"] == {"id": 52, "kind": "wizard", "suit": None, "rank": 0}
    assert data["trump_suit"] == "green"
    assert data["cards"][0] == {"player": 1, "card": card_from_id(40).to_dict()}
    assert TrickResult.from_dict(json_round_trip(data)) == trick
    last_round = dataclasses.replace(trick, trump_card=None, trump_suit=None)
    assert last_round.to_dict()["trump_card"] is None
    assert TrickResult.from_dict(json_round_trip(last_round.to_dict())) == last_round


@pytest.mark.parametrize(
    ("field", "bad"),
    [("winner", "0"), ("cards", {}), ("trump_suit", "purple"), ("round_number", 1.0)],
)
def test_trick_result_from_dict_rejects_bad_fields(field: str, bad: object) -> None:
    data = a_trick().to_dict()
    data[field] = bad
    with pytest.raises(ValueError, match=field):
        TrickResult.from_dict(data)


def test_round_result_round_trip_and_format() -> None:
    result = RoundResult(2, (1, 0, 2), (1, 1, 0), (30, -10, -20), (50, 10, -20), 1,
                         Suit.GREEN, (3, 17, 52, 40, 56, 8))
    assert result.to_dict() == {
        "round_number": 2, "bids": [1, 0, 2], "tricks": [1, 1, 0],
        "score_changes": [30, -10, -20], "scores": [50, 10, -20],
        "dealer": 1, "trump_suit": "green", "plays": [3, 17, 52, 40, 56, 8],
    }
    assert RoundResult.from_dict(json_round_trip(result.to_dict())) == result
    no_trump = dataclasses.replace(result, trump_suit=None)
    assert RoundResult.from_dict(json_round_trip(no_trump.to_dict())) == no_trump
    for field, bad in (("bids", [1, True, 2]), ("scores", [1, True, 2]), ("plays", [3, 60]),
                       ("plays", [-1]), ("plays", "3,17"), ("trump_suit", "pink"),
                       ("dealer", None)):
        data = result.to_dict()
        data[field] = bad
        with pytest.raises(ValueError, match=field):
            RoundResult.from_dict(data)
    data = result.to_dict()
    del data["tricks"]
    with pytest.raises(ValueError, match="tricks"):
        RoundResult.from_dict(data)


# --- events -------------------------------------------------------------------------


def test_random_games_produce_every_event_type() -> None:
    assert {type(e) for e in EVENTS} == {
        RoundStarted, TrumpChosen, TrickCompleted, RoundCompleted, GameFinished}


def test_every_event_survives_a_json_round_trip() -> None:
    for event in EVENTS:
        assert event_from_dict(json_round_trip(event.to_dict())) == event


def test_event_json_matches_the_documented_format() -> None:
    assert RoundStarted(3, 1, card_from_id(17), Suit.YELLOW).to_dict() == {
        "type": "round_started", "round_number": 3, "dealer": 1,
        "trump_card": card_from_id(17).to_dict(), "trump_suit": "yellow",
    }
    assert RoundStarted(15, 1, None, None).to_dict()["trump_card"] is None
    assert TrumpChosen(2, Suit.BLUE).to_dict() == {
        "type": "trump_chosen", "player": 2, "suit": "blue"}
    trick = a_trick()
    assert TrickCompleted(trick).to_dict() == {"type": "trick_completed",
                                               "trick": trick.to_dict()}
    result = RoundResult(1, (0, 1, 0), (1, 0, 0), (-10, -10, 20), (-10, -10, 20), 0, None,
                         (59, 20, 7))
    assert RoundCompleted(result).to_dict() == {"type": "round_completed",
                                                "result": result.to_dict()}
    assert GameFinished((10, 30, 30), (1, 2)).to_dict() == {
        "type": "game_finished", "scores": [10, 30, 30], "winners": [1, 2]}


@pytest.mark.parametrize(
    ("bad", "named"),
    [
        ({"type": "round_begun"}, "unknown event type"),
        ({"round_number": 1}, "type"),
        ([], "event must be an object"),
        ({"type": "trump_chosen", "player": 1}, "suit"),
        ({"type": "trump_chosen", "player": 1, "suit": None}, "suit"),
        ({"type": "trump_chosen", "player": 1, "suit": "pink"}, "suit"),
        ({"type": "round_started", "round_number": 1, "dealer": 0, "trump_card": None},
         "trump_suit"),
        ({"type": "trick_completed"}, "trick"),
        ({"type": "round_completed", "result": {}}, "round_number"),
        ({"type": "game_finished", "scores": [1, 2, 3]}, "winners"),
        ({"type": "game_finished", "scores": [1, 2.5, 3], "winners": [0]}, "scores"),
    ],
)
def test_event_from_dict_rejects_bad_input_naming_the_field(bad: object, named: str) -> None:
    with pytest.raises(ValueError, match=named):
        event_from_dict(bad)
