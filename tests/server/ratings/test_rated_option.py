"""The ``rated`` table option through the protocol: an unrated table's games leave every
rating as it was (played through messages), the option shows in the table and the lobby,
survives a restart (waiting and mid-game), and a bad value creates nothing."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from starlette import exceptions as starlette_exceptions

from wizard.server.app import create_app

from ..conftest import Harness, fast_settings
from ..tables.test_table import play_to_end, table_id_of

with warnings.catch_warnings():
    warnings.simplefilter("ignore", getattr(
        starlette_exceptions, "StarletteDeprecationWarning", DeprecationWarning))
    from starlette.testclient import TestClient

SHORT = {"rounds": 1}


def board(harness: Harness) -> dict[str, Any]:
    response = harness.client.get("/api/leaderboard", params={"provisional": "true"})
    assert response.status_code == 200
    result: dict[str, Any] = response.json()
    return result


def test_an_unrated_game_against_bots_leaves_every_rating_unchanged(harness: Harness) -> None:
    ann = harness.player("Ann")
    ann.ok({"type": "play_bots", "players": 3, "level": "easy", "options": SHORT,
            "rated": False})
    table_id = table_id_of(ann)
    assert ann.last_table(table_id)["rated"] is False
    play_to_end([ann], table_id)
    assert board(harness)["total"] == 0  # nobody rated: not Ann, not the bots
    profile = harness.client.get(f"/api/players/{ann.player_id}").json()
    assert profile["games"] == 1 and profile["rating"] is None and profile["history"] == []

    ann.ok({"type": "play_bots", "players": 3, "level": "easy", "options": SHORT})
    rated_table = table_id_of(ann)
    assert ann.last_table(rated_table)["rated"] is True  # the default
    play_to_end([ann], rated_table)
    profile = harness.client.get(f"/api/players/{ann.player_id}").json()
    assert profile["games"] == 2 and profile["rating"]["rated_games"] == 1
    assert board(harness)["total"] == 2  # Ann and bot:easy


def test_an_unrated_table_between_people_is_listed_unrated_and_rates_nobody(
        harness: Harness) -> None:
    ann, ben, cid = harness.player("Ann"), harness.player("Ben"), harness.player("Cid")
    cid.ok({"type": "list_tables"})
    ann.ok({"type": "create_table", "players": 3, "options": SHORT, "rated": False})
    table_id = table_id_of(ann)
    listed = cid.wait_for(lambda m: m["type"] == "tables" and m["tables"])
    assert listed["tables"][0]["rated"] is False
    ben.ok({"type": "join_table", "table_id": table_id})
    cid.ok({"type": "join_table", "table_id": table_id})
    ann.ok({"type": "start_game", "table_id": table_id})
    play_to_end([ann, ben, cid], table_id)
    assert board(harness)["total"] == 0
    # a rematch at the same table is unrated too
    ann.ok({"type": "rematch", "table_id": table_id})
    assert ann.wait_for(lambda m: m["type"] == "table" and m["table_id"] == table_id
                        and m["status"] == "playing")["rated"] is False


@pytest.mark.parametrize("rated", ["no", 0, None, [True]])
@pytest.mark.parametrize("kind", ["create_table", "play_bots"])
def test_a_rated_option_that_is_not_a_boolean_is_refused_and_creates_nothing(
        harness: Harness, kind: str, rated: object) -> None:
    ann = harness.player("Ann")
    refused = ann.request({"type": kind, "players": 3, "rated": rated})
    assert refused["type"] == "error" and refused["code"] == "bad_message"
    assert "rated" in refused["message"]
    assert harness.server.lobby.tables == {}


@contextmanager
def served(db: str) -> Iterator[Harness]:
    """The app on database ``db``; leaving it shuts the app down as a restart does."""
    with TestClient(create_app(fast_settings(db_path=db))) as client:
        harness = Harness(client)
        try:
            yield harness
        finally:
            harness.close_all()


def test_an_unrated_table_stays_unrated_across_a_restart(tmp_path: Path) -> None:
    db = str(tmp_path / "wizard.db")
    with served(db) as first:
        ann, ben = first.player("Ann"), first.player("Ben")
        ann.ok({"type": "create_table", "players": 3, "options": SHORT, "rated": False})
        waiting = table_id_of(ann)
        ann.ok({"type": "add_bot", "table_id": waiting, "level": "easy"})
        ann.ok({"type": "add_bot", "table_id": waiting, "level": "easy"})
        ben.ok({"type": "play_bots", "players": 3, "level": "easy", "rated": False,
                "options": {"rounds": 2}})
        playing = table_id_of(ben)
        ben.wait_for(lambda m: m["type"] == "update" and m["table_id"] == playing)
        tokens = (ann.token, ben.token)

    with served(db) as second:
        ann, ben = second.connect("Ann"), second.connect("Ben")
        ann.hello("Ann", tokens[0])
        ben.hello("Ben", tokens[1])
        table = ann.wait_for(lambda m: m["type"] == "table" and m["table_id"] == waiting)
        assert table["status"] == "waiting" and table["rated"] is False
        table = ben.wait_for(lambda m: m["type"] == "table" and m["table_id"] == playing)
        assert table["status"] == "playing" and table["rated"] is False
        ann.ok({"type": "start_game", "table_id": waiting})
        play_to_end([ann], waiting)
        ben.ok({"type": "sync", "table_id": playing})
        play_to_end([ben], playing)
        assert board(second)["total"] == 0
        for client in (ann, ben):
            profile = second.client.get(f"/api/players/{client.player_id}").json()
            assert profile["games"] == 1 and profile["rating"] is None
