"""Bot levels: a strength drawn per game from the level's range, and what strength does.

As in the seed bot design (`003_…`): each level is a range of strengths with
gaps between them; a bot draws its strength once per game and each move varies
it by ±5; strength sets, by interpolating `STRENGTH_TABLE`, how often it plays a
random legal move, the softmax temperatures (over a policy's logits, over
searched values) and the search budget. `BRAINS` says what each level plays
with. Every random choice comes from ``(seed, move number)``, so a restored game
continues exactly as it would have.
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

#: The one strength table (also in docs/ai.md), interpolated linearly between rows:
#: (strength, chance of a random legal move, policy softmax temperature (logits),
#: value softmax temperature (round points), search worlds).
STRENGTH_TABLE: tuple[tuple[int, float, float, float, float], ...] = (
    (0, 0.35, 2.0, 25.0, 1),
    (25, 0.15, 1.0, 15.0, 1),
    (50, 0.05, 0.5, 8.0, 1),
    (75, 0.01, 0.2, 4.0, 3),
    (85, 0.006, 0.12, 2.0, 12),
    (100, 0.0, 0.0, 0.0, 32),
)
RANDOM_MOVE_TABLE = STRENGTH_TABLE  # the name before the search columns were added
#: how far a bot's strength varies from move to move around the strength drawn for the game
STRENGTH_JITTER = 5


def _interpolate(strength: float, column: int) -> float:
    strength = min(100.0, max(0.0, strength))
    for (s0, *v0), (s1, *v1) in itertools.pairwise(STRENGTH_TABLE):
        if strength <= s1:
            t = (strength - s0) / (s1 - s0)
            return v0[column] + t * (v1[column] - v0[column])
    return float(STRENGTH_TABLE[-1][column + 1])


def random_move_chance(strength: float) -> float:
    """``random_move_chance(0) == 0.35``, ``random_move_chance(100) == 0.0``."""
    return _interpolate(strength, 0)


def temperature(strength: float) -> float:
    """The softmax temperature over a learned policy's logits: ``temperature(100) == 0.0``."""
    return _interpolate(strength, 1)


def value_temperature(strength: float) -> float:
    """The softmax temperature, in round points, over searched or heuristic values."""
    return _interpolate(strength, 2)


def search_worlds(strength: float) -> int:
    """The search budget (worlds) of a strength: ``search_worlds(100) == 32``."""
    return max(1, round(_interpolate(strength, 3)))


def move_strength(strength: int, rng: random.Random) -> int:
    """This move's strength: the game's ±`STRENGTH_JITTER`, kept within 0–100 (one draw)."""
    return min(100, max(0, strength + rng.randint(-STRENGTH_JITTER, STRENGTH_JITTER)))


#: Which brain each level plays with (see `wizard.ai.level_agent`). Hard plays the
#: learned policy when ``models/default.onnx`` exists, else a small search (measured
#: in docs/ai.md to keep the levels apart). Medium is the hook for the OI agent: put
#: its registered agent name here once it is measured to sit between easy and hard.
BRAINS: dict[BotLevel, str] = {
    BotLevel.EASY: "heuristic",
    BotLevel.MEDIUM: "heuristic",
    BotLevel.HARD: "model_or_search",
    BotLevel.MASTER: "search",
}


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
