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
#: agents too slow for the event loop: the inference pool decides them in its workers
WORKER_AGENTS: tuple[str, ...] = ("search", "bot:hard", "bot:master", "oi")


def _make_model(seed: int | None = None, model_path: str | os.PathLike[str] | None = None,
                **options: object) -> Agent:
    path = Path(model_path) if model_path else models_dir() / f"{DEFAULT_MODEL_NAME}.onnx"
    policy = OnnxPolicy(path)
    temperature = options.get("temperature", 0.0)
    assert isinstance(temperature, int | float)
    return ModelAgent(policy, temperature=float(temperature), seed=seed)


def _make_search(seed: int | None = None, **options: object) -> Agent:
    from ..prior import master_prior
    from ..search import DEFAULT_BUDGET, PRIOR_WEIGHT, Budget, SearchAgent

    worlds = options.get("worlds")
    if worlds is not None and type(worlds) is not int:
        raise ValueError(f"worlds must be an integer, got {worlds!r}")
    weight = options.get("prior_weight", PRIOR_WEIGHT)
    if not isinstance(weight, int | float) or isinstance(weight, bool):
        raise ValueError(f"prior_weight must be a number, got {weight!r}")
    budget = DEFAULT_BUDGET if worlds is None else Budget(worlds=worlds)
    prior = master_prior() if weight else None  # loaded once per process, not per agent
    return SearchAgent(budget, seed=seed, prior=prior, prior_weight=float(weight))


def _make_level(level: str) -> AgentFactory:
    def factory(seed: int | None = None, **_: object) -> Agent:
        from ..level_agent import LevelAgent

        return LevelAgent(level, seed=seed)

    return factory


def _make_oi(seed: int | None = None, **options: object) -> Agent:
    from ..oi import make_oi_agent  # imported late: wizard.ai.oi imports this package

    return make_oi_agent(seed=seed, **options)  # type: ignore[arg-type]


_REGISTRY: dict[str, AgentFactory] = {
    "random": lambda seed=None, **_: RandomAgent(seed),
    "heuristic": lambda seed=None, **_: HeuristicAgent(),
    "model": _make_model,
    "search": _make_search,
    **{f"bot:{level}": _make_level(level) for level in ("easy", "medium", "hard", "master")},
    "oi": _make_oi,
}


def register_agent(name: str, factory: AgentFactory) -> None:
    """Make ``make_agent(name, ...)`` build agents with ``factory(seed=..., **options)``."""
    _REGISTRY[name] = factory


def agent_names() -> list[str]:
    return sorted(_REGISTRY)


def make_agent(name: str, *, seed: int | None = None, **options: object) -> Agent:
    """Build an agent by name: random, heuristic, model, oi, search, ``bot:<level>``.

    ``search`` is the determinized search bot, the master (options ``worlds``,
    default 32, and ``prior_weight``, default 0.5: its values averaged with
    OI's, `wizard.ai.prior`; 0 or missing OI networks: the plain search);
    ``bot:easy`` … ``bot:master`` play a bot level as the server does (a
    strength drawn per game from the seed, see `wizard.ai.levels`).

    ``model`` loads ``model_path`` (default ``models/default.onnx``) and raises
    `PolicyError` when that file is missing, corrupt or from another encoding
    version: a ``model`` is never silently a heuristic (the server's bots keep
    their own fallback, see `wizard.server.tables.bots.level_agent`). ``oi``
    loads ``models/oi_overall.onnx`` and ``models/oi_immediate.onnx`` (or
    ``model_dir``) and raises the same way. Raises `ValueError` for an unknown name.

    >>> make_agent("heuristic").name
    'heuristic'
    """
    factory = _REGISTRY.get(name)
    if factory is None:
        raise ValueError(f"unknown agent {name!r}; known: {', '.join(agent_names())}")
    return factory(seed=seed, **options)


__all__ = [
    "WORKER_AGENTS",
    "Agent",
    "HeuristicAgent",
    "ModelAgent",
    "PolicyError",
    "RandomAgent",
    "agent_names",
    "make_agent",
    "register_agent",
]
