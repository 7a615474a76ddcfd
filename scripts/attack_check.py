"""Issue 18's attack list, re-run against a fresh server on 127.0.0.1; stops by itself.

    python scripts/attack_check.py            # prints one line per attack, exit 1 if any broke

It starts ``wizard serve`` from this checkout on a free loopback port (its own
database in a temporary folder, small per-address caps, a 1 s header timeout),
tries each attack as a hostile client would, and stops the server. Remote
addresses are played through ``X-Forwarded-For`` from loopback, the default
trusted proxy (loopback itself is never capped). Results: docs/operations.md,
"Attack check".
"""

from __future__ import annotations

import asyncio
import http.client
import itertools
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import InvalidStatus

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT = 10.0
DEADLINE = 180.0  # the whole run, server start included
CONNECTIONS_PER_ADDRESS = 5
TABLES_PER_ADDRESS = 3
Message = dict[str, Any]


@dataclass
class Result:
    attack: str
    expected: str
    observed: str
    held: bool


RESULTS: list[Result] = []


def record(attack: str, expected: str, observed: object, held: bool) -> None:
    RESULTS.append(Result(attack, expected, str(observed), held))
    print(f"{'held ' if held else 'BROKE'}  {attack}: expected {expected}; got {observed}",
          flush=True)


# --- a small client -------------------------------------------------------------------


class Client:
    """One websocket with request ids, keeping every message it receives."""

    _ids = itertools.count(1)

    def __init__(self, ws: ClientConnection, label: str) -> None:
        self.ws = ws
        self.label = label
        self.messages: list[Message] = []
        self.token: str | None = None
        self.player_id: str | None = None

    @classmethod
    async def open(cls, url: str, label: str, token: str | None = None,
                   address: str | None = None) -> Client:
        headers = {"X-Forwarded-For": address} if address else None
        client = cls(await connect(url, additional_headers=headers, open_timeout=TIMEOUT),
                     label)
        if label:
            await client.hello(label, token)
        return client

    async def recv(self, timeout: float = TIMEOUT) -> Message:
        message: Message = json.loads(await asyncio.wait_for(self.ws.recv(), timeout))
        self.messages.append(message)
        if message["type"] == "welcome":
            self.token, self.player_id = message["token"], message["player_id"]
        return message

    async def request(self, message: Message | str) -> Message:
        """Send; return the ``ack`` or ``error`` that answers it."""
        if isinstance(message, str):
            await self.ws.send(message)
            return await self.wait_for(lambda m: m["type"] == "error")
        request_id = next(self._ids)
        await self.ws.send(json.dumps({**message, "id": request_id}))
        return await self.wait_for(lambda m: m["type"] in ("ack", "error")
                                   and m.get("id") == request_id)

    async def wait_for(self, match: Callable[[Message], bool],
                       timeout: float = TIMEOUT) -> Message:
        for message in self.messages:
            if match(message):
                self.messages.remove(message)
                return message
        end = time.monotonic() + timeout
        while True:
            message = await self.recv(max(0.01, end - time.monotonic()))
            if match(message):
                self.messages.remove(message)
                return message

    async def hello(self, name: str, token: str | None = None) -> Message:
        return await self.request({"type": "hello", "name": name}
                                  | ({"token": token} if token else {}))

    def last(self, kind: str, table_id: str | None = None) -> Message:
        return next(m for m in reversed(self.messages) if m["type"] == kind
                    and (table_id is None or m.get("table_id") == table_id))

    async def close(self) -> None:
        await self.ws.close()


def code(answer: Message) -> str:
    return "ack" if answer["type"] == "ack" else str(answer.get("code"))


