"""What the client sends and receives: the protocol's structs (`wizard.protocol`),
decoded and encoded here, and the client's errors.

Everything else in `wizard.client` (and `wizard.play`, `wizard.loadtest`) takes the
structs from here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypeVar

import msgspec

from wizard.protocol import (
    Ack,
    Act,
    ActionView,
    AddBot,
    ChatMessage,
    ClientMessage,
    Clock,
    CreateTable,
    Error,
    ErrorCode,
    Hello,
    JoinTable,
    LeaveTable,
    Level,
    ListTables,
    Options,
    Ping,
    PlayBots,
    Pong,
    Rematch,
    ServerMessage,
    ServerShutdown,
    Spectate,
    StartGame,
    Sync,
    TableClosed,
    TableInfo,
    Tables,
    Welcome,
)

M = TypeVar("M", bound=ServerMessage)


class Update(ServerMessage, tag="update", frozen=True):
    """An ``update`` as the client reads it: observation and events as JSON objects.

    The server builds typed structs (`wizard.protocol.game`); the client reads
    them as plain objects, so it acts on ``legal_actions`` and ``phase`` and hands the
    rest on (`Observation.from_dict` parses the engine's view from it) without
    refusing a field it does not know.
    """

    table_id: str
    v: int
    events: list[dict[str, Any]]
    observation: dict[str, Any]
    clock: Clock | None


AnyServerMessage = (
    Ack | Error | Welcome | TableInfo | Tables | Update | ChatMessage | Pong | TableClosed
    | ServerShutdown
)
decoder = msgspec.json.Decoder(AnyServerMessage)
encoder = msgspec.json.Encoder()

RATE_LIMITED = ErrorCode.RATE_LIMITED.value


class ClientError(Exception):
    """Base of the client's errors."""


class ServerError(ClientError):
    """The server answered a request with ``error``: nothing changed on the server."""

    def __init__(self, error: Error, request: ClientMessage | None = None) -> None:
        super().__init__(f"{error.code}: {error.message}")
        self.code = error.code
        self.message = error.message
        self.request = request


class ConnectionLost(ClientError):
    """The socket closed before the answer came, or could not be reopened in time."""


@dataclass
class Answer:
    """What a request caused: the messages received after it was sent, up to its ``ack``.

    The server queues the ``ack`` after every message the request caused, so
    they are all here (with messages of other tables that arrived meanwhile).
    ``arrived[i]`` is the `time.perf_counter` of ``messages[i]``; ``sent`` of the request.
    """

    sent: float
    messages: list[ServerMessage] = field(default_factory=list)
    arrived: list[float] = field(default_factory=list)

    def first(self, kind: type[M], table_id: str | None = None) -> tuple[M, float] | None:
        """The first message of ``kind`` (for ``table_id``) and the time it arrived."""
        for message, at in zip(self.messages, self.arrived, strict=True):
            if isinstance(message, kind) and (
                    table_id is None or getattr(message, "table_id", None) == table_id):
                return message, at
        return None


__all__ = [
    "RATE_LIMITED", "Ack", "Act", "ActionView", "AddBot", "Answer", "AnyServerMessage",
    "ChatMessage", "ClientError", "ClientMessage", "ConnectionLost", "CreateTable", "Error",
    "Hello", "JoinTable", "LeaveTable", "Level", "ListTables", "Options", "Ping", "PlayBots",
    "Pong", "Rematch", "ServerError", "ServerMessage", "ServerShutdown", "Spectate", "StartGame",
    "Sync", "TableClosed", "TableInfo", "Tables", "Update", "Welcome"
]
