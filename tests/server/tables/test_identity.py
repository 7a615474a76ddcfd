"""Attacks on identity: nobody acts for a seat that is not theirs, tokens stay secret,
private tables stay hidden."""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable

from structlog.testing import capture_logs

from ..conftest import Harness, wait_until
from ..driver import act_message, my_turn
from .test_table import play_to_end, table_id_of


def test_nobody_acts_for_a_seat_that_is_not_theirs(harness: Harness) -> None:
    ann, ben = harness.player("Ann"), harness.player("Ben")
    ann.ok({"type": "create_table", "players": 3, "turn_seconds": 0})
    table_id = table_id_of(ann)
    ben.ok({"type": "join_table", "table_id": table_id})
    ann.ok({"type": "add_bot", "table_id": table_id, "level": "easy"})
    ann.ok({"type": "start_game", "table_id": table_id})
    table = harness.server.lobby.table(table_id)
    eve, mal = harness.player("Eve"), harness.player("Mal")
    eve.ok({"type": "spectate", "table_id": table_id})
    by_seat = {0: ann, 1: ben}
    # whoever is to move, everyone else is refused; the table does not move
    game = table.game
    assert game is not None
    for _ in range(6):
        wait_until(harness, lambda: game.current_player in by_seat)  # the bot has moved
        mover = game.current_player
        turn = by_seat[mover].wait_for(lambda m: my_turn(m, table_id) and m["v"] == table.v)
        action = turn["observation"]["legal_actions"][0]
        v = table.v
        other = by_seat[1 - mover]
        assert other.request({"type": "act", "table_id": table_id,
                              "action": action})["code"] == "not_your_turn"
        # no field names another seat: the seat comes from the token, never from the message
        assert other.request({"type": "act", "table_id": table_id, "action": action,
                              "seat": mover})["code"] == "bad_message"
        assert other.request({"type": "act", "table_id": table_id,
                              "action": {**action, "player": mover}})["code"] == "bad_message"
        assert eve.request({"type": "act", "table_id": table_id,
                            "action": action})["code"] == "not_seated"  # a spectator
        assert mal.request({"type": "act", "table_id": table_id,
                            "action": action})["code"] == "not_seated"  # not at the table
        assert mal.request({"type": "start_game", "table_id": table_id})["code"] == "not_host"
        assert ben.request({"type": "remove_bot", "table_id": table_id,
                            "seat": 2})["code"] == "not_host"
        assert table.v == v
        by_seat[mover].ok(act_message(turn))


def test_acting_after_the_game_or_after_leaving_is_refused(harness: Harness) -> None:
    ann, ben = harness.player("Ann"), harness.player("Ben")
    ann.ok({"type": "play_bots", "players": 3, "level": "easy", "turn_seconds": 0})
    table_id = table_id_of(ann)
    play_to_end([ann], table_id)
    last = ann.last_update(table_id)
    bid = {"type": "bid", "value": 0}
    assert ann.request({"type": "act", "table_id": table_id, "action": bid})["code"] == \
        "game_over"
    assert ben.request({"type": "act", "table_id": table_id, "action": bid})["code"] == \
        "not_seated"
    ann.ok({"type": "leave_table", "table_id": table_id})  # the last person: the table closes
    assert ann.request({"type": "act", "table_id": table_id, "action": bid})["code"] == \
        "no_such_table"
    assert ann.request({"type": "rematch", "table_id": table_id})["code"] == "no_such_table"
    assert last["v"] == max(m["v"] for m in ann.messages if m["type"] == "update")


def test_stale_and_forged_tokens_are_refused(make_harness: Callable[..., Harness]) -> None:
    first, second = make_harness(), make_harness()
    ann = first.player("Ann")
    assert ann.token is not None
    real = ann.token
    for token in (real,  # stale: from another server (another database)
                  secrets.token_urlsafe(24),  # forged: well-formed but unknown
                  real[:-1] + ("A" if real[-1] != "A" else "B"),  # one character off
                  real[:16], real + "x", " " + real, "x" * 128):
        intruder = second.connect("intruder")
        reply = intruder.request({"type": "hello", "name": "Ann", "token": token})
        assert reply["code"] == "unknown_token", token
        assert intruder.request({"type": "list_tables"})["code"] == "not_identified"
    assert second.connect("long").request(
        {"type": "hello", "name": "Ann", "token": "x" * 129})["code"] == "bad_message"


def test_tokens_appear_only_in_their_owners_welcome(harness: Harness) -> None:
    with capture_logs() as logs:
        ann, ben = harness.player("Ann"), harness.player("Ben")
        ann.ok({"type": "create_table", "players": 3, "turn_seconds": 0})
        table_id = table_id_of(ann)
        ben.ok({"type": "join_table", "table_id": table_id})
        ann.ok({"type": "add_bot", "table_id": table_id, "level": "easy"})
        ben.ok({"type": "chat", "table_id": table_id, "text": "hi"})
        ann.ok({"type": "start_game", "table_id": table_id})
        play_to_end([ann, ben], table_id)
        eve = harness.player("Eve")
        eve.ok({"type": "list_tables"})
        api = [harness.client.get(path).text
               for path in ("/api/tables", "/api/games", "/metrics")]
        games = json.loads(api[1])["games"]
        api.append(harness.client.get(f"/api/games/{games[0]['id']}").text)
    tokens = {c.label: c.token for c in (ann, ben, eve)}
    assert all(tokens.values())
    for client in (ann, ben, eve):
        for message in client.messages:
            for owner, token in tokens.items():
                if token in json.dumps(message):
                    assert message["type"] == "welcome" and owner == client.label, message
    for token in tokens.values():
        assert not any(token in text for text in api)
        assert not any(token in repr(event) for event in logs)
    assert logs  # the capture saw the server's log events


def test_private_tables_are_not_listed_and_are_joined_by_invite_only(harness: Harness) -> None:
    ann, ben = harness.player("Ann"), harness.player("Ben")
    ben.ok({"type": "list_tables"})
    ann.ok({"type": "create_table", "players": 3, "private": True})
    private_id = table_id_of(ann)
    ann.ok({"type": "create_table", "players": 3})
    public_id = table_id_of(ann)
    listing = ben.wait_for(lambda m: m["type"] == "tables" and m["tables"])
    assert [t["table_id"] for t in listing["tables"]] == [public_id]
    assert [t["table_id"] for t in harness.client.get("/api/tables").json()["tables"]] == \
        [public_id]
    assert ben.request({"type": "join_table",
                        "table_id": private_id[:-1] + "x"})["code"] == "no_such_table"
    assert ben.request({"type": "join_table",
                        "table_id": private_id})["code"] == "invite_required"
    invite = next(m for m in ann.messages if m["type"] == "table"
                  and m["table_id"] == private_id)["invite"]
    ben.ok({"type": "join_table", "table_id": private_id, "invite": invite})
    assert len(private_id) >= 14  # "t_" + 72 random bits
