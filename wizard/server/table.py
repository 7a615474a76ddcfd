"""A table: seats, host, status, the game, its version ``v``, and every change to them.

All mutations of a table happen under its `asyncio.Lock`, on the event loop:
one writer per table. The rules stay in the engine (`WizardGame`), timing in
`TurnRunner`, persistence in the store, sending in `Connection`. Every
method a client can call raises `ProtocolError` (and changes nothing) when the
request is refused.
"""

from __future__ import annotations

import asyncio
import enum
import json
import random
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import structlog

from wizard.ai.decision import Decider
from wizard.ai.levels import BotLevel, BotSettings
from wizard.engine import (
    Action,
    GameFinished,
    GameOptions,
    IllegalActionError,
    TrickCompleted,
    WizardGame,
    action_from_dict,
)

from .bots import BotGate, bot_id, bot_name, draw_settings
from .chat import ChatLog
from .connection import Connection
from .db import StoredGame
from .metrics import ServerMetrics
from .player import Player
from .protocol import (
    ChatMessage,
    Clock,
    ErrorCode,
    ProtocolError,
    SeatInfo,
    TableClosed,
    TableInfo,
    Update,
    encode,
)
from .settings import Settings
from .store import SqliteStore
from .turns import TurnRunner

log = structlog.get_logger(__name__)


class TableStatus(enum.StrEnum):
    WAITING = "waiting"
    PLAYING = "playing"
    FINISHED = "finished"
    CLOSED = "closed"


class SeatKind(enum.StrEnum):
    EMPTY = "empty"
    PLAYER = "player"
    BOT = "bot"


@dataclass(slots=True)
class Seat:
    """One seat. ``away``: its player's grace ran out and a stand-in plays for them."""

    index: int
    kind: SeatKind = SeatKind.EMPTY
    player: Player | None = None
    level: BotLevel | None = None
    bot: BotSettings | None = None
    away: bool = False
    grace: asyncio.TimerHandle | None = None

    @property
    def played_by_bot(self) -> bool:
        """A bot seat, or a person's seat a stand-in plays while they are away."""
        return self.kind is SeatKind.BOT or self.away

    def record(self) -> dict[str, Any]:
        """What the store keeps of this seat during a game (no token: it lives elsewhere)."""
        if self.kind is SeatKind.PLAYER and self.player is not None:
            return {"kind": "player", "player_id": self.player.player_id,
                    "name": self.player.name}
        if self.kind is SeatKind.BOT and self.level is not None and self.bot is not None:
            return {"kind": "bot", "level": self.level.value, "name": bot_name(self.level),
                    "bot": self.bot.to_dict()}
        raise ValueError(f"seat {self.index} is empty during a game")

    def info(self) -> SeatInfo:
        if self.kind is SeatKind.PLAYER and self.player is not None:
            return SeatInfo(self.index, "player", self.player.name, self.player.player_id, None,
                            self.player.connected, self.away)
        if self.kind is SeatKind.BOT and self.level is not None:
            return SeatInfo(self.index, "bot", bot_name(self.level), bot_id(self.level),
                            self.level.value, True, False)
        return SeatInfo(self.index, "empty", None, None, None, False, False)


@dataclass(slots=True)
class TableServices:
    """What every table shares: settings, the decider, the store, metrics, callbacks."""

    settings: Settings
    decider: Decider
    store: SqliteStore
    metrics: ServerMetrics
    changed: Callable[[Table], None] = lambda table: None
    closed: Callable[[Table], None] = lambda table: None
    rng: random.Random = field(default_factory=lambda: random.Random(secrets.randbits(64)))
    bot_gate: BotGate = field(default_factory=BotGate)


def new_table_id() -> str:
    """A table id that is hard to guess (private tables are joined by id only)."""
    return "t_" + secrets.token_urlsafe(9)


