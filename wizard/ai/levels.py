"""Bot levels: a strength drawn per game from the level's range, and what strength does.

As in the seed bot design (`003_…`): each level is a range of strengths with
gaps between them; a bot draws its strength once per game; strength sets how
often it plays a random legal move (interpolated from `RANDOM_MOVE_TABLE`) and
the softmax temperature of policy-based agents. Every random choice comes from
``(seed, move number)``, so a restored game continues exactly as it would have.
"""

from __future__ import annotations

import enum
import itertools
import random
from dataclasses import dataclass
from typing import Any


class BotLevel(enum.Enum):
    EASY = "easy"
    MEDIUM = "medium"
    HARD = "hard"
    MASTER = "master"

    @classmethod
    def parse(cls, value: Any) -> BotLevel:
        """``BotLevel.parse("hard")``; raises `ValueError` naming the known levels."""
        for level in cls:
            if level.value == value:
                return level
        raise ValueError(f"unknown bot level {value!r}; known: {', '.join(lv.value for lv in cls)}")


STRENGTH_RANGES: dict[BotLevel, tuple[int, int]] = {
    BotLevel.EASY: (5, 25),
    BotLevel.MEDIUM: (30, 55),
    BotLevel.HARD: (60, 80),
    BotLevel.MASTER: (85, 100),
}

# (strength, chance of a random legal move, softmax temperature), interpolated linearly
RANDOM_MOVE_TABLE: tuple[tuple[int, float, float], ...] = (
    (0, 0.35, 2.0),
    (25, 0.15, 1.0),
    (50, 0.05, 0.5),
    (75, 0.01, 0.2),
    (100, 0.0, 0.0),
)


def _interpolate(strength: float, column: int) -> float:
    strength = min(100.0, max(0.0, strength))
    for (s0, *v0), (s1, *v1) in itertools.pairwise(RANDOM_MOVE_TABLE):
        if strength <= s1:
            t = (strength - s0) / (s1 - s0)
            return v0[column] + t * (v1[column] - v0[column])
    return RANDOM_MOVE_TABLE[-1][column + 1]


def random_move_chance(strength: float) -> float:
    """``random_move_chance(0) == 0.35``, ``random_move_chance(100) == 0.0``."""
    return _interpolate(strength, 0)


def temperature(strength: float) -> float:
    return _interpolate(strength, 1)


@dataclass(frozen=True, slots=True)
class BotSettings:
    """A bot seat: its level, the strength drawn for this game, and its seed."""

    level: BotLevel
    strength: int
    seed: int

    @staticmethod
    def draw(level: BotLevel, rng: random.Random) -> BotSettings:
        low, high = STRENGTH_RANGES[level]
        return BotSettings(level, rng.randint(low, high), rng.getrandbits(63))

    def move_rng(self, move_number: int) -> random.Random:
        """The generator for this bot's decision at ``move_number`` of the game."""
        return random.Random(f"bot:{self.seed}:{move_number}")

    def to_dict(self) -> dict[str, Any]:
        return {"level": self.level.value, "strength": self.strength, "seed": self.seed}

    @staticmethod
    def from_dict(data: Any) -> BotSettings:
        if not isinstance(data, dict):
            raise ValueError("bot settings must be an object")
        strength, seed = data.get("strength"), data.get("seed")
        if type(strength) is not int or not 0 <= strength <= 100:
            raise ValueError(f"bot strength must be an integer 0-100, got {strength!r}")
        if type(seed) is not int:
            raise ValueError(f"bot seed must be an integer, got {seed!r}")
        return BotSettings(BotLevel.parse(data.get("level")), strength, seed)
