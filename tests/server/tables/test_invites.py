"""A private table opens with its invite, never with its id alone: joining or watching
it by id is refused with ``invite_required``; the invite (sent only to the people at the
table) opens it; a public table needs none."""

from __future__ import annotations

from ..conftest import Harness
from .test_table import table_id_of


def private_table(harness: Harness) -> tuple[str, str]:
    ann = harness.player("Ann")
    ann.ok({"type": "create_table", "players": 4, "private": True, "turn_seconds": 0})
    info = ann.wait_for(lambda m: m["type"] == "table")
    assert info["private"] is True and isinstance(info["invite"], str)
    return table_id_of(ann), info["invite"]


def test_the_id_alone_neither_joins_nor_watches_a_private_table(harness: Harness) -> None:
    table_id, invite = private_table(harness)
    eve = harness.player("Eve")
    for kind in ("join_table", "spectate"):
        refused = eve.request({"type": kind, "table_id": table_id})
        assert refused["code"] == "invite_required", refused
        wrong = eve.request({"type": kind, "table_id": table_id, "invite": invite[:-1] + "A"
                             if invite[-1] != "A" else invite[:-1] + "B"})
        assert wrong["code"] == "invite_required", wrong
    table = harness.server.lobby.table(table_id)
    assert [s.kind.value for s in table.seats].count("player") == 1 and not table.spectators
    assert not any(m["type"] in ("table", "chat_backlog") for m in eve.messages)


def test_the_invite_opens_a_private_table_to_join_and_to_watch(harness: Harness) -> None:
    table_id, invite = private_table(harness)
    ben, cal = harness.player("Ben"), harness.player("Cal")
    ben.ok({"type": "join_table", "table_id": table_id, "invite": invite})
    cal.ok({"type": "spectate", "table_id": table_id, "invite": invite})
    seen = cal.wait_for(lambda m: m["type"] == "table")
    assert seen["invite"] == invite  # who watches may pass the link on
    assert [s["kind"] for s in seen["seats"]][:2] == ["player", "player"]


def test_a_public_table_needs_no_invite_and_has_none(harness: Harness) -> None:
    ann, ben = harness.player("Ann"), harness.player("Ben")
    ann.ok({"type": "create_table", "players": 3, "turn_seconds": 0})
    info = ann.wait_for(lambda m: m["type"] == "table")
    assert info["invite"] is None
    ben.ok({"type": "join_table", "table_id": info["table_id"]})


def test_each_private_table_has_its_own_unguessable_invite(harness: Harness) -> None:
    invites = {private_table(harness)[1] for _ in range(3)}
    assert len(invites) == 3 and all(len(i) >= 22 for i in invites)  # 128 random bits


def test_an_invite_is_dropped_with_a_table_that_never_played_and_kept_for_history(
        harness: Harness) -> None:
    store, lobby = harness.server.store, harness.server.lobby
    portal = harness.client.portal
    assert portal is not None

    def stored_invites() -> set[str]:
        rows = portal.call(store.db.read, lambda c: c.execute(
            "SELECT table_id FROM table_invites").fetchall())
        return {row[0] for row in rows}

    unplayed, _ = private_table(harness)
    ann = harness.player("Ann")
    ann.ok({"type": "play_bots", "players": 3, "level": "easy"})
    played = table_id_of(ann)
    assert {unplayed, played} <= stored_invites()
    host = lobby.table(unplayed).host
    assert host is not None
    portal.call(lobby.table(unplayed).leave, host)  # the last one out closes it
    portal.call(lobby.table(played).close, "idle")
    portal.call(store.flush)
    invites = stored_invites()
    assert unplayed not in invites and played in invites
