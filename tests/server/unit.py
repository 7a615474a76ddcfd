"""Pieces for unit tests of the lobby and the dispatcher: no app, no TestClient."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any, TypeVar, cast

from starlette.websockets import WebSocket

from wizard.ai.decision import InlineDecider
from wizard.server.clock import ManualClockLoop
from wizard.server.metrics import ServerMetrics
from wizard.server.net.connection import Connection
from wizard.server.net.handlers import Dispatcher
from wizard.server.settings import Settings
from wizard.server.storage.store import SqliteStore
from wizard.server.tables.lobby import Lobby
from wizard.server.tables.services import TableServices

from .conftest import fast_settings


class RecordingSocket:
    """A peer that reads everything at once; ``messages`` are the decoded frames."""

    def __init__(self) -> None:
        self.frames: list[str] = []
        self.closed: tuple[int, str] | None = None

    async def send_text(self, text: str) -> None:
        self.frames.append(text)

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        self.closed = (code, reason or "")

    @property
    def messages(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for frame in self.frames:
            decoded = json.loads(frame)
            out.extend(decoded if isinstance(decoded, list) else [decoded])
        return out


@asynccontextmanager
async def lobby_and_dispatcher(settings: Settings | None = None
                               ) -> AsyncIterator[tuple[Lobby, Dispatcher]]:
    """A lobby on an in-memory store and its dispatcher (call inside a running loop)."""
    settings = settings or fast_settings()
    metrics = ServerMetrics()
    store = SqliteStore(":memory:")
    await store.open()
    lobby = Lobby(TableServices(settings, InlineDecider(), store, metrics))
    try:
        yield lobby, Dispatcher(lobby, settings, metrics)
    finally:
        await lobby.close()
        await store.close()


def open_connection(dispatcher: Dispatcher) -> tuple[Connection, RecordingSocket]:
    """A started connection whose frames land in the returned socket."""
    socket = RecordingSocket()
    connection = Connection(cast(WebSocket, socket), queue_size=64,
                            metrics=dispatcher.metrics)
    connection.start()
    dispatcher.connection_opened(connection)
    return connection, socket


T = TypeVar("T")


def run_on_manual_clock(main: Callable[[ManualClockLoop], Awaitable[T]], *,
                        start: float = 1000.0, timeout: float = 10.0) -> T:
    """``main(loop)`` run on a `ManualClockLoop` at ``start``: time moves only when the
    test advances it. A test stuck waiting fails after ``timeout`` real seconds (a bound,
    never what decides the test)."""
    loop = ManualClockLoop(start)

    async def bounded() -> T:
        task = asyncio.current_task()
        assert task is not None
        watchdog = threading.Timer(timeout, loop.call_soon_threadsafe, (task.cancel,))
        watchdog.start()
        try:
            return await main(loop)
        except asyncio.CancelledError:
            raise TimeoutError(f"still waiting after {timeout:g} s (real time)") from None
        finally:
            watchdog.cancel()

    with asyncio.Runner(loop_factory=lambda: loop) as runner:
        return runner.run(bounded())
