"""The agent interface: an `Agent` maps an `Observation` to one of its legal actions."""

from __future__ import annotations

from abc import ABC, abstractmethod

from wizard.engine import Action, Observation


class Agent(ABC):
    """A player that decides from what its seat may see, and nothing else.

    `act` must return one of ``observation.legal_actions`` (the observation is
    always one where it is this agent's turn). Agents with randomness draw it
    from their own generator, seeded at construction and by `reset`, so the
    same seed gives the same decisions.
    """

    name: str = "agent"

    @abstractmethod
    def act(self, observation: Observation) -> Action:
        """Choose an action; raises `ValueError` if the observation has no legal action."""

    def reset(self, seed: int | None = None) -> None:  # noqa: B027 - optional hook
        """Called before each game; ``seed`` (if given) re-seeds the agent's randomness."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"


def require_turn(observation: Observation) -> None:
    """Raises `ValueError` unless the observation has legal actions to choose from."""
    if not observation.legal_actions:
        raise ValueError(
            f"seat {observation.player} has no legal action (phase {observation.phase.value}, "
            f"seat {observation.current_player} to move)"
        )
