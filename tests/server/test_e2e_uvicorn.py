"""The real thing: ``python -m wizard serve`` in a subprocess, driven over loopback.

One server process for the module (bots answer at once); every wait is bounded.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from ..serve import free_port, start_server, stop_server
from .driver import Message, Recorder, act_message, finished, my_turn, next_id

TIMEOUT = 20.0


@pytest.fixture(scope="module")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = free_port()
    process = start_server(port, tmp_path_factory.mktemp("server") / "server.log")
    try:
        yield f"ws://127.0.0.1:{port}/ws"
    finally:
        stop_server(process)
    assert process.returncode is not None


class Client(Recorder):
    """A websockets client with the driver's checks; every receive is bounded."""

    def __init__(self, ws: ClientConnection, label: str) -> None:
        super().__init__(label)
        self.ws = ws

    async def send(self, message: Any) -> None:  # type: ignore[override]
        await self.ws.send(message if isinstance(message, str | bytes) else json.dumps(message))

    async def recv(self, timeout: float = TIMEOUT) -> Message:  # type: ignore[override]
        try:
            text = await asyncio.wait_for(self.ws.recv(), timeout)
        except ConnectionClosed as exc:
            return self.record_close(exc.rcvd.code if exc.rcvd else 1006)
        assert isinstance(text, str)
        return self.record(text)

    async def wait_for(self, predicate: Any, timeout: float = TIMEOUT) -> Message:  # type: ignore[override]
        deadline = time.monotonic() + timeout
        while True:
            found = self.take(predicate)
            if found is not None:
                return found
            left = deadline - time.monotonic()
            assert left > 0, f"{self.label}: timed out waiting"
            await self.recv(left)

    async def request(self, message: Message, timeout: float = TIMEOUT) -> Message:  # type: ignore[override]
        mid = next_id()
        await self.send({**message, "id": mid})
        return await self.wait_for(lambda m: m.get("id") == mid, timeout)

    async def ok(self, message: Message) -> Message:  # type: ignore[override]
        reply = await self.request(message)
        assert reply["type"] == "ack", reply
        return reply

    async def hello(self, name: str, token: str | None = None) -> Message:  # type: ignore[override]
        message: Message = {"type": "hello", "name": name}
        if token:
            message["token"] = token
        return await self.ok(message)


def run(scenario: Callable[[], Awaitable[None]], timeout: float = 90.0) -> None:
    asyncio.run(asyncio.wait_for(scenario(), timeout))


async def player(url: str, name: str, stack: list[ClientConnection]) -> Client:
    ws = await connect(url, open_timeout=10, close_timeout=2)
    stack.append(ws)
    client = Client(ws, name)
    await client.hello(name)
    return client


async def close_all(stack: list[ClientConnection]) -> None:
    for ws in stack:
        await ws.close()
    stack.clear()


def table_of(client: Client) -> str:
    return next(m for m in reversed(client.messages) if m["type"] == "table")["table_id"]


async def play_to_end(clients: list[Client], table_id: str) -> Message:
    """Like the TestClient version: the mover answers each update; returns the last update."""
    by_seat = {client.seat[table_id]: client for client in clients}
    lead, seen = clients[0], 0
    while True:
        update = await lead.wait_for(lambda m, seen=seen: m["type"] == "update"
                                     and m["table_id"] == table_id and m["v"] > seen)
        seen = update["v"]
        if finished(update, table_id):
            break
        mover = by_seat.get(update["observation"]["current_player"])
        if mover is not None:
            mine = update if mover is lead else await mover.wait_for(
                lambda m, seen=seen: m["type"] == "update" and m["table_id"] == table_id
                and m["v"] == seen)
            await mover.send(act_message(mine))
    for client in clients[1:]:
        await client.wait_for(lambda m: finished(m, table_id))
    return update


def test_one_client_and_three_bots_play_to_the_end(server_url: str) -> None:
    async def scenario() -> None:
        stack: list[ClientConnection] = []
        ann = await player(server_url, "Ann", stack)
        await ann.ok({"type": "play_bots", "players": 4, "level": "master"})
        table_id = table_of(ann)
        last = await play_to_end([ann], table_id)
        assert last["events"][-1]["type"] == "game_finished"
        updates = [m for m in ann.messages if m["type"] == "update"]
        assert [m["v"] for m in updates] == list(range(1, len(updates) + 1))
        await close_all(stack)

    run(scenario)


