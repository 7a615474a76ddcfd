"""One client cannot lock out everyone, on a real server: per-address caps on websockets
and tables, a deadline for unfinished HTTP requests, and a raised file-descriptor limit.

The server trusts ``X-Forwarded-For`` from loopback (a proxy on the same host), so the
test speaks for two addresses from one machine, both forwarded: the abuser
(``198.51.100.9``) and a bystander (``203.0.113.7``). Loopback itself is not capped.
"""

from __future__ import annotations

import asyncio
import resource
import socket
from pathlib import Path

import httpx
import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import InvalidStatus

from ...serve import free_port, start_server, stop_server
from ..test_e2e_uvicorn import Client, table_of

ABUSER = {"X-Forwarded-For": "198.51.100.9"}
BYSTANDER = {"X-Forwarded-For": "203.0.113.7"}


def metric(base: str, line_start: str) -> float:
    text = httpx.get(f"{base}/metrics", timeout=10).text
    return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
               if line.startswith(line_start))


def test_one_address_at_its_caps_leaves_room_for_everyone_else(tmp_path: Path) -> None:
    port = free_port()
    base, url = f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}/ws"
    process = start_server(port, tmp_path / "server.log", WIZARD_MAX_CONNECTIONS_PER_ADDRESS="3",
                           WIZARD_MAX_TABLES_PER_ADDRESS="2", WIZARD_AI_WORKERS="0")
    try:
        async def scenario() -> None:
            stack: list[ClientConnection] = []
            try:
                for _ in range(3):
                    stack.append(await connect(url, open_timeout=10, additional_headers=ABUSER))
                with pytest.raises(InvalidStatus) as refused:
                    await connect(url, open_timeout=10, additional_headers=ABUSER)
                assert refused.value.response.status_code == 429
                assert refused.value.response.headers["Retry-After"]
                # someone else still gets in, and may create tables
                other = await connect(url, open_timeout=10, additional_headers=BYSTANDER)
                stack.append(other)
                abuser, bystander = Client(stack[0], "Mal"), Client(other, "Bea")
                await abuser.hello("Mal")
                await bystander.hello("Bea")
                second = Client(stack[1], "Mal2")
                await second.hello("Mal2")  # a second player from the same address
                await abuser.ok({"type": "create_table", "players": 3})
                await second.ok({"type": "play_bots", "players": 3, "level": "easy"})
                reply = await second.request({"type": "create_table", "players": 3})
                assert reply["type"] == "error" and reply["code"] == "address_table_limit"
                assert "2 open tables" in reply["message"]
                await bystander.ok({"type": "create_table", "players": 3})
                # a closed table frees its place
                await abuser.ok({"type": "leave_table", "table_id": table_of(abuser)})
                await second.ok({"type": "create_table", "players": 3})
                # the server's own host is not capped (load tests, probes)
                for _ in range(4):
                    stack.append(await connect(url, open_timeout=10))
            finally:
                for ws in stack:
                    await ws.close()

        asyncio.run(asyncio.wait_for(scenario(), 60))
        assert metric(base, 'wizard_connections_refused_total{reason="address"}') == 1
        assert metric(base, 'wizard_tables_refused_total{reason="address"}') == 1
    finally:
        stop_server(process)


def test_an_unfinished_http_request_is_cut_off_and_healthz_still_answers(
        tmp_path: Path) -> None:
    port = free_port()
    process = start_server(port, tmp_path / "server.log", WIZARD_HTTP_HEADER_TIMEOUT="1",
                           WIZARD_AI_WORKERS="0")
    try:
        stalled = []
        for _ in range(20):
            sock = socket.create_connection(("127.0.0.1", port), timeout=10)
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            stalled.append(sock)
        for sock in stalled:  # each is closed by the server (bounded wait, not a timing claim)
            data = b""
            while chunk := sock.recv(4096):
                data += chunk
            assert data == b"" or data.startswith(b"HTTP/1.1 408")
            sock.close()
        assert httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=10).status_code == 200
        # a request that completes in time is served as before, on a kept-alive connection
        with httpx.Client(timeout=10) as client:
            for _ in range(3):
                assert client.get(f"http://127.0.0.1:{port}/healthz").status_code == 200
    finally:
        stop_server(process)


def test_the_server_raises_its_file_descriptor_limit_at_start(tmp_path: Path) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard <= 256:
        pytest.skip(f"the hard limit here is {hard}: nothing to raise to")
    low = 256
    resource.setrlimit(resource.RLIMIT_NOFILE, (low, hard))
    try:
        port = free_port()
        process = start_server(port, tmp_path / "server.log", WIZARD_AI_WORKERS="0")
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    try:
        limits = Path(f"/proc/{process.pid}/limits").read_text()
        line = next(li for li in limits.splitlines() if li.startswith("Max open files"))
        server_soft = line.split()[3]
        assert server_soft != str(low)
        assert int(server_soft) > low
    finally:
        stop_server(process)
