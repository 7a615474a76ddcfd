"""Bad input gets a clear error with a stable code, and nothing changes."""

from __future__ import annotations

import json

import pytest

from wizard.engine import ACTIONS_BY_INDEX
from wizard.protocol import (
    ACTION_VIEWS,
    CLIENT_TYPES,
    Ack,
    Act,
    ErrorCode,
    Hello,
    Ping,
    ProtocolError,
    action_index_of,
    decode_client,
    encode,
    engine_action,
    message_id_of,
)

from ..conftest import Harness
from ..driver import my_turn


@pytest.mark.parametrize(("frame", "code"), [
    ("not json", "bad_json"),
    ('{"type": "ping"', "bad_json"),
    ("[1, 2]", "bad_message"),
    ('"ping"', "bad_message"),
    ("{}", "bad_message"),
    ('{"type": "fly"}', "bad_message"),
    ('{"type": 7}', "bad_message"),
    ('{"type": "hello"}', "bad_message"),
    ('{"type": "hello", "name": 3}', "bad_message"),
    ('{"type": "hello", "name": "x", "extra": 1}', "bad_message"),
    ('{"type": "ping", "id": "1"}', "bad_message"),
    ('{"type": "ping", "id": -1}', "bad_message"),
    ('{"type": "ping", "id": 1e999}', "bad_message"),
    ('{"type": "create_table", "players": 7}', "bad_message"),
    ('{"type": "create_table", "players": 4, "options": {"jokers": true}}', "bad_message"),
    ('{"type": "add_bot", "table_id": "t", "level": "godlike"}', "bad_message"),
    ('{"type": "chat", "table_id": "t", "text": ""}', "bad_message"),
])
def test_decode_refuses_with_a_code(frame: str, code: str) -> None:
    with pytest.raises(ProtocolError) as info:
        decode_client(frame)
    assert info.value.code == code


def test_decode_and_encode_round_trip() -> None:
    assert decode_client('{"type": "hello", "name": "Ann", "id": 3}') == Hello(id=3, name="Ann")
    assert decode_client(b'{"type": "ping"}') == Ping()
    assert json.loads(encode(Ack(id=9))) == {"type": "ack", "id": 9}
    assert "act" in CLIENT_TYPES and "play_bots" in CLIENT_TYPES


def test_every_engine_action_arrives_typed_with_its_index() -> None:
    for index, action in enumerate(ACTIONS_BY_INDEX):
        frame = json.dumps({"type": "act", "table_id": "t_1", "action": action.to_dict()})
        message = decode_client(frame)
        assert isinstance(message, Act)
        assert action_index_of(message.action) == index
        assert engine_action(message.action) is action  # the engine's own instance
        assert message.action == ACTION_VIEWS[index]


@pytest.mark.parametrize("action", [
    {"type": "bid", "value": 21}, {"type": "bid", "value": -1}, {"type": "bid", "value": True},
    {"type": "bid", "value": 1.0}, {"type": "bid"}, {"type": "bid", "value": 1, "player": 0},
    {"type": "play", "card": 60}, {"type": "play", "card": "3"}, {"type": "trump", "suit": "pink"},
    {"type": "dance"}, {"value": 1}, [], "bid",
])
def test_a_malformed_action_is_a_bad_message(action: object) -> None:
    with pytest.raises(ProtocolError) as info:
        decode_client(json.dumps({"type": "act", "table_id": "t_1", "action": action}))
    assert info.value.code is ErrorCode.BAD_MESSAGE and "action" in info.value.message


def test_the_id_of_a_refused_message_is_kept_for_the_error() -> None:
    assert message_id_of('{"type": "fly", "id": 12}') == 12
    assert message_id_of('{"id": "12"}') is None
    assert message_id_of("nope") is None


