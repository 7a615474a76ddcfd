"""Training environments around `WizardGame`: one game (`WizardEnv`) or many (`VectorWizardEnv`).

Rewards are per seat: the seat's score change / 100 when a round ends, else 0,
so the rewards of a seat over a game add up to its final score / 100.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from wizard.ai.encoding import FEATURE_SIZE, ActionSpace, encode_into
from wizard.engine import (
    NUM_ACTIONS,
    Action,
    Event,
    GameOptions,
    Observation,
    RoundCompleted,
    RoundResult,
    WizardGame,
    action_from_index,
)
from wizard.engine.rules import MAX_PLAYERS

REWARD_SCALE = 100.0


@dataclass(slots=True)
class StepResult:
    observation: Observation | None  # the next seat to act; None when the game is over
    rewards: list[float]  # per seat, for this step
    done: bool
    events: list[Event] = field(default_factory=list)


def round_rewards(events: Sequence[Event], num_players: int) -> list[float]:
    """Per-seat rewards carried by a step's events (score changes / 100)."""
    rewards = [0.0] * num_players
    for event in events:
        if isinstance(event, RoundCompleted):
            for seat, change in enumerate(event.result.score_changes):
                rewards[seat] += change / REWARD_SCALE
    return rewards


class WizardEnv:
    """A turn-based multi-agent environment.

    >>> env = WizardEnv(num_players=4, seed=1)
    >>> obs = env.reset()
    >>> result = env.step(obs.legal_actions[0])
    >>> len(result.rewards)
    4
    """

    def __init__(
        self,
        num_players: int | Sequence[int] = (3, 4, 5, 6),
        options: GameOptions | None = None,
        seed: int | None = None,
    ) -> None:
        self.player_counts = (num_players,) if isinstance(num_players, int) else tuple(num_players)
        if not self.player_counts:
            raise ValueError("num_players must name at least one player count")
        self.options = options or GameOptions()
        self._rng = random.Random(seed)
        self.game: WizardGame | None = None

    def reset(self, seed: int | None = None) -> Observation:
        """Start a new game (player count drawn from ``num_players``); the first seat's view."""
        if seed is not None:
            self._rng = random.Random(seed)
        num_players = self._rng.choice(self.player_counts)
        self.game = WizardGame(num_players, self.options, seed=self._rng.getrandbits(63))
        return self._current_observation()

    def _current_observation(self) -> Observation:
        assert self.game is not None
        player = self.game.current_player
        assert player is not None
        return self.game.observation(player)

    def step(self, action: Action) -> StepResult:
        """Apply ``action`` for the seat to move; raises `IllegalActionError` if it is illegal."""
        game = self.game
        if game is None:
            raise RuntimeError("call reset() before step()")
        player = game.current_player
        if player is None:
            raise RuntimeError("the game is over; call reset()")
        events = game.apply(player, action)
        rewards = round_rewards(events, game.num_players)
        if game.is_finished:
            return StepResult(None, rewards, True, events)
        return StepResult(self._current_observation(), rewards, False, events)


@dataclass(slots=True)
class VectorStep:
    """Stacked views of the seats to move, after a step (or a reset)."""

    features: npt.NDArray[np.float32]  # (num_envs, FEATURE_SIZE)
    masks: npt.NDArray[np.bool_]  # (num_envs, NUM_ACTIONS)
    players: npt.NDArray[np.int64]  # (num_envs,) the seat to move in each game
    rewards: npt.NDArray[np.float32]  # (num_envs, 6) per seat of each game's last step
    dones: npt.NDArray[np.bool_]  # (num_envs,) the step finished that game (then it restarted)
    final_scores: list[list[int] | None]  # the finished game's scores where done
    #: the round the step completed in each game (bids, tricks, score changes), else None
    round_results: list[RoundResult | None] = field(default_factory=list)


class VectorWizardEnv:
    """``num_envs`` games stepped together; finished games restart automatically.

    ``step(actions)`` takes one action index per game (for its seat to move) and
    returns stacked features and masks, so a trainer runs one batched forward pass.
    Rewards of a finished game belong to that game; the returned view is the new game's.
    """

    def __init__(
        self,
        num_envs: int,
        num_players: int | Sequence[int] = (3, 4, 5, 6),
        options: GameOptions | None = None,
        seed: int | None = None,
    ) -> None:
        if num_envs < 1:
            raise ValueError(f"num_envs must be at least 1, got {num_envs}")
        self.envs = [WizardEnv(num_players, options) for _ in range(num_envs)]
        self._rng = random.Random(seed)
        self.observations: list[Observation] = []

    @property
    def num_envs(self) -> int:
        return len(self.envs)

    def reset(self) -> VectorStep:
        self.observations = [env.reset(self._rng.getrandbits(63)) for env in self.envs]
        n = self.num_envs
        return self._stack(np.zeros((n, MAX_PLAYERS), np.float32), np.zeros(n, np.bool_),
                           [None] * n)

    def step(self, actions: Sequence[int] | npt.NDArray[np.integer]) -> VectorStep:
        """Apply one action index per game; raises `IllegalActionError` for an illegal one."""
        if len(actions) != self.num_envs:
            raise ValueError(f"need {self.num_envs} actions, got {len(actions)}")
        n = self.num_envs
        rewards = np.zeros((n, MAX_PLAYERS), np.float32)
        dones = np.zeros(n, np.bool_)
        finals: list[list[int] | None] = [None] * n
        rounds: list[RoundResult | None] = [None] * n
        for i, (env, index) in enumerate(zip(self.envs, actions, strict=True)):
            result = env.step(action_from_index(int(index)))
            rewards[i, : len(result.rewards)] = result.rewards
            for event in result.events:
                if isinstance(event, RoundCompleted):
                    rounds[i] = event.result
            if result.done:
                assert env.game is not None
                dones[i] = True
                finals[i] = env.game.scores
                self.observations[i] = env.reset(self._rng.getrandbits(63))
            else:
                assert result.observation is not None
                self.observations[i] = result.observation
        return self._stack(rewards, dones, finals, rounds)

    def _stack(self, rewards: npt.NDArray[np.float32], dones: npt.NDArray[np.bool_],
               finals: list[list[int] | None],
               rounds: list[RoundResult | None] | None = None) -> VectorStep:
        n = self.num_envs
        features = np.zeros((n, FEATURE_SIZE), np.float32)
        masks = np.zeros((n, NUM_ACTIONS), np.bool_)
        players = np.zeros(n, np.int64)
        for i, obs in enumerate(self.observations):
            encode_into(obs, features[i])
            masks[i] = ActionSpace.mask(obs)
            players[i] = obs.player if obs.player is not None else -1
        return VectorStep(features, masks, players, rewards, dones, finals,
                          rounds if rounds is not None else [None] * n)
