"""The one way the suite (and the benchmarks) start a real ``wizard serve`` process.

`start` runs a server command (default ``python -m wizard serve``) on a loopback
port, its log in a file (a pipe nobody reads could fill up and stall it), and
waits (bounded) until ``/healthz`` answers; it returns a `LiveServer`.
`start_server` / `stop_server` are the same for callers that keep the process;
`running_server` is both as a context manager.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
START_TIMEOUT_S = 30.0
#: what a test server differs in from a served one: bots at once, nothing on disk, quiet logs
#: and a message budget a scripted client cannot exceed
TEST_ENV = {"WIZARD_BOT_DELAY": "0", "WIZARD_LOG_LEVEL": "warning", "WIZARD_DB": ":memory:",
            "WIZARD_AI_WORKERS": "1", "WIZARD_MESSAGES_PER_SECOND": "10000",
            "WIZARD_MESSAGE_BURST": "10000"}
#: the client-side tests' variant: bots on the loop (no pool to start), a short shutdown
FAST_ENV = {**TEST_ENV, "WIZARD_AI_WORKERS": "0", "WIZARD_SHUTDOWN_SECONDS": "2"}


def free_port() -> int:
    """A loopback port nobody listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def http_status(url: str, timeout: float = 2.0) -> int:
    """The HTTP status of a GET (an error status too); raises `OSError` if nothing answers."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return exc.code


def http_get(url: str, timeout: float = 2.0) -> tuple[int, bytes]:
    """Status and body of a GET (an error status too); raises `OSError` if nothing answers."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return int(response.status), bytes(response.read())
    except urllib.error.HTTPError as exc:
        return int(exc.code), bytes(exc.read())


@dataclass
class LiveServer:
    """A started server process, its port and its log file."""

    process: subprocess.Popen[bytes]
    port: int
    log: Path

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> int:
        """SIGTERM (a graceful shutdown), then SIGKILL after 15 s; returns the exit status."""
        self.process.terminate()
        try:
            return self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return self.process.wait(timeout=10)


def start(log: Path, *, command: list[str] | None = None, cwd: Path = ROOT,
          port: int | None = None, env: dict[str, str] | None = None,
          base_env: dict[str, str] | None = None, defaults: dict[str, str] | None = FAST_ENV,
          timeout: float = START_TIMEOUT_S) -> LiveServer:
    """Start ``command`` (default ``python -m wizard serve``) and wait until /healthz answers.

    The environment is ``base_env`` (default ours), then ``defaults`` (`FAST_ENV`;
    ``None``: nothing added), then ``env``. Raises `RuntimeError` (with the log's
    end) if the server exits or does not answer within ``timeout``.
    """
    port = port or free_port()
    command = command or [sys.executable, "-m", "wizard", "serve"]
    environment = {**(os.environ if base_env is None else base_env), **(defaults or {}),
                   **(env or {})}
    with log.open("ab") as sink:
        process = subprocess.Popen([*command, "--host", "127.0.0.1", "--port", str(port)],
                                   cwd=cwd, env=environment, stdout=sink,
                                   stderr=subprocess.STDOUT)
    server = LiveServer(process, port, log)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"wizard serve exited with {process.returncode}:\n"
                               f"{log.read_text(errors='replace')[-3000:]}")
        with contextlib.suppress(OSError):
            if http_status(f"{server.http}/healthz", timeout=1) == 200:
                return server
        time.sleep(0.1)
    server.stop()
    raise RuntimeError(f"wizard serve did not answer /healthz within {timeout:g} s")


def start_server(port: int, log: Path, *, root: Path = ROOT, **env: str) -> subprocess.Popen[bytes]:
    """``wizard serve`` on ``port`` with `TEST_ENV` and ``env`` on top; waits for /healthz.

    ``root``: the checkout whose ``wizard`` runs (a benchmark compares two). Raises
    `RuntimeError` (with the log's end) if it exits or does not answer in time.
    """
    log.write_bytes(b"")  # a fresh log for each start
    return start(log, cwd=root, port=port, env=env, defaults=TEST_ENV).process


def stop_server(process: subprocess.Popen[bytes]) -> None:
    """Terminate (SIGTERM, a graceful shutdown); kill after 10 s."""
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)


@contextlib.contextmanager
def running_server(log: Path, **env: str) -> Iterator[str]:
    """A started server's ``http://127.0.0.1:port`` base URL; stopped on exit."""
    port = free_port()
    process = start_server(port, log, **env)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        stop_server(process)
