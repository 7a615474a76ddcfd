"""The one async decision interface every bot seat goes through.

The server asks a `Decider` for a `Decision` on a `DecisionRequest`. The inline
decider answers on the event loop with the heuristic; the inference pool
(`wizard.ai.pool`) implements the same interface with worker processes and
falls back to the heuristic when it is saturated or too slow. The reply always
says which agent decided and why.
"""

from __future__ import annotations

import time
from typing import Protocol

import msgspec
from prometheus_client.registry import Collector

from wizard.engine import Action, Observation

from .agents import Agent, HeuristicAgent
from .levels import BotSettings
from .levels.agent import LevelAgent
from .levels.strength import move_draw, varies_per_move

# The three values below are msgspec structs, not dataclasses: one of each is built per bot
# decision, and a frozen dataclass's __init__ costs ~0.85 µs against ~0.15 µs for a struct
# (measured; the pool's loop time per decision is a budget of ~25 µs). gc=False: none of
# them can be part of a reference cycle.


class AgentSpec(msgspec.Struct, frozen=True, gc=False):
    """What should decide: an agent name and, for bots, their settings and move number."""

    agent: str = "heuristic"
    bot: BotSettings | None = None
    move_number: int = 0


class DecisionRequest(msgspec.Struct, frozen=True, gc=False):
    observation: Observation
    spec: AgentSpec = msgspec.field(default_factory=AgentSpec)
    deadline: float = float("inf")  # time.monotonic() seconds


class Decision(msgspec.Struct, frozen=True, gc=False):
    """``agent`` names what actually decided; ``reason`` says why it was not the one asked for."""

    action: Action
    agent: str
    reason: str | None = None
    queue_ms: float = 0.0
    compute_ms: float = 0.0


class Decider(Protocol):
    """Everything a caller (the server) uses of a decider; no caller needs ``getattr``."""

    async def decide(self, request: DecisionRequest) -> Decision:
        """The decision for ``request``, by its deadline."""
        ...

    def decide_now(self, request: DecisionRequest) -> Decision | None:
        """The decision at once, on the caller's thread, if this decider would make it on
        the event loop anyway (the heuristic levels: microseconds); ``None`` if it has to
        be awaited (a worker's). Lets a table apply a run of bot moves in one step."""
        ...

    async def start(self) -> None:
        """Get ready to decide (start workers, load policies)."""
        ...

    async def close(self) -> None:
        """Answer what is in progress, then stop."""
        ...

    @property
    def policies(self) -> frozenset[str]:
        """The loaded policies a ``model:<name>`` agent may name (empty: heuristics only)."""
        ...

    @property
    def serving(self) -> bool:
        """Whether it decides as asked now: False before `start`, after `close`, and while a
        pool's dead worker is being replaced (its fallback answers meanwhile)."""
        ...

    @property
    def metrics(self) -> Collector | None:
        """The decider's own Prometheus metrics, if it has any."""
        ...


def act_with_strength(
    agent: Agent, spec: AgentSpec, observation: Observation
) -> tuple[Action, str]:
    """The bot's move: a `LevelAgent` plays its level (`LevelAgent.act_as_bot`); any other
    agent given bot settings (a fallback) plays a random legal move with the strength's
    chance, else its own move.

    Reproducible: the draws are `wizard.ai.levels.strength.move_draw`'s, from the bot's seed and
    the move number (a plain agent's at the game's strength, as the pool's batches).
    Returns the action and the name of what chose it (``random`` or the agent).
    """
    if spec.bot is not None and isinstance(agent, LevelAgent):  # a level: its brain's draws
        return agent.act_as_bot(observation, spec.bot, spec.move_number)
    if spec.bot is not None:
        legal = observation.legal_actions
        draw = move_draw(spec.bot.strength, spec.bot.seed, spec.move_number, len(legal),
                         varies=varies_per_move(None))
        if draw.random_pick >= 0:
            return legal[draw.random_pick], "random"
    return agent.act(observation), agent.name


class InlineDecider:
    """Decides at once on the caller's thread with the heuristic (no pool, no model)."""

    policies: frozenset[str] = frozenset()
    metrics: Collector | None = None

    def __init__(self, agent: Agent | None = None) -> None:
        self.agent = agent or HeuristicAgent()

    async def decide(self, request: DecisionRequest) -> Decision:
        return self._decide(request)

    def decide_now(self, request: DecisionRequest) -> Decision:
        return self._decide(request)

    def _decide(self, request: DecisionRequest) -> Decision:
        start = time.perf_counter()
        action, agent = act_with_strength(self.agent, request.spec, request.observation)
        return Decision(action, agent, None, 0.0, (time.perf_counter() - start) * 1000)

    serving = True  # nothing to start: the heuristic is always there

    async def start(self) -> None:
        return None

    async def close(self) -> None:
        return None
