"""Agent names → agents: `make_agent`, the one place that turns a name into a player.

>>> sorted(name for name in agent_names() if not name.startswith("test-"))[:3]
['bot:easy', 'bot:hard', 'bot:master']
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from pathlib import Path

from .agents import Agent, HeuristicAgent, ModelAgent, RandomAgent
from .levels.agent import LevelAgent
from .oi import make_oi_agent
from .policy import OnnxPolicy, models_dir
from .search import (
    DEFAULT_BUDGET,
    EARLIER_PRIOR_WEIGHT,
    GAME_PRIOR_WEIGHT,
    PRIOR_WEIGHT,
    TABLE_PRIOR_WEIGHT,
    V3_BUDGET,
    V6_BUDGET,
    V7_BUDGET,
    V8_BUDGET,
    V9_BUDGET,
    Budget,
    PriorWeight,
    SearchAgent,
    master_budget,
)
from .search.prior import master_prior

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
    worlds = options.get("worlds")
    if worlds is not None and type(worlds) is not int:
        raise ValueError(f"worlds must be an integer, got {worlds!r}")
    weight: PriorWeight = GAME_PRIOR_WEIGHT  # read from the table unless a number is given
    if "prior_weight" in options:
        number = options["prior_weight"]
        if not isinstance(number, int | float) or isinstance(number, bool):
            raise ValueError(f"prior_weight must be a number, got {number!r}")
        weight = float(number)
    budget = DEFAULT_BUDGET if worlds is None else dataclasses.replace(
        DEFAULT_BUDGET, worlds=worlds, oi_worlds=min(worlds, DEFAULT_BUDGET.oi_worlds))
    prior = master_prior() if weight else None  # loaded once per process, not per agent
    return SearchAgent(budget, seed=seed, prior=prior, prior_weight=weight,
                       bid_model=prior.overall if prior else None,
                       opponents=(prior.overall, prior.immediate) if prior else None)


#: the master as it was measured on 2026-12-02 (32 uniform worlds, OI prior 0.5),
#: kept runnable as ``search-v1`` so that a stronger master is measured head to head against it
SEARCH_V1_BUDGET = Budget(worlds=32, bid_window=3)
SEARCH_V1_PRIOR_WEIGHT = 0.5


def _make_search_v1(seed: int | None = None, **_: object) -> Agent:
    agent = SearchAgent(SEARCH_V1_BUDGET, seed=seed, prior=master_prior(),
                        prior_weight=SEARCH_V1_PRIOR_WEIGHT)
    agent.name = "search-v1"
    return agent


def _earlier_master(name: str, budget: Budget, weight: PriorWeight = EARLIER_PRIOR_WEIGHT
                    ) -> AgentFactory:
    """A master before the current one, kept to measure against: ``search-v2`` (worlds
    weighted by the bids only, OI's values at 0.5), ``search-v3`` (by the bids and card
    plays; bot versions 3-5), ``search-v4`` (OI's values at 0.8; bot version 6) and
    ``search-v5`` (OI's weight read from the table; bot version 7), ``search-v6``
    (worlds refined by 100 card swaps where the table reads like the heuristic; bot
    version 8), ``search-v7`` (200 swaps; the table read in the round only; bot
    version 9), ``search-v8`` (the heuristic's rollouts at every table; bot version 10) and
    ``search-v9`` (OI's rollouts alone where the table reads unlike the heuristic; bot
    version 11)."""

    def factory(seed: int | None = None, **_: object) -> Agent:
        prior = master_prior()
        agent = SearchAgent(budget, seed=seed, prior=prior, prior_weight=weight,
                            bid_model=prior.overall if prior else None,
                            opponents=(prior.overall, prior.immediate) if prior else None)
        agent.name = name
        return agent

    return factory


def _make_level(level: str) -> AgentFactory:
    def factory(seed: int | None = None, **_: object) -> Agent:
        # a level's brain may be any registered agent (`wizard.ai.levels.settings.BRAINS`)
        return LevelAgent(level, seed=seed, make_brain=make_agent)

    return factory


def _make_oi(seed: int | None = None, **options: object) -> Agent:
    return make_oi_agent(seed=seed, **options)  # type: ignore[arg-type]


_REGISTRY: dict[str, AgentFactory] = {
    "random": lambda seed=None, **_: RandomAgent(seed),
    "heuristic": lambda seed=None, **_: HeuristicAgent(),
    "model": _make_model,
    "search": _make_search,
    "search-v1": _make_search_v1,
    "search-v2": _earlier_master("search-v2", master_budget(32, 2)),
    "search-v3": _earlier_master("search-v3", V3_BUDGET),
    "search-v4": _earlier_master("search-v4", V3_BUDGET, PRIOR_WEIGHT),
    "search-v5": _earlier_master("search-v5", V3_BUDGET, TABLE_PRIOR_WEIGHT),
    "search-v6": _earlier_master("search-v6", V6_BUDGET, TABLE_PRIOR_WEIGHT),
    "search-v7": _earlier_master("search-v7", V7_BUDGET, TABLE_PRIOR_WEIGHT),
    "search-v8": _earlier_master("search-v8", V8_BUDGET, GAME_PRIOR_WEIGHT),
    "search-v9": _earlier_master("search-v9", V9_BUDGET, GAME_PRIOR_WEIGHT),
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

    ``search`` is the determinized search bot, master v10 (its worlds weighted by
    the other seats' bids and card plays, refined by card swaps where the table
    reads like the heuristic, OI's values at a weight read from the table over the
    game, `wizard.ai.search.table`, and where the finished rounds read unlike the
    heuristic the mean of rollouts with OI playing the other seats,
    `wizard.ai.search.oi_rollout`, and of the heuristic's in the same worlds;
    ``search-v1``: uniform worlds, ``search-v2``: weighted by the bids only,
    ``search-v3``: OI at 0.5, ``search-v4``: OI at 0.8, ``search-v5``: no swaps,
    ``search-v6``: 100 swaps, ``search-v7``: the table read in the round only,
    ``search-v8``: the heuristic's rollouts everywhere, ``search-v9``: OI's rollouts alone
    where the gate opens, the masters before, kept to
    measure against) (options ``worlds``, default 32,
    and ``prior_weight``, a fixed weight instead of the table's: its values
    averaged with OI's, `wizard.ai.search.prior`; 0 or missing OI networks: the
    plain search);
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
    "DEFAULT_MODEL_NAME",
    "WORKER_AGENTS",
    "AgentFactory",
    "agent_names",
    "make_agent",
    "register_agent",
]