class Table:
    """A Wizard table; ``v`` grows by one with every game start and accepted action."""

    def __init__(self, services: TableServices, *, players: int, options: GameOptions,
                 private: bool, turn_seconds: int, table_id: str | None = None) -> None:
        self.table_id = table_id or new_table_id()
        self.services = services
        self.options = options
        self.private = private
        self.turn_seconds = turn_seconds
        self.seats = [Seat(i) for i in range(players)]
        self.host: Player | None = None
        self.status = TableStatus.WAITING
        self.game: WizardGame | None = None
        self.games = 0
        self.v = 0
        self.moves = 0  # actions in the current game (the bots' move number)
        self.lock = asyncio.Lock()
        self.spectators: set[Connection] = set()
        self.chat_log = ChatLog()
        self.turns = TurnRunner(self)
        self.idle_since: float | None = None
        self.log = log.bind(table_id=self.table_id)

    # --- reading --------------------------------------------------------------------------

    @property
    def is_playing(self) -> bool:
        return self.status is TableStatus.PLAYING

    def seat_of(self, player: Player) -> Seat | None:
        for seat in self.seats:
            if seat.player is player:
                return seat
        return None

    def humans(self) -> list[Player]:
        return [s.player for s in self.seats if s.kind is SeatKind.PLAYER and s.player]

    def has_connected_human(self) -> bool:
        return any(p.connected for p in self.humans())

    def info(self) -> TableInfo:
        return TableInfo(
            table_id=self.table_id,
            host=self.host.player_id if self.host else None,
            seats=[seat.info() for seat in self.seats],
            options=self.options.to_dict(),
            status=self.status.value,
            private=self.private,
            turn_seconds=self.turn_seconds,
            spectators=len(self.spectators),
            game=self.games,
        )

    @staticmethod
    def check_player_tables(player: Player, settings: Settings) -> None:
        """Raises `ProtocolError` ``player_table_limit`` if ``player`` may sit at no more tables."""
        if len(player.tables) >= settings.max_tables_per_player:
            raise ProtocolError(ErrorCode.PLAYER_TABLE_LIMIT,
                                f"you sit at {len(player.tables)} tables, the most allowed; "
                                "leave one first")

    def _require_seated(self, player: Player) -> Seat:
        seat = self.seat_of(player)
        if seat is None:
            raise ProtocolError(ErrorCode.NOT_SEATED, f"you have no seat at table {self.table_id}")
        return seat

    def _require_host(self, player: Player) -> None:
        if player is not self.host:
            raise ProtocolError(ErrorCode.NOT_HOST, "only the host may do that")

    def _require_seat_changes(self) -> None:
        if self.status is TableStatus.PLAYING:
            raise ProtocolError(ErrorCode.ALREADY_STARTED,
                                "seats cannot change while a game is being played")

    def _seat_at(self, index: int) -> Seat:
        if not 0 <= index < len(self.seats):
            raise ProtocolError(ErrorCode.NO_SUCH_SEAT,
                                f"seat must be 0-{len(self.seats) - 1}, got {index}")
        return self.seats[index]

    def _free_seat(self, index: int | None) -> Seat:
        if index is not None:
            seat = self._seat_at(index)
            if seat.kind is not SeatKind.EMPTY:
                raise ProtocolError(ErrorCode.SEAT_TAKEN, f"seat {index} is taken")
            return seat
        for seat in self.seats:
            if seat.kind is SeatKind.EMPTY:
                return seat
        raise ProtocolError(ErrorCode.TABLE_FULL, f"table {self.table_id} has no free seat")

    # --- seats ----------------------------------------------------------------------------

    async def join(self, player: Player, seat_index: int | None = None) -> None:
        """Sit ``player`` down (first free seat, or ``seat_index``); the first human hosts."""
        async with self.lock:
            self._require_open()
            if self.seat_of(player) is not None:
                raise ProtocolError(ErrorCode.ALREADY_SEATED, "you already sit at this table")
            self._require_seat_changes()
            seat = self._free_seat(seat_index)
            self.check_player_tables(player, self.services.settings)
            seat.kind, seat.player = SeatKind.PLAYER, player
            player.tables.add(self.table_id)
            for connection in player.connections:
                self._stop_spectating(connection)
            if self.host is None:
                self.host = player
            self.log.info("player_joined", player_id=player.player_id, seat=seat.index)
            self._seats_changed()
            self._send_chat_backlog(player)

    async def leave(self, player: Player) -> None:
        """Give up the seat (a bot takes it over during a game) or stop spectating."""
        async with self.lock:
            seat = self.seat_of(player)
            if seat is None:
                watching = [c for c in player.connections if c in self.spectators]
                if not watching:
                    raise ProtocolError(ErrorCode.NOT_SEATED,
                                        f"you neither sit at nor watch table {self.table_id}")
                for connection in watching:
                    self._stop_spectating(connection)
                self.services.changed(self)
                return
            self._cancel_grace(seat)
            player.tables.discard(self.table_id)
            if self.status is TableStatus.PLAYING:
                level = BotLevel.MEDIUM
                seat.kind, seat.player, seat.level, seat.away = SeatKind.BOT, None, level, False
                seat.bot = draw_settings(level, self.services.rng)
                await self.services.store.seats_changed(self.table_id, self._seat_records())
            else:
                seat.kind, seat.player, seat.level, seat.bot = SeatKind.EMPTY, None, None, None
                seat.away = False
            self.log.info("player_left", player_id=player.player_id, seat=seat.index)
            if self.host is player:
                humans = self.humans()
                self.host = humans[0] if humans else None
            if not self.humans():
                player.send(TableClosed(self.table_id, "empty"))
                self._close("empty")
                return
            self._seats_changed()
            player.send(self.info())  # the leaver's last view of the table
            if self.status is TableStatus.PLAYING:
                self.turns.schedule()

    async def add_bot(self, player: Player, level: BotLevel, seat_index: int | None) -> None:
        """Host only: a bot of ``level`` takes a free seat."""
        async with self.lock:
            self._require_open()
            self._require_host(player)
            self._require_seat_changes()
            seat = self._free_seat(seat_index)
            seat.kind, seat.level = SeatKind.BOT, level
            self._seats_changed()

    async def remove_bot(self, player: Player, seat_index: int) -> None:
        """Host only: empty a bot seat."""
        async with self.lock:
            self._require_open()
            self._require_host(player)
            self._require_seat_changes()
            seat = self._seat_at(seat_index)
            if seat.kind is not SeatKind.BOT:
                raise ProtocolError(ErrorCode.NOT_A_BOT, f"seat {seat_index} is not a bot")
            seat.kind, seat.level, seat.bot = SeatKind.EMPTY, None, None
            self._seats_changed()

    async def spectate(self, connection: Connection) -> None:
        """Watch the table on this connection; the current state follows at once."""
        async with self.lock:
            self._require_open()
            player = connection.player
            if player is not None and self.seat_of(player) is not None:
                raise ProtocolError(ErrorCode.ALREADY_SEATED, "you sit at this table")
            limit = self.services.settings.max_spectators
            if connection not in self.spectators and len(self.spectators) >= limit:
                raise ProtocolError(ErrorCode.SPECTATOR_LIMIT,
                                    f"table {self.table_id} has {limit} spectators already")
            self.spectators.add(connection)
            connection.spectating.add(self.table_id)
            self.services.changed(self)
            connection.send(self.info())
            if self.game is not None:
                connection.send(self._update_for(None, []))
            self._send_chat_backlog(connection)

    def _stop_spectating(self, connection: Connection) -> None:
        self.spectators.discard(connection)
        connection.spectating.discard(self.table_id)

    def connection_closed(self, connection: Connection) -> None:
        """A spectator's socket went away."""
        if connection in self.spectators:
            self._stop_spectating(connection)
            self.services.changed(self)

    # --- games ----------------------------------------------------------------------------

    async def start(self, player: Player) -> None:
        """Host only: start the game once every seat is filled."""
        async with self.lock:
            self._require_open()
            self._require_host(player)
            if self.status is not TableStatus.WAITING:
                raise ProtocolError(ErrorCode.ALREADY_STARTED, "the game has already started")
            await self._start_game()

    async def rematch(self, player: Player) -> None:
        """Any seated player, after the game: a new game with the same seats."""
        async with self.lock:
            self._require_open()
            self._require_seated(player)
            if self.status is not TableStatus.FINISHED:
                raise ProtocolError(ErrorCode.NOT_FINISHED, "a rematch follows a finished game")
            await self._start_game()

    async def _start_game(self) -> None:
        empty = [s.index for s in self.seats if s.kind is SeatKind.EMPTY]
        if empty:
            raise ProtocolError(ErrorCode.SEATS_OPEN,
                                f"seats {empty} are empty: fill them with players or bots")
        rng = self.services.rng
        for seat in self.seats:
            if seat.kind is SeatKind.BOT and seat.level is not None:
                seat.bot = draw_settings(seat.level, rng)
        game = WizardGame(len(self.seats), self.options, rng=rng)
        # the game exists once the store has it: seed, seats and bot settings first
        await self.services.store.game_started(
            self.table_id, f"{self.table_id}-{self.games + 1}", options=self.options.to_dict(),
            seed=game.seed, seats=self._seat_records(), table_info=self._table_record())
        self.game = game
        self.games += 1
        self.moves = 0
        self.v += 1
        self.status = TableStatus.PLAYING
        self.services.metrics.games_started.inc()
        self.log.info("game_started", game=self.games, v=self.v,
                      bots=[s.bot.to_dict() if s.bot else None for s in self.seats])
        self._seats_changed()
        self.turns.schedule()
        self._broadcast_update([e.to_dict() for e in self.game.start_events()])

    async def act(self, player: Player, action: Action) -> None:
        """``player`` plays ``action``; raises `ProtocolError` with the engine's code if refused."""
        async with self.lock:
            self._require_open()
            seat = self._require_seated(player)
            if self.game is None or self.status is TableStatus.WAITING:
                raise ProtocolError(ErrorCode.NOT_STARTED, "the game has not started")
            await self._apply(seat.index, action, by="player")

    async def propose(self, v: int, seat_index: int, action: Action, *, by: str,
                      auto_reason: str | None = None) -> bool:
        """Apply a bot's or stand-in's action if the table is still at ``v``; else drop it."""
        async with self.lock:
            seat = self.seats[seat_index]
            game = self.game
            still_due = (self.v == v and self.status is TableStatus.PLAYING and game is not None
                         and game.current_player == seat_index)
            expected_kind = SeatKind.BOT if by == "bot" else SeatKind.PLAYER
            if not still_due or seat.kind is not expected_kind or (by == "away") != seat.away:
                self.services.metrics.stale_proposals.inc()
                return False
            await self._apply(seat_index, action, by=by, auto_reason=auto_reason)
            return True

    async def _apply(self, seat: int, action: Action, *, by: str,
                     auto_reason: str | None = None) -> None:
        game = self.game
        assert game is not None
        if not game.is_legal(seat, action):
            try:
                game.apply(seat, action)  # raises the typed error and leaves the game alone
            except IllegalActionError as exc:
                raise ProtocolError(ErrorCode(exc.code), str(exc)) from None
            raise AssertionError("is_legal and apply disagree")  # pragma: no cover
        seq = self.v + 1
        await self.services.store.append(self.table_id, seq, seat, action.to_dict())
        events = game.apply(seat, action)
        self.v, self.moves = seq, self.moves + 1
        self.services.metrics.actions.inc(by)
        event_dicts = [e.to_dict() for e in events]
        if auto_reason is not None:
            event_dicts.insert(0, {"type": "auto_played", "player": seat, "reason": auto_reason})
        finished = any(isinstance(e, GameFinished) for e in events)
        if finished:
            self.status = TableStatus.FINISHED
            await self.services.store.game_finished(self.table_id, game.scores, game.winners())
            self.services.metrics.games_finished.inc()
            self.log.info("game_finished", game=self.games, v=self.v, scores=game.scores)
        self.turns.schedule(trick_completed=any(isinstance(e, TrickCompleted) for e in events))
        self._broadcast_update(event_dicts)
        if finished:
            self._seats_changed()

    # --- presence -------------------------------------------------------------------------

    async def player_connected(self, player: Player, connection: Connection) -> None:
        """A seated player is back: cancel the grace timer, take the seat back, re-send state."""
        async with self.lock:
            seat = self.seat_of(player)
            if seat is None or self.status is TableStatus.CLOSED:
                return
            self._cancel_grace(seat)
            was_away, seat.away = seat.away, False
            self._seats_changed()
            if was_away and self.status is TableStatus.PLAYING:
                self.turns.schedule()
            connection.send(self.info())
            if self.game is not None:
                connection.send(self._update_for(seat.index, []))
            self._send_chat_backlog(connection)

    async def player_disconnected(self, player: Player) -> None:
        """A seated player's last connection closed: the grace period starts."""
        async with self.lock:
            seat = self.seat_of(player)
            if seat is None or self.status is TableStatus.CLOSED:
                return
            self._seats_changed()
            if self.status is TableStatus.PLAYING and seat.grace is None:
                loop = asyncio.get_running_loop()
                seat.grace = loop.call_later(self.services.settings.disconnect_grace_seconds,
                                             self._grace_over, seat.index, player)

    def _grace_over(self, seat_index: int, player: Player) -> None:
        asyncio.get_running_loop().create_task(self._mark_away(seat_index, player))

    async def _mark_away(self, seat_index: int, player: Player) -> None:
        async with self.lock:
            seat = self.seats[seat_index]
            seat.grace = None
            if seat.player is not player or player.connected or self.status is TableStatus.CLOSED:
                return
            seat.away = True
            self.log.info("player_away", player_id=player.player_id, seat=seat_index)
            self._seats_changed()
            if self.status is TableStatus.PLAYING:
                self.turns.schedule()

    def _cancel_grace(self, seat: Seat) -> None:
        if seat.grace is not None:
            seat.grace.cancel()
            seat.grace = None

    async def sync(self, connection: Connection) -> None:
        """Re-send ``table`` and the latest ``update`` for this connection's view."""
        async with self.lock:
            self._require_open()
            player = connection.player
            seat = self.seat_of(player) if player is not None else None
            if seat is None and connection not in self.spectators:
                raise ProtocolError(ErrorCode.NOT_SEATED,
                                    f"you neither sit at nor watch table {self.table_id}")
            connection.send(self.info())
            if self.game is not None:
                connection.send(self._update_for(seat.index if seat else None, []))
            self._send_chat_backlog(connection)

    # --- sending --------------------------------------------------------------------------

    def chat(self, message: ChatMessage) -> None:
        """Pass a chat line to everyone at the table (players and spectators); keep it."""
        self.chat_log.add(message)
        text = encode(message)
        for player in self.humans():
            player.send_text(text, "chat")
        for connection in tuple(self.spectators):
            connection.send_text(text, "chat")

    def _send_chat_backlog(self, to: Player | Connection) -> None:
        if self.chat_log:
            to.send(self.chat_log.backlog(self.table_id))

    def _clock(self) -> Clock | None:
        clock = self.turns.clock
        if clock is None:
            return None
        player, deadline = clock
        return Clock(player, max(0, round((deadline - time.monotonic()) * 1000)))

    def _update_for(self, seat: int | None, events: list[dict[str, Any]]) -> Update:
        """The current state for one seat (``None``: spectators); re-sends pass no events."""
        assert self.game is not None
        observation = self.game.observation(seat).to_dict()
        return Update(self.table_id, self.v, events, observation, self._clock())

    def _broadcast_update(self, events: list[dict[str, Any]]) -> None:
        for seat in self.seats:
            if seat.player is not None and seat.player.connected:
                seat.player.send(self._update_for(seat.index, events))
        if self.spectators:
            text = encode(self._update_for(None, events))
            for connection in tuple(self.spectators):
                connection.send_text(text, "update")

    def _seats_changed(self) -> None:
        text = encode(self.info())
        for player in self.humans():
            player.send_text(text, "table")
        for connection in tuple(self.spectators):
            connection.send_text(text, "table")
        self.services.changed(self)

    # --- persistence ----------------------------------------------------------------------

    def _seat_records(self) -> list[dict[str, Any]]:
        return [seat.record() for seat in self.seats]

    def _table_record(self) -> dict[str, Any]:
        """Table settings kept with each game: enough to rebuild the table after a restart."""
        return {"players": len(self.seats), "private": self.private,
                "turn_seconds": self.turn_seconds,
                "host": self.host.player_id if self.host else None,
                "v0": self.v + 1, "game": self.games + 1}

    @classmethod
    def restore(cls, services: TableServices, stored: StoredGame,
                player_for: Callable[[str, str], Player]) -> Table:
        """Rebuild a table from its stored game by replaying every action through the engine.

        ``player_for(player_id, name)`` gives the (disconnected) player of a seat.
        Raises `ValueError` (or the engine's `IllegalActionError`) for a record that
        does not replay: the caller marks it corrupt and goes on.
        """
        info = json.loads(stored.table_info)
        seats = json.loads(stored.seats)
        options = GameOptions.from_dict(json.loads(stored.options))
        table = cls(services, players=len(seats), options=options,
                    private=bool(info.get("private", False)),
                    turn_seconds=int(info.get("turn_seconds", services.settings.turn_seconds)),
                    table_id=stored.table_id)
        for seat, record in zip(table.seats, seats, strict=True):
            if record["kind"] == "bot":
                seat.kind, seat.level = SeatKind.BOT, BotLevel.parse(record["level"])
                seat.bot = BotSettings.from_dict(record["bot"])
            elif record["kind"] == "player":
                player = player_for(record["player_id"], record["name"])
                seat.kind, seat.player = SeatKind.PLAYER, player
                player.tables.add(table.table_id)
                if info.get("host") == player.player_id:
                    table.host = player
            else:
                raise ValueError(f"seat {seat.index} has unknown kind {record.get('kind')!r}")
        if table.host is None and table.humans():
            table.host = table.humans()[0]
        game = WizardGame(len(seats), options, seed=stored.seed)
        v0 = int(info["v0"])
        for k, (seq, seat_index, action_json, _) in enumerate(stored.actions):
            if seq != v0 + k + 1:
                raise ValueError(f"action {seq} out of order (expected {v0 + k + 1})")
            game.apply(seat_index, action_from_dict(json.loads(action_json)))
        table.game = game
        table.games = int(info.get("game", 1))
        table.v = v0 + len(stored.actions)
        table.moves = len(stored.actions)
        table.status = TableStatus.FINISHED if game.is_finished else TableStatus.PLAYING
        return table

    def resume(self) -> None:
        """After a restore: start every absent player's grace and the turn of whoever moves."""
        loop = asyncio.get_running_loop()
        for seat in self.seats:
            if seat.player is not None and not seat.player.connected and self.is_playing:
                seat.grace = loop.call_later(self.services.settings.disconnect_grace_seconds,
                                             self._grace_over, seat.index, seat.player)
        self.turns.schedule()

    # --- closing --------------------------------------------------------------------------

    def _require_open(self) -> None:
        if self.status is TableStatus.CLOSED:
            raise ProtocolError(ErrorCode.NO_SUCH_TABLE, f"table {self.table_id} is closed")

    def _close(self, reason: str) -> None:
        if self.status is TableStatus.CLOSED:
            return
        if self.status is TableStatus.PLAYING:
            self.services.store.game_abandoned(self.table_id)
        self.status = TableStatus.CLOSED
        self.turns.cancel()
        message = TableClosed(self.table_id, reason)
        for seat in self.seats:
            self._cancel_grace(seat)
            if seat.player is not None:
                seat.player.tables.discard(self.table_id)
                seat.player.send(message)
        for connection in tuple(self.spectators):
            connection.send(message)
            self._stop_spectating(connection)
        self.log.info("table_closed", reason=reason)
        self.services.closed(self)

    async def close(self, reason: str) -> None:
        """Close the table: everyone at it gets ``table_closed``; it leaves the lobby."""
        async with self.lock:
            self._close(reason)


__all__ = ["Seat", "SeatKind", "Table", "TableServices", "TableStatus", "new_table_id"]
