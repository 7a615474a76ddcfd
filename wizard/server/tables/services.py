"""`TableServices`: what every table shares (settings, decider, store, metrics, callbacks).

Time is the running loop's (`wizard.server.clock`), not a service.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field

from wizard.ai.decision import Decider

from ..metrics import ServerMetrics
from ..settings import Settings
from ..storage.store import SqliteStore
from .bots import BotGate
from .state import TableState


@dataclass(slots=True)
class TableServices:
    """What every table shares: settings, the decider, the store, metrics, callbacks."""

    settings: Settings
    decider: Decider
    store: SqliteStore
    metrics: ServerMetrics
    # the lobby's: a table's listing changed; a table closed
    changed: Callable[[TableState], None] = lambda table: None
    closed: Callable[[TableState], None] = lambda table: None
    # game seeds, bot strengths and seeds are published after a game: they come from the
    # OS's secret randomness, which no number of published draws gives away
    rng: random.Random = field(default_factory=secrets.SystemRandom)
    bot_gate: BotGate = field(default_factory=BotGate)


def new_table_id() -> str:
    """A table id that is hard to guess (a private table also needs its invite)."""
    return "t_" + secrets.token_urlsafe(9)



__all__ = ["TableServices", "new_table_id"]
