"""Grace periods: a seated person who drops out is marked away only once theirs runs out."""

from __future__ import annotations

import asyncio

from wizard.server.clock import ManualClockLoop
from wizard.server.tables.player import Player
from wizard.server.tables.presence import Presence
from wizard.server.tables.seats import Seat, Seats

from ..unit import run_on_manual_clock


def seated(count: int = 3) -> tuple[Seats, list[Player]]:
    seats = Seats.empty(count)
    players = [Player(f"P{i}") for i in range(count)]
    for seat, player in zip(seats, players, strict=True):
        seat.sit(player)
    return seats, players


async def expiry(grace: float) -> tuple[Presence, list[tuple[int, Player]], asyncio.Event]:
    expired: list[tuple[int, Player]] = []
    fired = asyncio.Event()

    async def on_expired(index: int, player: Player) -> None:
        expired.append((index, player))
        fired.set()

    seats, _ = seated()
    return Presence(seats, grace, on_expired), expired, fired


def test_a_grace_that_runs_out_reports_the_seat_and_its_player_once() -> None:
    async def scenario(loop: ManualClockLoop) -> None:
        presence, expired, fired = await expiry(30.0)
        seat = presence.seats[1]
        presence.start_grace(seat)
        presence.start_grace(seat)  # already running: not a second timer
        assert presence.in_grace(seat)
        loop.advance(29.0)
        await loop.settle()
        assert expired == [] and presence.in_grace(seat)
        loop.advance(1.0)
        await fired.wait()
        loop.advance(30.0)
        await loop.settle()
        assert expired == [(1, seat.player)]
        assert not presence.in_grace(seat)

    run_on_manual_clock(scenario)


def test_coming_back_in_time_cancels_the_grace() -> None:
    async def scenario(loop: ManualClockLoop) -> None:
        presence, expired, _ = await expiry(30.0)
        seat = presence.seats[0]
        presence.start_grace(seat)
        loop.advance(29.0)
        assert presence.came_back(seat) is False  # was not away
        loop.advance(60.0)
        await loop.settle()
        assert expired == [] and not presence.in_grace(seat)

    run_on_manual_clock(scenario)


def test_stop_cancels_every_grace_and_an_empty_seat_gets_none() -> None:
    async def scenario(loop: ManualClockLoop) -> None:
        presence, expired, _ = await expiry(30.0)
        presence.seats[2].clear()
        for seat in presence.seats:
            presence.start_grace(seat)
        assert [presence.in_grace(s) for s in presence.seats] == [True, True, False]
        presence.stop()
        loop.advance(60.0)
        await loop.settle()
        assert expired == []

    run_on_manual_clock(scenario)


def test_mark_away_only_for_the_same_player_still_without_a_connection() -> None:
    seats, players = seated()
    presence = Presence(seats, 30.0, lambda index, player: asyncio.sleep(0))
    assert presence.mark_away(seats[0], players[0]) and seats[0].away
    assert presence.came_back(seats[0]) is True and not seats[0].away
    assert not presence.mark_away(seats[1], players[0])  # someone else sits there now
    players[2].connections.add(object())  # type: ignore[arg-type]  # back on a new tab
    assert not presence.mark_away(seats[2], players[2]) and not seats[2].away


def test_after_a_restore_only_the_absent_get_a_grace() -> None:
    async def scenario() -> None:
        seats, players = seated()
        players[1].connections.add(object())  # type: ignore[arg-type]
        presence = Presence(seats, 30.0, lambda index, player: asyncio.sleep(0))
        presence.start_absent()
        assert [presence.in_grace(s) for s in seats] == [True, False, True]
        presence.stop()

    asyncio.run(scenario())


def test_leaving_a_seat_clears_away() -> None:
    seat = Seat(0)
    seat.sit(Player("Ann"))
    seat.away = True
    seat.clear()
    assert (seat.player, seat.away, seat.kind.value) == (None, False, "empty")
