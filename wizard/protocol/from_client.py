"""What a client sends: one msgspec Struct per ``type``, decoded once by `decode_client`.

Decoding is strict: unknown fields, wrong types and out-of-range values are refused
with `ProtocolError` (``bad_json`` or ``bad_message``). An ``act``'s action arrives
typed (`ActionView`), never as a loose object.

>>> decode_client('{"type": "ping", "id": 1}')
Ping(id=1)
>>> decode_client('{"type": "act", "table_id": "t_1", "action": {"type": "bid", "value": 2}}')
Act(id=None, table_id='t_1', action=BidView(value=2))
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from .actions import ActionView
from .errors import ErrorCode, ProtocolError
from .game import Options

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

#: tables in one ``tables`` message at most (a page): 1,000 tables were ~1 MiB in one
PAGE_MAX = 100
PAGE_DEFAULT = 50
PageLimit = Annotated[int, msgspec.Meta(ge=1, le=PAGE_MAX)]
PageOffset = Annotated[int, msgspec.Meta(ge=0, le=1_000_000)]


class ClientMessage(msgspec.Struct, tag_field="type", forbid_unknown_fields=True, frozen=True):
    """Base of every client message; ``id`` (optional) asks for an ``ack`` or ``error``."""

    id: MessageId | None = None


class Hello(ClientMessage, tag="hello", kw_only=True, frozen=True):
    name: Name
    token: Token | None = None


class ListTables(ClientMessage, tag="list_tables", kw_only=True, frozen=True):
    """Watch one page of the lobby list: ``limit`` tables from ``offset`` (oldest first)."""

    offset: PageOffset = 0
    limit: PageLimit = PAGE_DEFAULT


class CreateTable(ClientMessage, tag="create_table", kw_only=True, frozen=True):
    players: Players
    options: Options = Options()
    private: bool = False
    turn_seconds: TurnSeconds | None = None
    rated: bool = True  # whether its games count for ratings (`docs/ratings.md`)


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
    rated: bool = True


class Act(ClientMessage, tag="act", kw_only=True, frozen=True):
    table_id: TableId
    action: ActionView  # checked against the rules by the table (`WizardGame.check`)


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
    except RecursionError:  # msgspec's guard against deep nesting
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


__all__ = [
    "CLIENT_TYPES",
    "PAGE_DEFAULT",
    "PAGE_MAX",
    "Act",
    "AddBot",
    "Analyse",
    "AnyClientMessage",
    "Chat",
    "ClientMessage",
    "CreateTable",
    "Hello",
    "JoinTable",
    "LeaveTable",
    "Level",
    "ListTables",
    "Ping",
    "PlayBots",
    "Rematch",
    "RemoveBot",
    "Spectate",
    "StartGame",
    "Sync",
    "decode_client",
    "message_id_of",
    "message_type_of",
]
