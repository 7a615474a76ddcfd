"""Bot levels: easy, medium, hard, master, as the server seats them.

- `settings`: `BotLevel`, the strength range and brain of each, `BotSettings` (a seat's
  level, its strength drawn per game, its seed);
- `strength`: how a strength turns into a move (random moves, temperatures, search
  worlds): one implementation for every path a bot's move takes;
- `agent`: `LevelAgent`, a level playing as the server plays it;
- `calibrate`: ``wizard calibrate``, the tournament that keeps the levels apart.
"""

from __future__ import annotations

from .agent import LevelAgent, brain_for, moves_before
from .settings import BRAINS, STRENGTH_RANGES, BotLevel, BotSettings

__all__ = ["BRAINS", "STRENGTH_RANGES", "BotLevel", "BotSettings", "LevelAgent", "brain_for",
           "moves_before"]
