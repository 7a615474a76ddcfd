"""`create_app`: the Starlette application — routes, the websocket endpoint, the lifespan.

>>> from wizard.server.settings import Settings
>>> app = create_app(Settings())
>>> sorted(r.path for r in app.routes)[:3]
['/', '/api/tables', '/healthz']
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from pathlib import Path

import msgspec
import structlog
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket

from wizard.ai.decision import Decider, InlineDecider

from .connection import Connection
from .handlers import Dispatcher
from .history import History
from .lobby import Lobby
from .metrics import ServerMetrics
from .protocol import Tables
from .settings import Settings
from .store import SqliteStore
from .table import TableServices

log = structlog.get_logger(__name__)

LAG_TICK_SECONDS = 0.25


class ServerState:
    """What the routes share; ``app.state.server`` (tests reach in through it)."""

    def __init__(self, settings: Settings, decider: Decider, store: SqliteStore) -> None:
        self.settings = settings
        self.decider = decider
        self.store = store
        self.metrics = ServerMetrics()
        self.lobby = Lobby(TableServices(settings, decider, store, self.metrics))
        self.dispatcher = Dispatcher(self.lobby, settings, self.metrics)
        self.decider_started = False
        self._register_gauges()

    def _register_gauges(self) -> None:
        registry = self.metrics.registry
        registry.callback("wizard_tables", "Open tables, by status.", ("status",),
                          lambda: [((s,), n) for s, n in self.lobby.counts_by_status().items()])
        registry.callback("wizard_players", "Players the server remembers, and how many are "
                          "connected.", ("state",), self._player_counts)
        registry.callback("wizard_ready", "1 when the decider and the store are ready.", (),
                          lambda: [((), float(self.ready))])

    def _player_counts(self) -> list[tuple[tuple[str, ...], float]]:
        players = self.lobby.players_by_token.values()
        connected = sum(1 for p in players if p.connected)
        return [(("known",), len(players)), (("connected",), connected)]

    @property
    def ready(self) -> bool:
        return self.decider_started and self.store.is_open


def create_app(settings: Settings | None = None, decider: Decider | None = None,
               store: SqliteStore | None = None) -> Starlette:
    """The server as an ASGI app; bots decide only through ``decider`` (default inline).

    The lifespan opens the store (``settings.db_path``), rebuilds every
    unfinished game from it, starts the decider (if it has ``start``) and the
    lobby's sweeper, and closes them again in reverse order.
    """
    settings = settings or Settings()
    state = ServerState(settings, decider or InlineDecider(),
                        store or SqliteStore(settings.db_path))
    static_dir = Path(settings.static_dir)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await state.store.open()
        start = getattr(state.decider, "start", None)
        if start is not None:
            await start()
        state.decider_started = True
        restored = await state.lobby.restore()
        if restored:
            log.info("tables_restored", tables=restored)
        state.lobby.start()
        lag = asyncio.get_running_loop().create_task(_watch_loop_lag(state.metrics))
        log.info("server_started", host=settings.host, port=settings.port)
        try:
            yield
        finally:
            lag.cancel()
            await state.lobby.close()
            state.decider_started = False
            close = getattr(state.decider, "close", None)
            if close is not None:
                await close()
            await state.store.close()
            log.info("server_stopped")

    async def index(request: Request) -> Response:
        page = static_dir / "index.html"
        if not page.is_file():
            return PlainTextResponse("Wizard online: no client installed", status_code=404)
        return FileResponse(page)

    async def tables(request: Request) -> Response:
        body = msgspec.json.encode(Tables(state.lobby.public_tables()))
        return Response(body, media_type="application/json")

    async def healthz(request: Request) -> Response:
        return Response(b'{"status":"ok"}', media_type="application/json")

    async def readyz(request: Request) -> Response:
        body = msgspec.json.encode({"ready": state.ready, "decider": state.decider_started,
                                    "store": state.store.is_open})
        return Response(body, status_code=200 if state.ready else 503,
                        media_type="application/json")

    async def metrics(request: Request) -> Response:
        text = state.metrics.registry.render()
        pool_metrics = getattr(state.decider, "metrics", None)  # the inference pool's own
        if pool_metrics is not None:
            text += pool_metrics.render()
        return PlainTextResponse(text, media_type=state.metrics.registry.content_type)

    async def websocket(ws: WebSocket) -> None:
        await serve_connection(state, ws)

    app = Starlette(
        routes=[
            Route("/", index),
            Route("/api/tables", tables),
            Route("/healthz", healthz),
            Route("/readyz", readyz),
            Route("/metrics", metrics),
            WebSocketRoute("/ws", websocket),
            *History(state.store).routes(),
            Mount("/static", StaticFiles(directory=static_dir, check_dir=False), name="static"),
        ],
        lifespan=lifespan,
    )
    app.state.server = state
    return app


async def serve_connection(state: ServerState, ws: WebSocket) -> None:
    """Run one websocket: read frames in order, hand each to the dispatcher, clean up."""
    await ws.accept()
    connection = Connection(ws, queue_size=state.settings.send_queue_size, metrics=state.metrics)
    connection.start()
    state.metrics.connections.inc()
    dispatcher = state.dispatcher
    try:
        while connection.is_open:
            frame = await ws.receive()
            if frame["type"] == "websocket.disconnect":
                break
            text = frame.get("text")
            await dispatcher.handle_frame(connection, text if text is not None
                                          else frame.get("bytes") or b"")
    except Exception:
        log.exception("connection_failed", conn_id=connection.conn_id)
    finally:
        state.metrics.connections.dec()
        dispatcher.connection_closed(connection)
        try:
            await state.lobby.connection_closed(connection)
        finally:
            if not connection.is_open:
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(connection.wait_closed(), timeout=2.0)
            connection.finished()


async def _watch_loop_lag(metrics: ServerMetrics) -> None:
    while True:
        due = time.monotonic() + LAG_TICK_SECONDS
        await asyncio.sleep(LAG_TICK_SECONDS)
        metrics.loop_lag.observe(max(0.0, time.monotonic() - due))


__all__ = ["ServerState", "create_app", "serve_connection"]
