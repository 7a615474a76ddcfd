"""Accounts against a real ``wizard serve`` on a file database: the password attempt
budgets over HTTP, and account changes that survive a kill -9 right after their 200."""

from __future__ import annotations

import json
import subprocess
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from websockets.sync.client import connect

from ...serve import free_port, start_server

PASSWORD = "correct horse battery"


def post(base: str, path: str, body: dict[str, Any] | None = None, *,
         token: str | None = None,
         address: str | None = None) -> tuple[int, dict[str, Any], dict[str, str]]:
    headers = {"Content-Type": "application/json"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    if address is not None:  # the server trusts loopback as a proxy: this is the client
        headers["X-Forwarded-For"] = address
    request = urllib.request.Request(f"{base}{path}", data=json.dumps(body or {}).encode(),
                                     headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read()), dict(response.headers)
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read()), dict(exc.headers)


def hello(port: int, name: str, token: str | None = None) -> dict[str, Any]:
    """The ``welcome`` (or ``error``) a hello gets."""
    with connect(f"ws://127.0.0.1:{port}/ws", open_timeout=10) as ws:
        message: dict[str, Any] = {"type": "hello", "name": name, "id": 1}
        if token is not None:
            message["token"] = token
        ws.send(json.dumps(message))
        while True:
            answer: dict[str, Any] = json.loads(ws.recv(timeout=10))
            if answer["type"] in ("welcome", "error"):
                return answer


class Server:
    """``wizard serve`` on one database file, killed with SIGKILL and started again."""

    def __init__(self, tmp_path: Path, **env: str) -> None:
        self.db = str(tmp_path / "wizard.db")
        self.log = tmp_path / "serve.log"
        self.env = env
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.process = start_server(self.port, self.log, WIZARD_DB=self.db, **self.env)

    def kill(self) -> None:
        assert self.process is not None
        self.process.kill()  # SIGKILL: nothing is flushed, nothing shuts down
        self.process.wait(timeout=10)
        self.process = None


def test_password_attempts_are_limited_per_address_and_per_name(tmp_path: Path) -> None:
    server = Server(tmp_path, WIZARD_LOGIN_ATTEMPT_BURST="2",
                    WIZARD_LOGIN_ATTEMPTS_PER_MINUTE="1")
    server.start()
    try:
        guest = hello(server.port, "Ann")
        assert post(server.http, "/api/account", {"name": "Ann", "password": PASSWORD},
                    token=guest["token"], address="203.0.113.9")[0] == 200
        wrong = {"name": "ann", "password": "not the one"}
        for _ in range(2):
            status, answer, _ = post(server.http, "/api/login", wrong, address="203.0.113.1")
            assert (status, answer["error"]) == (401, "wrong_password")
        # the name's budget is spent: the right password from elsewhere waits too
        status, answer, headers = post(server.http, "/api/login",
                                       {"name": "ANN", "password": PASSWORD},
                                       address="203.0.113.2")
        assert (status, answer["error"]) == (429, "rate_limited")
        assert answer["retry_after"] == 60 and headers["retry-after"] == "60"
        assert "try again in 60 s" in answer["message"]
        # the address's budget is spent: another name from it waits
        status, answer, _ = post(server.http, "/api/login",
                                 {"name": "Nobody", "password": PASSWORD},
                                 address="203.0.113.1")
        assert (status, answer["error"]) == (429, "rate_limited")
        assert "address" in answer["message"]
        # nothing changed: the guest token still works, the password still is the password
        assert hello(server.port, "Ann", guest["token"])["player_id"] == guest["player_id"]
    finally:
        server.kill()
    server.env = {}
    server.start()
    try:
        status, answer, _ = post(server.http, "/api/login",
                                 {"name": "Ann", "password": PASSWORD}, address="203.0.113.2")
        assert (status, answer["player_id"]) == (200, guest["player_id"])
    finally:
        server.kill()


def test_account_changes_survive_a_kill_right_after_their_answer(tmp_path: Path) -> None:
    server = Server(tmp_path)
    server.start()
    try:
        guest = hello(server.port, "Ben")
        assert post(server.http, "/api/account", {"name": "Ben", "password": PASSWORD},
                    token=guest["token"])[0] == 200
    finally:
        server.kill()
    server.start()
    try:
        status, login, _ = post(server.http, "/api/login", {"name": "ben", "password": PASSWORD})
        assert (status, login["player_id"]) == (200, guest["player_id"])
    finally:
        server.kill()
    server.start()
    try:  # the login's token was kept before it was answered
        welcome = hello(server.port, "Ben", login["token"])
        assert welcome["player_id"] == guest["player_id"]
        status, changed, _ = post(server.http, "/api/password",
                                  {"password": PASSWORD, "new_password": "another secret"},
                                  token=login["token"])
        assert status == 200
    finally:
        server.kill()
    server.start()
    try:
        for token in (guest["token"], login["token"]):
            assert hello(server.port, "Ben", token)["code"] == "unknown_token"
        assert post(server.http, "/api/login",
                    {"name": "Ben", "password": PASSWORD})[1]["error"] == "wrong_password"
        assert hello(server.port, "Ben", changed["token"])["player_id"] == guest["player_id"]
        assert post(server.http, "/api/logout", token=changed["token"])[0] == 200
    finally:
        server.kill()
    server.start()
    try:
        assert hello(server.port, "Ben", changed["token"])["code"] == "unknown_token"
        status, again, _ = post(server.http, "/api/login",
                                {"name": "Ben", "password": "another secret"})
        assert (status, again["player_id"]) == (200, guest["player_id"])
    finally:
        server.kill()
