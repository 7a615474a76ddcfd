"""A table: its lock, its status and the commands that change it.

All mutations of a table happen under its `asyncio.Lock`, on the event loop:
one writer per table. The rules stay in the engine (`WizardGame`), the seats in
`seats`, timing in `turns`, grace periods in `presence`, what each seat and
spectator sees in `views`, sending in `audience`, persistence in the store.
Every method a client can call raises `ProtocolError` (and changes nothing)
when the request is refused (the checks are `guards`').
"""

from __future__ import annotations

import asyncio

import structlog

from wizard.ai.levels import BotLevel
from wizard.engine import (
    Action,
    Event,
    GameOptions,
    IllegalActionError,
    Observation,
    TrickCompleted,
    WizardGame,
)
from wizard.protocol import (
    ChatMessage,
    CloseReason,
    ErrorCode,
    ProtocolError,
    TableClosed,
    TableInfo,
)

from ..net.connection import Connection
from ..storage.records import EMPTY_SEAT
from . import guards
from .audience import Audience
from .bots import draw_settings
from .moves import Move, moves_from, next_bot_move, store_moves
from .player import Outlet, Player
from .presence import Presence
from .seats import Seat, SeatKind, Seats
from .services import TableServices, new_table_id
from .status import TableStatus, step
from .turns import Mover, TurnRunner, due_turn
from .views import TableView, table_info, update_events
from .waiting import bot_record, keep_waiting, player_record, rematch_record, store_game_start

log = structlog.get_logger(__name__)


