"""Shared fixtures of the server tests: an app in a TestClient and a bounded ws client."""

from __future__ import annotations

import contextlib
import re
import time
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families
from starlette import exceptions as starlette_exceptions

with warnings.catch_warnings():
    # starlette 1.x asks for httpx2; the testclient works the same with httpx (the
    # warning's class is newer than starlette's floor release, 0.37)
    warnings.simplefilter("ignore", getattr(
        starlette_exceptions, "StarletteDeprecationWarning", DeprecationWarning))
    from starlette.testclient import TestClient

from wizard.ai.decision import Decider
from wizard.server.app import ServerState, create_app
from wizard.server.clock import ManualClockLoop
from wizard.server.settings import Settings

from .driver import Recorder

TIMEOUT = 10.0
_SAMPLE = re.compile(r"^(\w+)(?:\{(.*)\})? (\S+)$")


def sample_value(text: str, name: str, /, **labels: str) -> float | None:
    """The value of one sample on a ``/metrics`` page (parsed as Prometheus does), or None."""
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == name and sample.labels == labels:
                return float(sample.value)
    return None


def has_sample(text: str, line: str) -> bool:
    """Whether the page has the sample ``line`` says, e.g. ``'x_total{code="a"} 3'``."""
    match = _SAMPLE.match(line)
    assert match is not None, f"not a sample line: {line!r}"
    name, label_text, value = match.groups()
    labels = dict(re.findall(r'(\w+)="([^"]*)"', label_text or ""))
    return sample_value(text, name, **labels) == float(value)


def fast_settings(**changes: Any) -> Settings:
    """Fast settings: bots answer at once, no tables broadcast delay, a message budget
    for a client that plays as fast as the bots (the limit tests set their own)."""
    base = Settings(bot_delay=0, turn_seconds=0, tables_broadcast_seconds=0.05,
                    log_level="warning", db_path=":memory:", messages_per_second=10_000,
                    message_burst=10_000, max_connections_per_address=10_000,
                    max_tables_per_address=10_000)
    return base.replace(**changes)


def wait_until(harness: Harness, condition: Callable[[], bool], timeout: float = 10.0) -> None:
    """Wait until ``condition()`` (read on the app's loop) holds; fail after ``timeout``.

    Bounded in real time from the test's thread: the app's clock may be one the test
    moves (`ManualClockLoop`), on which no timeout passes by itself.
    """
    deadline = time.monotonic() + timeout
    while not harness.client.portal.call(condition):
        assert time.monotonic() < deadline, "timed out waiting for the condition"
        time.sleep(0.01)


class WsClient(Recorder):
    """A TestClient websocket whose every receive is bounded in time."""

    def __init__(self, session: Any, label: str = "") -> None:
        super().__init__(label)
        self.session = session

    def send(self, message: dict[str, Any] | str | bytes) -> None:
        if isinstance(message, bytes):
            self.session.send_bytes(message)
        elif isinstance(message, str):
            self.session.send_text(message)
        else:
            self.session.send_json(message)

    def recv(self, timeout: float = TIMEOUT) -> dict[str, Any]:
        # bounded in real time from the test's thread, whatever clock the app's loop has
        received = self.session.portal.start_task_soon(self.session._send_rx.receive)
        try:
            raw = received.result(timeout)
        except TimeoutError:
            received.cancel()
            raise TimeoutError(f"{self.label}: nothing received in {timeout:g} s") from None
        if raw["type"] == "websocket.close":
            return self.record_close(raw.get("code", 1000))
        return self.record(raw["text"])


class Harness:
    """A running app and the clients connected to it."""

    def __init__(self, client: TestClient) -> None:
        self.client = client
        self._sessions: list[Any] = []

    @property
    def server(self) -> ServerState:
        state: ServerState = self.client.app.state.server  # type: ignore[attr-defined]
        return state

    def connect(self, label: str = "") -> WsClient:
        context = self.client.websocket_connect("/ws")
        session = context.__enter__()
        context._wizard_session = session  # type: ignore[attr-defined]
        self._sessions.append(context)
        return WsClient(session, label)

    def disconnect(self, client: WsClient) -> None:
        """Close this client's side (as a real client does once it sees the server's close)."""
        for context in self._sessions:
            if getattr(context, "_wizard_session", None) is client.session:
                self._sessions.remove(context)
                with contextlib.suppress(Exception):
                    context.__exit__(None, None, None)
                return
        raise ValueError(f"{client.label} is not connected")

    def player(self, name: str) -> WsClient:
        ws = self.connect(name)
        ws.hello(name)
        return ws

    def close_all(self) -> None:
        for context in reversed(self._sessions):
            with contextlib.suppress(Exception):  # a session the server already closed
                context.__exit__(None, None, None)
        self._sessions.clear()


@pytest.fixture
def make_harness() -> Iterator[Callable[..., Harness]]:
    """``make_harness(**settings)`` → a started app; everything is closed after the test.

    ``clock=ManualClockLoop(...)`` runs the app on that loop: its clock, every deadline's,
    moves only when the test advances it."""
    opened: list[tuple[TestClient, Harness]] = []

    def make(decider: Decider | None = None, clock: ManualClockLoop | None = None,
             **changes: Any) -> Harness:
        options = {} if clock is None else {"loop_factory": lambda: clock}
        client = TestClient(create_app(fast_settings(**changes), decider=decider),
                            backend_options=options)
        client.__enter__()
        harness = Harness(client)
        opened.append((client, harness))
        return harness

    yield make
    for client, harness in reversed(opened):
        harness.close_all()
        client.__exit__(None, None, None)


@pytest.fixture
def harness(make_harness: Callable[..., Harness]) -> Harness:
    return make_harness()
