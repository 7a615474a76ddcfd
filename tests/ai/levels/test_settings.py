"""Bot levels: strength ranges, drawn settings, reproducible per-move randomness."""

from __future__ import annotations

import itertools
import random

import pytest

from wizard.ai.levels import STRENGTH_RANGES, BotLevel, BotSettings
from wizard.ai.levels.settings import BOT_VERSION


def test_levels_have_ordered_ranges_with_gaps_between_them() -> None:
    ranges = [STRENGTH_RANGES[level] for level in BotLevel]
    for (low, high), (next_low, _) in itertools.pairwise(ranges):
        assert low < high < next_low


def test_drawn_strengths_stay_in_the_level_range() -> None:
    rng = random.Random(4)
    for level in BotLevel:
        low, high = STRENGTH_RANGES[level]
        strengths = {BotSettings.draw(level, rng).strength for _ in range(200)}
        assert min(strengths) >= low and max(strengths) <= high
        assert len(strengths) > 5  # really drawn, not fixed


def test_move_rng_is_reproducible_per_seed_and_move() -> None:
    bot = BotSettings(BotLevel.HARD, 70, seed=123)
    assert bot.move_rng(5).random() == bot.move_rng(5).random()
    assert bot.move_rng(5).random() != bot.move_rng(6).random()


def test_bot_settings_round_trip_and_strict_parsing() -> None:
    bot = BotSettings(BotLevel.EASY, 10, seed=99)
    assert BotSettings.from_dict(bot.to_dict()) == bot
    with pytest.raises(ValueError, match="unknown bot level 'godlike'"):
        BotSettings.from_dict({"level": "godlike", "strength": 10, "seed": 1})
    with pytest.raises(ValueError, match="strength"):
        BotSettings.from_dict({"level": "easy", "strength": 101, "seed": 1})
    with pytest.raises(ValueError, match="seed"):
        BotSettings.from_dict({"level": "easy", "strength": 10, "seed": "x"})


def test_a_bot_keeps_its_version_and_one_stored_before_versions_is_version_1() -> None:
    bot = BotSettings(BotLevel.MASTER, 90, seed=5)
    assert bot.version == BOT_VERSION == 12
    assert BotSettings.from_dict(bot.to_dict()) == bot
    old = BotSettings.from_dict({"level": "master", "strength": 90, "seed": 5})
    assert old.version == 1 and old != bot
    for bad in (0, BOT_VERSION + 1, "2", None):
        with pytest.raises(ValueError, match="version"):
            BotSettings.from_dict({**bot.to_dict(), "version": bad})
