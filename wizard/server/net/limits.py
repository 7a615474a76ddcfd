"""The small pieces the protection layers are built from: budgets, strikes, origins.

``docs/limits.md`` describes every layer, what a player sees when it trips and
the settings; this module holds the mechanics that do not belong to one
connection, one handler or one table.

>>> now = [0.0]
>>> bucket = TokenBucket(rate=1.0, capacity=2, clock=lambda: now[0])
>>> [bucket.take() for _ in range(3)]
[True, True, False]
>>> now[0] += 1.0
>>> bucket.take()
True
>>> origin_allowed("https://wizard.example", "wizard.example", ())
True
>>> origin_allowed("https://evil.example", "wizard.example", ())
False
"""

from __future__ import annotations

from collections import deque
from urllib.parse import urlsplit

from ..clock import Now


class TokenBucket:
    """``capacity`` tokens, refilled at ``rate`` per second; `take` says whether one was left.

    ``clock`` (the connection's loop's ``time``) is read when the bucket is made and on
    every `take`.
    """

    __slots__ = ("capacity", "clock", "rate", "stamp", "tokens")

    def __init__(self, rate: float, capacity: float, clock: Now) -> None:
        self.rate, self.capacity, self.clock = rate, capacity, clock
        self.tokens, self.stamp = capacity, clock()

    def take(self) -> bool:
        now = self.clock()
        self.tokens = min(self.capacity, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


class Strikes:
    """Counts events in a sliding window; `add` says whether ``limit`` was reached.

    >>> now = [0.0]
    >>> strikes = Strikes(limit=2, window=10.0, clock=lambda: now[0])
    >>> first = strikes.add(); now[0] += 11.0; second = strikes.add()
    >>> now[0] += 1.0; first, second, strikes.add()
    (False, False, True)
    """

    __slots__ = ("clock", "limit", "stamps", "window")

    def __init__(self, limit: int, window: float, clock: Now) -> None:
        self.limit, self.window, self.clock = limit, window, clock
        self.stamps: deque[float] = deque()

    def add(self) -> bool:
        now = self.clock()
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
