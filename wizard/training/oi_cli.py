"""Arguments of ``wizard train oi`` (torch-free)."""

from __future__ import annotations

from typing import Any


def register(trainers: Any) -> None:
    """Add the OI trainer to ``wizard train``."""
