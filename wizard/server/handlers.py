"""`Dispatcher`: one frame in → decoded once → one handler from a dict → ``ack`` or ``error``.

A handler either returns (the request is done; its ``ack`` goes out after
every message the request caused, so a client holding the ``ack`` already
has the resulting state) or raises `ProtocolError` (an ``error`` with a
stable code goes out, and nothing changed).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Any

import structlog

from wizard.ai.levels import BotLevel
from wizard.engine import GameOptions, action_from_dict

from .connection import CLOSE_TOO_BIG, Connection
from .lobby import Lobby
from .metrics import ServerMetrics
from .protocol import (
    Ack,
    Act,
    AddBot,
    Chat,
    ChatMessage,
    ClientMessage,
    CreateTable,
    Error,
    ErrorCode,
    Hello,
    JoinTable,
    LeaveTable,
    ListTables,
    Options,
    Ping,
    PlayBots,
    Pong,
    ProtocolError,
    Rematch,
    RemoveBot,
    Spectate,
    StartGame,
    Sync,
    decode_client,
    message_id_of,
    message_type_of,
)
from .settings import Settings

log = structlog.get_logger(__name__)

Handler = Callable[[Connection, Any], Awaitable[None]]


class TokenBucket:
    """``capacity`` tokens, refilled at ``rate`` per second; `take` says whether one was left."""

    __slots__ = ("capacity", "rate", "stamp", "tokens")

    def __init__(self, rate: float, capacity: float) -> None:
        self.rate, self.capacity = rate, capacity
        self.tokens, self.stamp = capacity, time.monotonic()

    def take(self, now: float | None = None) -> bool:
        now = time.monotonic() if now is None else now
        self.tokens = min(self.capacity, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


def _options(options: Options) -> GameOptions:
    return GameOptions(options.hidden_bids, options.forbid_even_bids,
                       options.wizard_trump_dealer_chooses)


class Dispatcher:
    """Turns client frames into lobby and table calls; owns no state of its own."""

    def __init__(self, lobby: Lobby, settings: Settings, metrics: ServerMetrics) -> None:
        self.lobby = lobby
        self.settings = settings
        self.metrics = metrics
        self.handlers: dict[type[ClientMessage], Handler] = {
            Hello: self.hello,
            ListTables: self.list_tables,
            CreateTable: self.create_table,
            JoinTable: self.join_table,
            LeaveTable: self.leave_table,
            Spectate: self.spectate,
            AddBot: self.add_bot,
            RemoveBot: self.remove_bot,
            StartGame: self.start_game,
            PlayBots: self.play_bots,
            Act: self.act,
            Sync: self.sync,
            Rematch: self.rematch,
            Chat: self.chat,
            Ping: self.ping,
        }
        self._chat_buckets: dict[int, TokenBucket] = {}

    async def handle_frame(self, connection: Connection, data: str | bytes) -> None:
        """Handle one text (or binary) frame from ``connection``."""
        if isinstance(data, bytes):
            self._error(connection, message_id_of(data), ErrorCode.BAD_JSON,
                        "frames must be JSON text, not binary")
            return
        limit = self.settings.max_message_bytes
        if len(data) > limit or (len(data) * 4 > limit and len(data.encode()) > limit):
            self._error(connection, None, ErrorCode.TOO_LARGE,
                        f"messages may be at most {limit} bytes")
            connection.close(CLOSE_TOO_BIG, "message too big")
            return
        try:
            message = decode_client(data)
        except ProtocolError as exc:
            self.metrics.messages_in.inc("invalid")
            self._error(connection, message_id_of(data), exc.code, exc.message)
            return
        kind = message_type_of(message)
        self.metrics.messages_in.inc(kind)
        try:
            if connection.player is None and not isinstance(message, Hello | Ping):
                raise ProtocolError(ErrorCode.NOT_IDENTIFIED, "say hello first")
            await self.handlers[type(message)](connection, message)
        except ProtocolError as exc:
            self._error(connection, message.id, exc.code, exc.message)
            return
        except Exception:
            log.exception("handler_failed", type=kind, conn_id=connection.conn_id)
            self._error(connection, message.id, ErrorCode.INTERNAL, "internal server error")
            return
        if message.id is not None:
            connection.send(Ack(message.id))

    def _error(self, connection: Connection, message_id: int | None, code: ErrorCode,
               text: str) -> None:
        self.metrics.errors.inc(code.value)
        connection.send(Error(message_id, code.value, text))

    def connection_closed(self, connection: Connection) -> None:
        self._chat_buckets.pop(connection.conn_id, None)

    @staticmethod
    def _player(connection: Connection) -> Any:
        assert connection.player is not None
        return connection.player

    # --- handlers -------------------------------------------------------------------------

    async def hello(self, connection: Connection, message: Hello) -> None:
        if connection.player is not None:
            raise ProtocolError(ErrorCode.ALREADY_IDENTIFIED, "this connection already said hello")
        await self.lobby.identify(connection, message.name, message.token)

    async def list_tables(self, connection: Connection, message: ListTables) -> None:
        self.lobby.watch_tables(connection)

    async def create_table(self, connection: Connection, message: CreateTable) -> None:
        await self.lobby.create_table(self._player(connection), players=message.players,
                                      options=_options(message.options), private=message.private,
                                      turn_seconds=message.turn_seconds)

    async def join_table(self, connection: Connection, message: JoinTable) -> None:
        await self.lobby.table(message.table_id).join(self._player(connection), message.seat)

    async def leave_table(self, connection: Connection, message: LeaveTable) -> None:
        await self.lobby.table(message.table_id).leave(self._player(connection))

    async def spectate(self, connection: Connection, message: Spectate) -> None:
        await self.lobby.table(message.table_id).spectate(connection)

    async def add_bot(self, connection: Connection, message: AddBot) -> None:
        table = self.lobby.table(message.table_id)
        await table.add_bot(self._player(connection), BotLevel(message.level), message.seat)

    async def remove_bot(self, connection: Connection, message: RemoveBot) -> None:
        table = self.lobby.table(message.table_id)
        await table.remove_bot(self._player(connection), message.seat)

    async def start_game(self, connection: Connection, message: StartGame) -> None:
        await self.lobby.table(message.table_id).start(self._player(connection))

    async def play_bots(self, connection: Connection, message: PlayBots) -> None:
        player = self._player(connection)
        table = await self.lobby.create_table(
            player, players=message.players, options=_options(message.options), private=True,
            turn_seconds=message.turn_seconds)
        level = BotLevel(message.level)
        for _ in range(message.players - 1):
            await table.add_bot(player, level, None)
        await table.start(player)

    async def act(self, connection: Connection, message: Act) -> None:
        try:
            action = action_from_dict(message.action)
        except ValueError as exc:
            raise ProtocolError(ErrorCode.BAD_MESSAGE, f"action: {exc}") from None
        await self.lobby.table(message.table_id).act(self._player(connection), action)

    async def sync(self, connection: Connection, message: Sync) -> None:
        await self.lobby.table(message.table_id).sync(connection)

    async def rematch(self, connection: Connection, message: Rematch) -> None:
        await self.lobby.table(message.table_id).rematch(self._player(connection))

    async def chat(self, connection: Connection, message: Chat) -> None:
        table = self.lobby.table(message.table_id)
        player = self._player(connection)
        if table.seat_of(player) is None and connection not in table.spectators:
            raise ProtocolError(ErrorCode.NOT_SEATED,
                                f"you neither sit at nor watch table {message.table_id}")
        bucket = self._chat_buckets.get(connection.conn_id)
        if bucket is None:
            bucket = self._chat_buckets[connection.conn_id] = TokenBucket(
                self.settings.chat_per_minute / 60.0, 5)
        if not bucket.take():
            raise ProtocolError(ErrorCode.RATE_LIMITED, "too many chat messages; wait a moment")
        table.chat(ChatMessage(table.table_id, player.name, message.text, player.player_id))

    async def ping(self, connection: Connection, message: Ping) -> None:
        connection.send(Pong())


__all__ = ["Dispatcher", "TokenBucket"]
