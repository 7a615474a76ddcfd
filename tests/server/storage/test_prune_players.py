"""Players who never played are forgotten after the retention period; players with games
are kept for their history however old."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

from wizard.server.clock import ManualClockLoop

from ..conftest import Harness, wait_until
from .test_history_privacy import play_to_the_end, table_id_of


def test_anonymous_hellos_do_not_pile_up_forever(make_harness: Callable[..., Harness],
                                                 tmp_path: Path) -> None:
    db = str(tmp_path / "w.db")
    clock = ManualClockLoop(1000.0)
    harness = make_harness(db_path=db, clock=clock, player_retention_days=1)
    player = harness.player("Played")
    player.ok({"type": "play_bots", "players": 3, "level": "easy", "turn_seconds": 0})
    play_to_the_end(player, table_id_of(player))
    for i in range(5):
        harness.player(f"Drive-by {i}")
    harness.player("Recent")
    store = harness.server.store

    def rows() -> list[str]:
        return [r[0] for r in sqlite3.connect(db).execute(
            "SELECT name FROM players ORDER BY name")]

    wait_until(harness, lambda: len(rows()) == 7)
    # the drive-bys and the player with a game were last seen two days ago
    two_days_ago = time.time() - 2 * 86400
    conn = sqlite3.connect(db)
    conn.execute("UPDATE players SET seen = ? WHERE name != 'Recent'", (two_days_ago,))
    conn.commit()
    conn.close()
    lobby = harness.server.lobby

    async def sweep_in_an_hour() -> None:  # the sweep prunes at most once an hour
        clock.advance(3601.0)
        await lobby.sweep()  # on the loop, before the lobby's own sweeper wakes

    harness.client.portal.call(sweep_in_an_hour)
    assert rows() == ["Played", "Recent"]
    assert harness.client.portal.call(
        lambda: store.prune_players(time.time() - 86400)) == 0  # nothing left to prune
