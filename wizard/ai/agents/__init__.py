"""Agents and `make_agent`, the one place that turns an agent name into a player."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from ..policy import OnnxPolicy, PolicyError, models_dir
from .base import Agent
from .heuristic import HeuristicAgent
from .model_agent import ModelAgent
from .random_agent import RandomAgent

AgentFactory = Callable[..., Agent]
DEFAULT_MODEL_NAME = "default"


def _make_model(seed: int | None = None, model_path: str | os.PathLike[str] | None = None,
                **options: object) -> Agent:
    path = Path(model_path) if model_path else models_dir() / f"{DEFAULT_MODEL_NAME}.onnx"
    policy = OnnxPolicy(path)
    temperature = options.get("temperature", 0.0)
    assert isinstance(temperature, int | float)
    return ModelAgent(policy, temperature=float(temperature), seed=seed)


_REGISTRY: dict[str, AgentFactory] = {
    "random": lambda seed=None, **_: RandomAgent(seed),
    "heuristic": lambda seed=None, **_: HeuristicAgent(),
    "model": _make_model,
}


def register_agent(name: str, factory: AgentFactory) -> None:
    """Make ``make_agent(name, ...)`` build agents with ``factory(seed=..., **options)``."""
    _REGISTRY[name] = factory


def agent_names() -> list[str]:
    return sorted(_REGISTRY)


def make_agent(name: str, *, seed: int | None = None, **options: object) -> Agent:
    """Build an agent by name: ``random``, ``heuristic``, ``model`` and every registered one.

    ``model`` loads ``model_path`` (default ``models/default.onnx``) and raises
    `PolicyError` when that file is missing, corrupt or from another encoding
    version: a ``model`` is never silently a heuristic (the server's bots keep
    their own fallback, see `wizard.server.bots.level_agent`). Raises
    `ValueError` for an unknown name.

    >>> make_agent("heuristic").name
    'heuristic'
    """
    factory = _REGISTRY.get(name)
    if factory is None:
        raise ValueError(f"unknown agent {name!r}; known: {', '.join(agent_names())}")
    return factory(seed=seed, **options)


__all__ = [
    "Agent",
    "HeuristicAgent",
    "ModelAgent",
    "PolicyError",
    "RandomAgent",
    "agent_names",
    "make_agent",
    "register_agent",
]
