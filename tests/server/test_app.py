"""HTTP endpoints, the lifespan, idle closing and stale bot proposals."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from wizard.engine import Bid
from wizard.server.clock import ManualClockLoop
from wizard.server.tables.turns import Mover

from .conftest import Harness, has_sample, wait_until
from .driver import my_turn


def test_http_endpoints(harness: Harness) -> None:
    client = harness.client
    assert client.get("/healthz").json() == {"status": "ok"}
    assert client.get("/readyz").json() == {"ready": True, "decider": True, "degraded": False,
                                            "store": True}
    page = client.get("/")
    assert page.status_code == 200 and "Wizard online" in page.text
    assert client.get("/static/index.html").status_code == 200
    assert client.get("/api/tables").json() == {"type": "tables", "tables": [], "total": 0,
                                                "offset": 0}
    assert client.get("/api/tables", params={"limit": 101}).status_code == 400
    ann = harness.player("Ann")
    ann.ok({"type": "play_bots", "players": 3})
    ann.send("garbage")
    ann.wait_for(lambda m: m["type"] == "error")
    metrics = client.get("/metrics")
    assert metrics.headers["content-type"].startswith("text/plain")
    text = metrics.text
    for line in ('wizard_connections 1', 'wizard_tables{status="playing"} 1',
                 'wizard_errors_total{code="bad_json"} 1',
                 'wizard_messages_in_total{type="play_bots"} 1',
                 'wizard_games_started_total 1', 'wizard_ready 1'):
        assert has_sample(text, line), line
    assert "wizard_event_loop_lag_seconds" in text and "wizard_decisions_total" in text


def test_readyz_is_503_after_shutdown(make_harness: Callable[..., Harness]) -> None:
    harness = make_harness()
    state = harness.server
    harness.client.__exit__(None, None, None)
    assert not state.ready
    harness.client.__enter__()
    assert state.ready


def test_a_table_without_a_connected_player_is_closed_after_the_idle_time(
        make_harness: Callable[..., Harness]) -> None:
    clock = ManualClockLoop(1000.0)  # the app's loop: every time the server reads
    harness = make_harness(clock=clock)
    ann = harness.player("Ann")
    ann.ok({"type": "create_table", "players": 3})
    table_id = next(m for m in ann.messages if m["type"] == "table")["table_id"]
    lobby = harness.server.lobby
    harness.close_all()
    wait_until(harness, lambda: not harness.server.connections)
    limit = harness.server.settings.idle_close_seconds

    async def sweep_after(seconds: float) -> None:  # on the loop, before its sweeper wakes
        clock.advance(seconds)
        await lobby.sweep()

    def sweep(seconds: float = 0.0) -> None:
        harness.client.portal.call(sweep_after, seconds)  # type: ignore[union-attr]

    sweep()  # the table is idle from now on
    sweep(limit - 1)
    assert table_id in lobby.tables
    ben = harness.player("Ben")  # seen later than Ann: forgotten later
    harness.close_all()
    wait_until(harness, lambda: not harness.server.connections)
    sweep(1)
    assert table_id not in lobby.tables
    assert [p.name for p in lobby.players_by_token.values()] == ["Ben"]
    sweep(limit - 2)
    assert ben.token in lobby.players_by_token
    sweep(1)
    assert not lobby.players_by_token


def test_a_proposal_for_an_old_version_is_dropped(harness: Harness) -> None:
    ann = harness.player("Ann")
    ann.ok({"type": "play_bots", "players": 3, "turn_seconds": 0})
    table_id = next(m for m in ann.messages if m["type"] == "table")["table_id"]
    turn = ann.wait_for(lambda m: my_turn(m, table_id))
    table = harness.server.lobby.table(table_id)

    async def propose(v: int) -> bool:
        action = Bid(turn["observation"]["legal_actions"][0]["value"])
        return await asyncio.wait_for(table.propose(v, 0, action, Mover.TIMEOUT), 5)

    assert not harness.client.portal.call(propose, turn["v"] - 1)
    assert harness.server.metrics.value("wizard_stale_proposals_total") == 1
    assert table.v == turn["v"]
    assert harness.client.portal.call(propose, turn["v"])
    applied = ann.wait_for(lambda m: m["type"] == "update" and m["v"] == turn["v"] + 1)
    assert applied["events"][0] == {"type": "auto_played", "player": 0, "reason": "timeout"}
