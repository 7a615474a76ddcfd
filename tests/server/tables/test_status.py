"""A table's status moves only along its lifecycle, as a connection's state does."""

from __future__ import annotations

import pytest

from wizard.ai.decision import InlineDecider
from wizard.engine import GameOptions
from wizard.server.metrics import ServerMetrics
from wizard.server.net.connection import BadTransitionError
from wizard.server.settings import Settings
from wizard.server.tables.services import TableServices
from wizard.server.tables.table import Table, TableStatus


def table() -> Table:
    services = TableServices(Settings(), InlineDecider(), None,  # type: ignore[arg-type]
                             ServerMetrics())
    return Table(services, players=3, options=GameOptions(), private=False, turn_seconds=0)


def test_the_lifecycle_waiting_playing_finished_rematch_closed() -> None:
    t = table()
    t.status = TableStatus.WAITING  # the current status again changes nothing
    for status in (TableStatus.PLAYING, TableStatus.FINISHED, TableStatus.PLAYING,
                   TableStatus.FINISHED, TableStatus.CLOSED):
        t.status = status
        assert t.status is status


@pytest.mark.parametrize(("path", "bad"), [
    ((TableStatus.PLAYING,), TableStatus.WAITING),
    ((TableStatus.CLOSED,), TableStatus.PLAYING),
    ((TableStatus.PLAYING, TableStatus.FINISHED), TableStatus.WAITING),
])
def test_a_step_back_or_out_of_closed_is_refused(path: tuple[TableStatus, ...],
                                                 bad: TableStatus) -> None:
    t = table()
    for status in path:
        t.status = status
    with pytest.raises(BadTransitionError, match=f"-> {bad.value}"):
        t.status = bad
    assert t.status is path[-1]  # unchanged
