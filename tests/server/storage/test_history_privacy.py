"""Recent games lists public games and the requester's own (played or watched); a private
game opens for its people and by its link (which carries the table's invite), never by
its id alone. Checked over the websocket protocol and over HTTP."""

from __future__ import annotations

from typing import Any

from wizard.server.storage.visibility import bearer_token

from ..conftest import Harness, WsClient
from ..driver import act_message


def table_id_of(client: WsClient) -> str:
    return next(m for m in reversed(client.messages) if m["type"] == "table")["table_id"]


def play_to_the_end(client: WsClient, table_id: str) -> None:
    """Play every move of ``client`` at ``table_id`` until the game is finished."""
    while True:
        update = client.wait_for(lambda m: m["type"] == "update" and m["table_id"] == table_id
                                 and (m["observation"]["legal_actions"]
                                      or m["observation"]["phase"] == "finished"), 30)
        if update["observation"]["phase"] == "finished":
            return
        client.send(act_message(update))


def a_finished_table(client: WsClient, *, private: bool) -> str:
    """A 6-seat table (the shortest game) of ``client`` and bots, played to the end."""
    client.ok({"type": "create_table", "players": 6, "private": private, "turn_seconds": 0})
    table_id = table_id_of(client)
    for seat in range(1, 6):
        client.ok({"type": "add_bot", "table_id": table_id, "level": "easy", "seat": seat})
    client.ok({"type": "start_game", "table_id": table_id})
    play_to_the_end(client, table_id)
    return table_id


def listed(harness: Harness, token: str | None = None) -> list[str | None]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    response = harness.client.get("/api/games", params={"limit": 50}, headers=headers)
    assert response.status_code == 200
    return [game["table_id"] for game in response.json()["games"]]  # None: private


def token_of(client: WsClient) -> str:
    welcome: dict[str, Any] = next(m for m in client.messages if m["type"] == "welcome")
    return str(welcome["token"])


def test_a_private_game_is_listed_for_its_players_only_and_opens_by_link(
        harness: Harness) -> None:
    ann = harness.player("Ann")
    bob = harness.player("Bob")
    bob.ok({"type": "list_tables"})
    secret = a_finished_table(ann, private=True)
    public = a_finished_table(bob, private=False)

    # protocol: the private table never showed up in the lobby list others receive
    lobby_lists = [m for m in bob.messages if m["type"] == "tables"]
    assert lobby_lists
    assert all(secret not in [t["table_id"] for t in m["tables"]] for m in lobby_lists)
    assert any(public in [t["table_id"] for t in m["tables"]] for m in lobby_lists)

    # HTTP: anonymous and Bob see the public game only; Ann sees both, newest first
    assert listed(harness) == [public]
    assert listed(harness, token_of(bob)) == [public]
    # a private game is listed for Ann without its table id (the table's invite)
    assert listed(harness, token_of(ann)) == [public, None]
    assert listed(harness, "not-a-token") == [public]  # an unknown token is nobody

    # the game's id alone opens nothing; its link (id + the table's invite) opens it for
    # whoever holds it, e.g. Bob after Ann shares it; Ann opens it with her token
    mine = harness.client.get("/api/games", headers={"Authorization": f"Bearer {token_of(ann)}"})
    game = mine.json()["games"][1]
    game_id, invite = game["id"], game["invite"]
    assert secret not in game_id  # the link leads to the game, not to the table
    assert isinstance(invite, str) and mine.json()["games"][0]["invite"] is None
    for path in (f"/api/games/{game_id}", f"/api/games/{game_id}/replay"):
        refused = harness.client.get(path, headers={"Authorization": f"Bearer {token_of(bob)}"})
        assert refused.status_code == 403 and refused.json()["error"] == "invite_required"
        assert harness.client.get(path, params={"invite": invite + "x"}).status_code == 403
    record = harness.client.get(f"/api/games/{game_id}", params={"invite": invite})
    assert record.status_code == 200 and record.json()["table_id"] is None
    replay = harness.client.get(f"/api/games/{game_id}/replay", params={"invite": invite})
    assert replay.status_code == 200 and len(replay.json()["rounds"]) == 10
    own = harness.client.get(f"/api/games/{game_id}/replay",
                             headers={"Authorization": f"Bearer {token_of(ann)}"})
    assert own.status_code == 200 and own.content == replay.content
    # the cached replay is no way around the rule
    assert harness.client.get(f"/api/games/{game_id}/replay").status_code == 403


def test_who_watched_a_private_game_lists_and_opens_it(harness: Harness) -> None:
    ann, eve, tom = harness.player("Ann"), harness.player("Eve"), harness.player("Tom")
    ann.ok({"type": "create_table", "players": 6, "private": True, "turn_seconds": 0})
    info = ann.wait_for(lambda m: m["type"] == "table")
    table_id = info["table_id"]
    for seat in range(1, 6):
        ann.ok({"type": "add_bot", "table_id": table_id, "level": "easy", "seat": seat})
    eve.ok({"type": "spectate", "table_id": table_id, "invite": info["invite"]})  # before
    ann.ok({"type": "start_game", "table_id": table_id})
    tom.ok({"type": "spectate", "table_id": table_id, "invite": info["invite"]})  # during
    play_to_the_end(ann, table_id)
    for watcher in (eve, tom):
        assert listed(harness, token_of(watcher)) == [None]
        game_id = harness.client.get(
            "/api/games", headers={"Authorization": f"Bearer {token_of(watcher)}"}
        ).json()["games"][0]["id"]
        replay = harness.client.get(f"/api/games/{game_id}/replay",
                                    headers={"Authorization": f"Bearer {token_of(watcher)}"})
        assert replay.status_code == 200
    assert listed(harness, token_of(harness.player("Max"))) == []


def test_a_bot_game_is_private_to_its_player(harness: Harness) -> None:
    cleo = harness.player("Cleo")
    cleo.ok({"type": "play_bots", "players": 6, "level": "easy"})
    table_id = table_id_of(cleo)
    play_to_the_end(cleo, table_id)
    dan = harness.player("Dan")
    assert listed(harness, token_of(cleo)) == [None]
    assert listed(harness, token_of(dan)) == []
    assert listed(harness) == []


def test_a_malformed_authorization_header_means_nobody() -> None:
    assert bearer_token("Bearer  t_1 ") == "t_1"
    assert bearer_token("bearer x") == "x"
    assert bearer_token("Bearer") is None
    assert bearer_token("Token x") is None
    assert bearer_token(None) is None