class Table:
    """A Wizard table; ``v`` grows by one with every game start and accepted action."""

    def __init__(self, services: TableServices, *, players: int, options: GameOptions,
                 private: bool, turn_seconds: int, table_id: str | None = None,
                 seats: Seats | None = None, rated: bool = True) -> None:
        self.table_id = table_id or new_table_id()
        self.services = services
        self.options = options
        self.private = private
        self.rated = rated  # whether its games count for ratings
        self.turn_seconds = turn_seconds
        self.seats = seats if seats is not None else Seats.empty(players)
        self.host: Player | None = None
        self._status = TableStatus.WAITING
        self.game: WizardGame | None = None
        self.games = 0
        self.v = 0
        self.moves = 0  # actions in the current game (the bots' move number)
        self.lock = asyncio.Lock()
        self.audience = Audience(self.seats)
        self.turns = TurnRunner(table_id=self.table_id, decider=services.decider,
                                metrics=services.metrics, bot_gate=services.bot_gate,
                                ai_deadline_seconds=services.settings.ai_deadline_seconds,
                                observe=self._observe, propose=self.propose)
        self.presence = Presence(self.seats, services.settings.disconnect_grace_seconds,
                                 self._grace_over)
        self.view = TableView(self.table_id, self.audience, lambda: self.turns.clock)
        self.idle_since: float | None = None
        self.address: str | None = None  # the client address it was created from
        self.invite: str | None = None  # a private table's: what joining or watching needs
        self.log = log.bind(table_id=self.table_id)

    @property
    def status(self) -> TableStatus:
        return self._status

    @status.setter
    def status(self, new: TableStatus) -> None:
        """Raises `BadTransitionError` for a step the table's lifecycle does not allow."""
        self._status = step(self._status, new, self.table_id)

    @property
    def is_playing(self) -> bool:
        return self._status is TableStatus.PLAYING

    @property
    def spectators(self) -> set[Outlet]:
        return self.audience.spectators

    def seat_of(self, player: Player) -> Seat | None:
        return self.seats.of(player)

    def humans(self) -> list[Player]:
        return self.seats.humans()

    def has_connected_human(self) -> bool:
        return any(p.connected for p in self.humans())

    def info(self) -> TableInfo:
        return table_info(self)

    async def join(self, player: Player, seat_index: int | None = None) -> None:
        """Sit ``player`` down (first free seat, or ``seat_index``); the first human hosts."""
        async with self.lock:
            guards.require_open(self)
            if self.seat_of(player) is not None:
                raise ProtocolError(ErrorCode.ALREADY_SEATED, "you already sit at this table")
            guards.require_seat_changes(self)
            seat = self.seats.free(seat_index, self.table_id)
            guards.check_player_tables(player, self.services.settings)
            await keep_waiting(self.services.store, self, seat, player_record(player),
                               self.host or player)
            seat.sit(player)
            player.tables.add(self.table_id)
            self.audience.unwatch_all(player.connections, self.table_id)
            if self.host is None:
                self.host = player
            self.log.info("player_joined", player_id=player.player_id, seat=seat.index)
            self._seats_changed()
            self.view.send_backlog(player)

    async def leave(self, player: Player) -> None:
        """Give up the seat (a bot takes it over during a game) or stop spectating."""
        async with self.lock:
            seat = self.seat_of(player)
            if seat is None:
                if not self.audience.unwatch_all(player.connections, self.table_id):
                    raise ProtocolError(ErrorCode.NOT_SEATED,
                                        f"you neither sit at nor watch table {self.table_id}")
                self.services.changed(self)
                return
            if self.status is TableStatus.PLAYING:
                # a bot takes the seat: stored first, so a failed write leaves them seated
                # it plays for them: they are rated with the seat's final place
                bot = draw_settings(BotLevel.MEDIUM, self.services.rng)
                left_by = (player.player_id, player.name)
                stand_in = Seat(seat.index, SeatKind.BOT, level=BotLevel.MEDIUM, bot=bot,
                                left_by=left_by)
                await self.services.store.seats_changed(self.table_id,
                                                        self.seats.records({seat.index: stand_in}))
                seat.give_to_bot(BotLevel.MEDIUM, bot, left_by)
            else:
                others = [p for p in self.humans() if p is not player]
                if others:  # the last one leaving closes the table (and drops its record)
                    await keep_waiting(self.services.store, self, seat, EMPTY_SEAT,
                                       others[0] if self.host is player else self.host)
                seat.clear()
            self.presence.cancel(seat)
            player.tables.discard(self.table_id)
            self.log.info("player_left", player_id=player.player_id, seat=seat.index)
            if self.host is player:
                humans = self.humans()
                self.host = humans[0] if humans else None
            if not self.humans():
                player.send(TableClosed(self.table_id, CloseReason.EMPTY))
                self._close(CloseReason.EMPTY)
                return
            self._seats_changed()
            player.send(self.info())  # the leaver's last view of the table
            if self.status is TableStatus.PLAYING:
                self._schedule()

    async def add_bot(self, player: Player, level: BotLevel, seat_index: int | None) -> None:
        """Host only: a bot of ``level`` takes a free seat."""
        async with self.lock:
            guards.require_open(self)
            guards.require_host(self, player)
            guards.require_seat_changes(self)
            seat = self.seats.free(seat_index, self.table_id)
            await keep_waiting(self.services.store, self, seat, bot_record(level), self.host)
            seat.give_to_bot(level)
            self._seats_changed()

    async def remove_bot(self, player: Player, seat_index: int) -> None:
        """Host only: empty a bot seat."""
        async with self.lock:
            guards.require_open(self)
            guards.require_host(self, player)
            guards.require_seat_changes(self)
            seat = self.seats.at(seat_index)
            if seat.kind is not SeatKind.BOT:
                raise ProtocolError(ErrorCode.NOT_A_BOT, f"seat {seat_index} is not a bot")
            await keep_waiting(self.services.store, self, seat, EMPTY_SEAT, self.host)
            seat.clear()
            self._seats_changed()

    async def spectate(self, connection: Connection) -> None:
        """Watch the table on this connection; the current state follows at once."""
        async with self.lock:
            guards.require_open(self)
            player = connection.player
            if player is not None and self.seat_of(player) is not None:
                raise ProtocolError(ErrorCode.ALREADY_SEATED, "you sit at this table")
            guards.require_spectator_room(self, connection, self.services.settings.max_spectators)
            self.audience.watch(connection, self.table_id)
            self.services.changed(self)
            self._resend(connection, None)

    def connection_closed(self, connection: Connection) -> None:
        """A spectator's socket went away."""
        if self.audience.unwatch(connection, self.table_id):
            self.services.changed(self)

    async def start(self, player: Player) -> None:
        """Host only: start the game once every seat is filled."""
        async with self.lock:
            guards.require_open(self)
            guards.require_host(self, player)
            guards.require_waiting(self)
            await self._start_game()

    async def rematch(self, player: Player) -> None:
        """Any seated player, after the game: a new game with the same seats."""
        async with self.lock:
            guards.require_open(self)
            guards.require_seated(self, player)
            guards.require_finished(self)
            await self._start_game()

    async def _start_game(self) -> None:
        self.seats.require_full()
        self.seats.draw_bots(self.services.rng)
        game = WizardGame(len(self.seats), self.options, rng=self.services.rng)
        await store_game_start(self.services.store, self, game.seed)
        self.game = game
        self.games += 1
        self.moves = 0
        self.v += 1
        self.status = TableStatus.PLAYING
        self.services.metrics.games_started.inc()
        self.log.info("game_started", game=self.games, v=self.v,
                      bots=[s.bot.to_dict() if s.bot else None for s in self.seats])
        self._seats_changed()
        self._schedule()
        self.view.send_update(self.v, game, update_events(game.start_events(), 0, Mover.PLAYER))

    async def act(self, player: Player, action: Action) -> None:
        """``player`` plays ``action``; raises `ProtocolError` with the engine's code if refused."""
        async with self.lock:
            guards.require_open(self)
            seat = guards.require_seated(self, player)
            if self.game is None or self.status is TableStatus.WAITING:
                raise ProtocolError(ErrorCode.NOT_STARTED, "the game has not started")
            await self._apply(seat.index, action, Mover.PLAYER)

    async def propose(self, v: int, seat_index: int, action: Action, by: Mover) -> bool:
        """Apply a bot's or stand-in's action if the table is still at ``v``; else drop it."""
        async with self.lock:
            seat = self.seats[seat_index]
            game = self.game
            still_due = (self.v == v and self.status is TableStatus.PLAYING and game is not None
                         and game.current_player == seat_index)
            expected_kind = SeatKind.BOT if by is Mover.BOT else SeatKind.PLAYER
            if not still_due or seat.kind is not expected_kind or (by is Mover.AWAY) != seat.away:
                self.services.metrics.stale_proposals.inc()
                return False
            await self._apply(seat_index, action, by)
            return True

    async def _apply(self, seat: int, action: Action, by: Mover) -> None:
        """Store, apply and send ``seat``'s ``action`` and the bot moves that follow at once.

        Without a think time (``WIZARD_BOT_DELAY=0``) the bots that follow a bot's move
        are decided at once, on a copy of the game, and share its commit. A person's own
        move is stored and sent on its own: its update is what the person waits for.
        """
        game = self.game
        assert game is not None
        try:
            index = game.check(seat, action)  # the one legality check on the way
        except IllegalActionError as exc:
            raise ProtocolError(ErrorCode(exc.code), str(exc)) from None
        run_ahead = (next_bot_move(self.seats, self.v, self.moves, self.services, self.turns,
                                   turn_seconds=self.turn_seconds)
                     if by is not Mover.PLAYER and self.services.settings.bot_delay <= 0 else None)
        moves, after = moves_from(game, Move(seat, action, index, by), run_ahead)
        v = self.v
        await store_moves(self.services.store, self.table_id, v + 1, moves, after,
                          lambda: rematch_record(self, v + len(moves)))
        self.turns.cancel()  # what was due is done; the last move's update shows what is next
        last = len(moves) - 1
        for k, move in enumerate(moves):
            events = game.apply_index(move.action_index)
            self.v, self.moves = self.v + 1, self.moves + 1
            self.services.metrics.actions.labels(move.by.value).inc()
            if k == last:
                self._moved(game, events)
            self.view.send_update(self.v, game, update_events(events, move.seat, move.by))
        if game.is_finished:
            self._seats_changed()

    def _moved(self, game: WizardGame, events: list[Event]) -> None:
        """After the last move of a run: the game's end, or whatever is due next."""
        if game.is_finished:
            self.status = TableStatus.FINISHED
            self.services.metrics.games_finished.inc()
            self.log.info("game_finished", game=self.games, v=self.v, scores=game.scores)
        self._schedule(trick_completed=any(isinstance(e, TrickCompleted) for e in events))

    def _schedule(self, *, trick_completed: bool = False) -> None:
        """Hand what is due now to the turn runner (under the lock)."""
        self.turns.cancel()
        game = self.game
        if not self.is_playing or game is None or game.current_player is None:
            return
        turn = due_turn(self.seats[game.current_player], self.v, self.moves, self.services,
                        turn_seconds=self.turn_seconds, trick_completed=trick_completed)
        if turn is not None:
            self.turns.start(turn)

    def _observe(self, seat: int) -> Observation:
        assert self.game is not None
        return self.game.observation(seat)

    async def player_connected(self, player: Player, connection: Connection) -> None:
        """A seated player is back: cancel the grace timer, take the seat back, re-send state."""
        async with self.lock:
            seat = self.seat_of(player)
            if seat is None or self.status is TableStatus.CLOSED:
                return
            was_away = self.presence.came_back(seat)
            self._seats_changed()
            if was_away and self.status is TableStatus.PLAYING:
                self._schedule()
            self._resend(connection, seat.index)

    async def player_disconnected(self, player: Player) -> None:
        """A seated player's last connection closed: the grace period starts."""
        async with self.lock:
            seat = self.seat_of(player)
            if seat is None or self.status is TableStatus.CLOSED:
                return
            self._seats_changed()
            if self.status is TableStatus.PLAYING:
                self.presence.start_grace(seat)

    async def _grace_over(self, seat_index: int, player: Player) -> None:
        async with self.lock:
            if self.status is TableStatus.CLOSED or not self.presence.mark_away(
                    self.seats[seat_index], player):
                return
            self.log.info("player_away", player_id=player.player_id, seat=seat_index)
            self._seats_changed()
            if self.status is TableStatus.PLAYING:
                self._schedule()

    async def sync(self, connection: Connection) -> None:
        """Re-send ``table`` and the latest ``update`` for this connection's view."""
        async with self.lock:
            guards.require_open(self)
            seat = guards.require_at_table(self, connection)
            self._resend(connection, seat.index if seat else None)

    def chat(self, message: ChatMessage) -> None:
        """Pass a chat line to everyone at the table (players and spectators); keep it."""
        self.view.chat(message)

    def _resend(self, connection: Connection, seat: int | None) -> None:
        self.view.resend(connection, self.info(), self.v, self.game, seat)

    def _seats_changed(self) -> None:
        self.audience.send(self.info())
        self.services.changed(self)

    def resume(self) -> None:
        """After a restore: start every absent player's grace and the turn of whoever moves."""
        if self.is_playing:
            self.presence.start_absent()
        self._schedule()

    def stop(self) -> None:
        """Stop the pending turn and every grace timer (shutdown: restored as they are)."""
        self.turns.cancel()
        self.presence.stop()

    def _close(self, reason: CloseReason) -> None:
        if self.status is TableStatus.CLOSED:
            return
        if self.status is TableStatus.PLAYING:
            self.services.store.game_abandoned(self.table_id)
        self.services.store.table_not_waiting(self.table_id)
        self.status = TableStatus.CLOSED
        self.stop()
        self.audience.send(TableClosed(self.table_id, reason))
        for seat in self.seats:
            if seat.player is not None:
                seat.player.tables.discard(self.table_id)
        self.audience.unwatch_all(self.spectators, self.table_id)
        self.log.info("table_closed", reason=reason)
        self.services.closed(self)

    async def close(self, reason: CloseReason) -> None:
        """Close the table: everyone at it gets ``table_closed``; it leaves the lobby."""
        async with self.lock:
            self._close(reason)


__all__ = ["Seat", "SeatKind", "Table", "TableServices", "TableStatus", "new_table_id"]
