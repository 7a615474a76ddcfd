"""Game length through the protocol: a short game is created, listed, played, stored and
replayed with its round count; a length the table cannot deal is refused, nothing created."""

from __future__ import annotations

import pytest

from wizard.engine import GameOptions, WizardGame, action_from_dict

from ..conftest import Harness
from .test_table import play_to_end, table_id_of


def test_a_short_game_against_bots_ends_after_its_rounds_and_is_stored_so(
        harness: Harness) -> None:
    ann = harness.player("Ann")
    ann.ok({"type": "play_bots", "players": 3, "level": "easy", "turn_seconds": 0,
            "options": {"rounds": 3}})
    table_id = table_id_of(ann)
    assert ann.last_table(table_id)["options"]["rounds"] == 3
    play_to_end([ann], table_id)  # reads the first update too: Ann may be the first to bid
    first = next(m for m in ann.messages if m["type"] == "update" and m["table_id"] == table_id)
    assert (first["observation"]["round_number"], first["observation"]["total_rounds"]) == (1, 3)
    assert first["observation"]["options"]["rounds"] == 3
    last = ann.last_update(table_id)["observation"]
    assert (last["phase"], last["round_number"], last["total_rounds"]) == ("finished", 3, 3)
    assert [r["round_number"] for r in last["round_history"]] == [1, 2, 3]

    mine = {"Authorization": f"Bearer {ann.token}"}
    listing = harness.client.get("/api/games", params={"limit": 5}, headers=mine).json()
    game_id = listing["games"][0]["id"]
    record = harness.client.get(f"/api/games/{game_id}", headers=mine).json()
    assert record["options"]["rounds"] == 3
    game = WizardGame(record["num_players"], GameOptions.from_dict(record["options"]),
                      seed=record["seed"])
    for step in record["actions"]:
        game.apply(step["seat"], action_from_dict(step["action"]))
    assert game.is_finished and game.scores == record["scores"] == list(last["scores"])
    replay = harness.client.get(f"/api/games/{game_id}/replay", headers=mine).json()
    assert len(replay["rounds"]) == 3


def test_the_lobby_lists_a_tables_length(harness: Harness) -> None:
    ann, ben = harness.player("Ann"), harness.player("Ben")
    ben.ok({"type": "list_tables"})
    ann.ok({"type": "create_table", "players": 4, "options": {"rounds": 5}})
    ann.ok({"type": "create_table", "players": 5})
    listed = ben.wait_for(lambda m: m["type"] == "tables" and len(m["tables"]) == 2)
    assert [t["options"]["rounds"] for t in listed["tables"]] == [5, None]


@pytest.mark.parametrize(("players", "rounds", "says"), [
    (4, 16, "rounds must be 1-15 for 4 players, got 16"),
    (6, 11, "rounds must be 1-10 for 6 players, got 11"),
    (3, 21, "rounds"),
    (4, 0, "rounds"),
    (4, -2, "rounds"),
    (4, "3", "rounds"),
    (4, 2.5, "rounds"),
    (4, True, "rounds"),
])
def test_a_length_the_table_cannot_deal_is_refused_and_nothing_is_created(
        harness: Harness, players: int, rounds: object, says: str) -> None:
    ann = harness.player("Ann")
    for kind in ("create_table", "play_bots"):
        reply = ann.request({"type": kind, "players": players, "options": {"rounds": rounds}})
        assert (reply["type"], reply["code"]) == ("error", "bad_message")
        assert says in reply["message"]
    assert harness.server.lobby.tables == {}
    assert not [m for m in ann.messages if m["type"] in ("table", "update")]


def test_a_rematch_keeps_the_length(harness: Harness) -> None:
    ann = harness.player("Ann")
    ann.ok({"type": "play_bots", "players": 4, "level": "easy", "turn_seconds": 0,
            "options": {"rounds": 1}})
    table_id = table_id_of(ann)
    play_to_end([ann], table_id)
    ann.ok({"type": "rematch", "table_id": table_id})
    second = ann.wait_for(lambda m: m["type"] == "update" and m["table_id"] == table_id
                          and m["observation"]["phase"] != "finished")
    assert second["observation"]["total_rounds"] == 1
