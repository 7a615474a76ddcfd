"""A websocket client on a bare socket, for what a well-behaved library will not do:
never read, never answer pings, send invalid UTF-8 as text, shrink its receive window."""

from __future__ import annotations

import base64
import json
import os
import re
import socket
import struct
import time
from typing import Any

OP_TEXT, OP_BINARY = 0x1, 0x2


class HandshakeRefused(Exception):
    def __init__(self, status: int, head: bytes) -> None:
        super().__init__(f"handshake refused with HTTP {status}")
        self.status = status
        self.head = head


def frame(payload: bytes, opcode: int = OP_TEXT) -> bytes:
    """One final, masked client frame."""
    mask = os.urandom(4)
    length = len(payload)
    if length < 126:
        head = struct.pack("!BB", 0x80 | opcode, 0x80 | length)
    elif length < 2**16:
        head = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, length)
    else:
        head = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, length)
    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    return head + mask + masked


class RawWebSocket:
    """A handshake, then frames written by hand; reads only when told to."""

    def __init__(self, port: int, *, rcvbuf: int | None = None, origin: str | None = None,
                 timeout: float = 10.0) -> None:
        self.sock = socket.socket()
        try:
            self._handshake(port, rcvbuf, origin, timeout)
        except BaseException:
            self.sock.close()
            raise

    def _handshake(self, port: int, rcvbuf: int | None, origin: str | None,
                   timeout: float) -> None:
        if rcvbuf is not None:  # before connect, so the window is small from the start
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        self.sock.settimeout(timeout)
        self.sock.connect(("127.0.0.1", port))
        key = base64.b64encode(os.urandom(16)).decode()
        lines = ["GET /ws HTTP/1.1", f"Host: 127.0.0.1:{port}", "Upgrade: websocket",
                 "Connection: Upgrade", f"Sec-WebSocket-Key: {key}",
                 "Sec-WebSocket-Version: 13"]
        if origin is not None:
            lines.append(f"Origin: {origin}")
        self.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(1)
            if not chunk:
                break
            head += chunk
        status = int(head.split(b" ", 2)[1]) if head.startswith(b"HTTP/1.1") else 0
        if status != 101:
            raise HandshakeRefused(status, head)

    def send(self, payload: bytes | str | dict[str, Any], opcode: int = OP_TEXT) -> None:
        if isinstance(payload, dict):
            payload = json.dumps(payload)
        if isinstance(payload, str):
            payload = payload.encode()
        self.sock.sendall(frame(payload, opcode))

    def read_until(self, pattern: bytes, timeout: float = 10.0) -> re.Match[bytes]:
        """Read until ``pattern`` (a regex) matches what arrived; frames are not parsed."""
        deadline = time.monotonic() + timeout
        seen = b""
        while (found := re.search(pattern, seen)) is None:
            self.sock.settimeout(max(0.01, deadline - time.monotonic()))
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError(f"closed before {pattern!r} arrived")
            seen += chunk
        return found

    def drain_until_closed(self, timeout: float) -> int:
        """Read everything until the server closes the socket; returns the bytes read.

        Raises `TimeoutError` if the socket is still open after ``timeout`` seconds.
        """
        deadline = time.monotonic() + timeout
        total = 0
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"still open after {timeout} s ({total} bytes read)")
            self.sock.settimeout(left)
            try:
                chunk = self.sock.recv(65536)
            except ConnectionResetError:
                return total  # aborted by the server
            except TimeoutError:
                continue
            if not chunk:
                return total
            total += len(chunk)

    def close(self) -> None:
        self.sock.close()
