"""Protocol client logic shared by the TestClient and the real-uvicorn tests.

`Recorder` keeps every message a client received, checks the invariants a
client relies on (``v`` never skips for an update stream, no other seat's
hand, hidden bids hidden) and knows how to play: the first legal action.
"""

from __future__ import annotations

import itertools
import json
import time
from typing import Any

Message = dict[str, Any]

_ids = itertools.count(1)


def next_id() -> int:
    return next(_ids)


def hand_keys(value: Any, path: str = "$") -> list[str]:
    """Every path in a JSON value whose key mentions a hand (``hand``, ``hands``, ...)."""
    found: list[str] = []
    if isinstance(value, dict):
        for key, item in value.items():
            if "hand" in key and key != "hand_sizes":
                found.append(f"{path}.{key}")
            found += hand_keys(item, f"{path}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += hand_keys(item, f"{path}[{index}]")
    return found


def check_private(message: Message, seat: int | None) -> None:
    """An ``update`` for ``seat`` (None: spectator) shows no other hand and no hidden bid."""
    if message.get("type") != "update":
        assert hand_keys(message) == [], message
        return
    observation = message["observation"]
    assert observation["player"] == seat
    assert hand_keys(message) == ["$.observation.hand"]
    if seat is None:
        assert observation["hand"] == []
    else:
        assert len(observation["hand"]) == observation["hand_sizes"][seat]
    if observation["options"]["hidden_bids"] and observation["phase"] == "bidding":
        for other, bid in enumerate(observation["bids"]):
            if other != seat:
                assert bid is None, f"seat {other}'s hidden bid shown to {seat}"


class Recorder:
    """Received messages, checked as they arrive; subclasses provide ``recv``/``send``."""

    def __init__(self, label: str = "") -> None:
        self.label = label
        self.messages: list[Message] = []
        self.unread: list[Message] = []  # received, not yet returned by wait_for
        self.closed: int | None = None
        self.token: str | None = None
        self.player_id: str | None = None
        self.last_v: dict[str, int] = {}
        self.seat: dict[str, int | None] = {}

    def record(self, text: str) -> Message:
        message: Message = json.loads(text)
        self.messages.append(message)
        self.unread.append(message)
        kind = message["type"]
        if kind == "welcome":
            self.token, self.player_id = message["token"], message["player_id"]
        elif kind == "table":
            for seat in message["seats"]:
                if seat["player_id"] == self.player_id:
                    self.seat[message["table_id"]] = seat["seat"]
        elif kind == "update":
            table_id = message["table_id"]
            last = self.last_v.get(table_id)
            if message["events"] and last is not None:
                assert message["v"] == last + 1, f"{self.label}: v {last} -> {message['v']}"
            self.last_v[table_id] = message["v"]
            check_private(message, message["observation"]["player"])
        return message

    def record_close(self, code: int) -> Message:
        self.closed = code
        message = {"type": "_closed", "code": code}
        self.unread.append(message)
        return message

    # --- sync helpers (TestClient) ---------------------------------------------------------

    def recv(self, timeout: float = 10.0) -> Message:  # pragma: no cover - overridden
        raise NotImplementedError

    def send(self, message: Any) -> None:  # pragma: no cover - overridden
        raise NotImplementedError

    def take(self, predicate: Any) -> Message | None:
        """The oldest unread message that matches, marked read; None if there is none."""
        for index, message in enumerate(self.unread):
            if predicate(message):
                del self.unread[index]
                return message
            if message["type"] == "_closed":
                raise AssertionError(f"{self.label}: closed with {message['code']}")
        return None

    def wait_for(self, predicate: Any, timeout: float = 10.0) -> Message:
        """The oldest unread message matching ``predicate``, receiving until one arrives.

        Fails after ``timeout`` seconds or when the server closed the socket.
        """
        deadline = time.monotonic() + timeout
        while True:
            found = self.take(predicate)
            if found is not None:
                return found
            left = deadline - time.monotonic()
            assert left > 0, f"{self.label}: timed out waiting"
            self.recv(left)

    def request(self, message: Message, timeout: float = 10.0) -> Message:
        """Send with a fresh id; return the ``ack`` or ``error`` that answers it."""
        mid = next_id()
        self.send({**message, "id": mid})
        return self.wait_for(lambda m: m.get("id") == mid, timeout)

    def ok(self, message: Message) -> Message:
        reply = self.request(message)
        assert reply["type"] == "ack", reply
        return reply

    def hello(self, name: str, token: str | None = None) -> Message:
        message: Message = {"type": "hello", "name": name}
        if token is not None:
            message["token"] = token
        return self.ok(message)

    def last_update(self, table_id: str) -> Message:
        return next(m for m in reversed(self.messages)
                    if m["type"] == "update" and m["table_id"] == table_id)

    def last_table(self, table_id: str) -> Message:
        return next(m for m in reversed(self.messages)
                    if m["type"] == "table" and m["table_id"] == table_id)


def my_turn(message: Message, table_id: str) -> bool:
    return (message.get("type") == "update" and message["table_id"] == table_id
            and bool(message["observation"]["legal_actions"]))


def finished(message: Message, table_id: str) -> bool:
    return (message.get("type") == "update" and message["table_id"] == table_id
            and message["observation"]["phase"] == "finished")


def act_message(update: Message) -> Message:
    """Play the first legal action of an update where it is our turn."""
    return {"type": "act", "table_id": update["table_id"],
            "action": update["observation"]["legal_actions"][0], "id": next_id()}
