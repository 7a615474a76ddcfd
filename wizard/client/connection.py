"""`Client`: one player's websocket connection (see `wizard.client` for the tour)."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import random
import time
from collections import deque
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import msgspec
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from .messages import (
    RATE_LIMITED,
    Ack,
    Act,
    ActionView,
    AddBot,
    Answer,
    ClientError,
    ClientMessage,
    ConnectionLost,
    CreateTable,
    Error,
    Hello,
    JoinTable,
    LeaveTable,
    Level,
    ListTables,
    Options,
    Ping,
    PlayBots,
    Rematch,
    ServerError,
    ServerMessage,
    Spectate,
    StartGame,
    Sync,
    TableClosed,
    TableInfo,
    Tables,
    Update,
    Welcome,
    decoder,
    encoder,
)


@dataclass
class _Pending:
    request: ClientMessage
    future: asyncio.Future[Answer]
    answer: Answer


class Client:
    """One player's connection: ``await connect()`` (or ``async with``), requests, messages.

    ``reconnect_seconds`` bounds how long a dropped socket is retried (with
    backoff) before the client gives up with `ConnectionLost`; 0 never retries.
    A request refused with ``rate_limited`` is sent again after
    ``rate_limit_pause`` seconds (0: raise `ServerError` instead).
    Messages are read with `recv` or ``async for``; at most ``max_queued`` wait
    (the oldest are dropped past that and counted in ``dropped``).
    """

    def __init__(self, url: str, name: str, *, token: str | None = None,
                 reconnect_seconds: float = 30.0, request_timeout: float = 30.0,
                 open_timeout: float = 10.0, max_queued: int = 10_000,
                 rate_limit_pause: float = 0.5, seed: int | None = None) -> None:
        self.url = url
        self.name = name
        self.token = token
        self.player_id: str | None = None
        self.reconnect_seconds = reconnect_seconds
        self.request_timeout = request_timeout
        self.open_timeout = open_timeout
        self.tables: dict[str, TableInfo] = {}
        self.updates: dict[str, Update] = {}
        self.reconnects = 0
        self.disconnects = 0
        self.version_gaps = 0
        self.rate_limited = 0
        self.dropped = 0
        self.rate_limit_pause = rate_limit_pause
        self._queue: deque[ServerMessage] = deque(maxlen=max_queued)
        self._readable = asyncio.Event()
        self._pending: dict[int, _Pending] = {}
        self._ids = itertools.count(1)
        self._ws: ClientConnection | None = None
        self._runner: asyncio.Task[None] | None = None
        self._connected = asyncio.Event()
        self._closing = False
        self._lost: ConnectionLost | None = None
        self._rng = random.Random(seed)
        self._background: set[asyncio.Task[None]] = set()

    # -- lifecycle ---------------------------------------------------------------------

    async def connect(self) -> Welcome:
        """Open the socket and say ``hello`` (with the token, if any); returns the welcome.

        Raises `ConnectionLost` when the server cannot be reached or refuses the
        handshake, `ServerError` (``unknown_token``) for a token it does not know.
        """
        if self._runner is not None:
            raise ClientError("already connected")
        self._ws = await self._open()
        self._runner = asyncio.get_running_loop().create_task(self._run())
        try:
            answer = await self.request(Hello(name=self.name, token=self.token))
        except BaseException:
            await self.close()
            raise
        found = answer.first(Welcome)
        if found is None:  # pragma: no cover - the server always welcomes before the ack
            raise ClientError("the server acknowledged hello without a welcome")
        return found[0]

    async def close(self) -> None:
        """Close the socket; pending requests fail with `ConnectionLost`. Idempotent."""
        self._closing = True
        if self._ws is not None:
            with contextlib.suppress(Exception):
                await self._ws.close()
        if self._runner is not None:
            self._runner.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._runner
        self._fail_pending(ConnectionLost("client closed"))

    async def __aenter__(self) -> Client:
        await self.connect()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    @property
    def connected(self) -> bool:
        return self._connected.is_set()

    # -- requests ----------------------------------------------------------------------

    async def request(self, message: ClientMessage, *,
                      timeout: float | None = None) -> Answer:
        """Send ``message`` with a fresh ``id`` and wait for its ``ack``.

        A ``rate_limited`` answer (nothing changed) is counted in ``rate_limited``
        and the request is sent again after ``rate_limit_pause`` seconds, until
        ``timeout``. Raises `ServerError` when the server answers any other
        ``error`` (or ``rate_limited`` with a pause of 0), `ConnectionLost` when
        the socket closes first, `TimeoutError` after ``timeout`` seconds
        (default ``request_timeout``).
        """
        limit = timeout or self.request_timeout
        deadline = time.monotonic() + limit
        while True:
            try:
                return await self._request_once(message, max(0.001, deadline - time.monotonic()))
            except ServerError as exc:
                if exc.code != RATE_LIMITED or self.rate_limit_pause <= 0:
                    raise
                self.rate_limited += 1
                if time.monotonic() + self.rate_limit_pause >= deadline:
                    raise TimeoutError(f"rate_limited for {limit:g} s") from None
                await asyncio.sleep(self.rate_limit_pause)

    async def _request_once(self, message: ClientMessage, timeout: float) -> Answer:
        mid = next(self._ids)
        message = msgspec.structs.replace(message, id=mid)
        future: asyncio.Future[Answer] = asyncio.get_running_loop().create_future()
        answer = Answer(sent=time.perf_counter())
        self._pending[mid] = _Pending(message, future, answer)
        try:
            await self.send(message)
            answer.sent = time.perf_counter()
            # not `wait_for`: on 3.11 it can swallow a cancellation that meets the answer
            async with asyncio.timeout(timeout):
                return await future
        finally:
            self._pending.pop(mid, None)

    async def send(self, message: ClientMessage) -> None:
        """Send without waiting for an answer (an ``error`` for it still arrives in `recv`)."""
        if self._runner is None:
            raise ClientError("not connected: call connect() first")
        ws = self._ws
        if ws is None or (not self.connected and not isinstance(message, Hello)):
            await self._wait_connected()
            ws = self._ws
        assert ws is not None
        try:
            await ws.send(encoder.encode(message).decode())
        except ConnectionClosed as exc:
            raise ConnectionLost(f"the socket closed: {exc}") from None

    async def play_bots(self, players: int = 4, level: Level = "medium", *,
                        options: Options | None = None, turn_seconds: int | None = 0) -> str:
        """Start a private game against bots; returns its table id (its first update follows)."""
        known = set(self.tables)
        answer = await self.request(PlayBots(players=players, level=level,
                                             options=options or Options(),
                                             turn_seconds=turn_seconds))
        return self._new_table(answer, known)

    async def create_table(self, players: int = 4, *, options: Options | None = None,
                           private: bool = False, turn_seconds: int | None = None) -> str:
        """Create a table you host (seat 0); returns its id."""
        known = set(self.tables)
        answer = await self.request(CreateTable(players=players, options=options or Options(),
                                                private=private, turn_seconds=turn_seconds))
        return self._new_table(answer, known)

    async def join(self, table_id: str, seat: int | None = None, *,
                   invite: str | None = None) -> None:
        """Sit down; a private table needs its ``invite`` (``client.tables[id].invite`` of
        someone at it), else `ServerError` ``invite_required``."""
        await self.request(JoinTable(table_id=table_id, seat=seat, invite=invite))

    async def add_bot(self, table_id: str, level: Level = "medium",
                      seat: int | None = None) -> None:
        """Host only: a bot of ``level`` in ``seat`` (default the first free one)."""
        await self.request(AddBot(table_id=table_id, level=level, seat=seat))

    async def start_game(self, table_id: str) -> None:
        """Host only, every seat filled: the first ``update`` follows."""
        await self.request(StartGame(table_id=table_id))

    async def spectate(self, table_id: str, *, invite: str | None = None) -> None:
        await self.request(Spectate(table_id=table_id, invite=invite))

    async def leave(self, table_id: str) -> None:
        await self.request(LeaveTable(table_id=table_id))

    async def act(self, table_id: str, action: ActionView | dict[str, Any]) -> Answer:
        """Play an engine action: as an update lists it (``{"type": "bid", "value": 1}``),
        or its struct (`ActionView`).

        Raises `ServerError` (``not_your_turn``, ``illegal_action``, ...) when refused, and
        `msgspec.ValidationError` (nothing sent) for an object that is no action.
        """
        typed = msgspec.convert(action, ActionView) if isinstance(action, dict) else action
        return await self.request(Act(table_id=table_id, action=typed))

    async def sync(self, table_id: str) -> None:
        await self.request(Sync(table_id=table_id))

    async def rematch(self, table_id: str) -> None:
        await self.request(Rematch(table_id=table_id))

    async def list_tables(self) -> list[TableInfo]:
        answer = await self.request(ListTables())
        found = answer.first(Tables)
        return found[0].tables if found else []

    async def ping(self) -> float:
        """Round trip of a ``ping`` in seconds."""
        answer = await self.request(Ping())
        return time.perf_counter() - answer.sent

    # -- state -------------------------------------------------------------------------

    def is_my_turn(self, table_id: str) -> bool:
        """True when the latest update of the table offers this seat legal actions."""
        update = self.updates.get(table_id)
        return update is not None and bool(update.observation.get("legal_actions"))

    def is_finished(self, table_id: str) -> bool:
        update = self.updates.get(table_id)
        return update is not None and update.observation.get("phase") == "finished"

    def legal_actions(self, table_id: str) -> list[dict[str, Any]]:
        update = self.updates.get(table_id)
        return list(update.observation.get("legal_actions", ())) if update else []

    # -- messages ----------------------------------------------------------------------

    async def recv(self, timeout: float | None = None) -> ServerMessage:
        """The next message received; raises `ConnectionLost` once the client gave up."""
        async with asyncio.timeout(timeout):
            while not self._queue:
                if self._lost is not None:
                    raise self._lost
                self._readable.clear()
                await self._readable.wait()
        return self._queue.popleft()

    def __aiter__(self) -> AsyncIterator[ServerMessage]:
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[ServerMessage]:
        while True:
            try:
                yield await self.recv()
            except ConnectionLost:
                if self._closing:
                    return
                raise

    # -- internals ---------------------------------------------------------------------

    async def _open(self) -> ClientConnection:
        try:
            return await connect(self.url, open_timeout=self.open_timeout, close_timeout=2,
                                 max_size=2**22)
        except (OSError, InvalidHandshake, TimeoutError) as exc:
            raise ConnectionLost(f"cannot connect to {self.url}: {exc}") from None

    async def _wait_connected(self) -> None:
        if self._lost is not None:
            raise self._lost
        waiter = asyncio.ensure_future(self._connected.wait())
        runner = self._runner
        done_or_not = [waiter] if runner is None else [waiter, runner]
        await asyncio.wait(done_or_not, return_when=asyncio.FIRST_COMPLETED)
        waiter.cancel()
        if self._lost is not None:
            raise self._lost

    async def _run(self) -> None:
        """Read frames until the socket closes; then reopen it and say hello with the token."""
        try:
            while True:
                ws = self._ws
                assert ws is not None
                self._connected.set()
                try:
                    async for frame in ws:
                        self._received(frame)
                except ConnectionClosed:
                    pass
                self._connected.clear()
                self._fail_pending(ConnectionLost("the socket closed before the answer"))
                if self._closing:
                    return
                self.disconnects += 1
                self._ws = await self._reopen()
                self.reconnects += 1
        except ConnectionLost as exc:
            self._lost = exc
        finally:
            self._connected.clear()
            if self._lost is None:
                self._lost = ConnectionLost("client closed")
            self._readable.set()

    async def _reopen(self) -> ClientConnection:
        """A new socket that has said hello with the token, with backoff, or `ConnectionLost`."""
        deadline = time.monotonic() + self.reconnect_seconds
        delay = 0.1
        while True:
            if self.token is None or time.monotonic() >= deadline:
                raise ConnectionLost(f"the connection to {self.url} was lost")
            await asyncio.sleep(delay * (0.5 + self._rng.random()))
            delay = min(2.0, delay * 2)
            try:
                ws = await self._open()
                await ws.send(encoder.encode(Hello(name=self.name, token=self.token,
                                                    id=next(self._ids))).decode())
                async with asyncio.timeout(self.open_timeout):
                    first = await ws.recv()
            except (ConnectionLost, ConnectionClosed, TimeoutError):
                continue
            message = decoder.decode(first)
            if isinstance(message, Error):  # e.g. unknown_token: the server forgot us
                await ws.close()
                raise ConnectionLost(f"reconnecting refused: {message.code}: {message.message}")
            # the rest (table + update for each table, then the ack) is read by `_run`
            self._received(first)
            return ws

    def _received(self, frame: str | bytes) -> None:
        try:
            message = decoder.decode(frame)
        except msgspec.DecodeError:
            return  # a message type this client does not know yet: newer server
        now = time.perf_counter()
        for pending in self._pending.values():
            pending.answer.messages.append(message)
            pending.answer.arrived.append(now)
        if isinstance(message, Ack | Error):
            self._answered(message)
            if isinstance(message, Ack) or message.id in self._pending:
                return
        elif isinstance(message, Welcome):
            self.player_id, self.token = message.player_id, message.token
        elif isinstance(message, TableInfo):
            self.tables[message.table_id] = message
        elif isinstance(message, Update):
            self._update(message)
        elif isinstance(message, TableClosed):
            self.tables.pop(message.table_id, None)
            self.updates.pop(message.table_id, None)
        if len(self._queue) == self._queue.maxlen:
            self.dropped += 1
        self._queue.append(message)
        self._readable.set()

    def _answered(self, message: Ack | Error) -> None:
        pending = self._pending.get(message.id) if message.id is not None else None
        if pending is None or pending.future.done():
            return
        if isinstance(message, Ack):
            pending.future.set_result(pending.answer)
        else:
            pending.future.set_exception(ServerError(message, pending.request))

    def _update(self, update: Update) -> None:
        previous = self.updates.get(update.table_id)
        if previous is not None and update.v < previous.v:
            return  # older than what we hold (e.g. re-sent during a reconnect)
        if previous is not None and update.v > previous.v + 1 and update.events:
            self.version_gaps += 1
            task = asyncio.get_running_loop().create_task(self._resync(update.table_id))
            self._background.add(task)  # a reference, or the task may be collected mid-way
            task.add_done_callback(self._background.discard)
        self.updates[update.table_id] = update

    async def _resync(self, table_id: str) -> None:
        with contextlib.suppress(ClientError, TimeoutError):
            await self.send(Sync(table_id=table_id))

    def _fail_pending(self, error: ConnectionLost) -> None:
        for pending in list(self._pending.values()):
            if not pending.future.done():
                pending.future.set_exception(error)

    def _new_table(self, answer: Answer, known: set[str]) -> str:
        for message in answer.messages:
            if isinstance(message, TableInfo) and message.table_id not in known:
                return message.table_id
        raise ClientError("the server acknowledged without a new table")  # pragma: no cover



__all__ = ["Client"]
