"""`ModelAgent`: an ONNX policy's agent (cards by probability, bids by expected score)."""

from __future__ import annotations

import random

from wizard.engine import Action, Observation

from ..encoding import ActionSpace, encode_observation
from ..policy import OnnxPolicy, choose
from .base import Agent, require_turn


class ModelAgent(Agent):
    """Encodes the observation, asks the policy, masks illegal actions, picks one.

    Cards and trump follow the policy's action probabilities; a bid is the legal
    one with the highest expected Wizard score under the policy's tricks
    distribution for it (`OnnxPolicy.logits`). ``temperature`` 0 plays the best
    legal action; above 0 samples (reproducibly from ``seed``). `act` raises
    `ValueError` for an observation without legal actions.
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
        mask = ActionSpace.mask(observation)
        logits = self.policy.logits(features, mask[None, :])[0]
        index = choose(logits, mask, temperature=self.temperature, uniform=self._rng.random())
        return ActionSpace.action(index)
