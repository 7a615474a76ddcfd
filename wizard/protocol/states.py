"""The words the protocol uses for a table's status, why a table closed, why someone else
played for a seat and how far an analysis is: string enums, so a struct field holding one
encodes as its plain value.

>>> import msgspec
>>> msgspec.json.encode([TableStatus.PLAYING, CloseReason.IDLE, AutoPlayReason.TIMEOUT,
...                      AnalysisState.QUEUED])
b'["playing","idle","timeout","queued"]'
"""

from __future__ import annotations

import enum


class TableStatus(enum.StrEnum):
    """A table's ``status`` (``table`` messages): WAITING → PLAYING ⇄ FINISHED; CLOSED.

    The steps the server allows between them are `wizard.server.tables.status`'s.
    """

    WAITING = "waiting"
    PLAYING = "playing"
    FINISHED = "finished"
    CLOSED = "closed"


class CloseReason(enum.StrEnum):
    """The ``reason`` of ``table_closed``."""

    EMPTY = "empty"  # the last person left
    IDLE = "idle"  # no connected person for WIZARD_IDLE_CLOSE
    FAILED = "failed"  # a `play_bots` table whose game could not start


class AutoPlayReason(enum.StrEnum):
    """The ``reason`` of an ``auto_played`` event: why a stand-in played for a person."""

    TIMEOUT = "timeout"  # their turn clock ran out
    AWAY = "away"  # their grace period ran out (they are away)


class AnalysisState(enum.StrEnum):
    """The ``state`` of ``analysis_progress`` (and of a job's HTTP ``status``)."""

    QUEUED = "queued"
    RUNNING = "running"
    WAITING = "waiting"  # a slice waits for a worker busy with live games
    FAILED = "failed"


__all__ = ["AnalysisState", "AutoPlayReason", "CloseReason", "TableStatus"]
