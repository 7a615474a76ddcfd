"""The websocket protocol: msgspec Structs in tagged unions (``"type"``), decoded once.

Client messages are decoded by `decode_client` into one `ClientMessage`
(strictly: unknown fields, wrong types and out-of-range values are refused);
server messages are Structs encoded by `encode` (UTF-8 JSON bytes, sent as text
frames). ``docs/protocol.md`` is the reference for every message.

>>> decode_client('{"type": "ping", "id": 1}')
Ping(id=1)
>>> encode(Ack(id=1))
b'{"type":"ack","id":1}'
"""

from __future__ import annotations

import enum
from typing import Annotated, Any, Literal

import msgspec

from .updates import EventView, ObservationView, Options

# --- error codes -------------------------------------------------------------------------


class ErrorCode(enum.StrEnum):
    """Stable codes of ``error`` messages; clients switch on these, never on the text."""

    BAD_JSON = "bad_json"
    BAD_MESSAGE = "bad_message"
    TOO_LARGE = "too_large"
    NOT_IDENTIFIED = "not_identified"
    ALREADY_IDENTIFIED = "already_identified"
    UNKNOWN_TOKEN = "unknown_token"
    NO_SUCH_TABLE = "no_such_table"
    NO_SUCH_SEAT = "no_such_seat"
    TABLE_FULL = "table_full"
    SEAT_TAKEN = "seat_taken"
    ALREADY_SEATED = "already_seated"
    NOT_HOST = "not_host"
    NOT_SEATED = "not_seated"
    NOT_A_BOT = "not_a_bot"
    SEATS_OPEN = "seats_open"
    NOT_STARTED = "not_started"
    ALREADY_STARTED = "already_started"
    NOT_FINISHED = "not_finished"
    NOT_YOUR_TURN = "not_your_turn"
    ILLEGAL_ACTION = "illegal_action"
    GAME_OVER = "game_over"
    RATE_LIMITED = "rate_limited"
    TABLE_LIMIT = "table_limit"
    PLAYER_TABLE_LIMIT = "player_table_limit"
    ADDRESS_TABLE_LIMIT = "address_table_limit"
    SPECTATOR_LIMIT = "spectator_limit"
    INVITE_REQUIRED = "invite_required"  # a private table (or its game) without its invite
    NO_SUCH_GAME = "no_such_game"
    ANALYSIS_BUSY = "analysis_busy"
    ANALYSIS_LIMIT = "analysis_limit"
    ANALYSIS_UNAVAILABLE = "analysis_unavailable"
    UNAVAILABLE = "unavailable"  # the store cannot save (disk full); nothing changed
    INTERNAL = "internal"


