"""`TurnRunner`: the one pending turn of a table — a bot's move, or a person's turn clock.

The table describes what is due as a `Turn` value and hands it to
`TurnRunner.start`; the runner waits, asks the `Decider` and hands the action
back through its ``propose`` callback. It never reads the table:

- a bot seat, or a person who is away: think time, a decision through the
  `Decider` (computed during the think time), then ``propose``;
- a person with a turn clock: when the clock runs out, the stand-in heuristic
  plays for them (the update says so with an ``auto_played`` event).

Proposals carry the table version they were computed for, so one that arrives
after the table moved on is dropped by the table.

Turn deadlines and think times are on the loop's clock (`wizard.server.clock`);
the decider is handed only how long it may take (`decider_deadline`).
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
from collections.abc import Awaitable, Callable
from typing import NamedTuple

import structlog

from wizard.ai.decision import AgentSpec, Decider, DecisionRequest
from wizard.engine import Action, Observation, WizardGame
from wizard.protocol import AutoPlayReason

from ..clock import decider_deadline, loop_time
from ..metrics import ServerMetrics
from ..storage.errors import StoreFullError
from .bots import STAND_IN_AGENT, BotGate, decide, decide_now, level_agent, think_seconds
from .seats import Seat
from .services import TableServices

log = structlog.get_logger(__name__)

RETRY_SECONDS = 1.0


class Mover(enum.StrEnum):
    """Who made a move: the seated person, their bot, or a stand-in (and why)."""

    PLAYER = "player"
    BOT = "bot"
    AWAY = "away"  # a stand-in plays for a person whose grace ran out
    TIMEOUT = "timeout"  # a stand-in plays for a person whose turn clock ran out

    @property
    def auto_reason(self) -> AutoPlayReason | None:
        """The ``reason`` of the ``auto_played`` event a stand-in's move carries."""
        return _AUTO_REASONS.get(self)


_AUTO_REASONS = {Mover.AWAY: AutoPlayReason.AWAY, Mover.TIMEOUT: AutoPlayReason.TIMEOUT}


class Turn(NamedTuple):
    """What is due at table version ``v``: seat ``seat`` moves, or ``mover`` moves for it.

    ``think`` is how long a bot waits before its move is applied; ``deadline``
    (on the loop's clock) is when a person's turn clock runs out, ``None`` for bots.
    (A named tuple: one is made for every bot move.)
    """

    v: int
    seat: int
    mover: Mover
    spec: AgentSpec
    think: float = 0.0
    deadline: float | None = None


def due_turn(seat: Seat, v: int, moves: int, services: TableServices, *, turn_seconds: int,
             trick_completed: bool) -> Turn | None:
    """What is due when ``seat`` is to move at version ``v`` (``None``: wait for the person).

    A bot seat or an away person: the bot's (or stand-in's) decision after a think
    time. A person with a turn clock: the stand-in, once ``turn_seconds`` ran out.
    """
    if seat.played_by_bot:
        think = think_seconds(services.settings, services.rng, trick_completed=trick_completed)
        if seat.bot is not None and seat.level is not None:
            spec = AgentSpec(level_agent(seat.level, services.decider, seat.bot.version),
                             seat.bot, moves)
            return Turn(v, seat.index, Mover.BOT, spec, think)
        return Turn(v, seat.index, Mover.AWAY, AgentSpec(STAND_IN_AGENT, None, moves), think)
    if turn_seconds > 0:
        return Turn(v, seat.index, Mover.TIMEOUT, AgentSpec(STAND_IN_AGENT, None, moves),
                    deadline=loop_time() + turn_seconds)
    return None


Propose = Callable[[int, int, Action, Mover], Awaitable[bool]]
"""``propose(v, seat, action, mover)``: the table applies it if still at ``v``."""


