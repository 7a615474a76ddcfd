"""Accounts through the app: claim, login on another device, logout, password change,
and every refusal leaving the store and the lobby as they were."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from structlog.testing import capture_logs

from wizard.server.storage.accounts import AccountStore

from ..conftest import Harness, WsClient, has_sample

PASSWORD = "correct horse battery"
ADDRESS = "203.0.113.7"


class ClientFromHeader:
    """Each request's client address from its ``X-Test-Client`` header (as uvicorn takes
    a trusted proxy's ``X-Forwarded-For``); the TestClient has one address only."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            for key, value in scope["headers"]:
                if key == b"x-test-client":
                    scope = {**scope, "client": (value.decode(), 1)}
        await self.app(scope, receive, send)


def with_addresses(harness: Harness) -> Harness:
    app = harness.client.app
    app.middleware_stack = ClientFromHeader(app.middleware_stack)  # type: ignore[attr-defined]
    return harness


@pytest.fixture
def harness(make_harness: Callable[..., Harness]) -> Harness:
    return with_addresses(make_harness())


def post(harness: Harness, path: str, body: dict[str, Any] | None = None,
         token: str | None = None, address: str = ADDRESS) -> tuple[int, dict[str, Any]]:
    headers = {"X-Test-Client": address}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    response = harness.client.post(path, json=body, headers=headers)
    return response.status_code, response.json()


def claimed(harness: Harness, name: str = "Ann") -> WsClient:
    guest = harness.player(name)
    status, answer = post(harness, "/api/account", {"name": name, "password": PASSWORD},
                          guest.token)
    assert status == 200, answer
    assert answer == {"player_id": guest.player_id, "name": name}
    return guest


def snapshot(harness: Harness) -> tuple[Any, ...]:
    """What a refused request must leave as it was: rows and the lobby's tokens."""

    def rows() -> Any:
        async def read() -> Any:
            db = harness.server.store.db
            return await db.read(lambda c: (
                c.execute("SELECT * FROM accounts ORDER BY player_id").fetchall(),
                c.execute("SELECT token_hash, player_id, name FROM players "
                          "ORDER BY token_hash").fetchall()))
        return harness.client.portal.call(read)  # type: ignore[union-attr]

    lobby = harness.server.lobby
    return rows(), sorted((t, p.player_id, p.name) for t, p in lobby.players_by_token.items())


def test_a_claimed_account_logs_in_on_another_device_as_the_same_player(
        harness: Harness) -> None:
    ann = claimed(harness)
    ann.ok({"type": "create_table", "players": 3})
    table_id = next(m for m in ann.messages if m["type"] == "table")["table_id"]
    status, login = post(harness, "/api/login", {"name": "ANN", "password": PASSWORD})
    assert status == 200 and login["player_id"] == ann.player_id and login["name"] == "Ann"
    assert login["token"] != ann.token
    phone = harness.connect("phone")
    welcome = phone.hello("whatever", login["token"])  # an account keeps its name
    assert phone.player_id == ann.player_id and phone.token == login["token"]
    assert welcome["type"] == "ack"
    assert next(m for m in phone.messages if m["type"] == "welcome")["name"] == "Ann"
    # the same player: seated at the same table, on both devices
    phone.wait_for(lambda m: m["type"] == "table" and m["table_id"] == table_id)
    assert ann.token in harness.server.lobby.players_by_token  # the first device still works
    laptop = harness.connect("laptop")
    laptop.hello("Ann", ann.token)
    assert laptop.token == ann.token


def test_logout_ends_every_token_of_the_account(harness: Harness) -> None:
    ann = claimed(harness)
    _, login = post(harness, "/api/login", {"name": "Ann", "password": PASSWORD})
    phone = harness.connect("phone")
    phone.hello("Ann", login["token"])
    status, answer = post(harness, "/api/logout", token=login["token"])
    assert status == 200 and answer["player_id"] == ann.player_id
    phone.wait_for(lambda m: m["type"] == "_closed")  # open sockets are closed
    for token in (ann.token, login["token"]):
        again = harness.connect()
        assert again.request({"type": "hello", "name": "Ann", "token": token})["code"] \
            == "unknown_token"
        assert post(harness, "/api/logout", token=token)[1]["error"] == "unknown_token"
    # the account stays: a login gives a token that works, for the same player
    _, back = post(harness, "/api/login", {"name": "ann", "password": PASSWORD})
    assert back["player_id"] == ann.player_id


def test_a_password_change_ends_the_old_tokens_and_the_old_password(harness: Harness) -> None:
    ann = claimed(harness)
    _, login = post(harness, "/api/login", {"name": "Ann", "password": PASSWORD})
    status, changed = post(harness, "/api/password",
                           {"password": PASSWORD, "new_password": "a new secret"}, ann.token)
    assert status == 200 and changed["player_id"] == ann.player_id
    for token in (ann.token, login["token"]):
        assert post(harness, "/api/logout", token=token)[1]["error"] == "unknown_token"
    assert post(harness, "/api/login", {"name": "Ann", "password": PASSWORD})[1]["error"] \
        == "wrong_password"
    assert post(harness, "/api/login", {"name": "Ann", "password": "a new secret"})[0] == 200
    fresh = harness.connect()
    fresh.hello("Ann", changed["token"])
    assert fresh.player_id == ann.player_id


