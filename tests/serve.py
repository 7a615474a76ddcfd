"""The one way the suite (and the benchmarks) start a real ``wizard serve`` process.

`start_server` runs ``python -m wizard serve`` on a loopback port, its log in a
file (a pipe nobody reads could fill up and stall it), and waits (bounded)
until ``/healthz`` answers; `stop_server` terminates it and kills it if it
does not stop in 10 s. `running_server` is both as a context manager.
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
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
START_TIMEOUT_S = 30.0
#: what a test server differs in from a served one: bots at once, nothing on disk, quiet logs
#: and a message budget a scripted client cannot exceed
TEST_ENV = {"WIZARD_BOT_DELAY": "0", "WIZARD_LOG_LEVEL": "warning", "WIZARD_DB": ":memory:",
            "WIZARD_AI_WORKERS": "1", "WIZARD_MESSAGES_PER_SECOND": "10000",
            "WIZARD_MESSAGE_BURST": "10000"}


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


def start_server(port: int, log: Path, *, root: Path = ROOT, **env: str) -> subprocess.Popen[bytes]:
    """``wizard serve`` on ``port`` with `TEST_ENV` and ``env`` on top; waits for /healthz.

    ``root``: the checkout whose ``wizard`` runs (a benchmark compares two). Raises
    `RuntimeError` (with the log's end) if it exits or does not answer in time.
    """
    environment = {**os.environ, **TEST_ENV, **env}
    with log.open("wb") as sink:
        process = subprocess.Popen(
            [sys.executable, "-m", "wizard", "serve", "--host", "127.0.0.1", "--port", str(port)],
            cwd=root, env=environment, stdout=sink, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"wizard serve exited with {process.returncode}:\n"
                               f"{log.read_text(errors='replace')[-3000:]}")
        with contextlib.suppress(OSError):
            if http_status(f"http://127.0.0.1:{port}/healthz", timeout=1) == 200:
                return process
        time.sleep(0.1)
    stop_server(process)
    raise RuntimeError(f"wizard serve did not answer /healthz within {START_TIMEOUT_S:g} s")


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
