"""What the server sends: one msgspec Struct per ``type``, encoded by `encode` (UTF-8
JSON bytes, sent as text frames).

>>> encode(Ack(id=1))
b'{"type":"ack","id":1}'
>>> encode(TableClosed("t_1", CloseReason.EMPTY))
b'{"type":"table_closed","table_id":"t_1","reason":"empty"}'
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from .game import EventView, ObservationView
from .states import AnalysisState, CloseReason, TableStatus


class ServerMessage(msgspec.Struct, tag_field="type", frozen=True):
    """Base of every server message."""


class Ack(ServerMessage, tag="ack", frozen=True):
    id: int


class Error(ServerMessage, tag="error", frozen=True):
    id: int | None
    code: str  # an `ErrorCode`'s value (a client reads codes it does not know yet too)
    message: str


class Welcome(ServerMessage, tag="welcome", frozen=True):
    player_id: str
    name: str
    token: str


class SeatInfo(msgspec.Struct, frozen=True):
    """One seat in a ``table`` message; ``name``/``player_id``/``level`` are null where unused."""

    seat: int
    kind: Literal["empty", "player", "bot"]
    name: str | None = None
    player_id: str | None = None
    level: str | None = None
    connected: bool = False
    away: bool = False


class TableInfo(ServerMessage, tag="table", frozen=True):
    table_id: str
    host: str | None
    seats: list[SeatInfo]
    options: dict[str, bool | int | None]  # `GameOptions.to_dict`: ``rounds`` null = full
    status: TableStatus
    private: bool
    turn_seconds: int
    spectators: int
    game: int
    invite: str | None = None  # a private table's invite, sent to the people at it only
    rated: bool = True  # whether its games count for ratings


class Tables(ServerMessage, tag="tables", frozen=True):
    """A page of the listed tables; ``total`` listed tables in all, this page from ``offset``."""

    tables: list[TableInfo]
    total: int = 0
    offset: int = 0


class Clock(msgspec.Struct, frozen=True):
    player: int
    deadline_ms: int


class Update(ServerMessage, tag="update", frozen=True):
    """A table's state for one seat (or the spectators) and the events that led to it."""

    table_id: str
    v: int
    events: list[EventView]
    observation: ObservationView
    clock: Clock | None


class ChatMessage(ServerMessage, tag="chat", frozen=True):
    table_id: str
    name: str
    text: str
    player_id: str


class Pong(ServerMessage, tag="pong", frozen=True):
    pass


class TableClosed(ServerMessage, tag="table_closed", frozen=True):
    table_id: str
    reason: CloseReason


class AnalysisProgress(ServerMessage, tag="analysis_progress", frozen=True):
    """A game analysis under way: ``state`` queued / running / waiting (live games first) /
    failed; ``done`` of ``total`` decisions; ``position`` in the queue while queued."""

    game_id: str
    state: AnalysisState
    done: int
    total: int
    position: int | None = None
    reason: str | None = None


class Analysis(ServerMessage, tag="analysis", frozen=True):
    """A finished analysis: one report per seat the requester may see (docs/protocol.md)."""

    game_id: str
    worlds: int
    thresholds: dict[str, float]
    seats: list[dict[str, Any]]


class ServerShutdown(ServerMessage, tag="server_shutdown", frozen=True):
    """The server is stopping; the socket closes next (1001). Reconnect with the token."""


_encoder = msgspec.json.Encoder()


def encode(message: ServerMessage) -> bytes:
    """The JSON of a server message as UTF-8 bytes: what a text frame carries."""
    return _encoder.encode(message)


_TAGS: dict[type[ServerMessage], str] = {}


def message_tag(message: ServerMessage) -> str:
    """The ``type`` of a server message (its struct's tag; looked up once per type).

    >>> message_tag(Pong())
    'pong'
    """
    kind = type(message)
    tag = _TAGS.get(kind)
    if tag is None:
        tag = _TAGS[kind] = str(kind.__struct_config__.tag)
    return tag


__all__ = [
    "Ack",
    "Analysis",
    "AnalysisProgress",
    "ChatMessage",
    "Clock",
    "Error",
    "Pong",
    "SeatInfo",
    "ServerMessage",
    "ServerShutdown",
    "TableClosed",
    "TableInfo",
    "Tables",
    "Update",
    "Welcome",
    "encode",
    "message_tag",
]
