"""uvicorn, fitted to the server's limits: graceful shutdown through the app, and a
websocket protocol that cuts off a peer that stops reading.

- `WizardServer.shutdown` (SIGTERM/SIGINT) first stops listening, then lets the
  app tell every client (``server_shutdown``), flush the store and close, and
  only then runs uvicorn's own shutdown with what is left of
  ``WIZARD_SHUTDOWN_SECONDS``.
- `websocket_protocol` is uvicorn's websocket protocol plus a send timeout: a
  socket whose write buffer stays full for ``WIZARD_SEND_TIMEOUT`` seconds, or
  that the app closes while its buffer is full, is aborted. Without it a close
  frame would wait behind data the peer never reads, and the socket would stay
  open for as long as the peer keeps its receive window shut.
- `http_protocol` is uvicorn's h11 protocol plus a header deadline: a client
  has ``WIZARD_HTTP_HEADER_TIMEOUT`` seconds from the first byte of a request
  (or from connecting) to the end of its headers, then the socket is closed.
  Without it an unfinished request holds its socket (and a file descriptor)
  for ever: uvicorn's keep-alive timer stops at the first byte.
- ``X-Forwarded-For`` is believed only from ``WIZARD_TRUSTED_PROXIES``.
- It hands the app a synchronous send (the `SEND_NOW` scope extension, used by
  `Connection`): while the socket is writable a frame is built at once instead
  of travelling through a writer task, Starlette and the middleware.
- It also coalesces: the frames a connection sends during one turn of the event
  loop leave in one ``transport.write`` (one system call) at the end of that
  turn, not one each. The frames and their order are unchanged; only the
  number of writes drops (an ``update`` to four seats and a ``table`` message
  were five writes).
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import structlog
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.utils import ClientDisconnected
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.exceptions import InvalidState
from websockets.http11 import Request

from .connection import SEND_NOW

if TYPE_CHECKING:
    from uvicorn._types import ASGISendEvent

    from ..app import ServerState

log = structlog.get_logger(__name__)


def websocket_protocol(send_timeout: float,
                       on_stalled: Callable[[], None]) -> type[WebSocketsSansIOProtocol]:
    """uvicorn's websocket protocol class with a send timeout (``ws=`` of `uvicorn.Config`)."""

    class SendTimeoutProtocol(WebSocketsSansIOProtocol):
        _stall_timer: asyncio.TimerHandle | None = None
        _flush_handle: asyncio.Handle | None = None
        _unflushed = 0  # bytes framed by `send_now` this loop turn, not yet written

        def pause_writing(self) -> None:
            super().pause_writing()
            if self._stall_timer is None:
                self._stall_timer = self.loop.call_later(send_timeout, self._stalled)

        def resume_writing(self) -> None:
            self._cancel_stall_timer()
            super().resume_writing()

        def connection_lost(self, exc: Exception | None) -> None:
            self._cancel_stall_timer()
            if self._flush_handle is not None:
                self._flush_handle.cancel()
                self._flush_handle = None
            super().connection_lost(exc)

        def _cancel_stall_timer(self) -> None:
            if self._stall_timer is not None:
                self._stall_timer.cancel()
                self._stall_timer = None

        def _stalled(self) -> None:
            self._stall_timer = None
            log.warning("send_timeout_disconnect", client=self.client)
            on_stalled()
            self.transport.abort()

        def handle_connect(self, event: Request) -> None:
            super().handle_connect(event)
            scope = getattr(self, "scope", None)  # set once the handshake is accepted
            if scope is not None:
                scope["extensions"][SEND_NOW] = self.send_now

        def send_now(self, data: bytes) -> bool:
            """Frame ``data`` (UTF-8 JSON) for this loop turn's write if the socket takes it now.

            It does not while the transport's buffer is past its high-water mark
            (``writable`` is clear), nor once this turn's frames reach that mark: a
            burst produced in one loop turn is bounded like a full buffer is.
            """
            if (self.close_sent or not self.handshake_complete or self.disconnected
                    or self.initial_response is not None or not self.writable.is_set()
                    or self._unflushed >= self.transport.get_write_buffer_limits()[1]):
                return False
            try:
                self.conn.send_text(data)
            except InvalidState:
                return False
            self._unflushed += len(data)
            if self._flush_handle is None:
                self._flush_handle = self.loop.call_soon(self._flush)
            return True

        def _flush(self) -> None:
            """Write every frame queued this loop turn at once."""
            self._flush_handle = None
            self._unflushed = 0
            output = self.conn.data_to_send()
            if output and not self.transport.is_closing():
                self.transport.write(b"".join(output))

        async def send(self, message: ASGISendEvent) -> None:
            if (message["type"] == "websocket.send" and self.handshake_complete
                    and not self.close_sent and self.initial_response is None):
                await self.writable.wait()  # back-pressure as before: a full buffer waits
                if self.disconnected:
                    raise ClientDisconnected()
                text = message.get("text")
                try:
                    if text is not None:
                        self.conn.send_text(text.encode())
                    else:
                        self.conn.send_binary(message.get("bytes") or b"")
                except InvalidState:
                    raise ClientDisconnected() from None
                if self._flush_handle is None:
                    self._flush_handle = self.loop.call_soon(self._flush)
                return
            if self._flush_handle is not None:  # what is queued goes before a close
                self._flush_handle.cancel()
                self._flush()
            if message["type"] == "websocket.close" and not self.writable.is_set():
                # the close frame would queue behind data the peer does not read
                self._cancel_stall_timer()
                self.transport.abort()
                return
            await super().send(message)
            if message["type"] == "websocket.http.response.body" and not message.get(
                    "more_body", False):
                self.handshake_complete = True  # a denial is a complete answer, not an error

    return SendTimeoutProtocol


