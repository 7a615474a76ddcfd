"""The store behind the tables: write before ack, restore, corrupt rows, history pages."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from wizard.engine import GameOptions
from wizard.server.storage.errors import StoreError
from wizard.server.storage.records import StoredSeat, TableSettings

from ..conftest import Harness
from ..driver import act_message, my_turn


def table_id_of(client: Any) -> str:
    return next(m for m in reversed(client.messages) if m["type"] == "table")["table_id"]


def test_an_action_the_store_cannot_write_is_refused_and_changes_nothing(
    harness: Harness,
) -> None:
    ann = harness.player("Ann")
    ann.ok({"type": "play_bots", "players": 3, "level": "easy"})
    table_id = table_id_of(ann)
    update = ann.wait_for(lambda m: my_turn(m, table_id))
    store = harness.server.store
    real_append = store.append

    async def broken_append(*args: Any) -> None:
        raise StoreError("disk full")

    store.append = broken_append  # type: ignore[method-assign]
    reply = ann.request(act_message(update))
    assert reply["type"] == "error" and reply["code"] == "internal"
    table = harness.server.lobby.tables[table_id]
    assert table.v == update["v"]
    assert table.game is not None and table.game.current_player == update["observation"]["player"]
    store.append = real_append  # type: ignore[method-assign]
    ann.ok(act_message(update))
    accepted = ann.wait_for(lambda m: m["type"] == "update" and m["v"] == update["v"] + 1)
    assert accepted["observation"]["player"] == update["observation"]["player"]


def test_a_corrupt_game_is_skipped_and_the_good_ones_come_back(
    make_harness: Callable[..., Harness], tmp_path: Path
) -> None:
    db = str(tmp_path / "w.db")
    first = make_harness(db_path=db)
    ann = first.player("Ann")
    ann.ok({"type": "play_bots", "players": 4})
    table_id = table_id_of(ann)
    for _ in range(5):
        update = ann.wait_for(lambda m: my_turn(m, table_id))
        ann.send(act_message(update))
    ann.wait_for(lambda m: m.get("type") == "ack")
    token = ann.token
    first.close_all()
    first.client.__exit__(None, None, None)

    conn = sqlite3.connect(db)
    conn.execute("INSERT INTO games (id, table_id, created, options, seed, seats, status, "
                 "table_info) SELECT 'bad-1', 'bad', created, options, seed, seats, status, "
                 "table_info FROM games")
    conn.execute("INSERT INTO actions VALUES "
                 "('bad-1', 2, 0, '{\"type\":\"play\",\"card\":999}', 0)")
    # a row whose stored JSON does not decode at all (seats), beside one that does not replay
    conn.execute("INSERT INTO games (id, table_id, created, options, seed, seats, status, "
                 "table_info) SELECT 'bad-2', 'worse', created, options, seed, '[{\"kind\"', "
                 "status, table_info FROM games WHERE id != 'bad-1'")
    conn.commit()

    second = make_harness(db_path=db)
    assert table_id in second.server.lobby.tables
    assert "bad" not in second.server.lobby.tables
    assert second.client.get("/healthz").status_code == 200
    assert "worse" not in second.server.lobby.tables
    statuses = sqlite3.connect(db).execute(
        "SELECT status FROM games WHERE id IN ('bad-1', 'bad-2')").fetchall()
    assert statuses == [("corrupt",), ("corrupt",)]
    back = second.connect("Ann again")
    back.hello("Ann", token)
    update = back.wait_for(lambda m: m["type"] == "update" and m["table_id"] == table_id)
    assert update["observation"]["hand"]


def test_history_pages_through_finished_games_newest_first(harness: Harness) -> None:
    store = harness.server.store
    seats = [StoredSeat("player", player_id="p_1", name="Ann"),
             StoredSeat("bot", level="easy", name="Bot (easy)",
                        bot={"level": "easy", "strength": 9, "seed": 1}),
             StoredSeat("bot", level="hard", name="Bot (hard)",
                        bot={"level": "hard", "strength": 70, "seed": 2})]

    async def fill() -> None:
        for k in range(5):
            await store.game_started(f"t{k}", f"t{k}-1", options=GameOptions(), seed=k,
                                     seats=seats, table_info=TableSettings(v0=1))
            await store.game_finished(f"t{k}", [k, 0, -k], [0])
        await store.game_started("live", "live-1", options=GameOptions(), seed=9, seats=seats,
                                 table_info=TableSettings(v0=1))

    harness.client.portal.call(fill)  # type: ignore[attr-defined]
    client = harness.client
    page = client.get("/api/games", params={"limit": 2}).json()
    assert [g["id"] for g in page["games"]] == ["t4-1", "t3-1"]
    assert page["games"][0]["players"][1] == {"seat": 1, "name": "Bot (easy)", "kind": "bot",
                                              "level": "easy", "player_id": "bot:easy"}
    assert page["games"][0]["scores"] == [4, 0, -4] and page["games"][0]["finished"]
    seen = [g["id"] for g in page["games"]]
    while page["next_before"]:
        page = client.get("/api/games", params={"limit": 2,
                                                "before": page["next_before"]}).json()
        seen += [g["id"] for g in page["games"]]
    assert seen == ["t4-1", "t3-1", "t2-1", "t1-1", "t0-1"]
    assert client.get("/api/games/live-1").status_code == 404  # in progress: not served
    assert client.get("/api/games/nope").json()["error"] == "no_such_game"
    assert client.get("/api/games", params={"limit": 0}).status_code == 400
    assert client.get("/api/games", params={"before": "x"}).status_code == 400
    text = client.get("/api/games").text
    assert "token" not in text


def test_a_played_game_replays_to_its_final_scores(harness: Harness) -> None:
    ann = harness.player("Ann")
    ann.ok({"type": "play_bots", "players": 6, "level": "medium"})
    table_id = table_id_of(ann)
    while True:
        update = ann.wait_for(lambda m: m["type"] == "update" and m["table_id"] == table_id
                              and (m["observation"]["legal_actions"]
                                   or m["observation"]["phase"] == "finished"), 30)
        if update["observation"]["phase"] == "finished":
            break
        ann.send(act_message(update))
    final = update["observation"]["scores"]
    token = next(m for m in ann.messages if m["type"] == "welcome")["token"]
    # a game against bots is a private table's: listed for its player (her token) only
    games = harness.client.get("/api/games", headers={"Authorization": f"Bearer {token}"}
                               ).json()["games"]
    assert games[0]["scores"] == final
    replay = harness.client.get(f"/api/games/{games[0]['id']}/replay",
                                headers={"Authorization": f"Bearer {token}"}).json()
    assert replay["scores"] == final and len(replay["rounds"]) == 10
    assert sum(len(r["hands"][0]) for r in replay["rounds"]) == sum(range(1, 11))
