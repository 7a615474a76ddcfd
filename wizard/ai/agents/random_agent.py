"""`RandomAgent`: a uniformly random legal action, reproducible from its seed."""

from __future__ import annotations

import random

from wizard.engine import Action, Observation

from .base import Agent, require_turn


class RandomAgent(Agent):
    """Plays uniformly at random among the legal actions.

    >>> from wizard.engine import WizardGame
    >>> game = WizardGame(4, seed=3)
    >>> obs = game.observation(game.current_player)
    >>> RandomAgent(seed=1).act(obs) == RandomAgent(seed=1).act(obs)
    True
    """

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self._seed = seed
        self._rng = random.Random(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self._seed = seed
            self._rng = random.Random(seed)

    def act(self, observation: Observation) -> Action:
        require_turn(observation)
        return self._rng.choice(observation.legal_actions)
