"""Typed errors of the checked API. Each has a stable ``code`` that travels to clients."""

from __future__ import annotations


class IllegalActionError(ValueError):
    """An action the game refused. ``code`` is stable; the message names action and reason."""

    code = "illegal_action"

    def __init__(self, message: str, *, player: int | None = None, action: object = None) -> None:
        super().__init__(message)
        self.player = player
        self.action = action


class NotYourTurnError(IllegalActionError):
    code = "not_your_turn"


class GameOverError(IllegalActionError):
    code = "game_over"


class ActionNotAllowedError(IllegalActionError):
    code = "illegal_action"
