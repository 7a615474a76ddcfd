"""Tables through the protocol (TestClient): games to the end, seats, clocks, reconnects."""

from __future__ import annotations

from collections.abc import Callable

from wizard.ai.decision import Decision, DecisionRequest, InlineDecider

from ..conftest import Harness, WsClient
from ..driver import Message, act_message, finished, my_turn


def play_to_end(clients: list[WsClient], table_id: str, timeout: float = 60.0) -> None:
    """The seated clients play their first legal action whenever they are to move, to the end.

    The first client follows every update; the client whose seat is to move answers it.
    """
    by_seat = {client.seat[table_id]: client for client in clients}
    lead = clients[0]
    seen = 0
    while True:
        update = lead.wait_for(lambda m, seen=seen: m["type"] == "update"
                               and m["table_id"] == table_id and m["v"] > seen, timeout)
        seen = update["v"]
        if finished(update, table_id):
            break
        mover = by_seat.get(update["observation"]["current_player"])
        if mover is not None:
            mine = update if mover is lead else mover.wait_for(
                lambda m, seen=seen: m["type"] == "update" and m["table_id"] == table_id
                and m["v"] == seen, timeout)
            mover.send(act_message(mine))
    for client in clients[1:]:
        client.wait_for(lambda m: finished(m, table_id), timeout)


def table_id_of(client: WsClient) -> str:
    return next(m for m in reversed(client.messages) if m["type"] == "table")["table_id"]


def four_player_table(harness: Harness, **create: object) -> tuple[list[WsClient], str]:
    clients = [harness.player(name) for name in ("Ann", "Ben", "Cid", "Dee")]
    clients[0].ok({"type": "create_table", "players": 4, **create})
    table_id = table_id_of(clients[0])
    for client in clients[1:]:
        client.ok({"type": "join_table", "table_id": table_id})
    clients[0].ok({"type": "start_game", "table_id": table_id})
    return clients, table_id


def test_one_client_and_three_bots_play_a_whole_game(harness: Harness) -> None:
    ann = harness.player("Ann")
    ann.ok({"type": "play_bots", "players": 4, "level": "hard"})
    table_id = table_id_of(ann)
    seats = ann.last_table(table_id)["seats"]
    assert [s["kind"] for s in seats] == ["player", "bot", "bot", "bot"]
    assert [s["player_id"] for s in seats[1:]] == ["bot:hard"] * 3
    play_to_end([ann], table_id)
    last = ann.last_update(table_id)
    assert last["events"][-1]["type"] == "game_finished"
    assert last["observation"]["round_number"] == 15
    ann.wait_for(lambda m: m["type"] == "table" and m["status"] == "finished")
    # every accepted action produced exactly one update, v = 1 (start) + actions
    updates = [m for m in ann.messages if m["type"] == "update"]
    assert [m["v"] for m in updates] == list(range(1, len(updates) + 1))
    assert harness.server.metrics.value("wizard_actions_total", by="bot") > 0


def test_four_clients_play_a_game_and_see_only_their_own_hand(harness: Harness) -> None:
    clients, table_id = four_player_table(harness, options={"hidden_bids": True})
    watcher = harness.player("Eve")
    watcher.ok({"type": "spectate", "table_id": table_id})
    play_to_end(clients, table_id)
    for seat, client in enumerate(clients):
        updates = [m for m in client.messages if m["type"] == "update"]
        assert {m["observation"]["player"] for m in updates} == {seat}
        assert updates[-1]["observation"]["phase"] == "finished"
    seen = [m for m in watcher.messages if m["type"] == "update"]
    assert seen and all(m["observation"]["hand"] == [] for m in seen)
    # no client ever sees another's token
    for client in clients:
        others = [c.token for c in clients if c is not client]
        text = repr(client.messages)
        assert not any(token and token in text for token in others)


def test_an_update_equals_the_engine_view_of_that_seat(harness: Harness) -> None:
    clients, table_id = four_player_table(harness, options={"hidden_bids": True})
    watcher = harness.player("Eve")
    watcher.ok({"type": "spectate", "table_id": table_id})
    game = harness.server.lobby.table(table_id).game
    assert game is not None
    for _ in range(6):  # bidding and the first plays: the table waits for the mover
        mover = game.current_player
        assert mover is not None
        update = clients[mover].wait_for(lambda m: my_turn(m, table_id))
        clients[mover].unread.insert(0, update)
        assert update["observation"] == game.observation(mover).to_dict()
        for seat, client in enumerate(clients):
            same = client.wait_for(lambda m, v=update["v"]: m["type"] == "update"
                                   and m["v"] == v)
            assert same["observation"] == game.observation(seat).to_dict()
        spectator = watcher.wait_for(lambda m, v=update["v"]: m["type"] == "update"
                                     and m["v"] == v)
        assert spectator["observation"] == game.observation(None).to_dict()
        clients[mover].send(act_message(update))
        applied = clients[mover].wait_for(lambda m, v=update["v"]: m["type"] == "update"
                                          and m["v"] == v + 1)
        clients[mover].unread.insert(0, applied)  # the server has moved on: read it again


