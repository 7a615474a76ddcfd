"""No acknowledged action is lost: 20 games at once, kill -9 at several points under load.

A real ``wizard serve`` on a file database. Twenty players each play a bot game as fast
as they can; the process is killed (SIGKILL) while they play, at three different points,
and started again on the same database. After each restart every player comes back with
their token: their game is at least at the last version they were sent (every update is
stored before it is sent), and at that version it is exactly what they saw.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from ..serve import free_port, start_server, stop_server
from .driver import act_message, my_turn, next_id
from .test_e2e_uvicorn import Client, table_of

GAMES = 20
KILL_AFTER_ACKS = (60, 150, 300)  # acknowledged actions (all players) before each kill


@dataclass
class Seat:
    name: str
    token: str | None = None
    table_id: str = ""
    seen: dict[int, Any] = field(default_factory=dict)  # v → observation received
    acked: int = 0
    problems: list[str] = field(default_factory=list)
    restores: int = 0  # times its game was checked after a restart


async def play(url: str, seat: Seat, counter: list[int], first: bool) -> None:
    """Play ``seat``'s game until the server goes away (or the game ends)."""
    try:
        async with connect(url, open_timeout=10, close_timeout=1) as ws:
            client = Client(ws, seat.name)
            await client.hello(seat.name, seat.token)
            seat.token = client.token
            update: dict[str, Any] | None = None
            if first:
                await client.ok({"type": "play_bots", "players": 3, "level": "easy",
                                 "turn_seconds": 0})
                seat.table_id = table_of(client)
            else:
                update = await client.wait_for(
                    lambda m: m["type"] == "update" and m["table_id"] == seat.table_id)
                last = max(seat.seen)
                if update["v"] < last:
                    seat.problems.append(f"came back at v{update['v']}, was sent v{last}")
                elif update["v"] in seat.seen and update["observation"] != seat.seen[last]:
                    seat.problems.append(f"v{update['v']} is not what was sent")
                seat.restores += 1
            while True:
                if update is None:
                    update = await client.wait_for(
                        lambda m: m["type"] == "update" and m["table_id"] == seat.table_id, 20)
                seat.seen[update["v"]] = update["observation"]
                if update["observation"]["phase"] == "finished":
                    return
                if my_turn(update, seat.table_id):
                    message = {**act_message(update), "id": next_id()}
                    await client.send(message)
                    reply = await client.wait_for(
                        lambda m, i=message["id"]: m.get("id") == i, 20)
                    if reply["type"] == "ack":
                        seat.acked += 1
                        counter[0] += 1
                update = None
    except (ConnectionClosed, OSError):
        return
    except AssertionError:
        if "closed with" in str(sys.exc_info()[1]):  # the server went away mid-wait
            return
        raise


async def run(url: str, seats: list[Seat], counter: list[int], process: Any, *, first: bool,
              limit: int | None) -> None:
    """Everyone plays; after ``limit`` acks the server is killed (None: just reconnect)."""
    tasks = [asyncio.create_task(play(url, seat, counter, first)) for seat in seats]
    if limit is None:  # the last run: wait until everyone is back and checked; stop cleanly
        restarts = len(KILL_AFTER_ACKS)
        while not all(seat.restores == restarts for seat in seats):
            await asyncio.sleep(0.01)
    else:
        while counter[0] < limit and not all(t.done() for t in tasks):
            await asyncio.sleep(0.005)
        process.kill()  # SIGKILL while the players are playing
    for task in tasks:
        if limit is None:
            task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


@pytest.mark.slow
def test_kill_9_under_twenty_games_loses_no_acknowledged_action(tmp_path: Path) -> None:
    db = str(tmp_path / "wizard.db")
    port = free_port()
    url = f"ws://127.0.0.1:{port}/ws"
    seats = [Seat(f"P{i}") for i in range(GAMES)]
    for round_number, kill_after in enumerate((*KILL_AFTER_ACKS, None)):
        process = start_server(port, tmp_path / f"run{round_number}.log", WIZARD_DB=db,
                               WIZARD_DISCONNECT_GRACE="600")
        counter = [0]

        try:
            asyncio.run(asyncio.wait_for(
                run(url, seats, counter, process, first=round_number == 0, limit=kill_after),
                120))
        finally:
            if process.poll() is None:
                stop_server(process)
            process.wait(timeout=10)
        if kill_after is not None:
            assert counter[0] >= kill_after, f"only {counter[0]} acks before kill {round_number}"
    assert [p for seat in seats for p in seat.problems] == []
    assert all(seat.restores == len(KILL_AFTER_ACKS) for seat in seats)
    assert all(seat.table_id and len(seat.seen) > 1 for seat in seats)
    assert sum(seat.acked for seat in seats) >= sum(KILL_AFTER_ACKS)
