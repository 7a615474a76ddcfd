"""One websocket connection: an explicit lifecycle, a bounded send queue, its budgets.

Nothing in the server awaits a client: `Connection.send` encodes the message
and hands it on at once. While the socket takes data (served by ``wizard
serve``: the `SEND_NOW` extension of the scope) and nothing waits before it,
the frame is written in this loop turn, without a task hop; otherwise it is
queued, and a writer task drains the queue onto the socket as it becomes
writable. When a client reads so slowly that its queue fills up, it is
disconnected (close code 1008) instead of holding anyone up. A connection that
does not say ``hello`` in time, or sends nothing for too long, is closed by its
idle timer.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import itertools
from collections.abc import Callable

import structlog
from starlette.websockets import WebSocket

from wizard.protocol import ServerMessage, encode, message_tag

from ..clock import Now
from ..metrics import ServerMetrics
from ..tables.player import Player
from .addresses import client_address
from .limits import Strikes, TokenBucket

log = structlog.get_logger(__name__)

CLOSE_NORMAL = 1000
CLOSE_GOING_AWAY = 1001
CLOSE_POLICY = 1008
CLOSE_TOO_BIG = 1009

#: The ASGI scope extension (``scope["extensions"]``) that ``wizard serve``'s websocket
#: protocol provides: ``send_now(data: bytes) -> bool`` frames ``data`` (the UTF-8 JSON
#: of one text frame) for this loop turn's write if the socket is open and takes data
#: now, else returns False (nothing sent).
SEND_NOW = "wizard.send_text_now"


class ConnectionState(enum.Enum):
    """OPEN (accepted, anonymous) → IDENTIFIED (after ``hello``) → CLOSING → CLOSED."""

    OPEN = "open"
    IDENTIFIED = "identified"
    CLOSING = "closing"
    CLOSED = "closed"


_ALLOWED: dict[ConnectionState, frozenset[ConnectionState]] = {
    ConnectionState.OPEN: frozenset({ConnectionState.IDENTIFIED, ConnectionState.CLOSING,
                                     ConnectionState.CLOSED}),
    ConnectionState.IDENTIFIED: frozenset({ConnectionState.CLOSING, ConnectionState.CLOSED}),
    ConnectionState.CLOSING: frozenset({ConnectionState.CLOSED}),
    ConnectionState.CLOSED: frozenset(),
}


class BadTransitionError(RuntimeError):
    """A lifecycle step that is not allowed from the current state (a server bug)."""


_ids = itertools.count(1)


class Connection:
    """A client socket with its state, its player (once identified) and its send queue."""

    def __init__(self, websocket: WebSocket, *, queue_size: int, metrics: ServerMetrics,
                 queue_bytes: int = 1 << 20) -> None:
        self.websocket = websocket
        # made on the loop, looked up once (on Python 3.11 every lookup is a getpid() system
        # call); its clock is the server's one (`wizard.server.clock`), budgets read it too
        self._loop = asyncio.get_running_loop()
        self.clock: Now = self._loop.time
        self.conn_id = next(_ids)
        scope = getattr(websocket, "scope", {})
        self.address = client_address(scope)
        self._send_now: Callable[[bytes], bool] | None = scope.get("extensions", {}).get(SEND_NOW)
        self._sending = False  # the writer task holds a message it has not written yet
        self.metrics = metrics
        self.state = ConnectionState.OPEN
        self.player: Player | None = None
        self.spectating: set[str] = set()
        self.wants_tables = False
        self.opened_at = self.last_frame = self.clock()
        # budgets, set by the dispatcher (`Dispatcher.connection_opened`)
        self.budget: TokenBucket | None = None
        self.strikes: Strikes | None = None
        self.chat_budget: TokenBucket | None = None
        self._hello_seconds = self._idle_seconds = 0.0
        self._idle_timer: asyncio.TimerHandle | None = None
        self._queue: asyncio.Queue[bytes | None] = asyncio.Queue(queue_size)
        self._queue_bytes = queue_bytes
        self.queued_bytes = 0  # bytes of what waits in the queue
        self._writer: asyncio.Task[None] | None = None
        self._close_code = CLOSE_NORMAL
        self._close_reason = ""
        self.log = log.bind(conn_id=self.conn_id)

    # --- lifecycle ------------------------------------------------------------------------

    def _move(self, new: ConnectionState) -> None:
        if new not in _ALLOWED[self.state]:
            raise BadTransitionError(
                f"connection {self.conn_id}: {self.state.value} -> {new.value}")
        self.state = new

    @property
    def is_open(self) -> bool:
        return self.state in (ConnectionState.OPEN, ConnectionState.IDENTIFIED)

    def start(self) -> None:
        """Start the writer task (after the handshake was accepted)."""
        self._writer = asyncio.get_running_loop().create_task(
            self._write(), name=f"ws-writer-{self.conn_id}")

    def identify(self, player: Player) -> None:
        """OPEN → IDENTIFIED: this connection now speaks for ``player``."""
        self._move(ConnectionState.IDENTIFIED)
        self.player = player

    def close(self, code: int = CLOSE_NORMAL, reason: str = "", *,
              cause: str | None = None) -> None:
        """Send what is queued, then close with ``code``. Does not wait; idempotent.

        ``cause`` (``too_large``, ``rate_limit``, ``idle``, …) counts the close in
        ``wizard_connections_closed_total``.
        """
        if not self.is_open:
            return
        if cause is not None:
            self.metrics.connections_closed.labels(cause).inc()
            self.log.info("connection_closed_by_server", cause=cause, code=code)
        self._move(ConnectionState.CLOSING)
        self._close_code, self._close_reason = code, reason
        try:
            self._queue.put_nowait(None)
        except asyncio.QueueFull:
            self._abort()

    def _abort(self) -> None:
        """Close at once, dropping what is queued (the client does not read)."""
        if self._writer is not None and self._writer is not asyncio.current_task():
            self._writer.cancel()
        self._writer = asyncio.get_running_loop().create_task(
            self._close_socket(), name=f"ws-abort-{self.conn_id}")

    def finished(self) -> None:
        """The socket is gone (the reader saw the disconnect): stop the writer."""
        if self.state is ConnectionState.CLOSED:
            return
        if self.state is not ConnectionState.CLOSING:
            self._move(ConnectionState.CLOSING)
        self._move(ConnectionState.CLOSED)
        if self._idle_timer is not None:
            self._idle_timer.cancel()
            self._idle_timer = None
        if self._writer is not None and self._writer is not asyncio.current_task():
            self._writer.cancel()

    async def wait_closed(self) -> None:
        """Wait for the writer to finish (bounded by the caller)."""
        if self._writer is not None:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._writer

    # --- idle timer -----------------------------------------------------------------------

    def watch_idle(self, hello_seconds: float, idle_seconds: float) -> None:
        """Close the connection if it has not said ``hello`` within ``hello_seconds``, or
        once it has sent no frame for ``idle_seconds`` (`touch` on every frame)."""
        self._hello_seconds, self._idle_seconds = hello_seconds, idle_seconds
        self._idle_timer = self._loop.call_at(
            self.opened_at + min(hello_seconds, idle_seconds), self._check_idle)

    def touch(self) -> None:
        """A frame arrived: the idle clock starts again (one clock read, no timer work)."""
        self.last_frame = self.clock()

    def _check_idle(self) -> None:
        self._idle_timer = None
        if not self.is_open:
            return
        now = self.clock()
        hello_due = self.opened_at + self._hello_seconds
        if self.player is None and now >= hello_due:
            self.close(CLOSE_POLICY, "no hello", cause="hello_timeout")
            return
        idle_due = self.last_frame + self._idle_seconds
        if now >= idle_due:
            self.close(CLOSE_NORMAL, "idle", cause="idle")
            return
        due = idle_due if self.player is not None else min(idle_due, hello_due)
        self._idle_timer = self._loop.call_at(due, self._check_idle)

    # --- sending --------------------------------------------------------------------------

    def send(self, message: ServerMessage) -> None:
        """Encode and queue ``message``; never waits."""
        self.send_text(encode(message), message_tag(message))

    def send_text(self, text: bytes, tag: str) -> None:
        """Send an already-encoded message (`encode`; shared by many recipients)."""
        if not self.is_open:
            return
        # nothing waits before it and the socket takes it: no queue, no task hop
        waiting = self._sending or self._queue.qsize()
        if self._send_now is not None and not waiting and self._send_now(text):
            self.metrics.messages_out.labels(tag).inc()
            return
        try:
            if self.queued_bytes + len(text) > self._queue_bytes and self.queued_bytes:
                raise asyncio.QueueFull  # one message alone may be larger than the bound
            self._queue.put_nowait(text)
            self.queued_bytes += len(text)
        except asyncio.QueueFull:
            self.metrics.send_overflows.inc()
            self.metrics.connections_closed.labels("send_queue_full").inc()
            self.log.warning("send_queue_full_disconnect", queued=self._queue.qsize(),
                             queued_bytes=self.queued_bytes)
            self._move(ConnectionState.CLOSING)
            self._close_code, self._close_reason = CLOSE_POLICY, "send queue full"
            self._abort()
            return
        self.metrics.messages_out.labels(tag).inc()

    async def _write(self) -> None:
        ws = self.websocket
        queue = self._queue
        try:
            while True:
                # a queue that holds several messages is drained in this one loop turn
                # (neither get nor send suspends), and the protocol writes them to the
                # socket at once at the end of it (`serving.websocket_protocol`)
                text = await queue.get()
                if text is None:
                    break
                self.queued_bytes -= len(text)
                self._sending = True
                await ws.send_text(text.decode())
                self._sending = False
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the peer went away mid-send
            self.log.debug("send_failed", error=str(exc))
            return
        await self._close_socket()

    async def _close_socket(self) -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(
                self.websocket.close(self._close_code, self._close_reason), timeout=2.0)


__all__ = [
    "CLOSE_GOING_AWAY",
    "CLOSE_NORMAL",
    "CLOSE_POLICY",
    "CLOSE_TOO_BIG",
    "BadTransitionError",
    "Connection",
    "ConnectionState",
]