class TurnRunner:
    """Runs one `Turn` at a time for one table."""

    def __init__(self, *, table_id: str, decider: Decider, metrics: ServerMetrics,
                 bot_gate: BotGate, ai_deadline_seconds: float,
                 observe: Callable[[int], Observation], propose: Propose) -> None:
        self.table_id = table_id
        self.decider = decider
        self.metrics = metrics
        self.bot_gate = bot_gate
        self.ai_deadline_seconds = ai_deadline_seconds
        self.observe = observe
        self.propose = propose
        self.turn: Turn | None = None
        self._task: asyncio.Task[None] | None = None
        self._retry: asyncio.TimerHandle | None = None
        # the loop, looked up once: on Python 3.11 every lookup is a getpid() system call
        self._loop: asyncio.AbstractEventLoop | None = None

    def _running_loop(self) -> asyncio.AbstractEventLoop:
        loop = self._loop
        if loop is None:
            loop = self._loop = asyncio.get_running_loop()
        return loop

    @property
    def clock(self) -> tuple[int, float] | None:
        """``(seat, deadline on the loop's clock)`` while a person's turn clock runs."""
        turn = self.turn
        if turn is None or turn.deadline is None:
            return None
        return turn.seat, turn.deadline

    def cancel(self) -> None:
        """Stop waiting for the current turn (the table closed or moved on)."""
        task, self._task, self.turn = self._task, None, None
        if self._retry is not None:
            self._retry.cancel()
            self._retry = None
        if task is not None and task is not asyncio.current_task(self._loop):
            task.cancel()

    def start(self, turn: Turn) -> None:
        """Replace whatever was pending by ``turn``."""
        self.cancel()
        self.turn = turn
        self._task = self._running_loop().create_task(
            self._run(turn), name=f"turn-{self.table_id}-{turn.v}")

    def decide_now(self, turn: Turn, game: WizardGame) -> Action | None:
        """``turn``'s action in ``game`` at once, or ``None`` if it has to wait (a think time,
        a person's clock, a decision the decider makes off the loop, or the bot gate's share
        of this loop iteration is used up). A move given here has taken its place in it."""
        if turn.think > 0 or turn.deadline is not None or not self.bot_gate.has_share:
            return None
        request = DecisionRequest(game.observation(turn.seat), turn.spec,
                                  decider_deadline(self.ai_deadline_seconds))
        decision = decide_now(self.decider, request, self.metrics, table_id=self.table_id)
        if decision is None:
            return None
        self.bot_gate.take()
        return decision.action

    async def _run(self, turn: Turn) -> None:
        loop = self._running_loop()
        if turn.deadline is not None:  # a person's clock: the stand-in moves when it ends
            await asyncio.sleep(max(0.0, turn.deadline - loop.time()))
        ready_at = loop.time() + turn.think
        try:
            request = DecisionRequest(self.observe(turn.seat), turn.spec, decider_deadline(
                max(turn.think, self.ai_deadline_seconds)))
            # decide during the think time, so a slow decision is not added to it; at once
            # when the decider decides on the loop anyway
            decision = (decide_now(self.decider, request, self.metrics, table_id=self.table_id)
                        or await decide(self.decider, request, self.metrics,
                                        table_id=self.table_id))
            wait = ready_at - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            await self.bot_gate.wait()  # a person never waits behind a burst of bot moves
            await self.propose(turn.v, turn.seat, decision.action, turn.mover)
        except asyncio.CancelledError:
            raise
        except StoreFullError:  # the store logs the episode once; try again until it ends
            self._retry = loop.call_later(RETRY_SECONDS, self._try_again, turn)
        except Exception:  # never let a turn die silently: the table would stall
            log.exception("turn_failed", table_id=self.table_id, seat=turn.seat, v=turn.v)
            self._retry = loop.call_later(RETRY_SECONDS, self._try_again, turn)

    def _try_again(self, turn: Turn) -> None:
        """Run the failed turn again (e.g. the store was briefly unwritable) if still due."""
        self._retry = None
        if self.turn is turn:
            self._task = self._running_loop().create_task(
                self._run(turn), name=f"turn-{self.table_id}-{turn.v}-retry")

    async def wait_idle(self) -> None:
        """Wait for the pending turn task, if any (tests and shutdown)."""
        if self._task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._task


__all__ = ["Mover", "Propose", "Turn", "TurnRunner", "due_turn"]