def test_four_clients_and_a_spectator_with_hidden_bids(server_url: str) -> None:
    async def scenario() -> None:
        stack: list[ClientConnection] = []
        clients = [await player(server_url, n, stack) for n in ("Ann", "Ben", "Cid", "Dee")]
        await clients[0].ok({"type": "create_table", "players": 4,
                             "options": {"hidden_bids": True}, "turn_seconds": 0})
        table_id = table_of(clients[0])
        for client in clients[1:]:
            await client.ok({"type": "join_table", "table_id": table_id})
        eve = await player(server_url, "Eve", stack)
        await eve.ok({"type": "spectate", "table_id": table_id})
        await clients[0].ok({"type": "start_game", "table_id": table_id})
        await play_to_end(clients, table_id)
        await eve.wait_for(lambda m: finished(m, table_id))
        for seat, client in enumerate(clients):
            assert {m["observation"]["player"] for m in client.messages
                    if m["type"] == "update"} == {seat}
            text = json.dumps(client.messages)
            assert not any(other.token in text for other in clients if other is not client)
        assert all(m["observation"]["hand"] == [] for m in eve.messages if m["type"] == "update")
        await close_all(stack)

    run(scenario)


def test_bad_input_over_the_wire(server_url: str) -> None:
    async def scenario() -> None:
        stack: list[ClientConnection] = []
        ws = await connect(server_url, open_timeout=10, close_timeout=2)
        stack.append(ws)
        anon = Client(ws, "anon")
        assert (await anon.request({"type": "sync", "table_id": "t"}))["code"] == "not_identified"
        await anon.send("{not json")
        assert (await anon.wait_for(lambda m: m["type"] == "error"))["code"] == "bad_json"
        await anon.send(b"\x00\xff binary")
        assert (await anon.wait_for(lambda m: m["type"] == "error"))["code"] == "bad_json"
        assert (await anon.request({"type": "warp"}))["code"] == "bad_message"
        await anon.hello("Anon")
        assert (await anon.request({"type": "join_table", "table_id": "t_x"}))["code"] == \
            "no_such_table"
        await anon.send(json.dumps({"type": "chat", "table_id": "t", "text": "y" * 10000}))
        assert (await anon.wait_for(lambda m: m["type"] == "error"))["code"] == "too_large"
        assert (await anon.wait_for(lambda m: m["type"] == "_closed"))["code"] == 1009
        # far past the limit uvicorn itself refuses the frame
        huge = await player(server_url, "Huge", stack)
        await huge.send("z" * 100_000)
        assert (await huge.wait_for(lambda m: m["type"] == "_closed"))["code"] == 1009
        # the server is fine
        ok = await player(server_url, "Ok", stack)
        assert (await ok.request({"type": "ping"}))["type"] == "ack"
        await close_all(stack)

    run(scenario)


def test_reconnect_with_the_token_mid_game_then_sync(server_url: str) -> None:
    async def scenario() -> None:
        stack: list[ClientConnection] = []
        ann = await player(server_url, "Ann", stack)
        await ann.ok({"type": "play_bots", "players": 4, "turn_seconds": 0})
        table_id = table_of(ann)
        for _ in range(4):
            await ann.ok(act_message(await ann.wait_for(lambda m: my_turn(m, table_id))))
        before = await ann.wait_for(lambda m: my_turn(m, table_id))
        await close_all(stack)
        ws = await connect(server_url, open_timeout=10, close_timeout=2)
        stack.append(ws)
        again = Client(ws, "Ann again")
        await again.hello("Ann", ann.token)
        assert again.messages[0]["player_id"] == ann.player_id
        resent = await again.wait_for(lambda m: m["type"] == "update")
        assert resent["v"] == before["v"] and resent["observation"] == before["observation"]
        await again.ok({"type": "sync", "table_id": table_id})
        synced = again.last_update(table_id)
        assert synced["v"] == before["v"] and synced["events"] == []
        await play_to_end([again], table_id)
        await close_all(stack)

    run(scenario)


def test_the_turn_clock_plays_for_a_silent_player(server_url: str) -> None:
    async def scenario() -> None:
        stack: list[ClientConnection] = []
        ann = await player(server_url, "Ann", stack)
        await ann.ok({"type": "play_bots", "players": 3, "turn_seconds": 1})
        table_id = table_of(ann)
        waiting = await ann.wait_for(lambda m: my_turn(m, table_id))
        assert waiting["clock"]["player"] == 0
        auto = await ann.wait_for(lambda m: m["type"] == "update" and m["v"] == waiting["v"] + 1,
                                  5)
        assert auto["events"][0] == {"type": "auto_played", "player": 0, "reason": "timeout"}
        await close_all(stack)

    run(scenario)


def test_rematch_after_the_game(server_url: str) -> None:
    async def scenario() -> None:
        stack: list[ClientConnection] = []
        ann = await player(server_url, "Ann", stack)
        await ann.ok({"type": "play_bots", "players": 6, "level": "easy", "turn_seconds": 0})
        table_id = table_of(ann)
        last = await play_to_end([ann], table_id)
        await ann.ok({"type": "rematch", "table_id": table_id})
        start = await ann.wait_for(lambda m: m["type"] == "update" and m["v"] == last["v"] + 1)
        assert start["observation"]["round_number"] == 1
        assert ann.last_table(table_id)["game"] == 2
        await close_all(stack)

    run(scenario)
