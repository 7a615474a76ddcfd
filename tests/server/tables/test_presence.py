"""Grace periods: a seated person who drops out is marked away only once theirs runs out."""

from __future__ import annotations

import asyncio

from wizard.server.tables.player import Player
from wizard.server.tables.presence import Presence
from wizard.server.tables.seats import Seat, Seats


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
    async def scenario() -> None:
        presence, expired, fired = await expiry(0.01)
        seat = presence.seats[1]
        presence.start_grace(seat)
        presence.start_grace(seat)  # already running: not a second timer
        assert presence.in_grace(seat)
        await asyncio.wait_for(fired.wait(), 10)
        await asyncio.sleep(0.05)
        assert expired == [(1, seat.player)]
        assert not presence.in_grace(seat)

    asyncio.run(scenario())


def test_coming_back_in_time_cancels_the_grace() -> None:
    async def scenario() -> None:
        presence, expired, _ = await expiry(0.05)
        seat = presence.seats[0]
        presence.start_grace(seat)
        assert presence.came_back(seat) is False  # was not away
        await asyncio.sleep(0.2)
        assert expired == [] and not presence.in_grace(seat)

    asyncio.run(scenario())


def test_stop_cancels_every_grace_and_an_empty_seat_gets_none() -> None:
    async def scenario() -> None:
        presence, expired, _ = await expiry(0.05)
        presence.seats[2].clear()
        for seat in presence.seats:
            presence.start_grace(seat)
        assert [presence.in_grace(s) for s in presence.seats] == [True, True, False]
        presence.stop()
        await asyncio.sleep(0.2)
        assert expired == []

    asyncio.run(scenario())


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
