"""A real ``wizard serve`` in a subprocess on a free loopback port, for the client-side tests.

The server's output goes to a file (a pipe nobody reads could fill up and stall it);
every wait is bounded.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FAST = {"WIZARD_BOT_DELAY": "0", "WIZARD_LOG_LEVEL": "warning", "WIZARD_DB": ":memory:",
        "WIZARD_AI_WORKERS": "0", "WIZARD_MESSAGES_PER_SECOND": "10000",
        "WIZARD_MESSAGE_BURST": "10000", "WIZARD_SHUTDOWN_SECONDS": "2"}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def http_get(url: str, timeout: float = 2.0) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return int(response.status), bytes(response.read())
    except urllib.error.HTTPError as exc:
        return int(exc.code), bytes(exc.read())


@dataclass
class LiveServer:
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
        """SIGTERM, then (after 15 s) SIGKILL; returns the exit status."""
        self.process.terminate()
        try:
            return self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return self.process.wait(timeout=10)


def start(log: Path, *, command: list[str] | None = None, cwd: Path = ROOT,
          port: int | None = None, env: dict[str, str] | None = None,
          base_env: dict[str, str] | None = None, fast: bool = True,
          timeout: float = 60.0) -> LiveServer:
    """Start ``command`` (default ``python -m wizard serve``) and wait until /healthz answers.

    The environment is ``base_env`` (default ours), then `FAST` (unless ``fast`` is
    false), then ``env``.
    """
    port = port or free_port()
    command = command or [sys.executable, "-m", "wizard", "serve"]
    environment = {**(os.environ if base_env is None else base_env), **(FAST if fast else {}),
                   **(env or {})}
    with log.open("ab") as sink:
        process = subprocess.Popen([*command, "--host", "127.0.0.1", "--port", str(port)],
                                   cwd=cwd, env=environment, stdout=sink,
                                   stderr=subprocess.STDOUT)
    server = LiveServer(process, port, log)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited ({process.returncode}): {log.read_text()}")
        try:
            if http_get(f"{server.http}/healthz", timeout=1)[0] == 200:
                return server
        except OSError:
            pass
        time.sleep(0.1)
    server.stop()
    raise RuntimeError(f"server did not answer /healthz within {timeout:g} s: {log.read_text()}")
