"""``GET /api/tables/{id}``: what a table's link shows a guest before any name: the
host's name, the seats, how many are free, whether the game started; a private table
only with its invite; a bad or unknown one is a clear error that reveals nothing."""

from __future__ import annotations

from ..conftest import Harness
from .test_invites import private_table
from .test_table import table_id_of

PREVIEW_KEYS = {"host", "players", "free_seats", "status"}


def test_an_invite_shows_whose_table_and_the_free_seats(harness: Harness) -> None:
    table_id, invite = private_table(harness)  # Ann's, 4 seats
    answer = harness.client.get(f"/api/tables/{table_id}", params={"invite": invite})
    assert answer.status_code == 200, answer.text
    assert answer.json() == {"host": "Ann", "players": 4, "free_seats": 3, "status": "waiting"}
    assert answer.headers["cache-control"] == "no-store"
    harness.player("Ben").ok({"type": "join_table", "table_id": table_id, "invite": invite})
    again = harness.client.get(f"/api/tables/{table_id}", params={"invite": invite}).json()
    assert again["free_seats"] == 2 and set(again) == PREVIEW_KEYS  # no ids, no invite, no names


def test_a_private_table_without_its_invite_is_refused(harness: Harness) -> None:
    table_id, invite = private_table(harness)
    wrong = invite[:-1] + ("A" if invite[-1] != "A" else "B")
    for params in ({}, {"invite": wrong}, {"invite": ""}):
        answer = harness.client.get(f"/api/tables/{table_id}", params=params)
        assert answer.status_code == 403, (params, answer.text)
        body = answer.json()
        assert body["error"] == "invite_required" and "invite" in body["message"]
        assert set(body) == {"error", "message"}  # not even the host's name


def test_an_unknown_table_is_a_clear_404(harness: Harness) -> None:
    answer = harness.client.get("/api/tables/t_nosuchtable", params={"invite": "x" * 22})
    assert answer.status_code == 404
    assert answer.json()["error"] == "no_such_table"


def test_a_public_table_needs_no_invite(harness: Harness) -> None:
    ann = harness.player("Ann")
    ann.ok({"type": "create_table", "players": 3, "turn_seconds": 0})
    answer = harness.client.get(f"/api/tables/{table_id_of(ann)}")
    assert answer.status_code == 200, answer.text
    assert answer.json() == {"host": "Ann", "players": 3, "free_seats": 2, "status": "waiting"}
