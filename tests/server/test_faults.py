"""Faults against a real ``wizard serve`` process: full server, foreign origins, dead peers,
clients that stop reading, SIGTERM, and a crowd of idle connections beside busy tables.

Killing a pool worker during play is covered by ``test_pool_bots.py``; restoring the
tables after a SIGTERM by ``test_restore.py``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import InvalidStatus

from .load import measure, open_idle, server_connections, summary
from .rawws import HandshakeRefused, RawWebSocket
from .test_e2e_uvicorn import Client, free_port, play_to_end, start_server, stop_server, table_of

TIMEOUT = 20.0


class Server:
    def __init__(self, tmp: Path, name: str, **env: str) -> None:
        self.port = free_port()
        self.url = f"ws://127.0.0.1:{self.port}/ws"
        self.http = f"http://127.0.0.1:{self.port}"
        self.log = tmp / f"{name}.log"
        self.process = start_server(self.port, self.log, **env)

    def metric(self, prefix: str) -> float:
        text = httpx.get(f"{self.http}/metrics", timeout=10).text
        return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
                   if line.startswith(prefix))

    def wait_metric(self, prefix: str, predicate: object, timeout: float = TIMEOUT) -> float:
        deadline = time.monotonic() + timeout
        while True:
            value = self.metric(prefix)
            if predicate(value):  # type: ignore[operator]
                return value
            assert time.monotonic() < deadline, f"{prefix} stuck at {value}"
            time.sleep(0.1)

    def rss_kib(self) -> int:
        status = Path(f"/proc/{self.process.pid}/status").read_text()
        return int(next(li for li in status.splitlines() if li.startswith("VmRSS")).split()[1])


@pytest.fixture
def servers(tmp_path: Path) -> Iterator[list[Server]]:
    started: list[Server] = []
    yield started
    for server in started:
        stop_server(server.process)


async def client(url: str, name: str, stack: list[ClientConnection],
                 **options: object) -> Client:
    ws = await connect(url, open_timeout=10, close_timeout=2, **options)  # type: ignore[arg-type]
    stack.append(ws)
    c = Client(ws, name)
    await c.hello(name)
    return c


def test_handshakes_past_the_limits_dead_peers_and_foreign_origins(
        tmp_path: Path, servers: list[Server]) -> None:
    server = Server(tmp_path, "limits", WIZARD_MAX_CONNECTIONS="3", WIZARD_AI_WORKERS="0",
                    WIZARD_WS_PING_INTERVAL="0.5", WIZARD_WS_PING_TIMEOUT="0.5")
    servers.append(server)

    async def scenario() -> None:
        stack: list[ClientConnection] = []
        with pytest.raises(InvalidStatus) as foreign:
            await connect(server.url, origin="http://evil.example", open_timeout=10)  # type: ignore[arg-type]
        assert foreign.value.response.status_code == 403
        own = await client(server.url, "Own", stack, origin=f"http://127.0.0.1:{server.port}")
        # a peer that never answers pings is dropped; the library client answers and stays
        # (blocking calls go to a thread: this loop must answer the server's pings)
        silent = await asyncio.to_thread(RawWebSocket, server.port)
        silent.send({"type": "hello", "name": "Silent"})
        try:
            assert await asyncio.to_thread(silent.drain_until_closed, 10) > 0
        finally:
            silent.close()
        await asyncio.to_thread(server.wait_metric, "wizard_connections ", lambda v: v == 1)
        assert (await own.request({"type": "ping"}))["type"] == "ack"
        await client(server.url, "Two", stack)
        await client(server.url, "Three", stack)
        with pytest.raises(InvalidStatus) as full:
            await connect(server.url, open_timeout=10)
        assert full.value.response.status_code == 503
        assert full.value.response.headers["Retry-After"] == "5"
        with pytest.raises(HandshakeRefused) as raw_full:
            await asyncio.to_thread(RawWebSocket, server.port)
        assert raw_full.value.status == 503
        await stack.pop().close()
        await asyncio.to_thread(server.wait_metric, "wizard_connections ", lambda v: v == 2)
        await client(server.url, "Four", stack)  # the freed slot is usable
        assert await asyncio.to_thread(
            server.metric, 'wizard_connections_refused_total{reason="full"}') == 2
        assert await asyncio.to_thread(
            server.metric, 'wizard_connections_refused_total{reason="origin"}') == 1
        for ws in stack:
            await ws.close()

    asyncio.run(asyncio.wait_for(scenario(), 90))


def test_a_client_that_stops_reading_is_dropped_and_its_table_plays_on(
        tmp_path: Path, servers: list[Server]) -> None:
    server = Server(tmp_path, "slow", WIZARD_SEND_QUEUE="16", WIZARD_SEND_TIMEOUT="2",
                    WIZARD_DISCONNECT_GRACE="0.5", WIZARD_AI_WORKERS="0")
    servers.append(server)
    rss_before = server.rss_kib()
    # a small receive window, and a flood of requests whose answers it never reads
    slow = RawWebSocket(server.port, rcvbuf=4096)
    slow.send({"type": "hello", "name": "Slow"})
    slow.send({"type": "play_bots", "players": 4, "level": "easy", "turn_seconds": 1})
    table_id = slow.read_until(rb'"table_id":"(t_[\w-]+)"').group(1).decode()
    sync = {"type": "sync", "table_id": table_id}
    with contextlib.suppress(OSError):  # the server cuts the socket off mid-flood
        for _ in range(3000):
            slow.send(sync)

    async def alongside() -> None:  # someone else's game is not held up
        stack: list[ClientConnection] = []
        ann = await client(server.url, "Ann", stack)
        await ann.ok({"type": "play_bots", "players": 3, "turn_seconds": 0})
        await play_to_end([ann], table_of(ann))
        await stack[0].close()

    asyncio.run(asyncio.wait_for(alongside(), 120))
    # the slow client's table finishes without it (stand-ins play once its grace ran out)
    server.wait_metric("wizard_games_finished_total", lambda v: v == 2, 120)
    dropped = (server.metric('wizard_connections_closed_total{cause="send_queue_full"}')
               + server.metric('wizard_connections_closed_total{cause="send_timeout"}'))
    assert dropped >= 1
    assert server.metric('wizard_actions_total{by="away"}') > 0
    server.wait_metric("wizard_connections ", lambda v: v == 0)
    assert slow.drain_until_closed(15) < 2_000_000  # only what the buffers held, then closed
    slow.close()
    assert server.rss_kib() - rss_before < 60_000  # kB: no backlog kept for the slow client


def test_sigterm_tells_clients_and_exits_within_the_limit(
        tmp_path: Path, servers: list[Server]) -> None:
    server = Server(tmp_path, "term", WIZARD_SHUTDOWN_SECONDS="3", WIZARD_LOG_LEVEL="info",
                    WIZARD_DB=str(tmp_path / "wizard.db"))
    servers.append(server)

    async def connect_clients() -> tuple[list[Client], list[ClientConnection]]:
        stack: list[ClientConnection] = []
        ann = await client(server.url, "Ann", stack)
        await ann.ok({"type": "play_bots", "players": 4, "turn_seconds": 0})
        ben = await client(server.url, "Ben", stack)
        await ben.ok({"type": "list_tables"})
        return [ann, ben], stack

    async def scenario() -> float:
        clients, _stack = await connect_clients()
        # a client that reads nothing cannot hold the process past the limit either
        stuck = RawWebSocket(server.port, rcvbuf=4096)
        stuck.send({"type": "hello", "name": "Stuck"})
        stuck.send({"type": "play_bots", "players": 3})
        started = time.monotonic()
        server.process.send_signal(signal.SIGTERM)
        for c in clients:
            assert (await c.wait_for(lambda m: m["type"] == "server_shutdown"))
            closed = await c.wait_for(lambda m: m["type"] == "_closed")
            assert closed["code"] == 1001
        await asyncio.to_thread(server.process.wait, 15)
        stuck.close()
        return time.monotonic() - started

    took = asyncio.run(asyncio.wait_for(scenario(), 60))
    assert server.process.returncode is not None
    assert took < 3 + 3, f"exit took {took:.1f} s"
    assert "server_stopped" in server.log.read_text()


def test_idle_crowd_does_not_slow_busy_tables(tmp_path: Path, servers: list[Server]) -> None:
    server = Server(tmp_path, "crowd", WIZARD_BOT_DELAY="0.1", WIZARD_TRICK_SHOW_SECONDS="0.5",
                    WIZARD_AI_WORKERS="0", WIZARD_MAX_CONNECTIONS="2000")
    servers.append(server)
    busy, idle, seconds = 20, 500, 8.0

    async def scenario() -> tuple[dict[str, float], dict[str, float]]:
        alone = summary(await measure(server.url, busy, seconds))
        crowd = await open_idle(server.url, idle)
        assert server_connections(server.http) == idle
        crowded = summary(await measure(server.url, busy, seconds))
        assert server_connections(server.http) == idle  # nobody was dropped
        for ws in crowd:
            await ws.close()
        return alone, crowded

    alone, crowded = asyncio.run(asyncio.wait_for(scenario(), 150))
    print(f"\nbusy tables alone: {json.dumps(alone)}\nwith {idle} idle: {json.dumps(crowded)}")
    for figures in (alone, crowded):
        assert figures["tables_with_progress"] == busy
        assert figures["p99_ms"] < 1500, figures
