"""`wizard.client.Client` against a real ``wizard serve`` (and a scripted fake for the gap)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.server import ServerConnection
from websockets.asyncio.server import serve as serve_websocket

from wizard.client import (
    Client,
    ClientError,
    ConnectionLost,
    ServerError,
    TableInfo,
    Update,
    Welcome,
)

from . import serve
from .serve import LiveServer


def run(scenario: Callable[[], Awaitable[Any]], timeout: float = 90.0) -> Any:
    return asyncio.run(asyncio.wait_for(scenario(), timeout))


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    live = serve.start(tmp_path_factory.mktemp("client") / "server.log")
    try:
        yield live
    finally:
        live.stop()


async def play_to_the_end(client: Client, table_id: str, timeout: float = 60.0) -> int:
    """Play the first legal action on every own turn until the game ends; returns actions."""
    actions = 0
    while not client.is_finished(table_id):
        message = await client.recv(timeout=timeout)
        if message is client.updates.get(table_id) and client.is_my_turn(table_id):
            await client.act(table_id, client.legal_actions(table_id)[0])
            actions += 1
    return actions


def test_a_game_against_bots_from_hello_to_the_last_trick(server: LiveServer) -> None:
    async def scenario() -> None:
        async with Client(server.url, "Ann") as client:
            assert client.player_id is not None and client.token
            table_id = await client.play_bots(players=3, level="easy")
            table = client.tables[table_id]
            assert isinstance(table, TableInfo) and table.status == "playing"
            assert [s.kind for s in table.seats] == ["player", "bot", "bot"]
            assert await play_to_the_end(client, table_id) > 0
            final = client.updates[table_id].observation
            assert final["phase"] == "finished" and final["winners"]
            assert client.version_gaps == 0 and client.disconnects == 0

    run(scenario)


def test_an_accepted_act_answers_with_the_update_it_caused(server: LiveServer) -> None:
    async def scenario() -> None:
        async with Client(server.url, "Bea") as client:
            table_id = await client.play_bots(players=4, level="easy")
            while not client.is_my_turn(table_id):
                await client.recv(timeout=20)
            before = client.updates[table_id].v
            answer = await client.act(table_id, client.legal_actions(table_id)[0])
            found = answer.first(Update, table_id)
            assert found is not None
            update, arrived = found
            assert update.v == before + 1 and arrived >= answer.sent

    run(scenario)


def test_a_refused_act_raises_with_the_code_and_changes_nothing(server: LiveServer) -> None:
    async def scenario() -> None:
        async with Client(server.url, "Cid") as client:
            table_id = await client.play_bots(players=4, level="easy")
            while not client.is_my_turn(table_id):
                await client.recv(timeout=20)
            before = client.updates[table_id]
            with pytest.raises(ServerError) as refused:
                await client.act(table_id, {"type": "bid", "value": 2})  # round 1: 0 or 1
            assert refused.value.code == "illegal_action"
            with pytest.raises(ServerError) as unknown:
                await client.act("t_nope", {"type": "bid", "value": 0})
            assert unknown.value.code == "no_such_table"
            await client.sync(table_id)
            assert client.updates[table_id].v == before.v
            assert client.updates[table_id].observation == before.observation

    run(scenario)


def test_an_unknown_token_is_refused_and_a_server_that_is_not_there_is_reported(
        server: LiveServer) -> None:
    async def scenario() -> None:
        with pytest.raises(ServerError) as refused:
            await Client(server.url, "Dan", token="not-a-token").connect()
        assert refused.value.code == "unknown_token"
        with pytest.raises(ConnectionLost, match="cannot connect"):
            await Client(f"ws://127.0.0.1:{serve.free_port()}/ws", "Eve",
                         open_timeout=2).connect()

    run(scenario)


def test_a_request_before_connect_is_refused_at_once() -> None:
    async def scenario() -> None:
        with pytest.raises(ClientError, match="connect"):
            await Client("ws://127.0.0.1:9/ws", "Kim").ping()

    run(scenario, timeout=10)


def test_a_request_over_the_message_budget_waits_and_is_sent_again(tmp_path: Path) -> None:
    slow = serve.start(tmp_path / "server.log",
                             env={"WIZARD_MESSAGES_PER_SECOND": "5", "WIZARD_MESSAGE_BURST": "3"})
    try:
        async def scenario() -> None:
            async with Client(slow.url, "Fay", rate_limit_pause=0.3) as client:
                for _ in range(12):
                    await client.ping()
                assert client.rate_limited > 0
            async with Client(slow.url, "Gus", rate_limit_pause=0) as impatient:
                with pytest.raises(ServerError) as refused:
                    await asyncio.gather(*(impatient.ping() for _ in range(12)))
                assert refused.value.code == "rate_limited"

        run(scenario)
    finally:
        slow.stop()


def test_the_client_comes_back_with_its_token_after_a_server_restart(tmp_path: Path) -> None:
    port = serve.free_port()
    env = {"WIZARD_DB": str(tmp_path / "wizard.db")}
    first = serve.start(tmp_path / "server.log", port=port, env=env)
    second: LiveServer | None = None
    try:
        async def scenario() -> None:
            nonlocal second
            async with Client(first.url, "Hal", reconnect_seconds=60) as client:
                table_id = await client.play_bots(players=3, level="easy")
                for _ in range(5):
                    while not client.is_my_turn(table_id):
                        await client.recv(timeout=20)
                    await client.act(table_id, client.legal_actions(table_id)[0])
                v_before = client.updates[table_id].v
                await asyncio.to_thread(first.stop)
                second = await asyncio.to_thread(serve.start, tmp_path / "server.log",
                                                 port=port, env=env)
                await play_to_the_end(client, table_id)
                assert client.disconnects == 1 and client.reconnects == 1
                assert client.updates[table_id].v > v_before

        run(scenario, timeout=150)
    finally:
        first.stop()
        if second is not None:
            second.stop()


def test_a_jump_in_the_version_sends_sync() -> None:
    """A scripted server: update v1, then v3 with events; the client must ask for ``sync``."""
    seen: list[dict[str, Any]] = []

    def update(v: int, events: list[dict[str, Any]]) -> str:
        return json.dumps({"type": "update", "table_id": "t_1", "v": v, "events": events,
                           "observation": {"legal_actions": [], "phase": "playing"},
                           "clock": None})

    async def fake(ws: ServerConnection) -> None:
        hello = json.loads(await ws.recv())
        seen.append(hello)
        await ws.send(json.dumps({"type": "welcome", "player_id": "p_1", "name": "Ivy",
                                  "token": "tok"}))
        await ws.send(json.dumps({"type": "ack", "id": hello["id"]}))
        await ws.send(update(1, [{"type": "round_started"}]))
        await ws.send(update(3, [{"type": "trick_completed"}]))
        seen.append(json.loads(await asyncio.wait_for(ws.recv(), 10)))
        await ws.send(update(3, []))
        await ws.wait_closed()

    async def scenario() -> None:
        async with serve_websocket(fake, "127.0.0.1", 0) as fake_server:
            port = next(iter(fake_server.sockets)).getsockname()[1]
            async with Client(f"ws://127.0.0.1:{port}/ws", "Ivy") as client:
                kinds = [type(await client.recv(timeout=10)) for _ in range(4)]
                assert kinds == [Welcome, Update, Update, Update]
                assert client.version_gaps == 1
                assert client.updates["t_1"].v == 3

    run(scenario, timeout=30)
    assert seen[0]["type"] == "hello" and seen[1] == {"type": "sync", "id": None,
                                                      "table_id": "t_1"}