class ProtocolError(Exception):
    """A refused client message: becomes ``error {id, code, message}``; nothing changed."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


# --- client → server ---------------------------------------------------------------------

MessageId = Annotated[int, msgspec.Meta(ge=0, le=2**53 - 1)]
TableId = Annotated[str, msgspec.Meta(min_length=1, max_length=64)]
Seat = Annotated[int, msgspec.Meta(ge=0, le=5)]
Players = Annotated[int, msgspec.Meta(ge=3, le=6)]
Name = Annotated[str, msgspec.Meta(min_length=1, max_length=32)]
Token = Annotated[str, msgspec.Meta(min_length=1, max_length=128)]
Level = Literal["easy", "medium", "hard", "master"]
Invite = Annotated[str, msgspec.Meta(min_length=1, max_length=64)]
TurnSeconds = Annotated[int, msgspec.Meta(ge=0, le=3600)]
ChatText = Annotated[str, msgspec.Meta(min_length=1, max_length=200)]


class ClientMessage(msgspec.Struct, tag_field="type", forbid_unknown_fields=True, frozen=True):
    """Base of every client message; ``id`` (optional) asks for an ``ack`` or ``error``."""

    id: MessageId | None = None


class Hello(ClientMessage, tag="hello", kw_only=True, frozen=True):
    name: Name
    token: Token | None = None


#: tables in one ``tables`` message at most (a page): 1,000 tables were ~1 MiB in one
PAGE_MAX = 100
PAGE_DEFAULT = 50
PageLimit = Annotated[int, msgspec.Meta(ge=1, le=PAGE_MAX)]
PageOffset = Annotated[int, msgspec.Meta(ge=0, le=1_000_000)]


class ListTables(ClientMessage, tag="list_tables", kw_only=True, frozen=True):
    """Watch one page of the lobby list: ``limit`` tables from ``offset`` (oldest first)."""

    offset: PageOffset = 0
    limit: PageLimit = PAGE_DEFAULT


class CreateTable(ClientMessage, tag="create_table", kw_only=True, frozen=True):
    players: Players
    options: Options = Options()
    private: bool = False
    turn_seconds: TurnSeconds | None = None


class JoinTable(ClientMessage, tag="join_table", kw_only=True, frozen=True):
    table_id: TableId
    seat: Seat | None = None
    invite: Invite | None = None  # a private table's invite (`TableInfo.invite`)


class LeaveTable(ClientMessage, tag="leave_table", kw_only=True, frozen=True):
    table_id: TableId


class Spectate(ClientMessage, tag="spectate", kw_only=True, frozen=True):
    table_id: TableId
    invite: Invite | None = None


class AddBot(ClientMessage, tag="add_bot", kw_only=True, frozen=True):
    table_id: TableId
    level: Level = "medium"
    seat: Seat | None = None


class RemoveBot(ClientMessage, tag="remove_bot", kw_only=True, frozen=True):
    table_id: TableId
    seat: Seat


class StartGame(ClientMessage, tag="start_game", kw_only=True, frozen=True):
    table_id: TableId


class PlayBots(ClientMessage, tag="play_bots", kw_only=True, frozen=True):
    players: Players = 4
    level: Level = "medium"
    options: Options = Options()
    turn_seconds: TurnSeconds | None = None


class Act(ClientMessage, tag="act", kw_only=True, frozen=True):
    table_id: TableId
    action: dict[str, Any]  # checked by the engine's strict `action_from_dict`


class Sync(ClientMessage, tag="sync", kw_only=True, frozen=True):
    table_id: TableId


class Rematch(ClientMessage, tag="rematch", kw_only=True, frozen=True):
    table_id: TableId


class Chat(ClientMessage, tag="chat", kw_only=True, frozen=True):
    table_id: TableId
    text: ChatText


class Ping(ClientMessage, tag="ping", frozen=True):
    pass


class Analyse(ClientMessage, tag="analyse", kw_only=True, frozen=True):
    game_id: TableId  # a finished game's id (``GET /api/games``)
    invite: Invite | None = None  # a private game's: the invite of its table


AnyClientMessage = (
    Hello | ListTables | CreateTable | JoinTable | LeaveTable | Spectate | AddBot | RemoveBot
    | StartGame | PlayBots | Act | Sync | Rematch | Chat | Ping | Analyse
)
CLIENT_TYPES: tuple[str, ...] = tuple(
    sorted(str(cls.__struct_config__.tag) for cls in AnyClientMessage.__args__)
)

_decoder = msgspec.json.Decoder(AnyClientMessage)
_loose_decoder = msgspec.json.Decoder()


def decode_client(data: str | bytes) -> ClientMessage:
    """Decode one client frame; raises `ProtocolError` (``bad_json`` or ``bad_message``)."""
    try:
        return _decoder.decode(data)
    except msgspec.ValidationError as exc:
        raise ProtocolError(ErrorCode.BAD_MESSAGE, _explain(data, exc)) from None
    except msgspec.DecodeError as exc:
        raise ProtocolError(ErrorCode.BAD_JSON, f"not valid JSON: {exc}") from None
    except RecursionError:  # msgspec's guard against deep nesting, e.g. inside an action
        raise ProtocolError(ErrorCode.BAD_MESSAGE, "nested too deeply") from None


def _explain(data: str | bytes, exc: msgspec.ValidationError) -> str:
    text = str(exc)
    if "`$.type`" in text or "Object missing required field `type`" in text:
        return f"{text}; known types: {', '.join(CLIENT_TYPES)}"
    return text


def message_id_of(data: str | bytes) -> int | None:
    """The ``id`` of a frame that failed to decode, if it has a usable one (for the error)."""
    try:
        value = _loose_decoder.decode(data)
    except (msgspec.DecodeError, RecursionError):
        return None
    if isinstance(value, dict):
        mid = value.get("id")
        if type(mid) is int and 0 <= mid <= 2**53 - 1:
            return mid
    return None


def message_type_of(message: ClientMessage) -> str:
    """``"act"`` for an `Act`: the tag, for metrics and logs."""
    return str(type(message).__struct_config__.tag)


# --- server → client ---------------------------------------------------------------------


class ServerMessage(msgspec.Struct, tag_field="type", frozen=True):
    """Base of every server message."""


class Ack(ServerMessage, tag="ack", frozen=True):
    id: int


class Error(ServerMessage, tag="error", frozen=True):
    id: int | None
    code: str
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
    options: dict[str, bool]
    status: str
    private: bool
    turn_seconds: int
    spectators: int
    game: int
    invite: str | None = None  # a private table's invite, sent to the people at it only


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
    reason: str


class AnalysisProgress(ServerMessage, tag="analysis_progress", frozen=True):
    """A game analysis under way: ``state`` queued / running / waiting (live games first) /
    failed; ``done`` of ``total`` decisions; ``position`` in the queue while queued."""

    game_id: str
    state: str
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
    "CLIENT_TYPES",
    "Ack",
    "Act",
    "AddBot",
    "Analyse",
    "Analysis",
    "AnalysisProgress",
    "AnyClientMessage",
    "Chat",
    "ChatMessage",
    "ClientMessage",
    "Clock",
    "CreateTable",
    "Error",
    "ErrorCode",
    "Hello",
    "JoinTable",
    "LeaveTable",
    "ListTables",
    "Options",
    "Ping",
    "PlayBots",
    "Pong",
    "ProtocolError",
    "Rematch",
    "RemoveBot",
    "SeatInfo",
    "ServerMessage",
    "ServerShutdown",
    "Spectate",
    "StartGame",
    "Sync",
    "TableClosed",
    "TableInfo",
    "Tables",
    "Update",
    "Welcome",
    "decode_client",
    "encode",
    "message_id_of",
    "message_tag",
    "message_type_of",
]
