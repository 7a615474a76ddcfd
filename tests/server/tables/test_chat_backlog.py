"""A table keeps its last chat lines (bounded) and sends them on join, hello, sync and
spectate, so a reload or a late spectator sees what was said before."""

from __future__ import annotations

import doctest

import pytest

from wizard.protocol import ChatMessage
from wizard.server.storage import visibility
from wizard.server.tables import chat
from wizard.server.tables.chat import CHAT_BACKLOG, ChatLog

from ..conftest import Harness, WsClient


def table_id_of(client: WsClient) -> str:
    return next(m for m in reversed(client.messages) if m["type"] == "table")["table_id"]


def backlog(client: WsClient, table_id: str) -> list[str]:
    message = client.wait_for(lambda m: m["type"] == "chat_backlog" and m["table_id"] == table_id)
    return [f"{line['name']}: {line['text']}" for line in message["messages"]]


def test_the_log_keeps_the_last_lines_in_order() -> None:
    log = ChatLog(limit=3)
    assert not log
    for k in range(5):
        log.add(ChatMessage("t_1", "Ann", f"line {k}", "p_1"))
    assert len(log) == 3
    assert [line.text for line in log.backlog("t_1").messages] == ["line 2", "line 3", "line 4"]
    with pytest.raises(ValueError, match="at least 1 line"):
        ChatLog(limit=0)


def test_join_sync_spectate_and_reconnect_get_the_earlier_lines(harness: Harness) -> None:
    ann = harness.player("Ann")
    ann.ok({"type": "create_table", "players": 3, "private": False, "turn_seconds": 0})
    table_id = table_id_of(ann)
    ann.ok({"type": "chat", "table_id": table_id, "text": "hello?"})
    ann.ok({"type": "chat", "table_id": table_id, "text": "anyone"})

    bob = harness.player("Bob")
    bob.ok({"type": "join_table", "table_id": table_id})
    assert backlog(bob, table_id) == ["Ann: hello?", "Ann: anyone"]
    bob.ok({"type": "chat", "table_id": table_id, "text": "me!"})
    ann.ok({"type": "add_bot", "table_id": table_id, "level": "easy", "seat": 2})
    ann.ok({"type": "start_game", "table_id": table_id})

    watcher = harness.player("Wanda")
    watcher.ok({"type": "spectate", "table_id": table_id})
    assert backlog(watcher, table_id) == ["Ann: hello?", "Ann: anyone", "Bob: me!"]

    ann.messages.clear()
    ann.ok({"type": "sync", "table_id": table_id})
    assert backlog(ann, table_id)[-1] == "Bob: me!"

    # Bob reloads: a new connection with his token puts him back, backlog included
    token = next(m for m in bob.messages if m["type"] == "welcome")["token"]
    harness.disconnect(bob)
    again = harness.connect("Bob again")
    again.hello("Bob", token)
    assert backlog(again, table_id) == ["Ann: hello?", "Ann: anyone", "Bob: me!"]


def test_the_backlog_is_bounded(harness: Harness) -> None:
    ann = harness.player("Ann")
    ann.ok({"type": "create_table", "players": 3, "private": False, "turn_seconds": 0})
    table_id = table_id_of(ann)
    table = harness.server.lobby.table(table_id)
    for k in range(CHAT_BACKLOG + 7):
        table.chat(ChatMessage(table_id, "Ann", f"line {k}", "p_x"))
    bob = harness.player("Bob")
    bob.ok({"type": "spectate", "table_id": table_id})
    lines = backlog(bob, table_id)
    assert len(lines) == CHAT_BACKLOG
    assert lines[0] == "Ann: line 7" and lines[-1] == f"Ann: line {CHAT_BACKLOG + 6}"


def test_a_table_without_chat_sends_no_backlog(harness: Harness) -> None:
    ann = harness.player("Ann")
    ann.ok({"type": "create_table", "players": 3, "private": False, "turn_seconds": 0})
    table_id = table_id_of(ann)
    bob = harness.player("Bob")
    bob.ok({"type": "spectate", "table_id": table_id})
    bob.ok({"type": "ping"})
    assert not [m for m in bob.messages if m["type"] == "chat_backlog"]


def test_the_docstring_examples_hold() -> None:
    for module in (chat, visibility):
        result = doctest.testmod(module)
        assert result.attempted and not result.failed, module.__name__
