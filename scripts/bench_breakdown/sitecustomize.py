"""Timers around the game server's hot functions, for ``bench_server.py --breakdown``.

Loaded (as ``sitecustomize``) only by the server that benchmark starts with this
folder on ``PYTHONPATH`` and ``WIZARD_BENCH_BREAKDOWN=<file>``: every timed call
adds its count and inclusive seconds to a table written to ``<file>`` as JSON
every 2,000 calls. Never part of a served process otherwise. The timers cost
~0.3 µs a call, which the figures include.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from typing import Any

_FILE = os.environ.get("WIZARD_BENCH_BREAKDOWN")
_TOTALS: dict[str, list[float]] = {}


def _timed(label: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    clock, totals = time.perf_counter, _TOTALS.setdefault(label, [0, 0.0])

    def timed(*args: Any, **kwargs: Any) -> Any:
        start = clock()
        try:
            return fn(*args, **kwargs)
        finally:
            totals[1] += clock() - start
            totals[0] += 1
            if totals[0] % 2000 == 0:
                _write()

    return timed


def _counted(label: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn(self, table_id, seq, moves, ...)`` (`SqliteStore.append`): counts the moves."""
    totals = _TOTALS.setdefault(label, [0, 0.0])

    def counted(*args: Any, **kwargs: Any) -> Any:
        totals[0] += len(args[3])
        return fn(*args, **kwargs)

    return counted


def _write() -> None:
    assert _FILE is not None
    with open(_FILE + ".tmp", "w") as out:
        json.dump(_TOTALS, out)
    os.replace(_FILE + ".tmp", _FILE)


def _install() -> None:
    from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

    import wizard.ai.decision as decision
    import wizard.server.tables.audience as audience
    from wizard.engine import WizardGame
    from wizard.server.net import serving
    from wizard.server.net.connection import Connection
    from wizard.server.storage.db import Database
    from wizard.server.tables.table import Table
    from wizard.server.tables.views import TableView

    for owner, name, label in [
        (audience.Audience, "send_views", "update: everything (send_views)"),
        (TableView, "update", "update: observation + view"),
        (audience, "encode", "update: JSON encoding"),
        (Connection, "send_text", "update: frame + hand-off"),
        (WizardGame, "observation", "observation (the bot's and the update's)"),
        (decision, "act_with_strength", "bot: choosing the move"),
        (Table, "_schedule", "next turn scheduled"),
        (WizardGame, "apply_index", "engine: applying the move"),
        (Database, "_run", "store: commits"),
        (WebSocketsSansIOProtocol, "data_received", "socket: reading frames"),
    ]:
        setattr(owner, name, _timed(label, getattr(owner, name)))
    from wizard.server.storage.store import SqliteStore

    # the table actions (a run of bot moves is played on a copy first: applies overcount)
    SqliteStore.append = _counted("table actions stored", SqliteStore.append)
    protocol = serving.websocket_protocol

    def websocket_protocol(*args: Any, **kwargs: Any) -> Any:
        cls = protocol(*args, **kwargs)
        cls._flush = _timed("socket: writes (transport.write)", cls._flush)
        return cls

    serving.websocket_protocol = websocket_protocol


if _FILE:
    _install()
