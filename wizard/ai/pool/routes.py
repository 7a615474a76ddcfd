"""`Routes`: where the requests for each agent name go.

- ``model`` (the default policy) or ``model:<name>``: that policy's `Buffer`, batched;
- a name in ``worker_agents`` (the search bots): its own `Buffer` of one request per task;
- any other agent `make_agent` knows (the heuristic levels): the agent, decided inline;
- anything else: None (an unknown agent or policy, logged once; the fallback answers).
"""

from __future__ import annotations

import structlog

from ..agents import Agent
from ..registry import make_agent
from .batches import MODEL_PREFIX, Buffer
from .settings import PoolSettings

log = structlog.get_logger(__name__)


class Routes:
    """The buffers and inline agents of one pool; ``policies`` is set once its workers
    have loaded them."""

    def __init__(self, settings: PoolSettings) -> None:
        self.settings = settings
        self.policies: frozenset[str] = frozenset()
        self.buffers: dict[tuple[str, str], Buffer] = {}
        self._inline_agents: dict[str, Agent] = {}
        self._warned: set[tuple[str, str]] = set()

    def route(self, agent: str) -> Buffer | Agent | None:
        """The buffer an agent name is batched in, the agent decided inline, or None."""
        if agent in self.settings.worker_agents:
            return self._buffer("agent", agent, 1)
        if agent == "model" or agent.startswith(MODEL_PREFIX):
            policy = agent[len(MODEL_PREFIX):] if agent != "model" else self.settings.default_model
            if policy not in self.policies:
                self._warn_once("pool_unknown_policy", agent)
                return None
            return self._buffer("policy", policy, self.settings.max_batch)
        inline = self._inline_agents.get(agent)
        if inline is None:
            try:
                inline = self._inline_agents[agent] = make_agent(agent)
            except ValueError:
                self._warn_once("pool_unknown_agent", agent)
                return None
        return inline

    def _warn_once(self, event: str, agent: str) -> None:
        if (event, agent) not in self._warned:
            self._warned.add((event, agent))
            log.warning(event, agent=agent, policies=sorted(self.policies))

    def _buffer(self, kind: str, name: str, capacity: int) -> Buffer:
        buffer = self.buffers.get((kind, name))
        if buffer is None:
            buffer = self.buffers[(kind, name)] = Buffer(kind, name, capacity)
        return buffer


__all__ = ["Routes"]
