"""Arguments of ``wizard train imitate`` and ``wizard train ppo`` (torch-free)."""

from __future__ import annotations

from typing import Any


def register(trainers: Any) -> None:
    """Add the policy trainers to ``wizard train``."""
