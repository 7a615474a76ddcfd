"""Every protection layer trips as docs/limits.md says, and is counted at /metrics (TestClient).

The real-uvicorn side of the same layers (503 at the handshake through uvicorn,
slow readers, pings, SIGTERM) is in ``test_faults.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from starlette.testclient import WebSocketDenialResponse

from wizard.server.clock import ManualClockLoop

from ..conftest import Harness, WsClient, has_sample, wait_until
from ..driver import my_turn
from ..tables.test_table import table_id_of


def metric(harness: Harness, line: str) -> bool:
    return has_sample(harness.client.get("/metrics").text, line)


def refused(harness: Harness, **headers: str) -> Any:
    with pytest.raises(WebSocketDenialResponse) as denied:
        harness.client.websocket_connect("/ws", headers=dict(headers)).__enter__()
    return denied.value


# --- message budget ----------------------------------------------------------------------


def test_over_the_message_budget_a_client_gets_rate_limited(
        make_harness: Callable[..., Harness]) -> None:
    harness = make_harness(messages_per_second=0.01, message_burst=5, rate_limit_strikes=100)
    ann = harness.connect("ann")
    for mid in range(1, 9):
        ann.send({"type": "ping", "id": mid})
    replies = [ann.wait_for(lambda m, mid=mid: m.get("id") == mid) for mid in range(1, 9)]
    assert [r["type"] for r in replies] == ["ack"] * 5 + ["error"] * 3
    assert {r.get("code") for r in replies[5:]} == {"rate_limited"}
    assert ann.closed is None  # a few strikes do not close the connection
    assert metric(harness, 'wizard_rate_limited_total{budget="messages"} 3')
    assert metric(harness, 'wizard_errors_total{code="rate_limited"} 3')


def test_garbage_costs_budget_too_and_persistent_abuse_is_closed_1008(
        make_harness: Callable[..., Harness]) -> None:
    harness = make_harness(messages_per_second=0.01, message_burst=2, rate_limit_strikes=3)
    abuser = harness.connect("abuser")
    for _ in range(10):
        abuser.send("{garbage")
    codes = [abuser.wait_for(lambda m: m["type"] in ("error", "_closed"))
             for _ in range(6)]
    assert [m.get("code") for m in codes] == ["bad_json"] * 2 + ["rate_limited"] * 3 + [1008]
    assert metric(harness, 'wizard_connections_closed_total{cause="rate_limit"} 1')
    ok = harness.connect("ok")  # others are not affected
    assert ok.request({"type": "ping"})["type"] == "ack"


def test_chat_has_its_own_stricter_budget(make_harness: Callable[..., Harness]) -> None:
    harness = make_harness(chat_per_minute=1)
    ann = harness.player("Ann")
    ann.ok({"type": "create_table", "players": 3})
    table_id = table_id_of(ann)
    replies = [ann.request({"type": "chat", "table_id": table_id, "text": f"hi {n}"})
               for n in range(7)]
    assert [r.get("code", r["type"]) for r in replies] == ["ack"] * 5 + ["rate_limited"] * 2
    assert ann.request({"type": "ping"})["type"] == "ack"  # the general budget is untouched
    assert metric(harness, 'wizard_rate_limited_total{budget="chat"} 2')


# --- connections -------------------------------------------------------------------------


def test_past_max_connections_the_handshake_gets_503(make_harness: Callable[..., Harness]) -> None:
    harness = make_harness(max_connections=2)
    first, second = harness.connect("1"), harness.connect("2")
    assert first.request({"type": "ping"})["type"] == "ack"
    denied = refused(harness)
    assert denied.status_code == 503 and denied.headers["retry-after"] == "5"
    assert "full" in denied.text
    assert metric(harness, 'wizard_connections_refused_total{reason="full"} 1')
    assert metric(harness, 'wizard_limit{name="max_connections"} 2')
    # a freed slot is usable again
    harness.disconnect(first)
    wait_until(harness, lambda: len(harness.server.connections) < 2)
    third = harness.connect("3")
    assert third.request({"type": "ping"})["type"] == "ack"
    assert second.request({"type": "ping"})["type"] == "ack"


def test_a_browser_from_another_origin_is_refused_at_the_handshake(
        make_harness: Callable[..., Harness]) -> None:
    harness = make_harness(allowed_origins=("https://wizard.example",))
    assert refused(harness, origin="https://evil.example").status_code == 403
    assert refused(harness, origin="null").status_code == 403
    assert metric(harness, 'wizard_connections_refused_total{reason="origin"} 2')
    # the server's own host (TestClient: "testserver"), the allowlist, and non-browsers pass
    for headers in ({"origin": "http://testserver"}, {"origin": "https://wizard.example"}, {}):
        context = harness.client.websocket_connect("/ws", headers=headers)
        session = context.__enter__()
        client = WsClient(session, str(headers))
        assert client.request({"type": "ping"})["type"] == "ack"
        context.__exit__(None, None, None)


# --- tables and spectators ---------------------------------------------------------------


def test_max_tables_refuses_one_more_table(make_harness: Callable[..., Harness]) -> None:
    harness = make_harness(max_tables=2)
    ann, ben = harness.player("Ann"), harness.player("Ben")
    ann.ok({"type": "create_table", "players": 3})
    ben.ok({"type": "create_table", "players": 3})
    assert ann.request({"type": "create_table", "players": 4})["code"] == "table_limit"
    assert ben.request({"type": "play_bots", "players": 3})["code"] == "table_limit"
    assert len(harness.server.lobby.tables) == 2
    ann.ok({"type": "join_table", "table_id": table_id_of(ben)})  # joining still works
    assert metric(harness, 'wizard_errors_total{code="table_limit"} 2')


def test_a_player_sits_at_a_bounded_number_of_tables(
        make_harness: Callable[..., Harness]) -> None:
    harness = make_harness(max_tables_per_player=2)
    ann, ben = harness.player("Ann"), harness.player("Ben")
    ann.ok({"type": "create_table", "players": 3})
    ann.ok({"type": "play_bots", "players": 3})
    tables_before = len(harness.server.lobby.tables)
    assert ann.request({"type": "create_table", "players": 3})["code"] == "player_table_limit"
    assert ann.request({"type": "play_bots", "players": 3})["code"] == "player_table_limit"
    assert len(harness.server.lobby.tables) == tables_before  # no half-made table left over
    ben.ok({"type": "create_table", "players": 3})
    bens = table_id_of(ben)
    assert ann.request({"type": "join_table", "table_id": bens})["code"] == "player_table_limit"
    first = next(m["table_id"] for m in ann.messages if m["type"] == "table")
    ann.ok({"type": "leave_table", "table_id": first})
    ann.ok({"type": "join_table", "table_id": bens})


def test_a_table_has_a_bounded_number_of_spectators(make_harness: Callable[..., Harness]) -> None:
    harness = make_harness(max_spectators=1)
    ann = harness.player("Ann")
    ann.ok({"type": "play_bots", "players": 3})
    table_id = table_id_of(ann)
    invite = next(m for m in ann.messages if m["type"] == "table")["invite"]  # a bot game's
    watch = {"type": "spectate", "table_id": table_id, "invite": invite}
    eve, fay = harness.player("Eve"), harness.player("Fay")
    eve.ok(watch)
    assert fay.request(watch)["code"] == "spectator_limit"
    eve.ok(watch)  # watching again is not one more
    eve.ok({"type": "leave_table", "table_id": table_id})
    fay.ok(watch)


# --- silence -----------------------------------------------------------------------------


def test_a_connection_that_never_says_hello_is_closed(make_harness: Callable[..., Harness]) -> None:
    clock = ManualClockLoop(1000.0)
    harness = make_harness(clock=clock, hello_timeout_seconds=30)
    silent, polite = harness.connect("silent"), harness.connect("polite")
    polite.hello("Polite")
    clock.advance(29.0)
    assert polite.request({"type": "ping"})["type"] == "ack"
    assert not metric(harness, 'wizard_connections_closed_total{cause="hello_timeout"} 1')
    clock.advance(1.0)  # 30 s after it opened
    assert silent.wait_for(lambda m: m["type"] == "_closed", 10)["code"] == 1008
    assert polite.request({"type": "ping"})["type"] == "ack"  # opened at the same time
    assert metric(harness, 'wizard_connections_closed_total{cause="hello_timeout"} 1')


def test_a_silent_player_is_closed_and_their_seat_follows_the_disconnect_rules(
        make_harness: Callable[..., Harness]) -> None:
    clock = ManualClockLoop(1000.0)
    harness = make_harness(clock=clock, client_idle_seconds=60, disconnect_grace_seconds=30)
    ann, pinger = harness.player("Ann"), harness.player("Pinger")
    ann.ok({"type": "play_bots", "players": 3, "turn_seconds": 0})
    table_id = table_id_of(ann)
    turn = ann.wait_for(lambda m: my_turn(m, table_id))
    for _ in range(3):  # a client that pings stays, however long
        clock.advance(20.0)
        assert pinger.request({"type": "ping"})["type"] == "ack"
    assert ann.wait_for(lambda m: m["type"] == "_closed", 10)["code"] == 1000  # at 60 s
    harness.disconnect(ann)
    assert metric(harness, 'wizard_connections_closed_total{cause="idle"} 1')
    table = harness.server.lobby.table(table_id)
    wait_until(harness, lambda: table.presence.in_grace(table.seats[0]))  # from 60 s
    clock.advance(29.0)
    assert pinger.request({"type": "ping"})["type"] == "ack"
    assert not table.seats[0].away and table.v == turn["v"]  # her grace runs
    # grace runs out, then a stand-in plays for Ann: the table does not wait for her
    clock.advance(1.0)
    wait_until(harness, lambda: table.seats[0].away and table.v > turn["v"])
    back = harness.connect("Ann again")
    back.hello("Ann", ann.token)
    assert back.wait_for(lambda m: m["type"] == "table")["seats"][0]["away"] is False


# --- shutdown ----------------------------------------------------------------------------


def test_shutdown_tells_every_client_and_refuses_new_ones(harness: Harness) -> None:
    ann, anon = harness.player("Ann"), harness.connect("anon")
    ann.ok({"type": "play_bots", "players": 3})
    harness.client.portal.call(harness.server.shutdown)
    for client in (ann, anon):
        assert client.wait_for(lambda m: m["type"] == "server_shutdown")
        assert client.wait_for(lambda m: m["type"] == "_closed")["code"] == 1001
    denied = refused(harness)
    assert denied.status_code == 503 and "shutting down" in denied.text
    assert harness.client.get("/readyz").status_code == 503
    assert metric(harness, 'wizard_connections_closed_total{cause="shutdown"} 2')


# --- the pieces ----------------------------------------------------------------------------


@pytest.mark.parametrize(("origin", "host", "allowed", "ok"), [
    (None, "wizard.example", (), True),  # not a browser
    ("https://wizard.example", "wizard.example", (), True),
    ("https://wizard.example:443", "wizard.example", (), True),
    ("http://localhost:8000", "localhost:8000", (), True),
    ("http://localhost:8001", "localhost:8000", (), False),
    ("http://[::1]:8000", "[::1]:8000", (), True),
    ("https://evil.example", "wizard.example", (), False),
    ("https://wizard.example.evil", "wizard.example", (), False),
    ("null", "wizard.example", (), False),
    ("https://app.example", "wizard.example", ("https://app.example",), True),
    ("null", "wizard.example", ("*",), True),
])
def test_origin_rules(origin: str | None, host: str, allowed: tuple[str, ...],
                      ok: bool) -> None:
    from wizard.server.net.limits import origin_allowed
    assert origin_allowed(origin, host, allowed) is ok


def test_strikes_count_within_a_sliding_window() -> None:
    from wizard.server.net.limits import Strikes
    now = [0.0]
    strikes = Strikes(limit=3, window=10.0, clock=lambda: now[0])
    added = []
    for t in (0.0, 1.0, 10.5, 11.0, 12.0):
        now[0] = t
        added.append(strikes.add())
    assert added == [False] * 4 + [True]


def test_a_message_budget_refills_at_its_rate_and_never_beyond_its_burst() -> None:
    from wizard.server.net.limits import TokenBucket
    now = [5000.0]
    bucket = TokenBucket(rate=2.0, capacity=3, clock=lambda: now[0])
    assert [bucket.take() for _ in range(4)] == [True] * 3 + [False]
    now[0] += 0.5  # one token back
    assert [bucket.take() for _ in range(2)] == [True, False]
    now[0] += 100.0  # full again, not 200 tokens
    assert [bucket.take() for _ in range(4)] == [True] * 3 + [False]
