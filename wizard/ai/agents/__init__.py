"""The plain agents: `Agent` (the interface), the heuristic, a policy's, random.

Agents built by name (``make_agent``), the search, OI and the bot levels are in
`wizard.ai.registry`, `wizard.ai.search`, `wizard.ai.oi` and `wizard.ai.levels`.
"""

from __future__ import annotations

from .base import Agent, require_turn
from .heuristic import HeuristicAgent
from .model_agent import ModelAgent
from .random_agent import RandomAgent

__all__ = ["Agent", "HeuristicAgent", "ModelAgent", "RandomAgent", "require_turn"]
