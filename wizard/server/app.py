"""`create_app`: the Starlette application — routes, the websocket endpoint, the lifespan.

>>> from wizard.server.settings import Settings
>>> app = create_app(Settings())
>>> {"/", "/ws", "/metrics", "/healthz", "/readyz"} <= {r.path for r in app.routes}
True
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
from collections.abc import AsyncIterator

import msgspec
import structlog
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket

from wizard.ai.decision import Decider, InlineDecider
from wizard.protocol import PAGE_MAX, Analyse, ServerShutdown, encode

from .accounts.routes import account_routes
from .accounts.service import Accounts
from .analysis.jobs import AnalysisService, AnalysisSettings
from .analysis.runners import make_runner
from .metrics import CONTENT_TYPE, ServerMetrics
from .net.addresses import AddressCounts, capped, client_address
from .net.connection import CLOSE_GOING_AWAY, Connection
from .net.handlers import Dispatcher
from .net.headers import SecurityHeaders
from .net.limits import origin_allowed
from .net.responses import error_response
from .ratings.api import RatingRoutes
from .settings import Settings
from .storage.history import History
from .storage.store import SqliteStore
from .tables.bots import BotGate
from .tables.lobby import Lobby
from .tables.preview import preview_routes
from .tables.table import TableServices

log = structlog.get_logger(__name__)

LAG_TICK_SECONDS = 0.25
#: the garbage collector's generation thresholds once the server runs (`create_app`)
GC_THRESHOLDS = (10_000, 20, 20)
RETRY_AFTER_SECONDS = 5
# the settings a dashboard compares usage with (`wizard_limit{name=...}`)
LIMIT_GAUGES = ("max_connections", "max_tables", "max_tables_per_player", "max_spectators",
                "max_message_bytes", "send_queue_size", "send_queue_bytes", "messages_per_second",
                "message_burst", "max_connections_per_address", "max_tables_per_address")


class ServerState:
    """What the routes share; ``app.state.server`` (tests reach in through it)."""

    def __init__(self, settings: Settings, decider: Decider, store: SqliteStore) -> None:
        self.settings = settings
        self.decider = decider
        self.store = store
        self.metrics = ServerMetrics()
        self.lobby = Lobby(TableServices(settings, decider, store, self.metrics,
                                         bot_gate=BotGate(settings.bot_moves_per_turn)))
        self.dispatcher = Dispatcher(self.lobby, settings, self.metrics)
        self.accounts = Accounts(store, self.lobby, settings)
        self.analysis = AnalysisService(store, make_runner(decider), AnalysisSettings.of(settings))
        self.dispatcher.handlers[Analyse] = self.analysis.handle
        self.metrics.callback("wizard_analysis_jobs", "Game analyses: queued, running "
                              "now; completed, failed since start.", ("state",),
                              self.analysis.samples)
        self.decider_started = False
        self.connections: set[Connection] = set()
        self.connections_by_address = AddressCounts()
        self.shutting_down = False
        self._register_gauges()

    def _register_gauges(self) -> None:
        metrics = self.metrics
        metrics.callback("wizard_tables", "Open tables, by status.", ("status",),
                         lambda: [((s,), n) for s, n in self.lobby.counts_by_status().items()])
        metrics.callback("wizard_players", "Players the server remembers, and how many are "
                         "connected.", ("state",), self._player_counts)
        metrics.callback("wizard_ready", "1 when the decider and the store are ready.", (),
                         lambda: [((), float(self.ready))])
        metrics.callback("wizard_limit", "Configured limits (the WIZARD_* settings).", ("name",),
                         lambda: [((name,), float(getattr(self.settings, name)))
                                  for name in LIMIT_GAUGES])
        if self.decider.metrics is not None:  # the inference pool's counters, same page
            metrics.register(self.decider.metrics)

    def _player_counts(self) -> list[tuple[tuple[str, ...], float]]:
        players = self.lobby.players_by_token.values()
        connected = sum(1 for p in players if p.connected)
        return [(("known",), len(players)), (("connected",), connected)]

    @property
    def ready(self) -> bool:
        return (self.decider_started and self.decider.serving and self.store.is_open
                and not self.shutting_down)

    def refusal(self, ws: WebSocket) -> tuple[int, str, str] | None:
        """``(http status, reason, text)`` if this handshake must be refused, else None."""
        if self.shutting_down:
            return 503, "shutdown", "the server is shutting down; reconnect in a moment"
        if len(self.connections) >= self.settings.max_connections:
            return 503, "full", "the server is full; try again in a moment"
        limit = self.settings.max_connections_per_address
        address = client_address(ws.scope)
        if capped(address) and self.connections_by_address[address] >= limit:
            return 429, "address", (f"{limit} connections from your address are open already; "
                                    "close one and try again")
        if not origin_allowed(ws.headers.get("origin"), ws.headers.get("host"),
                              self.settings.allowed_origins):
            return 403, "origin", "websockets from this origin are not allowed"
        return None

    async def shutdown(self) -> None:
        """Graceful stop, within ``shutdown_seconds``; idempotent.

        New handshakes get 503; tables stop moving (bots, clocks, grace timers:
        they are restored as they are on the next start); the store commits what
        is queued; every client gets ``server_shutdown`` and a close (1001).
        """
        if self.shutting_down:
            return
        self.shutting_down = True
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.settings.shutdown_seconds
        log.info("server_shutting_down", connections=len(self.connections))
        await self.lobby.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.store.flush(),
                                   max(0.1, (deadline - loop.time()) / 2))
        text = encode(ServerShutdown())
        closing = tuple(self.connections)
        for connection in closing:
            connection.send_text(text, "server_shutdown")
            connection.close(CLOSE_GOING_AWAY, "server shutdown", cause="shutdown")
        writers = [loop.create_task(c.wait_closed()) for c in closing]
        if writers:
            await asyncio.wait(writers, timeout=max(0.1, deadline - loop.time()))
            for writer in writers:
                writer.cancel()


def create_app(settings: Settings | None = None, decider: Decider | None = None,
               store: SqliteStore | None = None, freeze_gc: bool = False) -> Starlette:
    """The server as an ASGI app; bots decide only through ``decider`` (default inline).

    ``freeze_gc`` (``wizard serve`` sets it): once started, everything alive is moved out
    of the garbage collector's generations (`gc.freeze`), so its collections stop
    re-scanning the long-lived objects (modules, policies, restored tables) each time;
    that was ~4 µs of the loop's ~37 µs per pooled bot decision (scripts/bench_pool.py).
    The youngest generation is then collected every 10,000 new objects instead of 700
    (`GC_THRESHOLDS`): every update and bot decision makes dozens of short-lived tuples,
    none of them in a reference cycle, and the collections they set off cost ~10 % of
    the server's CPU per table action (same-run A/B, docs/performance.md).

    Every deadline, idle time and budget reads the running loop's clock
    (`wizard.server.clock`); a test that moves time runs the app on a `ManualClockLoop`.

    The lifespan opens the store (``settings.db_path``), rebuilds every
    unfinished game from it, starts the decider and the
    lobby's sweeper, and closes them again in reverse order.
    """
    settings = settings or Settings()
    state = ServerState(settings, decider or InlineDecider(),
                        store or SqliteStore(
                            settings.db_path,
                            full_check_bytes=int(settings.db_full_check_mb * 1024 * 1024)))
    static_dir = settings.static_path()

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        state.shutting_down = False
        await state.store.open()
        await state.decider.start()
        state.decider_started = True
        restored = await state.lobby.restore()
        if restored:
            log.info("tables_restored", tables=restored)
        state.lobby.start()
        if freeze_gc:
            gc.collect()
            gc.freeze()
            gc.set_threshold(*GC_THRESHOLDS)
        lag = asyncio.get_running_loop().create_task(_watch_loop_lag(state.metrics))
        log.info("server_started", host=settings.host, port=settings.port,
                 url=f"http://{'127.0.0.1' if settings.host == '0.0.0.0' else settings.host}:"
                     f"{settings.port}/")
        try:
            yield
        finally:
            lag.cancel()
            await state.shutdown()  # done already under uvicorn (`cli.WizardServer`)
            await state.lobby.close()
            await state.analysis.close()
            state.decider_started = False
            await state.decider.close()
            await state.store.close()
            log.info("server_stopped")

    async def index(request: Request) -> Response:
        page = static_dir / "index.html"
        if not page.is_file():
            return PlainTextResponse("Wizard online: no client installed", status_code=404)
        return FileResponse(page)

    async def tables(request: Request) -> Response:
        try:
            offset = int(request.query_params.get("offset", 0))
            limit = int(request.query_params.get("limit", PAGE_MAX))
        except ValueError:
            offset, limit = -1, -1
        if offset < 0 or not 1 <= limit <= PAGE_MAX:
            return error_response(400, "bad_request",
                                  f"offset must be >= 0 and limit 1-{PAGE_MAX}")
        body = msgspec.json.encode(state.lobby.tables_page(offset, limit))
        return Response(body, media_type="application/json")

    async def healthz(request: Request) -> Response:
        return Response(b'{"status":"ok"}', media_type="application/json")

    async def readyz(request: Request) -> Response:
        # degraded: the decider started, but its workers are being replaced (bots fall back)
        body = msgspec.json.encode({"ready": state.ready, "decider": state.decider_started,
                                    "degraded": state.decider_started
                                    and not state.decider.serving,
                                    "store": state.store.is_open})
        return Response(body, status_code=200 if state.ready else 503,
                        media_type="application/json")

    async def metrics(request: Request) -> Response:
        return Response(state.metrics.render(), media_type=CONTENT_TYPE)

    async def websocket(ws: WebSocket) -> None:
        await serve_connection(state, ws)

    app = Starlette(
        routes=[
            Route("/", index),
            Route("/api/tables", tables),
            *preview_routes(state.lobby.table),
            Route("/healthz", healthz),
            Route("/readyz", readyz),
            Route("/metrics", metrics),
            WebSocketRoute("/ws", websocket),
            *state.analysis.routes(),
            *account_routes(state.accounts),
            *History(state.store).routes(),
            *RatingRoutes(state.store).routes(),
            Mount("/static", StaticFiles(directory=static_dir, check_dir=False), name="static"),
        ],
        middleware=[Middleware(SecurityHeaders)],
        lifespan=lifespan,
    )
    app.state.server = state
    return app


async def serve_connection(state: ServerState, ws: WebSocket) -> None:
    """Run one websocket: admit it, read frames in order, hand each to the dispatcher, clean up.

    A handshake over ``max_connections`` or during shutdown gets HTTP 503, one
    from a foreign browser origin 403, before it is accepted.
    """
    refusal = state.refusal(ws)
    if refusal is not None:
        status, reason, explanation = refusal
        state.metrics.connections_refused.labels(reason).inc()
        await _refuse(ws, status, explanation)
        return
    connection = Connection(ws, queue_size=state.settings.send_queue_size, metrics=state.metrics,
                            queue_bytes=state.settings.send_queue_bytes)
    state.connections.add(connection)  # counted from here: no await since the check
    state.connections_by_address.add(connection.address)
    try:
        await ws.accept()
    except BaseException:
        state.connections.discard(connection)
        state.connections_by_address.remove(connection.address)
        raise
    connection.start()
    state.metrics.connections.inc()
    dispatcher = state.dispatcher
    dispatcher.connection_opened(connection)
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
        state.connections.discard(connection)
        state.connections_by_address.remove(connection.address)
        try:
            await state.lobby.connection_closed(connection)
        finally:
            if not connection.is_open:
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(connection.wait_closed(), timeout=2.0)
            connection.finished()


async def _refuse(ws: WebSocket, status: int, text: str) -> None:
    """Refuse the handshake with an HTTP ``status`` (the ASGI denial-response extension);
    a server without it can only refuse with 403."""
    if "websocket.http.response" in ws.scope.get("extensions", {}):
        headers = {"Retry-After": str(RETRY_AFTER_SECONDS)} if status in (429, 503) else None
        await ws.send_denial_response(PlainTextResponse(text, status_code=status,
                                                        headers=headers))
    else:  # pragma: no cover - uvicorn and the TestClient both have the extension
        await ws.close()


async def _watch_loop_lag(metrics: ServerMetrics) -> None:
    while True:
        loop = asyncio.get_running_loop()  # lag is measured on the clock the loop sleeps by
        due = loop.time() + LAG_TICK_SECONDS
        await asyncio.sleep(LAG_TICK_SECONDS)
        metrics.loop_lag.observe(max(0.0, loop.time() - due))


__all__ = ["ServerState", "create_app", "serve_connection"]
