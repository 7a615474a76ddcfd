"""A connection never makes anyone wait: a client that does not read is dropped."""

from __future__ import annotations

import asyncio
from typing import Any, cast

import pytest
from starlette.websockets import WebSocket

from wizard.protocol import Pong
from wizard.server.clock import ManualClockLoop
from wizard.server.metrics import ServerMetrics
from wizard.server.net.connection import (
    CLOSE_POLICY,
    BadTransitionError,
    Connection,
    ConnectionState,
)
from wizard.server.tables.player import Player

from ..unit import run_on_manual_clock


class StuckSocket:
    """A peer that never reads: every send blocks until the test ends."""

    def __init__(self) -> None:
        self.sent: list[str] = []
        self.closed: tuple[int, str] | None = None
        self._never = asyncio.Event()

    async def send_text(self, text: str) -> None:
        self.sent.append(text)
        await self._never.wait()

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        self.closed = (code, reason or "")


def make(socket: Any, size: int) -> tuple[Connection, ServerMetrics]:
    metrics = ServerMetrics()
    return Connection(cast(WebSocket, socket), queue_size=size, metrics=metrics), metrics


def test_a_client_that_does_not_read_is_disconnected_without_blocking_the_sender() -> None:
    async def scenario(loop: ManualClockLoop) -> None:
        socket = StuckSocket()
        connection, metrics = make(socket, 3)
        connection.start()
        await asyncio.sleep(0)
        for _ in range(10):  # returns at once even though nothing is being written
            connection.send(Pong())
        await loop.settle()  # the connection did what it does about it
        assert connection.state is ConnectionState.CLOSING
        assert socket.closed == (CLOSE_POLICY, "send queue full")
        assert metrics.value("wizard_send_queue_overflows_total") == 1
        # the queue held 3; the rest were refused
        assert metrics.value("wizard_messages_out_total", type="pong") == 3
        connection.finished()
        assert connection.state is ConnectionState.CLOSED

    run_on_manual_clock(scenario)


def test_close_sends_what_is_queued_first() -> None:
    class Socket(StuckSocket):
        async def send_text(self, text: str) -> None:
            self.sent.append(text)

    async def scenario() -> None:
        socket = Socket()
        connection, _ = make(socket, 8)
        connection.start()
        connection.send(Pong())
        connection.close(1000, "bye")
        await asyncio.wait_for(connection.wait_closed(), 2)
        assert socket.sent == ['{"type":"pong"}'] and socket.closed == (1000, "bye")

    asyncio.run(scenario())


def test_the_lifecycle_refuses_bad_transitions() -> None:
    async def scenario() -> None:
        connection, _ = make(StuckSocket(), 2)
        connection.identify(Player("Ann"))
        assert connection.state is ConnectionState.IDENTIFIED
        with pytest.raises(BadTransitionError):
            connection.identify(Player("Ben"))
        connection.finished()
        connection.send(Pong())  # after close: silently dropped
        assert not connection.is_open

    asyncio.run(scenario())


def test_a_player_token_is_long_random_and_not_in_its_repr() -> None:
    players = [Player("Ann") for _ in range(50)]
    assert len({p.token for p in players}) == 50
    assert all(len(p.token) >= 22 for p in players)  # >= 128 bits of urlsafe base64
    assert players[0].token not in repr(players[0])
