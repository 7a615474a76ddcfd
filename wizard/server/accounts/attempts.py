"""Budgets of password attempts, one per key (a client address, an account name).

Each key has a token bucket (`wizard.server.net.limits.TokenBucket`): ``burst``
attempts at once, refilled at ``per_minute``. `wait` says how long until the next
attempt is allowed (0 now) without spending one; `spend` spends one. Buckets
that have filled up again are forgotten when there are more than ``max_keys``
(then the oldest go too), so a flood of addresses or names costs bounded memory.

>>> now = [0.0]
>>> attempts = Attempts(per_minute=6, burst=2, clock=lambda: now[0])
>>> attempts.spend("ann"); attempts.spend("ann"); attempts.wait("ann")
10.0
>>> attempts.wait("bob")
0.0
>>> now[0] += 10.0; attempts.wait("ann")
0.0
"""

from __future__ import annotations

from ..clock import Now
from ..net.limits import TokenBucket

MAX_KEYS = 10_000


class Attempts:
    """Attempt budgets by key, on ``clock`` (the server's: the loop's time)."""

    def __init__(self, per_minute: float, burst: int, clock: Now,
                 max_keys: int = MAX_KEYS) -> None:
        self.rate = per_minute / 60.0
        self.burst = burst
        self.clock = clock
        self.max_keys = max_keys
        self._buckets: dict[str, TokenBucket] = {}

    def wait(self, key: str) -> float:
        """Seconds until ``key`` may try again (0.0: now)."""
        bucket = self._buckets.get(key)
        if bucket is None:
            return 0.0
        now = self.clock()
        tokens = min(bucket.capacity, bucket.tokens + (now - bucket.stamp) * bucket.rate)
        return 0.0 if tokens >= 1 else (1 - tokens) / bucket.rate

    def spend(self, key: str) -> None:
        """One attempt of ``key`` (call `wait` first: an empty budget stays empty)."""
        bucket = self._buckets.get(key)
        if bucket is None:
            if len(self._buckets) >= self.max_keys:
                self._forget()
            bucket = self._buckets[key] = TokenBucket(self.rate, self.burst, self.clock)
        bucket.take()

    def give_back(self, key: str) -> None:
        """Undo one `spend` of ``key`` (the attempt succeeded)."""
        bucket = self._buckets.get(key)
        if bucket is not None:
            bucket.tokens = min(bucket.capacity, bucket.tokens + 1)

    def _forget(self) -> None:
        now = self.clock()
        full = [key for key, bucket in self._buckets.items()
                if bucket.tokens + (now - bucket.stamp) * bucket.rate >= bucket.capacity]
        for key in full:
            del self._buckets[key]
        while len(self._buckets) >= self.max_keys:
            del self._buckets[next(iter(self._buckets))]

    def __len__(self) -> int:
        return len(self._buckets)


__all__ = ["Attempts"]
