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
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import structlog
import uvicorn
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

if TYPE_CHECKING:
    from uvicorn._types import ASGISendEvent

    from ..app import ServerState

log = structlog.get_logger(__name__)


def websocket_protocol(send_timeout: float,
                       on_stalled: Callable[[], None]) -> type[WebSocketsSansIOProtocol]:
    """uvicorn's websocket protocol class with a send timeout (``ws=`` of `uvicorn.Config`)."""

    class SendTimeoutProtocol(WebSocketsSansIOProtocol):
        _stall_timer: asyncio.TimerHandle | None = None

        def pause_writing(self) -> None:
            super().pause_writing()
            if self._stall_timer is None:
                self._stall_timer = self.loop.call_later(send_timeout, self._stalled)

        def resume_writing(self) -> None:
            self._cancel_stall_timer()
            super().resume_writing()

        def connection_lost(self, exc: Exception | None) -> None:
            self._cancel_stall_timer()
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

        async def send(self, message: ASGISendEvent) -> None:
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


__all__ = ["WizardServer", "uvicorn_config", "websocket_protocol"]