@pytest.mark.parametrize(("path", "body", "with_token", "code", "status"), [
    ("/api/account", {"name": "Ｂｏｂ", "password": PASSWORD}, True, "name_taken", 409),
    ("/api/account", {"name": "BOB", "password": PASSWORD}, True, "name_taken", 409),
    ("/api/account", {"name": "Bot (hard)", "password": PASSWORD}, True, "bad_name", 400),
    ("/api/account", {"name": "x" * 33, "password": PASSWORD}, True, "bad_name", 400),
    ("/api/account", {"name": "Cy", "password": "x" * 129}, True, "bad_password", 400),
    ("/api/account", {"name": "Cy", "password": "short"}, True, "bad_password", 400),
    ("/api/account", {"name": "Cy", "password": PASSWORD}, False, "token_required", 401),
    ("/api/account", {"name": "Cy"}, True, "bad_request", 400),
    ("/api/account", {"name": "Cy", "password": "p" * 5000}, True, "too_large", 413),
    ("/api/login", {"name": "bob", "password": "not the one"}, False, "wrong_password", 401),
    ("/api/login", {"name": "Nobody", "password": PASSWORD}, False, "unknown_account", 401),
    ("/api/login", {"name": "bob", "password": "x" * 129}, False, "bad_password", 400),
    ("/api/logout", None, False, "token_required", 401),
    ("/api/logout", None, True, "no_account", 403),
    ("/api/password", {"password": PASSWORD, "new_password": "new secret"}, True,
     "no_account", 403),
])
def test_bad_input_is_a_clear_error_and_changes_nothing(
        harness: Harness, path: str, body: dict[str, Any] | None, with_token: bool,
        code: str, status: int) -> None:
    claimed(harness, "bob")
    cy = harness.player("Cy")
    before = snapshot(harness)
    got, answer = post(harness, path, body, cy.token if with_token else None)
    assert (got, answer["error"]) == (status, code), answer
    assert answer["message"]
    assert snapshot(harness) == before


def test_a_claim_twice_or_with_an_unknown_token_is_refused(harness: Harness) -> None:
    ann = claimed(harness)
    before = snapshot(harness)
    assert post(harness, "/api/account", {"name": "Annie", "password": PASSWORD},
                ann.token)[1]["error"] == "already_claimed"
    assert post(harness, "/api/account", {"name": "Annie", "password": PASSWORD},
                "no-such-token")[1]["error"] == "unknown_token"
    assert snapshot(harness) == before


def test_a_wrong_old_password_changes_nothing(harness: Harness) -> None:
    ann = claimed(harness)
    before = snapshot(harness)
    status, answer = post(harness, "/api/password",
                          {"password": "not the one", "new_password": "new secret"}, ann.token)
    assert (status, answer["error"]) == (401, "wrong_password")
    assert snapshot(harness) == before


def test_the_store_keeps_a_hash_not_the_password(harness: Harness) -> None:
    claimed(harness)
    rows = snapshot(harness)[0][0]
    assert len(rows) == 1 and PASSWORD not in repr(rows) and rows[0][3].startswith("scrypt$")

    async def by_name() -> Any:
        return await AccountStore(harness.server.store).by_name("ann")

    assert harness.client.portal.call(by_name).name == "Ann"  # type: ignore[union-attr]


def test_no_password_is_ever_logged(harness: Harness, caplog: pytest.LogCaptureFixture
                                    ) -> None:
    wrong, new = "not my password 1", "my new password 2"
    with capture_logs() as logs:
        ann = claimed(harness)
        assert post(harness, "/api/login", {"name": "Ann", "password": wrong})[0] == 401
        assert post(harness, "/api/login", {"name": "Ann", "password": PASSWORD})[0] == 200
        assert post(harness, "/api/password", {"password": wrong, "new_password": new},
                    ann.token)[0] == 401
        assert post(harness, "/api/password", {"password": PASSWORD, "new_password": new},
                    ann.token)[0] == 200
        assert post(harness, "/api/account", {"name": "Bo", "password": "x7!pw#q"},
                    harness.player("Bo").token)[0] == 400
    assert {"account_claimed", "account_login"} <= {event["event"] for event in logs}
    written = repr(logs) + caplog.text
    for password in (PASSWORD, wrong, new, "x7!pw#q"):
        assert password not in written


def test_attempts_are_limited_per_address_and_per_name(
        make_harness: Callable[..., Harness]) -> None:
    harness = with_addresses(make_harness(login_attempt_burst=3, login_attempts_per_minute=1))
    claimed(harness, "Ann")
    wrong = {"name": "Ann", "password": "not the one"}
    for _ in range(3):
        assert post(harness, "/api/login", wrong, address="203.0.113.1")[0] == 401
    status, answer = post(harness, "/api/login", {"name": "Ann", "password": PASSWORD},
                          address="203.0.113.2")  # another address, the same name
    assert (status, answer["error"]) == (429, "rate_limited") and answer["retry_after"] == 60
    other = {"name": "Nobody", "password": PASSWORD}
    status, answer = post(harness, "/api/login", other, address="203.0.113.1")
    assert (status, answer["error"]) == (429, "rate_limited")  # the address's budget is spent
    assert post(harness, "/api/login", other, address="203.0.113.3")[1]["error"] \
        == "unknown_account"
    assert has_sample(harness.client.get("/metrics").text,
                      'wizard_rate_limited_total{budget="password"} 2')


def test_after_a_password_change_the_new_token_is_back_at_the_same_table(
        harness: Harness) -> None:
    ann = claimed(harness)
    ann.ok({"type": "create_table", "players": 3})
    table_id = next(m for m in ann.messages if m["type"] == "table")["table_id"]
    _, changed = post(harness, "/api/password",
                      {"password": PASSWORD, "new_password": "a new secret"}, ann.token)
    ann.wait_for(lambda m: m["type"] == "_closed")  # the old device's socket is closed
    again = harness.connect("again")
    again.hello("Ann", changed["token"])
    assert again.player_id == ann.player_id
    seats = again.wait_for(lambda m: m["type"] == "table" and m["table_id"] == table_id)
    assert seats["seats"][0]["player_id"] == ann.player_id
