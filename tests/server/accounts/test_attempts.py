"""Attempt budgets: a burst, a refill, the wait until the next attempt, bounded memory."""

from __future__ import annotations

import pytest

from wizard.server.accounts.attempts import Attempts


def test_an_empty_budget_says_how_long_to_wait() -> None:
    now = [0.0]
    attempts = Attempts(per_minute=2, burst=3, clock=lambda: now[0])
    for _ in range(3):
        assert attempts.wait("ann") == 0.0
        attempts.spend("ann")
    assert attempts.wait("ann") == 30.0
    now[0] += 20.0
    assert attempts.wait("ann") == pytest.approx(10.0)
    attempts.give_back("ann")  # a success gives its attempt back
    assert attempts.wait("ann") == 0.0
    assert attempts.wait("bob") == 0.0


def test_full_buckets_are_forgotten_past_the_key_limit() -> None:
    now = [0.0]
    attempts = Attempts(per_minute=60, burst=1, clock=lambda: now[0], max_keys=3)
    for key in "abc":
        attempts.spend(key)
    now[0] += 1.0  # all three have filled up again
    attempts.spend("d")
    assert len(attempts) == 1
    for key in "efg":
        attempts.spend(key)  # none has filled up: the oldest goes
    assert len(attempts) == 3 and attempts.wait("g") > 0