def test_reconnect_with_the_token_mid_game_and_sync(harness: Harness) -> None:
    ann = harness.player("Ann")
    ann.ok({"type": "play_bots", "players": 4})
    table_id = table_id_of(ann)
    for _ in range(3):
        update = ann.wait_for(lambda m: my_turn(m, table_id))
        ann.ok(act_message(update))
    before = ann.wait_for(lambda m: my_turn(m, table_id))
    harness.close_all()
    again = harness.connect("Ann again")
    welcome = again.request({"type": "hello", "name": "Ann", "token": ann.token})
    assert again.messages[0]["type"] == "welcome"
    assert again.messages[0]["player_id"] == ann.player_id and welcome["type"] == "ack"
    table = next(m for m in again.messages if m["type"] == "table")
    assert table["seats"][0]["connected"] is True
    resent = next(m for m in again.messages if m["type"] == "update")
    assert resent["v"] == before["v"] and resent["observation"] == before["observation"]
    again.ok({"type": "sync", "table_id": table_id})
    synced = again.last_update(table_id)
    assert synced["v"] == before["v"] and synced["events"] == []
    play_to_end([again], table_id)


def test_the_turn_clock_plays_for_a_player_who_does_not_move(
        make_harness: Callable[..., Harness]) -> None:
    harness = make_harness()
    ann = harness.player("Ann")
    ann.ok({"type": "play_bots", "players": 3, "turn_seconds": 1})
    table_id = table_id_of(ann)
    waiting = ann.wait_for(lambda m: my_turn(m, table_id))
    assert waiting["clock"]["player"] == 0 and 0 < waiting["clock"]["deadline_ms"] <= 1000
    auto = ann.wait_for(lambda m: m["type"] == "update" and m["v"] == waiting["v"] + 1, 5)
    assert auto["events"][0] == {"type": "auto_played", "player": 0, "reason": "timeout"}
    assert harness.server.metrics.value("wizard_actions_total", by="timeout") == 1


def test_a_disconnected_player_is_played_for_after_the_grace_period(
        make_harness: Callable[..., Harness]) -> None:
    harness = make_harness(disconnect_grace_seconds=0.2)
    ann = harness.player("Ann")
    ann.ok({"type": "play_bots", "players": 3})
    table_id = table_id_of(ann)
    ann.wait_for(lambda m: my_turn(m, table_id))
    harness.close_all()
    table = harness.server.lobby.table(table_id)
    watcher = harness.player("Eve")
    watcher.ok({"type": "spectate", "table_id": table_id, "invite": table.invite})  # a bot game
    away = watcher.wait_for(lambda m: m["type"] == "update" and any(
        e == {"type": "auto_played", "player": 0, "reason": "away"} for e in m["events"]), 5)
    assert away["observation"]["hand"] == []
    assert table.seats[0].away
    back = harness.connect("Ann again")
    back.hello("Ann", ann.token)
    seats = next(m for m in back.messages if m["type"] == "table")["seats"]
    assert seats[0]["away"] is False and seats[0]["connected"] is True
    assert not table.seats[0].away


def test_rematch_starts_a_new_game_with_the_same_seats(harness: Harness) -> None:
    ann = harness.player("Ann")
    ann.ok({"type": "play_bots", "players": 6, "level": "easy"})
    table_id = table_id_of(ann)
    early = ann.request({"type": "rematch", "table_id": table_id})
    assert early["code"] == "not_finished"
    play_to_end([ann], table_id)
    last_v = ann.last_v[table_id]
    ann.ok({"type": "rematch", "table_id": table_id})
    table = ann.last_table(table_id)
    assert table["status"] == "playing" and table["game"] == 2
    assert [s["kind"] for s in table["seats"]] == ["player"] + ["bot"] * 5
    start = ann.last_update(table_id)
    assert start["v"] == last_v + 1 and start["events"][0]["type"] == "round_started"
    assert start["observation"]["round_number"] == 1


