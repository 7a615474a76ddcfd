"""The master bot's OI prior: searched values averaged with OI's expected scores.

The search (`wizard.ai.search`) plays every other seat with the heuristic in
its rollouts. Against the heuristic that model is exact; against players who
bid and play better (OI, people) its worlds mispredict how tricks fall, and
OI beat the plain search head to head (docs/search.md). OI's networks value the
same candidates in a different way: learned per-card win probabilities, no
model of the opponents' play. The master bot averages the two estimates of
the same quantity, the expected round points of each candidate:

    value(a) = (1 − w) · search(a) + w · OI(a),  w = `PRIOR_WEIGHT`

over the candidates the search considered (`wizard.ai.search.action_values`,
OI's `OIAgent.action_scores`, `wizard.ai.search.blend`). Measured in
docs/measurements/ai.md (the search bot) against OI, the learned policy and
the heuristic. The OI networks are deterministic, so the same position, budget
and seed still give the same move.

>>> from wizard.engine import WizardGame
>>> from wizard.ai.search import Budget
>>> game = WizardGame(4, seed=2)
>>> obs = game.observation(game.current_player)
>>> prior = load_prior()
>>> values = blended_values(obs, Budget(worlds=4), 1, prior)
>>> sorted(values) == [a.value for a in obs.legal_actions]
True
"""

from __future__ import annotations

import os

import structlog

from wizard.engine import Observation

from ..oi import OIAgent, load_networks
from ..policy import PolicyError
from .budget import PRIOR_WEIGHT, Budget
from .pimc import action_values, blend, master_values
from .table import PriorWeight

log = structlog.get_logger(__name__)


def load_prior(model_dir: str | os.PathLike[str] | None = None) -> OIAgent | None:
    """OI over the shipped networks, or ``None`` (logged) when they cannot be loaded."""
    try:
        overall, immediate = load_networks(model_dir)
    except PolicyError as exc:
        log.warning("search_prior_unavailable_plain_search", error=str(exc))
        return None
    return OIAgent(overall, immediate)


_MASTER_PRIORS: dict[str, OIAgent | None] = {}


def master_prior() -> OIAgent | None:
    """The prior the master bot plays with (`load_prior` of the models directory), loaded
    once per process and models directory; ``None`` when the networks cannot be loaded."""
    key = os.environ.get("WIZARD_MODELS_DIR", "")
    if key not in _MASTER_PRIORS:
        _MASTER_PRIORS[key] = load_prior()
    return _MASTER_PRIORS[key]


def blended_values(observation: Observation, budget: Budget, seed: int,
                   prior: OIAgent | None, weight: PriorWeight = PRIOR_WEIGHT) -> dict[int, float]:
    """`action_values` of the search, blended with ``prior``'s `OIAgent.action_scores`
    (`master_values`).

    Without a prior (or with weight 0) these are the search's values as they
    are; with one, its overall network also weighs the worlds when the budget
    asks for ``inference``, and its networks play the other seats where the budget
    asks for ``oi_worlds``. Raises `ValueError` unless it is the observer's turn to act.
    """
    if prior is None or weight == 0.0:
        return action_values(observation, budget, seed, prior.overall if prior else None)
    return master_values(observation, budget, seed, prior, weight, prior.overall,
                         (prior.overall, prior.immediate))


__all__ = ["PRIOR_WEIGHT", "blend", "blended_values", "load_prior", "master_prior"]
