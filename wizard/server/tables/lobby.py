"""The lobby: players by token, the table index, coalesced ``tables`` broadcasts, cleanup.

>>> # Lobby(services) is built by the app; see wizard.server.app.create_app
"""

from __future__ import annotations

import asyncio
import contextlib
import time

import structlog

from wizard.engine import GameOptions
from wizard.protocol import (
    PAGE_DEFAULT,
    CloseReason,
    ErrorCode,
    ProtocolError,
    TableInfo,
    Tables,
    Welcome,
    encode,
)

from ..clock import loop_time
from ..net.addresses import capped
from ..net.connection import Connection
from ..storage.accounts import AccountStore
from ..storage.records import GameStatus, game_result
from ..storage.visibility import invite_matches, new_invite
from .guards import check_player_tables
from .names import name_key, refuse_bot_like, visible_name
from .player import Player
from .restore import restore_table, restore_waiting
from .state import TableState
from .table import Table, TableServices, TableStatus

log = structlog.get_logger(__name__)

PRUNE_EVERY_SECONDS = 3600.0


class Lobby:
    """Everything the server knows at one time: players, tables and who watches the list."""

    def __init__(self, services: TableServices) -> None:
        self.services = services
        services.changed = self._table_changed
        services.closed = self._table_closed
        self.players_by_token: dict[str, Player] = {}
        self.restored_players: dict[str, Player] = {}  # by player id, until they say hello
        # one store lookup per token at a time: concurrent hellos share its answer
        self._lookups: dict[str, asyncio.Future[Player | None]] = {}
        self.tables: dict[str, Table] = {}
        self.list_watchers: dict[Connection, tuple[int, int]] = {}  # → (offset, limit)
        self._tables_dirty = False
        self._tables_flush: asyncio.TimerHandle | None = None
        self._last_flush = float("-inf")  # on the loop's clock, as every time here
        self._sweeper: asyncio.Task[None] | None = None
        self._next_prune: float | None = None

    # --- players --------------------------------------------------------------------------

    async def identify(self, connection: Connection, name: str, token: str | None) -> Player:
        """``hello``: a new player, or the one that owns ``token``, back on its tables.

        Raises `ProtocolError` ``unknown_token``, or ``name_taken`` for a guest whose
        ``name`` is an account's (compared as `name_key`); nothing changes then. A name
        that poses as a bot is ``bad_message`` unless the player already has it (named so
        before the rule was made: they keep playing, but cannot claim it)."""
        name = visible_name(name)
        store = self.services.store
        if token is not None:
            player = await self._player_with_token(token)
            if player is None:
                raise ProtocolError(ErrorCode.UNKNOWN_TOKEN,
                                    "this token is not known here; say hello without one")
            if not player.account:
                await self._refuse_claimed(name, player.player_id)
            if player.name != name and not player.account:  # an account keeps its name
                refuse_bot_like(name)
                # stored first: a failed write leaves the old name everywhere
                await store.remember_player(token, player.player_id, name)
                player.name = name
            else:
                store.player_seen(token)
        else:
            await self._refuse_claimed(refuse_bot_like(name), None)
            player = Player(name, seen_at=loop_time())
            # the token must outlive a restart before its owner learns it
            await store.remember_player(player.token, player.player_id, name)
            self.players_by_token[player.token] = player
        connection.identify(player)
        player.connections.add(connection)
        player.last_seen = loop_time()
        log.info("player_identified", player_id=player.player_id, conn_id=connection.conn_id,
                 returning=token is not None)
        connection.send(Welcome(player.player_id, player.name, token or player.token))
        for table_id in sorted(player.tables):
            table = self.tables.get(table_id)
            if table is not None:
                await table.player_connected(player, connection)
        return player

    async def _refuse_claimed(self, name: str, player_id: str | None) -> None:
        """Raises ``name_taken`` if ``name`` is the claimed name of a player other than
        ``player_id``: a guest cannot pass for an account holder."""
        account = await AccountStore(self.services.store).by_name(name_key(name))
        if account is not None and account.player_id != player_id:
            raise ProtocolError(ErrorCode.NAME_TAKEN,
                                f"the name {name!r} belongs to an account: log in with it, "
                                "or choose another name")

    async def _player_with_token(self, token: str) -> Player | None:
        """The one player holding ``token``: hellos racing on it share one store lookup."""
        player = self.players_by_token.get(token)
        if player is not None:
            return player
        lookup = self._lookups.get(token)
        if lookup is None:
            lookup = asyncio.ensure_future(self._known_player(token))
            self._lookups[token] = lookup
            lookup.add_done_callback(lambda _: self._lookups.pop(token, None))
        # shielded: one waiter going away must not cancel the lookup the others wait on
        return await asyncio.shield(lookup)

    async def lookups_settled(self) -> None:
        """Return once every token lookup in flight now has finished (a sign-out that ended
        tokens in the store waits for them, then forgets what they found)."""
        if self._lookups:
            await asyncio.wait(tuple(self._lookups.values()))

    async def _known_player(self, token: str) -> Player | None:
        """A player the store knows from before a restart (restored seats keep their object)."""
        known = await self.services.store.known_player(token)
        already = self.players_by_token.get(token)
        if already is not None:  # identified while the store was being read
            return already
        if known is None:
            return None
        player_id, name, account = known
        # an account's second device is the same player, seated where the first one is
        player = (self.restored_players.pop(player_id, None)
                  or next((p for p in self.players_by_token.values()
                           if p.player_id == player_id), None)
                  or Player(name, player_id=player_id, seen_at=loop_time()))
        player.token, player.account = token, account
        self.players_by_token[token] = player
        return player

    def _restored_player(self, player_id: str, name: str) -> Player:
        player = self.restored_players.get(player_id)
        if player is None:
            player = self.restored_players[player_id] = Player(
                name, player_id=player_id, seen_at=loop_time())
        return player

    async def restore(self) -> int:
        """Rebuild every unfinished game from the store; returns how many tables came back.

        A game that does not replay is logged, marked ``corrupt`` and skipped.
        """
        store = self.services.store
        restored = 0
        for stored in await store.unfinished_games():
            try:
                table = restore_table(self.services, stored, self._restored_player)
            except Exception as exc:
                log.error("restore_failed", game_id=stored.id, table_id=stored.table_id,
                          error=f"{type(exc).__name__}: {exc}")
                await store.mark(stored.id, GameStatus.CORRUPT)
                continue
            store.adopt(table.table_id, stored.id)
            await self._ensure_invite(table)
            self.tables[table.table_id] = table
            if table.status is TableStatus.FINISHED:  # the finish itself was not recorded
                game = table.game
                assert game is not None
                await store.game_finished(table.table_id, game_result(game))
            table.resume()
            restored += 1
            table.log.info("table_restored", game_id=stored.id, v=table.v)
        for waiting in await store.waiting_tables():
            table_id = waiting.table_id
            if table_id in self.tables:
                continue  # its game came back above
            try:
                table = (await self._restore_finished(waiting.after_game)
                         or restore_waiting(self.services, waiting, self._restored_player))
            except (KeyError, TypeError, ValueError) as exc:
                log.error("restore_failed", table_id=table_id,
                          error=f"{type(exc).__name__}: {exc}")
                store.table_not_waiting(table_id)
                continue
            table.invite = waiting.invite
            await self._ensure_invite(table)
            self.tables[table_id] = table
            restored += 1
            table.log.info("table_restored", waiting=True, status=table.status.value)
        return restored

    async def _restore_finished(self, game_id: object) -> Table | None:
        """A table between games as its last game left it (final state shown, ready for a
        rematch), from that game's record; None if there is no such finished game."""
        if not isinstance(game_id, str):
            return None
        stored = await self.services.store.game(game_id)
        if stored is None or stored.status is not GameStatus.FINISHED:
            return None
        try:
            table = restore_table(self.services, stored, self._restored_player)
        except Exception as exc:  # the waiting record still brings the table back
            log.error("restore_failed", game_id=game_id, error=f"{type(exc).__name__}: {exc}")
            return None
        return table if table.status is TableStatus.FINISHED else None

    async def _ensure_invite(self, table: Table) -> None:
        """A restored private table without a stored invite (none should be) gets one."""
        if table.private and table.invite is None:
            table.invite = new_invite()
            await self.services.store.table_invite(table.table_id, table.invite)
            log.warning("invite_replaced", table_id=table.table_id)

    async def connection_closed(self, connection: Connection) -> None:
        """Forget a closed connection; a player whose last connection closed starts grace."""
        self.list_watchers.pop(connection, None)
        for table_id in tuple(connection.spectating):
            table = self.tables.get(table_id)
            if table is not None:
                table.connection_closed(connection)
                self.stopped_watching(table, connection)
        player = connection.player
        if player is None:
            return
        player.connections.discard(connection)
        player.last_seen = loop_time()
        if player.connected:
            return
        for table_id in tuple(player.tables):
            table = self.tables.get(table_id)
            if table is not None:
                await table.player_disconnected(player)

    # --- tables ---------------------------------------------------------------------------

    def table(self, table_id: str) -> Table:
        """The open table ``table_id``; raises `ProtocolError` ``no_such_table``."""
        table = self.tables.get(table_id)
        if table is None:
            raise ProtocolError(ErrorCode.NO_SUCH_TABLE, f"no table {table_id!r}")
        return table

    def table_to_enter(self, player: Player, table_id: str, invite: str | None) -> Table:
        """The table ``player`` asks to join or watch: a private one only with its invite
        (or for someone who sits there already). Raises `ProtocolError` ``no_such_table``,
        ``invite_required``."""
        table = self.table(table_id)
        if (table.private and table.seat_of(player) is None
                and not invite_matches(invite, table.invite)):
            raise ProtocolError(
                ErrorCode.INVITE_REQUIRED,
                "this table is private: join or watch it with its invite link"
                if invite is None else "this invite does not open that table")
        return table

    def started_watching(self, table: Table, connection: Connection) -> None:
        """After ``spectate``: the store records the viewer for the table's games."""
        if connection.player is not None and table.private:
            self.services.store.watching(table.table_id, connection.player.player_id)

    def stopped_watching(self, table: Table, connection: Connection) -> None:
        """A connection stopped watching; the player's other tabs may still watch."""
        player = connection.player
        if player is None or not table.private:
            return
        if not any(c in table.spectators for c in player.connections):
            self.services.store.not_watching(table.table_id, player.player_id)

    async def create_table(self, host: Player, *, players: int, options: GameOptions,
                           private: bool, turn_seconds: int | None,
                           address: str | None = None, rated: bool = True) -> Table:
        """A new table with ``host`` in seat 0, created from client ``address``.

        Raises `ProtocolError` ``table_limit`` when the server has ``max_tables`` open
        tables, ``address_table_limit`` when ``address`` created ``max_tables_per_address``
        of them, ``player_table_limit`` when ``host`` already sits at as many as allowed.
        """
        settings = self.services.settings
        refused = self.services.metrics.tables_refused
        if len(self.tables) >= settings.max_tables:
            refused.labels("full").inc()
            raise ProtocolError(ErrorCode.TABLE_LIMIT,
                                f"the server has {settings.max_tables} open tables; try later "
                                "or join one")
        limit = settings.max_tables_per_address
        if capped(address) and sum(
                1 for t in self.tables.values() if t.address == address) >= limit:
            refused.labels("address").inc()
            raise ProtocolError(ErrorCode.ADDRESS_TABLE_LIMIT,
                                f"your address has {limit} open tables, the most allowed; "
                                "close or finish one first")
        check_player_tables(host, settings)
        table = Table(self.services, players=players, options=options, private=private,
                      turn_seconds=(self.services.settings.turn_seconds if turn_seconds is None
                                    else turn_seconds), rated=rated)
        table.address = address
        if private:
            # stored first: an acknowledged invite link works after a restart
            table.invite = new_invite()
            await self.services.store.table_invite(table.table_id, table.invite)
        self.tables[table.table_id] = table
        table.log.info("table_created", host=host.player_id, players=players, private=private,
                       rated=rated)
        try:
            await table.join(host, 0)
        except BaseException:  # not stored (or refused): the table never was
            await table.close(CloseReason.FAILED)
            raise
        return table

    def public_tables(self) -> list[TableInfo]:
        """Listed tables: every table that is not private, oldest first."""
        return [t.info() for t in self.tables.values() if not t.private]

    def counts_by_status(self) -> dict[str, int]:
        counts = {status.value: 0 for status in TableStatus if status is not TableStatus.CLOSED}
        for table in self.tables.values():
            counts[table.status.value] = counts.get(table.status.value, 0) + 1
        return counts

    def tables_page(self, offset: int, limit: int) -> Tables:
        """``limit`` listed tables from ``offset`` (oldest first), with how many there are."""
        listed = [t for t in self.tables.values() if not t.private]
        return Tables([t.info() for t in listed[offset:offset + limit]], len(listed), offset)

    def watch_tables(self, connection: Connection, offset: int = 0,
                     limit: int = PAGE_DEFAULT) -> None:
        """``list_tables``: send this page now and again whenever the list changes."""
        self.list_watchers[connection] = (offset, limit)
        connection.send(self.tables_page(offset, limit))
        # the list was just sent: changes right after it wait for the interval together
        self._last_flush = max(self._last_flush, loop_time())

    def _table_changed(self, table: TableState) -> None:
        if not table.private:
            self._mark_tables_dirty()

    def _table_closed(self, table: TableState) -> None:
        self.tables.pop(table.table_id, None)
        self.services.store.table_closed(table.table_id, played=table.games > 0)
        if not table.private:
            self._mark_tables_dirty()

    def _mark_tables_dirty(self) -> None:
        """Coalesce: at most one ``tables`` broadcast per ``tables_broadcast_seconds``."""
        if not self.list_watchers:
            return
        self._tables_dirty = True
        if self._tables_flush is not None:
            return
        loop = asyncio.get_running_loop()
        due = self._last_flush + self.services.settings.tables_broadcast_seconds
        self._tables_flush = loop.call_at(max(due, loop.time()), self._flush_tables)

    def _flush_tables(self) -> None:
        self._tables_flush = None
        if not self._tables_dirty:
            return
        self._tables_dirty = False
        self._last_flush = loop_time()
        pages: dict[tuple[int, int], bytes] = {}  # each page encoded once for its watchers
        for connection, page in tuple(self.list_watchers.items()):
            text = pages.get(page)
            if text is None:
                text = pages[page] = encode(self.tables_page(*page))
            connection.send_text(text, "tables")

    # --- housekeeping ---------------------------------------------------------------------

    def start(self) -> None:
        """Start the sweeper that closes idle tables and forgets long-gone players."""
        self._sweeper = asyncio.get_running_loop().create_task(self._sweep_forever(),
                                                               name="lobby-sweeper")

    async def _sweep_forever(self) -> None:
        interval = min(10.0, max(0.05, self.services.settings.idle_close_seconds / 4))
        while True:
            await asyncio.sleep(interval)
            try:
                await self.sweep()
            except Exception:
                log.exception("sweep_failed")

    async def sweep(self) -> None:
        """Close tables without a connected player for ``idle_close_seconds``; forget players
        with no connection and no table for as long (both on the loop's clock). Once an
        hour, the store forgets players who never played (``player_retention_days``)."""
        now = loop_time()
        limit = self.services.settings.idle_close_seconds
        for table in tuple(self.tables.values()):
            if table.has_connected_human():
                table.idle_since = None
            elif table.idle_since is None:
                table.idle_since = now
            elif now - table.idle_since >= limit:
                await table.close(CloseReason.IDLE)
        for token, player in tuple(self.players_by_token.items()):
            if not player.connected and not player.tables and now - player.last_seen >= limit:
                del self.players_by_token[token]
        if self._next_prune is None or now >= self._next_prune:
            self._next_prune = now + PRUNE_EVERY_SECONDS
            retention = self.services.settings.player_retention_days * 86400
            # the store's last-seen times are wall-clock timestamps (they outlive the process)
            await self.services.store.prune_players(time.time() - retention)

    async def close(self) -> None:
        """Stop the sweeper and every table's pending turn (shutdown)."""
        if self._sweeper is not None:
            self._sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sweeper
        if self._tables_flush is not None:
            self._tables_flush.cancel()
        for table in tuple(self.tables.values()):
            table.stop()


__all__ = ["Lobby"]
