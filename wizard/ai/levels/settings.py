"""Bot levels: a strength drawn per game from the level's range, and each level's brain.

As in the seed bot design (`003_…`): each level is a range of strengths with
gaps between them; a bot draws its strength once per game (`BotSettings.draw`).
What a strength does to a move (the ±5 per move, random moves, softmax
temperatures, the search budget) is `wizard.ai.levels.strength`, the one recipe every
path draws with. `BRAINS` says what each level plays with. Every random choice
comes from ``(seed, move number)``, so a restored game continues exactly as it
would have.
"""

from __future__ import annotations

import enum
import random
from dataclasses import dataclass
from typing import Any

from .strength import move_rng


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
    # 85–100 before version 5 (a stored bot keeps the strength it drew); at 95–100 master
    # plays nearly its full search (docs/measurements/ai.md#master-at-its-full-strength)
    BotLevel.MASTER: (95, 100),
}

#: Which brain each level plays with (see `wizard.ai.levels.agent`). Hard plays the
#: learned policy when its file (`HARD_POLICY`) exists, else a small search (measured
#: in docs/ai.md to keep the levels apart). Medium is the hook for the OI agent: put
#: its registered agent name here once it is measured to sit between easy and hard.
BRAINS: dict[BotLevel, str] = {
    BotLevel.EASY: "heuristic",
    BotLevel.MEDIUM: "heuristic",
    BotLevel.HARD: "model_or_search",
    BotLevel.MASTER: "search",
}


#: The bots' version, stored with every bot seat: 1 — master searched uniform worlds;
#: 2 — master's worlds are weighted by the other seats' bids (`wizard.ai.search.inference`);
#: 3 — and by their card plays (`wizard.ai.search.plays`);
#: 4 — hard plays the policy trained on OI's and the master's values (`policy_for`);
#: 5 — hard plays the policy with a card head (v3); new masters draw 95–100;
#: 6 — master weighs OI's values 0.8 against its search's 0.2 (0.5 before:
#: `wizard.ai.search.master_prior_weight`);
#: 7 — master reads the weight from the table: 0.5 where the other seats play like the
#: heuristic, up to 0.8 where they do not (`wizard.ai.search.table`);
#: 8 — where the table reads like the heuristic, master's worlds walk 100 card swaps
#: toward the hands that explain the others' bids and plays (`wizard.ai.search.refine`);
#: 9 — 200 card swaps a world (master v7);
#: 10 — master reads the table over the game's finished rounds too, and weighs OI's
#: values 0.3 where it reads like the heuristic (master v8, `GAME_PRIOR_WEIGHT`);
#: 11 — where the game's finished rounds say the others do not play like the heuristic,
#: OI bids and plays for them in master's rollouts, blended with OI's values at 0.5
#: (master v9, `wizard.ai.search.oi_rollout`);
#: 12 — there, the mean of OI's rollouts and the heuristic's in the same worlds (master v10,
#: `wizard.ai.search.budget.OI_MIX`).
#: Hard plays the policy's cards by its probabilities, not one card ahead as the
#: ``model`` agent does (the policy's ``card_lookahead``): looking ahead, hard came too
#: close to master (docs/measurements/ai.md#cards-one-card-ahead).
#: A stored bot keeps its version (one stored without one is 1), so a game restored after
#: an upgrade goes on with the bots it started with, move for move.
BOT_VERSION = 12

#: The policy file (``models/<name>.onnx``) of hard bots up to a version; newer ones play
#: `HARD_POLICY`. A new policy for hard keeps the old file and adds a line here.
OLDER_POLICIES: tuple[tuple[int, str], ...] = ((3, "default-v1"), (4, "default-v2"))
#: The shipped policy, the ``model`` agent (``models/default.onnx``: v6 since 2026-12-04,
#: v4's net with a tricks head of its own after a card; hard does not read that head).
DEFAULT_POLICY = "default"
#: What hard bots of version 5 play: the policy v3, not v4. With v4's cards (by
#: probability) master led hard by +45.1 [28.2, 62.1] (100 games, seed 1), under the 50
#: points a level step; with v3's, +55.2 (docs/measurements/ai.md, "one card ahead").
HARD_POLICY = "default-v3"


def policy_for(version: int) -> str:
    """The policy a hard bot of ``version`` plays (a file stem in ``models/``).

    >>> policy_for(3), policy_for(4), policy_for(BOT_VERSION)
    ('default-v1', 'default-v2', 'default-v3')
    """
    for up_to, name in OLDER_POLICIES:
        if version <= up_to:
            return name
    return HARD_POLICY


@dataclass(frozen=True, slots=True)
class BotSettings:
    """A bot seat: its level, the strength drawn for this game, its seed and its version."""

    level: BotLevel
    strength: int
    seed: int
    version: int = BOT_VERSION

    @staticmethod
    def draw(level: BotLevel, rng: random.Random) -> BotSettings:
        low, high = STRENGTH_RANGES[level]
        return BotSettings(level, rng.randint(low, high), rng.getrandbits(63))

    def move_rng(self, move_number: int) -> random.Random:
        """The generator for this bot's decision at ``move_number`` of the game."""
        return move_rng(self.seed, move_number)

    def to_dict(self) -> dict[str, Any]:
        return {"level": self.level.value, "strength": self.strength, "seed": self.seed,
                "version": self.version}

    @staticmethod
    def from_dict(data: Any) -> BotSettings:
        if not isinstance(data, dict):
            raise ValueError("bot settings must be an object")
        strength, seed = data.get("strength"), data.get("seed")
        if type(strength) is not int or not 0 <= strength <= 100:
            raise ValueError(f"bot strength must be an integer 0-100, got {strength!r}")
        if type(seed) is not int:
            raise ValueError(f"bot seed must be an integer, got {seed!r}")
        version = data.get("version", 1)
        if type(version) is not int or not 1 <= version <= BOT_VERSION:
            raise ValueError(f"bot version must be an integer 1-{BOT_VERSION}, got {version!r}")
        return BotSettings(BotLevel.parse(data.get("level")), strength, seed, version)
