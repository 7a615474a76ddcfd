"""The small pieces the protection layers are built from: budgets, strikes, origins.

``docs/limits.md`` describes every layer, what a player sees when it trips and
the settings; this module holds the mechanics that do not belong to one
connection, one handler or one table.

>>> bucket = TokenBucket(rate=1.0, capacity=2)
>>> [bucket.take(now=0.0) for _ in range(3)]
[True, True, False]
>>> origin_allowed("https://wizard.example", "wizard.example", ())
True
>>> origin_allowed("https://evil.example", "wizard.example", ())
False
"""

from __future__ import annotations

import time
from collections import deque
from urllib.parse import urlsplit


class TokenBucket:
    """``capacity`` tokens, refilled at ``rate`` per second; `take` says whether one was left."""

    __slots__ = ("capacity", "rate", "stamp", "tokens")

    def __init__(self, rate: float, capacity: float) -> None:
        self.rate, self.capacity = rate, capacity
        self.tokens, self.stamp = capacity, time.monotonic()

    def take(self, now: float | None = None) -> bool:
        now = time.monotonic() if now is None else now
        self.tokens = min(self.capacity, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


class Strikes:
    """Counts events in a sliding window; `add` says whether ``limit`` was reached.

    >>> strikes = Strikes(limit=2, window=10.0)
    >>> strikes.add(now=0.0), strikes.add(now=11.0), strikes.add(now=12.0)
    (False, False, True)
    """

    __slots__ = ("limit", "stamps", "window")

    def __init__(self, limit: int, window: float) -> None:
        self.limit, self.window = limit, window
        self.stamps: deque[float] = deque()

    def add(self, now: float | None = None) -> bool:
        now = time.monotonic() if now is None else now
        stamps = self.stamps
        stamps.append(now)
        while stamps and stamps[0] <= now - self.window:
            stamps.popleft()
        return len(stamps) >= self.limit


_DEFAULT_PORTS = {"http": "80", "https": "443", "ws": "80", "wss": "443"}


def _without_default_port(netloc: str, default_ports: tuple[str, ...]) -> str:
    """``example.com:443`` → ``example.com`` when 443 is a default port here."""
    netloc = netloc.strip().lower()
    host, sep, port = netloc.rpartition(":")
    return host if sep and port in default_ports else netloc


def origin_allowed(origin: str | None, host: str | None, allowed: tuple[str, ...]) -> bool:
    """Whether a handshake with this ``Origin`` header may open a websocket.

    No ``Origin`` (a non-browser client) is allowed; a browser's origin must be
    the request's own ``Host`` or one of ``allowed`` (``*`` allows any).
    """
    if origin is None:
        return True
    origin = origin.strip().rstrip("/").lower()
    if "*" in allowed or origin in allowed:
        return True
    parts = urlsplit(origin)
    if not parts.scheme or not parts.netloc or host is None:
        return False  # e.g. "null" from a sandboxed page or a file:// URL
    own = _without_default_port(parts.netloc, (_DEFAULT_PORTS.get(parts.scheme, ""),))
    return own == _without_default_port(host, ("80", "443"))


__all__ = ["Strikes", "TokenBucket", "origin_allowed"]