def test_every_bad_input_gets_an_error_and_leaves_the_table_alone(harness: Harness) -> None:
    ann = harness.player("Ann")
    anonymous = harness.connect("anon")
    assert anonymous.request({"type": "list_tables"})["code"] == "not_identified"
    assert anonymous.request({"type": "hello", "name": "X", "token": "forged"})["code"] == \
        "unknown_token"
    assert anonymous.request({"type": "hello", "name": "   "})["code"] == "bad_message"
    assert anonymous.request({"type": "ping"})["type"] == "ack"
    assert ann.request({"type": "hello", "name": "Ann"})["code"] == "already_identified"

    ann.ok({"type": "play_bots", "players": 4, "turn_seconds": 0})
    table_id = next(m for m in ann.messages if m["type"] == "table")["table_id"]
    turn = ann.wait_for(lambda m: my_turn(m, table_id))
    table = harness.server.lobby.table(table_id)
    before = (table.v, table.game.to_dict() if table.game else None)

    legal = turn["observation"]["legal_actions"]
    illegal_bid = next({"type": "bid", "value": v} for v in range(21)
                       if {"type": "bid", "value": v} not in legal)
    cases: list[tuple[object, str]] = [
        ("{oops", "bad_json"),
        (f'{{"type": "act", "id": 5, "table_id": "{table_id}"}}', "bad_message"),
        ({"type": "act", "table_id": table_id, "action": {"type": "bid", "value": "1"}},
         "bad_message"),
        ({"type": "act", "table_id": table_id, "action": {"type": "dance"}}, "bad_message"),
        ({"type": "act", "table_id": table_id, "action": illegal_bid}, "illegal_action"),
        ({"type": "act", "table_id": table_id, "action": {"type": "play", "card": 0}},
         "illegal_action"),
        ({"type": "act", "table_id": "t_nope", "action": legal[0]}, "no_such_table"),
        ({"type": "start_game", "table_id": table_id}, "already_started"),
        ({"type": "sync", "table_id": "t_nope"}, "no_such_table"),
        ({"type": "join_table", "table_id": table_id}, "already_seated"),
    ]
    for frame, code in cases:
        if isinstance(frame, str):
            ann.send(frame)
            reply = ann.wait_for(lambda m: m["type"] in ("error", "ack"))
        else:
            reply = ann.request(frame)  # type: ignore[arg-type]
        assert (reply["type"], reply.get("code")) == ("error", code), frame
        assert reply["message"]
    ann.send(b'{"type": "ping"}')
    assert ann.wait_for(lambda m: m["type"] in ("error", "ack"))["code"] == "bad_json"
    assert (table.v, table.game.to_dict() if table.game else None) == before
    assert not [m for m in ann.unread if m["type"] == "update" and m["v"] > turn["v"]]
    # a bot seat's turn is not ours
    other = harness.player("Ben")
    other.ok({"type": "create_table", "players": 3, "turn_seconds": 0})
    tid = next(m for m in other.messages if m["type"] == "table")["table_id"]
    other.ok({"type": "add_bot", "table_id": tid, "level": "easy"})
    other.ok({"type": "add_bot", "table_id": tid, "level": "easy"})
    other.ok({"type": "start_game", "table_id": tid})
    update = other.wait_for(lambda m: my_turn(m, tid))
    errors = harness.server.metrics.value
    assert errors("wizard_errors_total", code="illegal_action") == 2
    assert errors("wizard_errors_total", code="bad_json") == 2
    assert update["observation"]["current_player"] == 0


def test_not_your_turn_and_game_over(harness: Harness) -> None:
    ann, ben, cid = (harness.player(n) for n in ("Ann", "Ben", "Cid"))
    ann.ok({"type": "create_table", "players": 3, "turn_seconds": 0})
    table_id = next(m for m in ann.messages if m["type"] == "table")["table_id"]
    ben.ok({"type": "join_table", "table_id": table_id})
    cid.ok({"type": "join_table", "table_id": table_id})
    ann.ok({"type": "start_game", "table_id": table_id})
    table = harness.server.lobby.table(table_id)
    assert table.game is not None
    mover = table.game.current_player
    idle = next(c for seat, c in enumerate((ann, ben, cid)) if seat != mover)
    reply = idle.request({"type": "act", "table_id": table_id,
                          "action": {"type": "bid", "value": 0}})
    assert reply["code"] == "not_your_turn"
    while not table.game.is_finished:  # finish the game directly on the engine
        table.game.apply(table.game.current_player, table.game.legal_actions()[0])
    from wizard.server.tables.table import TableStatus
    table.status = TableStatus.FINISHED
    reply = ann.request({"type": "act", "table_id": table_id,
                         "action": {"type": "bid", "value": 0}})
    assert reply["code"] == "game_over"


def test_a_frame_over_the_limit_is_refused_and_closes_the_connection(harness: Harness) -> None:
    ann = harness.player("Ann")
    ann.send(json.dumps({"type": "chat", "table_id": "t", "text": "x" * 9000, "id": 1}))
    reply = ann.wait_for(lambda m: m["type"] == "error")
    assert reply["code"] == "too_large" and reply["id"] is None
    closed = ann.wait_for(lambda m: m["type"] == "_closed")
    assert closed["code"] == 1009


def test_error_codes_are_stable_strings() -> None:
    assert {c.value for c in ErrorCode} >= {
        "bad_json", "bad_message", "too_large", "not_your_turn", "illegal_action", "game_over",
        "no_such_table", "table_full", "not_host", "not_seated", "not_started",
        "already_started", "rate_limited"}