# --- the server -----------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_server(port: int, folder: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "WIZARD_DB": str(folder / "wizard.db"), "WIZARD_BOT_DELAY": "0",
           "WIZARD_LOG_LEVEL": "warning", "WIZARD_AI_WORKERS": "0",
           "WIZARD_MAX_CONNECTIONS_PER_ADDRESS": str(CONNECTIONS_PER_ADDRESS),
           "WIZARD_MAX_TABLES_PER_ADDRESS": str(TABLES_PER_ADDRESS),
           "WIZARD_HTTP_HEADER_TIMEOUT": "1", "WIZARD_SHUTDOWN_SECONDS": "2",
           "PYTHONPATH": str(ROOT)}
    log = (folder / "server.log").open("wb")
    process = subprocess.Popen(
        [sys.executable, "-m", "wizard", "serve", "--host", "127.0.0.1", "--port", str(port)],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    end = time.monotonic() + 60
    while time.monotonic() < end:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited: {(folder / 'server.log').read_text()}")
        try:
            if get(port, "/healthz")[0] == 200:
                return process
        except OSError:
            time.sleep(0.2)
    process.kill()
    raise RuntimeError("the server did not answer /healthz within 60 s")


def get(port: int, path: str, headers: dict[str, str] | None = None
        ) -> tuple[int, bytes, dict[str, str]]:
    """A GET with ``path`` sent exactly as given (no normalisation on the way)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT)
    try:
        conn.putrequest("GET", path, skip_accept_encoding=True)
        for name, value in (headers or {}).items():
            conn.putheader(name, value)
        conn.endheaders()
        response = conn.getresponse()
        return response.status, response.read(), {k.lower(): v for k, v in response.getheaders()}
    finally:
        conn.close()


def raw_get(port: int, path: bytes) -> bytes:
    """A request line with bytes no HTTP library would send; the status line back."""
    with socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT) as sock:
        sock.sendall(b"GET " + path + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        try:
            return sock.recv(4096).split(b"\r\n", 1)[0]
        except TimeoutError:
            return b"(no answer)"


# --- the attacks ----------------------------------------------------------------------


async def a_table_in_play(url: str) -> tuple[Client, Client, str]:
    """Ann and Ben at a public table with one bot, a game started."""
    ann, ben = await Client.open(url, "Ann"), await Client.open(url, "Ben")
    await ann.request({"type": "create_table", "players": 3, "turn_seconds": 0})
    table_id = ann.last("table")["table_id"]
    await ben.request({"type": "join_table", "table_id": table_id})
    await ann.request({"type": "add_bot", "table_id": table_id, "level": "easy"})
    await ann.request({"type": "start_game", "table_id": table_id})
    return ann, ben, table_id


async def latest(client: Client, table_id: str) -> Message:
    """The newest update of ``table_id`` this client has (after a moment for the bots)."""
    await asyncio.sleep(0.3)
    while True:
        try:
            await client.recv(0.05)
        except TimeoutError:
            break
    return client.last("update", table_id)


async def forged_tokens(url: str) -> None:
    eve = await Client.open(url, "")
    answer = await eve.hello("Eve", secrets.token_urlsafe(24))
    record("forged token in hello", "unknown_token", code(answer), code(answer) == "unknown_token")
    answer = await eve.hello("Eve", "x" * 500)
    record("oversized token", "bad_message", code(answer), code(answer) == "bad_message")
    await eve.close()


async def other_seats(url: str) -> None:
    ann, ben, table_id = await a_table_in_play(url)
    eve = await Client.open(url, "Eve")
    await eve.request({"type": "spectate", "table_id": table_id})
    for _ in range(20):  # until a person is to move
        update = await latest(ann, table_id)
        if update["observation"]["current_player"] in (0, 1):
            break
    mover = update["observation"]["current_player"]
    other = ben if mover == 0 else ann
    mine = await latest(ann if mover == 0 else ben, table_id)
    action = mine["observation"]["legal_actions"][0]
    v = update["v"]
    answers = {
        "the other seated player": await other.request(
            {"type": "act", "table_id": table_id, "action": action}),
        "a spectator": await eve.request({"type": "act", "table_id": table_id, "action": action}),
        "a seat field in act": await other.request(
            {"type": "act", "table_id": table_id, "action": action, "seat": mover}),
    }
    expected = {"the other seated player": "not_your_turn", "a spectator": "not_seated",
                "a seat field in act": "bad_message"}
    for who, answer in answers.items():
        record(f"act for another seat: {who}", expected[who], code(answer),
               code(answer) == expected[who])
    after = await latest(ann, table_id)
    record("the table did not move on those", f"v {v}", f"v {after['v']}", after["v"] == v)
    # a replayed act: the mover's accepted action, sent again
    mover_client = ann if mover == 0 else ben
    first = await mover_client.request({"type": "act", "table_id": table_id, "action": action})
    again = await mover_client.request({"type": "act", "table_id": table_id, "action": action})
    record("replayed act (the same action twice)", "ack, then refused",
           f"{code(first)}, then {code(again)}", code(first) == "ack" and code(again) != "ack")
    # a second hello on the same connection, and a hello replayed with Ann's token
    answer = await ann.hello("Ann")
    record("second hello on a connection", "already_identified", code(answer),
           code(answer) == "already_identified")
    twin = await Client.open(url, "Mallory", token=ann.token)
    welcome = twin.last("welcome")
    same = welcome["player_id"] == ann.player_id
    record("hello with another's token (the token is the identity: keep it secret)",
           "that player", "that player" if same else "another player", same)
    for client in (ann, ben, eve, twin):
        await client.close()


async def private_by_id(url: str, port: int) -> None:
    ann = await Client.open(url, "Ann")
    await ann.request({"type": "create_table", "players": 3, "private": True,
                       "turn_seconds": 0})
    info = ann.last("table")
    table_id, invite = info["table_id"], info["invite"]
    eve = await Client.open(url, "Eve")
    for kind in ("join_table", "spectate"):
        for label, extra in (("by id", {}), ("with a wrong invite", {"invite": "A" * 22})):
            answer = await eve.request({"type": kind, "table_id": table_id, **extra})
            record(f"private table: {kind} {label}", "invite_required", code(answer),
                   code(answer) == "invite_required")
    answer = await eve.request({"type": "chat", "table_id": table_id, "text": "hi"})
    record("private table: chat without a seat", "not_seated", code(answer),
           code(answer) == "not_seated")
    listed = json.loads(get(port, "/api/tables")[1])
    shown = table_id in json.dumps(listed)
    record("private table in /api/tables", "absent", "present" if shown else "absent",
           not shown)
    answer = await eve.request({"type": "spectate", "table_id": table_id, "invite": invite})
    record("private table: spectate with the invite", "ack", code(answer), code(answer) == "ack")
    # a finished private game: its id alone opens nothing
    cleo = await Client.open(url, "Cleo")
    await cleo.request({"type": "play_bots", "players": 6, "level": "easy", "turn_seconds": 0})
    bots_table = cleo.last("table")["table_id"]
    while True:
        update = await cleo.wait_for(lambda m: m["type"] == "update"
                                     and (m["observation"]["legal_actions"]
                                          or m["observation"]["phase"] == "finished"), 30)
        if update["observation"]["phase"] == "finished":
            break
        await asyncio.sleep(0.06)  # within the default budget of 20 messages a second
        await cleo.ws.send(json.dumps({"type": "act", "table_id": bots_table,
                                       "action": update["observation"]["legal_actions"][0]}))
    mine = json.loads(get(port, "/api/games", {"Authorization": f"Bearer {cleo.token}"})[1])
    game = mine["games"][0]
    for part in ("", "/replay", "/analysis"):
        status = get(port, f"/api/games/{game['id']}{part}")[0]
        record(f"private game {part.strip('/') or 'record'} by game id alone", "403", status,
               status == 403)
    status = get(port, f"/api/games/{game['id']}/replay?invite={game['invite']}")[0]
    record("private game replay with its link (invite)", "200", status, status == 200)
    strangers = json.loads(get(port, "/api/games")[1])
    shown = game["id"] in json.dumps(strangers)
    record("private game in anonymous /api/games", "absent", "present" if shown else "absent",
           not shown)
    for client in (ann, eve, cleo):
        await client.close()


TRAVERSALS = [
    "/static/../wizard/server/settings.py", "/static/%2e%2e/%2e%2e/pyproject.toml",
    "/static/..%2f..%2fpyproject.toml", "/static/%2e%2e%2f%2e%2e%2fpyproject.toml",
    "/static/%252e%252e/%252e%252e/pyproject.toml", "/static/....//....//pyproject.toml",
    "/static/..\\..\\pyproject.toml", "/static/%5c..%5c..%5cpyproject.toml",
    "/static/js/../../../pyproject.toml", "/static//etc/passwd", "/static/%2fetc%2fpasswd",
    "/static/..%c0%af..%c0%afpyproject.toml", "/static/%c0%ae%c0%ae/pyproject.toml",
    "//etc/passwd", "/..%2f..%2fetc/passwd", "/static/./../../etc/passwd",
    "/static/js/..%00/app.js", "/static/js/app.js%00.txt", "/static/%2e/%2e%2e/etc/passwd",
    "/api/games/..%2f..%2fetc%2fpasswd", "/api/games/../../etc/passwd/replay",
    "/static/..;/..;/pyproject.toml", "/static/\u2025/pyproject.toml",
]


def path_traversal(port: int) -> None:
    secrets_seen = []
    statuses = set()
    for path in TRAVERSALS:
        try:
            status, body, _ = get(port, path)
        except (http.client.InvalidURL, UnicodeEncodeError, ValueError):
            status, body = int(raw_get(port, path.encode()).split(b" ")[1] or 0), b""
        statuses.add(status)
        if b"root:" in body or b"[project]" in body or b"def _log_format" in body:
            secrets_seen.append(path)
    status_line = raw_get(port, b"/static/js/..\x00/../../pyproject.toml")
    record(f"path traversal: {len(TRAVERSALS) + 1} variants", "no file outside static/",
           f"statuses {sorted(statuses)}, NUL: {status_line.decode(errors='replace')}; "
           f"leaked: {secrets_seen or 'none'}", not secrets_seen)


async def html_in_names_and_chat(url: str, port: int) -> None:
    html = "<img src=x onerror=alert(1)>"
    ann = await Client.open(url, html[:32])
    welcome = ann.last("welcome")
    record("HTML in a name", "kept as text (the client renders textContent)",
           repr(welcome["name"]), welcome["name"] == html[:32])
    await ann.request({"type": "create_table", "players": 3, "turn_seconds": 0})
    table_id = ann.last("table")["table_id"]
    await ann.request({"type": "chat", "table_id": table_id, "text": f"<script>{html}</script>"})
    chat = await ann.wait_for(lambda m: m["type"] == "chat")
    record("HTML in chat", "kept as text", repr(chat["text"][:30]),
           chat["text"] == f"<script>{html}</script>")
    for name in ("Bot (hard)", "Ann\u202e", "A\u200bnn", "Ann\x07"):
        eve = await Client.open(url, "")
        answer = await eve.hello(name)
        record(f"name {name!r}", "bad_message", code(answer), code(answer) == "bad_message")
        await eve.close()
    headers = get(port, "/")[2]
    csp = headers.get("content-security-policy", "")
    record("security headers on /", "CSP self only, nosniff",
           f"CSP {csp!r}, nosniff {headers.get('x-content-type-options')!r}",
           "default-src 'self'" in csp and "unsafe-inline" not in csp
           and headers.get("x-content-type-options") == "nosniff")
    await ann.close()


async def per_address_caps(url: str, port: int) -> None:
    opened: list[Client] = []
    refused = None
    try:
        for _ in range(CONNECTIONS_PER_ADDRESS + 1):
            try:
                opened.append(await Client.open(url, "", address="203.0.113.7"))
            except InvalidStatus as exc:
                refused = exc.response.status_code
        record(f"{CONNECTIONS_PER_ADDRESS + 1} websockets from one address",
               f"{CONNECTIONS_PER_ADDRESS} open, then HTTP 429",
               f"{len(opened)} open, then {refused}",
               len(opened) == CONNECTIONS_PER_ADDRESS and refused == 429)
        other = await Client.open(url, "Olga", address="203.0.113.8")
        record("another address meanwhile", "connects", "connects", True)
        await other.close()
    finally:
        for client in opened:
            await client.close()
    maker = await Client.open(url, "Tess", address="203.0.113.9")
    codes = []
    for _ in range(TABLES_PER_ADDRESS + 1):
        answer = await maker.request({"type": "create_table", "players": 3})
        codes.append(code(answer))
    record(f"{TABLES_PER_ADDRESS + 1} tables from one address",
           f"{TABLES_PER_ADDRESS} acks, then address_table_limit", codes,
           codes == ["ack"] * TABLES_PER_ADDRESS + ["address_table_limit"])
    await maker.close()
    # an HTTP request that never finishes its headers is closed after the header timeout
    with socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        began = time.monotonic()
        try:
            closed = sock.recv(4096) == b""
        except (TimeoutError, ConnectionResetError):
            closed = True
        waited = time.monotonic() - began
    record("unfinished request headers", "closed after WIZARD_HTTP_HEADER_TIMEOUT (1 s)",
           f"closed {closed} after {waited:.1f} s", closed and waited < TIMEOUT)
    status = get(port, "/healthz")[0]
    record("/healthz after all of the above", "200", status, status == 200)


async def run(port: int) -> None:
    url = f"ws://127.0.0.1:{port}/ws"
    await forged_tokens(url)
    await other_seats(url)
    await private_by_id(url, port)
    path_traversal(port)
    await html_in_names_and_chat(url, port)
    await per_address_caps(url, port)


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="attack-check-") as folder:
        port = free_port()
        process = start_server(port, Path(folder))
        try:
            asyncio.run(asyncio.wait_for(run(port), DEADLINE))
        except Exception as exc:
            record("the run itself", "completes", f"{type(exc).__name__}: {exc}", False)
        finally:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)
    broke = [r for r in RESULTS if not r.held]
    print(f"{len(RESULTS) - len(broke)} of {len(RESULTS)} held", flush=True)
    return 1 if broke else 0


if __name__ == "__main__":
    sys.exit(main())
