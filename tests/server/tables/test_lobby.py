"""The lobby on its own: identities, table limits, the coalesced list, the sweep."""

from __future__ import annotations

import asyncio

import pytest

from wizard.engine import GameOptions
from wizard.protocol import ErrorCode, ProtocolError
from wizard.server.clock import ManualClockLoop

from ..conftest import fast_settings
from ..unit import lobby_and_dispatcher, open_connection, run_on_manual_clock


def test_hello_needs_a_name_and_a_known_token() -> None:
    async def scenario() -> list[ErrorCode]:
        codes = []
        async with lobby_and_dispatcher() as (lobby, dispatcher):
            for name, token in (("  ", None), ("Ann", "no-such-token")):
                connection, _ = open_connection(dispatcher)
                with pytest.raises(ProtocolError) as refused:
                    await lobby.identify(connection, name, token)
                codes.append(refused.value.code)
            assert not lobby.players_by_token  # nothing changed
        return codes

    assert asyncio.run(scenario()) == [ErrorCode.BAD_MESSAGE, ErrorCode.UNKNOWN_TOKEN]


def test_a_returning_token_is_the_same_player_under_a_new_name() -> None:
    async def scenario() -> tuple[str, str, str]:
        async with lobby_and_dispatcher() as (lobby, dispatcher):
            first, _ = open_connection(dispatcher)
            ann = await lobby.identify(first, "Ann", None)
            again, _ = open_connection(dispatcher)
            back = await lobby.identify(again, "Annie", ann.token)
            assert back is ann and len(ann.connections) == 2
            return ann.player_id, back.player_id, back.name

    first_id, back_id, name = asyncio.run(scenario())
    assert first_id == back_id and name == "Annie"


def test_the_table_limits_are_refused_with_their_codes() -> None:
    async def scenario() -> list[ErrorCode]:
        settings = fast_settings(max_tables=2, max_tables_per_player=1)
        codes = []
        async with lobby_and_dispatcher(settings) as (lobby, dispatcher):
            players = []
            for name in ("Ann", "Ben", "Cid"):
                connection, _ = open_connection(dispatcher)
                players.append(await lobby.identify(connection, name, None))
            ann, ben, cid = players
            await lobby.create_table(ann, players=3, options=GameOptions(), private=False,
                                     turn_seconds=None)
            for host in (ann, ben, cid):  # ann: her one table; ben: fine; cid: server full
                try:
                    await lobby.create_table(host, players=3, options=GameOptions(),
                                             private=False, turn_seconds=None)
                except ProtocolError as exc:
                    codes.append(exc.code)
            assert len(lobby.tables) == 2
        return codes

    assert asyncio.run(scenario()) == [ErrorCode.PLAYER_TABLE_LIMIT, ErrorCode.TABLE_LIMIT]


def test_list_watchers_get_one_tables_message_per_burst_of_changes() -> None:
    async def scenario(loop: ManualClockLoop) -> tuple[list[int], list[int]]:
        settings = fast_settings(tables_broadcast_seconds=0.5)
        async with lobby_and_dispatcher(settings) as (lobby, dispatcher):
            watcher, socket = open_connection(dispatcher)
            lobby.watch_tables(watcher)
            connection, _ = open_connection(dispatcher)
            hosts = []
            for name in ("Ann", "Ben", "Cid"):
                connection, _ = open_connection(dispatcher)
                hosts.append(await lobby.identify(connection, name, None))
            for host in hosts:  # three changes in a row
                await lobby.create_table(host, players=3, options=GameOptions(),
                                         private=False, turn_seconds=None)

            async def listed_after(seconds: float) -> list[int]:
                loop.advance(seconds)
                await loop.settle()
                return [len(m["tables"]) for m in socket.messages if m["type"] == "tables"]

            return await listed_after(0.25), await listed_after(0.25)

    # the list at once, then the three new tables in one message once the interval is over
    assert run_on_manual_clock(scenario) == ([0], [0, 3])


def test_the_sweep_forgets_a_player_gone_for_the_idle_time() -> None:
    async def scenario(loop: ManualClockLoop) -> tuple[bool, bool]:
        settings = fast_settings(idle_close_seconds=30)
        async with lobby_and_dispatcher(settings) as (lobby, dispatcher):
            connection, _ = open_connection(dispatcher)
            await lobby.identify(connection, "Ann", None)
            await lobby.connection_closed(connection)
            loop.advance(29.0)
            await lobby.sweep()
            kept = bool(lobby.players_by_token)
            loop.advance(1.0)
            await lobby.sweep()
            return kept, bool(lobby.players_by_token)

    assert run_on_manual_clock(scenario, start=50.0) == (True, False)