def http_protocol(header_timeout: float) -> type[H11Protocol]:
    """uvicorn's h11 protocol class with a deadline for a request's headers (``http=``)."""

    class HeaderTimeoutProtocol(H11Protocol):
        _header_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._arm_header_timer()

        def data_received(self, data: bytes) -> None:
            idle = self.cycle is None or self.cycle.response_complete
            if idle and self._header_timer is None:  # the first byte of a new request
                self._arm_header_timer()
            cycle = self.cycle
            super().data_received(data)
            if self.cycle is not cycle:  # its headers are complete: a request is served
                self._cancel_header_timer()

        def handle_websocket_upgrade(self, event: Any) -> None:
            self._cancel_header_timer()
            super().handle_websocket_upgrade(event)

        def connection_lost(self, exc: Exception | None) -> None:
            self._cancel_header_timer()
            super().connection_lost(exc)

        def _arm_header_timer(self) -> None:
            self._cancel_header_timer()
            self._header_timer = self.loop.call_later(header_timeout, self._headers_too_slow)

        def _cancel_header_timer(self) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
                self._header_timer = None

        def _headers_too_slow(self) -> None:
            self._header_timer = None
            if not self.transport.is_closing():
                self.transport.close()

    return HeaderTimeoutProtocol


class WizardServer(uvicorn.Server):
    """`uvicorn.Server` whose shutdown lets the app say goodbye first (within the limit)."""

    def __init__(self, config: uvicorn.Config, state: ServerState) -> None:
        super().__init__(config)
        self.state = state

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.state.settings.shutdown_seconds
        for server in self.servers:  # stop accepting first
            server.close()
        await self.state.shutdown()
        self.config.timeout_graceful_shutdown = max(1, round(deadline - loop.time()))
        await super().shutdown(sockets)


def uvicorn_config(app: Any, state: ServerState, *, ws_max_size: int) -> uvicorn.Config:
    """The `uvicorn.Config` for ``wizard serve`` built from the app's settings."""
    settings = state.settings
    return uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        http=http_protocol(settings.http_header_timeout_seconds),
        proxy_headers=bool(settings.trusted_proxies),
        forwarded_allow_ips=list(settings.trusted_proxies),
        ws=websocket_protocol(
            settings.send_timeout_seconds,
            lambda: state.metrics.connections_closed.labels("send_timeout").inc()),
        ws_max_size=ws_max_size,
        ws_ping_interval=settings.ws_ping_interval or None,
        ws_ping_timeout=settings.ws_ping_timeout,
        ws_per_message_deflate=settings.ws_compression,
        timeout_graceful_shutdown=max(1, round(settings.shutdown_seconds)),
        log_config=None,
        access_log=False,
        lifespan="on",
        server_header=False,
    )


__all__ = ["WizardServer", "http_protocol", "uvicorn_config", "websocket_protocol"]
