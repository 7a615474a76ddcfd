"""Profiles and accounts: a claimed name finds its account's profile (NFKC + case folding,
before any rated player last seen under that name), a claim renames the player on the
leaderboard, and a private profile (``POST /api/profile``) answers only to its player and
leaves the leaderboard; every bad request is refused and changes nothing."""

from __future__ import annotations

from typing import Any

import pytest

from ..accounts.test_service import PASSWORD, harness, post
from ..conftest import Harness, WsClient
from .test_api import finish

__all__ = ["harness"]  # the accounts tests' fixture (client addresses from a header)


def claim(harness: Harness, guest: WsClient, name: str) -> None:
    status, answer = post(harness, "/api/account", {"name": name, "password": PASSWORD},
                          guest.token)
    assert status == 200, answer


def profile(harness: Harness, name: str, token: str | None = None) -> tuple[int, Any]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    response = harness.client.get(f"/api/players/{name}", headers=headers)
    return response.status_code, response.json()


def board(harness: Harness) -> list[str]:
    page = harness.client.get("/api/leaderboard", params={"provisional": "true"}).json()
    return [p["name"] for p in page["players"] if not p["bot"]]


def private_flag(harness: Harness, player_id: str | None) -> Any:
    async def read() -> Any:
        return await harness.server.store.db.read(lambda c: c.execute(
            "SELECT private FROM accounts WHERE player_id = ?", (player_id,)).fetchone())
    return harness.client.portal.call(read)  # type: ignore[union-attr]


def test_a_claim_renames_the_player_on_the_leaderboard_and_the_name_finds_the_account(
        harness: Harness) -> None:
    early = harness.player("Annabel")  # a guest rated as "Annabel" before the claim
    finish(harness, [early, "easy", "hard"], [10, 20, 30])
    ann = harness.player("Ann")
    finish(harness, [ann, "easy", "hard"], [90, 20, 30])
    assert sorted(board(harness)) == ["Ann", "Annabel"]
    claim(harness, ann, "Annabel")  # the claim renames Ann
    assert board(harness).count("Annabel") == 2 and "Ann" not in board(harness)
    for spelling in ("Annabel", "annabel", "ＡＮＮＡＢＥＬ"):
        status, found = profile(harness, spelling)
        assert status == 200 and found["player_id"] == ann.player_id
        assert found["name"] == "Annabel" and found["account"] is True
    status, by_id = profile(harness, str(early.player_id))  # the guest is still found by id
    assert status == 200 and by_id["name"] == "Annabel" and by_id["account"] is False


def test_an_account_without_a_finished_game_is_no_such_player(harness: Harness) -> None:
    claim(harness, harness.player("Zed"), "Zed")
    status, answer = profile(harness, "zed")
    assert status == 404 and answer["error"] == "no_such_player"


def test_a_private_profile_answers_only_its_player_and_leaves_the_leaderboard(
        harness: Harness) -> None:
    ann, eve = harness.player("Ann"), harness.player("Eve")
    finish(harness, [ann, eve, "hard"], [90, 20, 30])
    claim(harness, ann, "Ann")
    status, answer = post(harness, "/api/profile", {"private": True}, ann.token)
    assert status == 200
    assert answer == {"player_id": ann.player_id, "name": "Ann", "private": True}
    for name in ("Ann", "ann", str(ann.player_id)):
        for token in (None, eve.token):
            status, refused = profile(harness, name, token)
            assert status == 403 and refused["error"] == "private_player"
    status, own = profile(harness, "Ann", ann.token)  # the player still sees their own
    assert status == 200 and own["private"] is True and own["games"] == 1
    assert board(harness) == ["Eve"]
    page = harness.client.get("/api/leaderboard", params={"provisional": "true"}).json()
    assert page["total"] == 2 and [p["rank"] for p in page["players"]] == [1, 2]  # Eve, bot

    status, answer = post(harness, "/api/profile", {"private": False}, ann.token)
    assert status == 200 and answer["private"] is False
    assert profile(harness, "Ann")[0] == 200 and sorted(board(harness)) == ["Ann", "Eve"]


@pytest.mark.parametrize(("body", "who", "status", "code"), [
    ({"private": True}, None, 401, "token_required"),
    ({"private": True}, "unknown", 401, "unknown_token"),
    ({"private": True}, "guest", 403, "no_account"),
    ({"private": "yes"}, "ann", 400, "bad_request"),
    ({}, "ann", 400, "bad_request"),
    ({"private": True, "also": 1}, "ann", 400, "bad_request"),
])
def test_a_bad_profile_request_is_refused_and_changes_nothing(
        harness: Harness, body: dict[str, Any], who: str | None, status: int,
        code: str) -> None:
    ann, guest = harness.player("Ann"), harness.player("Guest")
    claim(harness, ann, "Ann")
    token = {"ann": ann.token, "guest": guest.token, "unknown": "x" * 32, None: None}[who]
    answered, refused = post(harness, "/api/profile", body, token)
    assert (answered, refused["error"]) == (status, code)
    assert private_flag(harness, ann.player_id) == (0,)
