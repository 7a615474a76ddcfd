"""Bot moves without a think time follow a move in one step: one commit, one write.

With ``WIZARD_BOT_DELAY=0`` (load tests, benchmarks) the bots after a bot's move
are decided at once on a copy of the game and stored in the commit of that move;
a person's own move is stored and sent first, on its own. With a think time every
bot move is its own step, as a person watching sees it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..conftest import Harness
from ..driver import act_message, finished
from .test_table import play_to_end, table_id_of


def record_commits(harness: Harness) -> list[list[int]]:
    """The seats of the moves each commit stored, in order (wraps `SqliteStore.append`)."""
    store = harness.server.store
    commits: list[list[int]] = []
    real_append = store.append

    async def append(table_id: str, seq: int, moves: Any, **kwargs: Any) -> None:
        await real_append(table_id, seq, moves, **kwargs)
        commits.append([seat for seat, _ in moves])

    store.append = append  # type: ignore[method-assign]
    return commits


def test_the_bots_after_a_bot_share_its_commit_and_every_move_is_still_one_update(
        harness: Harness) -> None:
    ann = harness.player("Ann")
    commits = record_commits(harness)
    ann.ok({"type": "play_bots", "players": 4, "level": "medium"})
    table_id = table_id_of(ann)
    play_to_end([ann], table_id)
    updates = [m for m in ann.messages if m["type"] == "update"]
    assert [m["v"] for m in updates] == list(range(1, len(updates) + 1))  # none lost or merged
    moves = [seat for seats in commits for seat in seats]
    assert len(moves) == len(updates) - 1  # every move stored once (v 1 is the deal)
    assert moves.count(0) == harness.server.metrics.value("wizard_actions_total", by="player")
    # Ann's moves are committed alone, the bots' in runs of at most once round the table
    assert all(seats == [0] for seats in commits if 0 in seats)
    assert max(map(len, commits)) <= 4 and len(commits) < 0.6 * len(moves)


def test_with_a_think_time_every_bot_move_is_a_step_of_its_own(
        make_harness: Callable[..., Harness]) -> None:
    harness = make_harness(bot_delay=0.002)  # think times of 2-5 ms
    ann = harness.player("Ann")
    commits = record_commits(harness)
    ann.ok({"type": "play_bots", "players": 3, "level": "easy"})
    table_id = table_id_of(ann)
    for _ in range(8):  # a few rounds of moves are enough to see how they are stored
        update = ann.wait_for(lambda m: m["type"] == "update" and (
            m["observation"]["current_player"] == 0 or finished(m, table_id)), 30)
        if finished(update, table_id):
            break
        ann.ok(act_message(update))
    assert len(commits) > 8 and {len(seats) for seats in commits} == {1}


def test_a_table_of_bots_and_an_away_player_moves_at_most_once_round_the_table_per_step(
        make_harness: Callable[..., Harness]) -> None:
    harness = make_harness(disconnect_grace_seconds=0.1)
    ann = harness.player("Ann")
    commits = record_commits(harness)
    ann.ok({"type": "play_bots", "players": 3})
    table_id = table_id_of(ann)
    harness.close_all()  # Ann is away after the grace: a stand-in plays for her
    watcher = harness.player("Eve")
    table = harness.server.lobby.table(table_id)
    watcher.ok({"type": "spectate", "table_id": table_id, "invite": table.invite})
    watcher.wait_for(lambda m: finished(m, table_id), 60)
    assert max(map(len, commits)) <= 3 and sum(map(len, commits)) == table.v - 1
