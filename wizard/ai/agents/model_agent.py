"""`ModelAgent`: an agent backed by an ONNX policy."""

from __future__ import annotations

import random

from wizard.engine import Action, Observation

from ..encoding import ActionSpace, encode_observation
from ..policy import OnnxPolicy, choose
from .base import Agent, require_turn


class ModelAgent(Agent):
    """Encodes the observation, asks the policy, masks illegal actions, picks one.

    ``temperature`` 0 plays the policy's best legal action; above 0 samples
    (reproducibly from ``seed``).
    """

    def __init__(self, policy: OnnxPolicy, *, temperature: float = 0.0,
                 seed: int | None = None) -> None:
        self.policy = policy
        self.temperature = temperature
        self.name = f"model:{policy.name}"
        self._rng = random.Random(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self._rng = random.Random(seed)

    def act(self, observation: Observation) -> Action:
        require_turn(observation)
        features = encode_observation(observation)[None, :]
        logits = self.policy.logits(features)[0]
        index = choose(logits, ActionSpace.mask(observation), temperature=self.temperature,
                       uniform=self._rng.random())
        return ActionSpace.action(index)
