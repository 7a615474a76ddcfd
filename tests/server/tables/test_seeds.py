"""Deals cannot be predicted: game and bot seeds come from the OS's secret randomness.

The attack this guards against: a Mersenne Twister's 624 outputs in a row give
away its whole state, and with it every later draw. The test plays attacker on
the server's own generator (wired by `create_app`) with outputs it publishes.
"""

from __future__ import annotations

import random

from wizard.ai.levels import BotLevel
from wizard.engine import GameOptions, WizardGame
from wizard.server.tables.bots import draw_settings

from ..conftest import Harness

MASK = 0xFFFFFFFF


def _undo_right(y: int, shift: int) -> int:
    result = y
    for _ in range(32 // shift + 1):
        result = y ^ (result >> shift)
    return result & MASK


def _undo_left(y: int, shift: int, mask: int) -> int:
    result = y
    for _ in range(32 // shift + 1):
        result = y ^ ((result << shift) & mask)
    return result & MASK


def _untemper(y: int) -> int:
    y = _undo_right(y, 18)
    y = _undo_left(y, 15, 0xEFC60000)
    y = _undo_left(y, 7, 0x9D2C5680)
    return _undo_right(y, 11)


def clone_from_outputs(outputs: list[int]) -> random.Random:
    """A Mersenne Twister in the state that produced the last 624 32-bit ``outputs``."""
    clone = random.Random()
    clone.setstate((3, (*(_untemper(o) for o in outputs[-624:]), 624), None))
    return clone


def test_the_attack_works_on_a_mersenne_twister() -> None:
    victim = random.Random(12345)
    clone = clone_from_outputs([victim.getrandbits(32) for _ in range(624)])
    assert WizardGame(3, GameOptions(), rng=clone).seed == WizardGame(
        3, GameOptions(), rng=victim).seed


def test_published_draws_tell_nothing_about_the_next_deal_or_bot(harness: Harness) -> None:
    rng = harness.server.lobby.services.rng
    published = [rng.getrandbits(32) for _ in range(624)]
    clone = clone_from_outputs(published)
    predicted_seeds = {WizardGame(3, GameOptions(), rng=clone).seed for _ in range(3)}
    actual_seeds = {WizardGame(3, GameOptions(), rng=rng).seed for _ in range(3)}
    assert predicted_seeds.isdisjoint(actual_seeds)
    predicted_bot = draw_settings(BotLevel.HARD, clone).seed
    assert draw_settings(BotLevel.HARD, rng).seed != predicted_bot

