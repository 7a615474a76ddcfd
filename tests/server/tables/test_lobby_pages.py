"""The lobby list comes in pages: one ``tables`` message holds at most ``limit`` tables."""

from __future__ import annotations

from ..conftest import Harness
from ..driver import Message


def tables_messages(client: object) -> list[Message]:
    return [m for m in client.messages if m["type"] == "tables"]  # type: ignore[attr-defined]


def test_a_big_lobby_is_sent_a_page_at_a_time(harness: Harness) -> None:
    hosts = [harness.player(f"Host{i}") for i in range(8)]
    for host in hosts:
        for _ in range(8):
            host.ok({"type": "create_table", "players": 3})
    watcher = harness.player("Wat")
    watcher.ok({"type": "list_tables"})
    first = tables_messages(watcher)[-1]
    assert len(first["tables"]) == 50 and first["total"] == 64 and first["offset"] == 0
    watcher.ok({"type": "list_tables", "offset": 50, "limit": 100})
    second = tables_messages(watcher)[-1]
    assert second["offset"] == 50 and second["total"] == 64 and len(second["tables"]) == 14
    seen = {t["table_id"] for t in first["tables"]} | {t["table_id"] for t in second["tables"]}
    assert len(seen) == 64
    # a change re-sends the page this watcher asked for last
    late = second["tables"][-1]["table_id"]
    harness.player("Joiner").ok({"type": "join_table", "table_id": late})
    update = watcher.wait_for(lambda m: m["type"] == "tables" and any(
        t["table_id"] == late and t["seats"][1]["kind"] == "player" for t in m["tables"]))
    assert update["offset"] == 50 and len(update["tables"]) == 14
    assert watcher.request({"type": "list_tables", "limit": 101})["code"] == "bad_message"
    assert watcher.request({"type": "list_tables", "offset": -1})["code"] == "bad_message"
