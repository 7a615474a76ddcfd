"""`Dispatcher`: one frame in → decoded once → one handler from a dict → ``ack`` or ``error``.

A handler either returns (the request is done; its ``ack`` goes out after
every message the request caused, so a client holding the ``ack`` already
has the resulting state) or raises `ProtocolError` (an ``error`` with a
stable code goes out, and nothing changed).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import structlog

from wizard.ai.levels import BotLevel
from wizard.engine import GameOptions
from wizard.protocol import (
    Ack,
    Act,
    AddBot,
    Chat,
    ChatMessage,
    ClientMessage,
    CloseReason,
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
    engine_action,
    message_id_of,
    message_type_of,
)

from ..metrics import ServerMetrics
from ..settings import Settings
from ..storage.errors import StoreFullError
from ..tables.guards import check_game_length, require_at_table
from ..tables.lobby import Lobby
from .connection import CLOSE_POLICY, CLOSE_TOO_BIG, Connection
from .limits import Strikes, TokenBucket

log = structlog.get_logger(__name__)

CHAT_BURST = 5

Handler = Callable[[Connection, Any], Awaitable[None]]


def _options(options: Options, players: int) -> GameOptions:
    """The engine's options of a new table; ``bad_message`` for more rounds than it deals."""
    game_options = GameOptions(options.hidden_bids, options.forbid_even_bids,
                               options.wizard_trump_dealer_chooses, options.rounds)
    check_game_length(players, game_options)
    return game_options


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

    def connection_opened(self, connection: Connection) -> None:
        """Give a new connection its budgets and its idle timer."""
        settings = self.settings
        clock = connection.clock  # the loop's
        connection.budget = TokenBucket(settings.messages_per_second, settings.message_burst,
                                        clock)
        connection.strikes = Strikes(settings.rate_limit_strikes,
                                     settings.rate_limit_window_seconds, clock)
        connection.chat_budget = TokenBucket(settings.chat_per_minute / 60.0, CHAT_BURST, clock)
        connection.watch_idle(settings.hello_timeout_seconds, settings.client_idle_seconds)

    async def handle_frame(self, connection: Connection, data: str | bytes) -> None:
        """Handle one text (or binary) frame from ``connection``."""
        connection.touch()
        budget = connection.budget
        if budget is not None and not budget.take():
            self._over_budget(connection, "messages", message_id_of(data),
                              f"more than {self.settings.messages_per_second:g} messages a "
                              "second; slow down")
            return
        if isinstance(data, bytes):
            self._error(connection, message_id_of(data), ErrorCode.BAD_JSON,
                        "frames must be JSON text, not binary")
            return
        limit = self.settings.max_message_bytes
        if len(data) > limit or (len(data) * 4 > limit and len(data.encode()) > limit):
            self._error(connection, None, ErrorCode.TOO_LARGE,
                        f"messages may be at most {limit} bytes")
            connection.close(CLOSE_TOO_BIG, "message too big", cause="too_large")
            return
        try:
            message = decode_client(data)
        except ProtocolError as exc:
            self.metrics.messages_in.labels("invalid").inc()
            self._error(connection, message_id_of(data), exc.code, exc.message)
            return
        kind = message_type_of(message)
        self.metrics.messages_in.labels(kind).inc()
        try:
            if connection.player is None and not isinstance(message, Hello | Ping):
                raise ProtocolError(ErrorCode.NOT_IDENTIFIED, "say hello first")
            await self.handlers[type(message)](connection, message)
        except ProtocolError as exc:
            self._error(connection, message.id, exc.code, exc.message)
            if exc.code is ErrorCode.RATE_LIMITED:
                self._strike(connection)
            return
        except StoreFullError:  # logged once per episode by the store, not per request
            self._error(connection, message.id, ErrorCode.UNAVAILABLE,
                        "the server cannot save right now; try again")
            return
        except Exception:
            log.exception("handler_failed", type=kind, conn_id=connection.conn_id)
            self._error(connection, message.id, ErrorCode.INTERNAL, "internal server error")
            return
        if message.id is not None:
            connection.send(Ack(message.id))

    def _error(self, connection: Connection, message_id: int | None, code: ErrorCode,
               text: str) -> None:
        self.metrics.errors.labels(code.value).inc()
        connection.send(Error(message_id, code.value, text))

    def _over_budget(self, connection: Connection, budget: str, message_id: int | None,
                     text: str) -> None:
        """``error rate_limited``; the connection is closed (1008) once the strikes add up."""
        self.metrics.rate_limited.labels(budget).inc()
        self._error(connection, message_id, ErrorCode.RATE_LIMITED, text)
        self._strike(connection)

    @staticmethod
    def _strike(connection: Connection) -> None:
        """One more ``rate_limited``: persistent abuse closes the connection (1008)."""
        strikes = connection.strikes
        if strikes is not None and strikes.add():
            connection.close(CLOSE_POLICY, "rate limit", cause="rate_limit")

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
        self.lobby.watch_tables(connection, message.offset, message.limit)

    async def create_table(self, connection: Connection, message: CreateTable) -> None:
        await self.lobby.create_table(self._player(connection), players=message.players,
                                      options=_options(message.options, message.players),
                                      private=message.private,
                                      turn_seconds=message.turn_seconds,
                                      address=connection.address, rated=message.rated)

    async def join_table(self, connection: Connection, message: JoinTable) -> None:
        player = self._player(connection)
        table = self.lobby.table_to_enter(player, message.table_id, message.invite)
        await table.join(player, message.seat)

    async def leave_table(self, connection: Connection, message: LeaveTable) -> None:
        table = self.lobby.table(message.table_id)
        await table.leave(self._player(connection))
        self.lobby.stopped_watching(table, connection)

    async def spectate(self, connection: Connection, message: Spectate) -> None:
        table = self.lobby.table_to_enter(self._player(connection), message.table_id,
                                          message.invite)
        await table.spectate(connection)
        self.lobby.started_watching(table, connection)

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
            player, players=message.players, options=_options(message.options, message.players),
            private=True,
            # against bots there is no turn clock unless one is asked for
            turn_seconds=0 if message.turn_seconds is None else message.turn_seconds,
            address=connection.address, rated=message.rated)
        level = BotLevel(message.level)
        try:
            for _ in range(message.players - 1):
                await table.add_bot(player, level, None)
            await table.start(player)
        except BaseException:
            # all or nothing: a game that did not start leaves no waiting table behind
            await table.close(CloseReason.FAILED)
            raise

    async def act(self, connection: Connection, message: Act) -> None:
        # decoded in range already: the table checks it against the rules, once
        await self.lobby.table(message.table_id).act(self._player(connection),
                                                     engine_action(message.action))

    async def sync(self, connection: Connection, message: Sync) -> None:
        await self.lobby.table(message.table_id).sync(connection)

    async def rematch(self, connection: Connection, message: Rematch) -> None:
        await self.lobby.table(message.table_id).rematch(self._player(connection))

    async def chat(self, connection: Connection, message: Chat) -> None:
        table = self.lobby.table(message.table_id)
        player = self._player(connection)
        require_at_table(table, connection)
        bucket = connection.chat_budget
        if bucket is not None and not bucket.take():
            self.metrics.rate_limited.labels("chat").inc()
            raise ProtocolError(ErrorCode.RATE_LIMITED, "too many chat messages; wait a moment")
        table.chat(ChatMessage(table.table_id, player.name, message.text, player.player_id))

    async def ping(self, connection: Connection, message: Ping) -> None:
        connection.send(Pong())


__all__ = ["Dispatcher", "TokenBucket"]