def test_seats_host_and_start_rules(harness: Harness) -> None:
    ann, ben, cid = (harness.player(n) for n in ("Ann", "Ben", "Cid"))
    ann.ok({"type": "create_table", "players": 3, "turn_seconds": 0})
    table_id = table_id_of(ann)
    assert ann.last_table(table_id)["host"] == ann.player_id
    assert ben.request({"type": "start_game", "table_id": table_id})["code"] == "not_host"
    assert ann.request({"type": "start_game", "table_id": table_id})["code"] == "seats_open"
    assert ben.request({"type": "join_table", "table_id": table_id, "seat": 0})["code"] == \
        "seat_taken"
    assert ben.request({"type": "join_table", "table_id": table_id, "seat": 5})["code"] == \
        "no_such_seat"
    ben.ok({"type": "join_table", "table_id": table_id, "seat": 2})
    assert ben.request({"type": "join_table", "table_id": table_id})["code"] == "already_seated"
    assert ben.request({"type": "add_bot", "table_id": table_id, "level": "easy"})["code"] == \
        "not_host"
    assert ann.request({"type": "remove_bot", "table_id": table_id, "seat": 2})["code"] == \
        "not_a_bot"
    ann.ok({"type": "add_bot", "table_id": table_id, "level": "easy"})
    assert cid.request({"type": "join_table", "table_id": table_id})["code"] == "table_full"
    ann.ok({"type": "remove_bot", "table_id": table_id, "seat": 1})
    ann.ok({"type": "add_bot", "table_id": table_id, "level": "master", "seat": 1})
    assert cid.request({"type": "act", "table_id": table_id,
                        "action": {"type": "bid", "value": 0}})["code"] == "not_seated"
    assert ann.request({"type": "act", "table_id": table_id,
                        "action": {"type": "bid", "value": 0}})["code"] == "not_started"
    ann.ok({"type": "start_game", "table_id": table_id})
    assert ann.request({"type": "start_game", "table_id": table_id})["code"] == \
        "already_started"
    assert cid.request({"type": "join_table", "table_id": table_id})["code"] == "already_started"
    # the host leaves during the game: a bot takes the seat, Ben hosts
    ann.ok({"type": "leave_table", "table_id": table_id})
    table = ben.wait_for(lambda m: m["type"] == "table" and m["host"] == ben.player_id)
    assert table["seats"][0]["kind"] == "bot"


def test_the_last_player_leaving_closes_the_table(harness: Harness) -> None:
    ann = harness.player("Ann")
    ann.ok({"type": "create_table", "players": 3})
    table_id = table_id_of(ann)
    ann.ok({"type": "leave_table", "table_id": table_id})
    assert any(m == {"type": "table_closed", "table_id": table_id, "reason": "empty"}
               for m in ann.messages)
    assert ann.request({"type": "sync", "table_id": table_id})["code"] == "no_such_table"


def test_list_tables_is_kept_up_to_date_and_hides_private_tables(harness: Harness) -> None:
    lister, ann = harness.player("Lou"), harness.player("Ann")
    lister.ok({"type": "list_tables"})
    assert lister.messages[-2] == {"type": "tables", "tables": [], "total": 0, "offset": 0}
    ann.ok({"type": "play_bots", "players": 3})
    ann.ok({"type": "create_table", "players": 5, "options": {"hidden_bids": True}})
    table_id = table_id_of(ann)
    listed = lister.wait_for(lambda m: m["type"] == "tables" and m["tables"])["tables"]
    assert [t["table_id"] for t in listed] == [table_id]
    assert listed[0]["options"]["hidden_bids"] is True
    api = harness.client.get("/api/tables").json()["tables"]
    assert [t["table_id"] for t in api] == [table_id]
    assert ann.token not in harness.client.get("/api/tables").text


def test_chat_reaches_the_table_and_is_rate_limited(harness: Harness) -> None:
    clients, table_id = four_player_table(harness)
    clients[0].ok({"type": "chat", "table_id": table_id, "text": "good luck"})
    line = clients[3].wait_for(lambda m: m["type"] == "chat")
    assert line == {"type": "chat", "table_id": table_id, "name": "Ann", "text": "good luck",
                    "player_id": clients[0].player_id}
    codes = [clients[1].request({"type": "chat", "table_id": table_id, "text": "spam"})["type"]
             for _ in range(8)]
    assert codes.count("ack") == 5 and codes[-1] == "error"
    assert clients[1].messages[-1]["code"] == "rate_limited"


class RecordingDecider(InlineDecider):
    def __init__(self) -> None:
        super().__init__()
        self.requests: list[DecisionRequest] = []

    async def decide(self, request: DecisionRequest) -> Decision:
        self.requests.append(request)
        return await super().decide(request)

    def decide_now(self, request: DecisionRequest) -> Decision:
        self.requests.append(request)
        return super().decide_now(request)


def test_bots_decide_through_the_injected_decider(
        make_harness: Callable[..., Harness]) -> None:
    decider = RecordingDecider()
    harness = make_harness(decider=decider)
    ann = harness.player("Ann")
    ann.ok({"type": "play_bots", "players": 3, "level": "easy"})
    table_id = table_id_of(ann)
    for _ in range(3):  # Ann may bid first; within one round of bids both bots have moved
        ann.ok(act_message(ann.wait_for(lambda m: my_turn(m, table_id))))
    assert {r.observation.player for r in decider.requests} == {1, 2}
    for request in decider.requests:
        assert request.spec.bot is not None and request.spec.bot.level.value == "easy"
        assert request.observation.player in (1, 2)
    moves = [r.spec.move_number for r in decider.requests]
    assert moves == sorted(moves)


def ack_or_error(reply: Message) -> str:
    return str(reply.get("code", reply["type"]))
