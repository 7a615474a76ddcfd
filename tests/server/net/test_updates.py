"""The typed ``update`` is the same JSON, byte for byte, as the engine's ``to_dict`` forms."""

from __future__ import annotations

import json
import random

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wizard.engine import GameOptions, WizardGame
from wizard.protocol import ACTION_VIEWS, Clock, Update, encode
from wizard.server.net.updates import CARD_VIEWS, event_view, observation_view

to_json = msgspec.json.encode


@settings(max_examples=5, deadline=None)
@given(players=st.integers(3, 6), seed=st.integers(0, 2**32 - 1),
       hidden_bids=st.booleans(), dealer_chooses=st.booleans())
def test_every_view_of_a_game_encodes_as_its_to_dict(players: int, seed: int, hidden_bids: bool,
                                                     dealer_chooses: bool) -> None:
    options = GameOptions(hidden_bids=hidden_bids, wizard_trump_dealer_chooses=dealer_chooses)
    game = WizardGame(players, options, seed=seed)
    rng = random.Random(seed)
    events = list(game.start_events())
    kinds: set[str] = set()
    while True:
        for event in events:
            assert to_json(event_view(event)) == to_json(event.to_dict())
            kinds.add(event.to_dict()["type"])
        for seat in (*range(players), None):
            observation = game.observation(seat)
            assert to_json(observation_view(observation)) == to_json(observation.to_dict())
        if game.is_finished:
            break
        player = game.current_player
        assert player is not None
        events = game.apply(player, rng.choice(game.legal_actions()))
    assert {"round_started", "trick_completed", "round_completed", "game_finished"} <= kinds


def test_an_update_reads_back_as_the_message_clients_always_got() -> None:
    game = WizardGame(4, GameOptions(hidden_bids=True), seed=5)
    observation = game.observation(2)
    events = game.start_events()
    text = encode(Update("t_1", 1, [event_view(e) for e in events], observation_view(observation),
                         Clock(2, 60000)))
    assert json.loads(text) == {
        "type": "update", "table_id": "t_1", "v": 1, "events": [e.to_dict() for e in events],
        "observation": observation.to_dict(), "clock": {"player": 2, "deadline_ms": 60000}}
    assert list(json.loads(text)) == ["type", "table_id", "v", "events", "observation", "clock"]


def test_the_tables_hold_every_card_and_action_as_the_engine_writes_it() -> None:
    from wizard.engine import ACTIONS_BY_INDEX, ALL_CARDS

    assert [to_json(v) for v in CARD_VIEWS] == [to_json(c.to_dict()) for c in ALL_CARDS]
    assert [to_json(v) for v in ACTION_VIEWS] == [to_json(a.to_dict()) for a in ACTIONS_BY_INDEX]


def test_something_that_is_no_event_is_refused() -> None:
    with pytest.raises(TypeError, match="not an engine event"):
        event_view("round_started")  # type: ignore[arg-type]
