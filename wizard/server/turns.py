"""`TurnRunner`: who moves next at a table, and when — bot moves, the turn clock, stand-ins.

After every change the table calls `TurnRunner.schedule` (always under the
table's lock). It cancels the previous turn's task and starts one for the
seat to move:

- a bot seat, or a person who is away: think time, a decision through the
  `Decider` (computed during the think time), then `Table.propose`;
- a person with a turn clock: when the clock runs out, the stand-in heuristic
  plays for them (the update says so with an ``auto_played`` event);
- a person without a clock: nothing to do.

Proposals carry the table version they were computed for, so one that arrives
after the table moved on is dropped.

Turn deadlines are on the decider's clock (`DecisionRequest.deadline` is
``time.monotonic()`` seconds, the clock asyncio sleeps by), not on the lobby's
injected one: a decision deadline and a sleep must agree with the pool.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import TYPE_CHECKING

import structlog

from wizard.ai.decision import AgentSpec, DecisionRequest

from .bots import STAND_IN_AGENT, decide, level_agent, think_seconds

if TYPE_CHECKING:
    from .table import Table

log = structlog.get_logger(__name__)

RETRY_SECONDS = 1.0


class TurnRunner:
    """The one pending turn task of a table, and its turn clock."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.clock: tuple[int, float] | None = None  # (seat, monotonic deadline)
        self._task: asyncio.Task[None] | None = None

    def cancel(self) -> None:
        """Stop waiting for the current turn (the table closed or moved on)."""
        task, self._task = self._task, None
        self.clock = None
        if task is not None and task is not asyncio.current_task():
            task.cancel()

    def schedule(self, *, trick_completed: bool = False) -> None:
        """Start the wait for whoever is to move now (call under the table's lock)."""
        self.cancel()
        table = self.table
        game = table.game
        if not table.is_playing or game is None:
            return
        mover = game.current_player
        if mover is None:
            return
        seat = table.seats[mover]
        settings = table.services.settings
        loop = asyncio.get_running_loop()
        if seat.played_by_bot:
            think = think_seconds(settings, table.services.rng, trick_completed=trick_completed)
            self._task = loop.create_task(self._bot_turn(table.v, mover, think),
                                          name=f"bot-{table.table_id}-{table.v}")
        elif table.turn_seconds > 0:
            deadline = time.monotonic() + table.turn_seconds
            self.clock = (mover, deadline)
            self._task = loop.create_task(self._clock_turn(table.v, mover, deadline),
                                          name=f"clock-{table.table_id}-{table.v}")

    async def _bot_turn(self, v: int, seat_index: int, think: float) -> None:
        table = self.table
        seat = table.seats[seat_index]
        game = table.game
        assert game is not None
        ready_at = time.monotonic() + think
        if seat.bot is not None and seat.level is not None:
            agent = level_agent(seat.level, table.services.decider)
            spec = AgentSpec(agent, seat.bot, table.moves)
            by, reason = "bot", None
        else:
            spec = AgentSpec(STAND_IN_AGENT, None, table.moves)
            by, reason = "away", "away"
        await self._decide_and_propose(v, seat_index, spec, ready_at, by, reason)

    async def _clock_turn(self, v: int, seat_index: int, deadline: float) -> None:
        await asyncio.sleep(max(0.0, deadline - time.monotonic()))
        spec = AgentSpec(STAND_IN_AGENT, None, self.table.moves)
        await self._decide_and_propose(v, seat_index, spec, time.monotonic(), "timeout",
                                       "timeout")

    async def _decide_and_propose(self, v: int, seat_index: int, spec: AgentSpec,
                                  ready_at: float, by: str, reason: str | None) -> None:
        table = self.table
        game = table.game
        assert game is not None
        services = table.services
        observation = game.observation(seat_index)
        deadline = max(ready_at, time.monotonic() + services.settings.ai_deadline_seconds)
        try:
            # decide during the think time, so a slow decision is not added to it
            decision = await decide(services.decider, DecisionRequest(observation, spec, deadline),
                                    services.metrics, table_id=table.table_id)
            wait = ready_at - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            await services.bot_gate.wait()  # a person never waits behind a burst of bot moves
            await table.propose(v, seat_index, decision.action, by=by, auto_reason=reason)
        except asyncio.CancelledError:
            raise
        except Exception:  # never let a turn die silently: the table would stall
            log.exception("turn_failed", table_id=table.table_id, seat=seat_index, v=v)
            asyncio.get_running_loop().call_later(RETRY_SECONDS, self._retry, v)

    def _retry(self, v: int) -> None:
        """Try the failed turn again (e.g. the store was briefly unwritable)."""
        asyncio.get_running_loop().create_task(self._retry_under_lock(v))

    async def _retry_under_lock(self, v: int) -> None:
        async with self.table.lock:
            if self.table.v == v and self.table.is_playing:
                self.schedule()

    async def wait_idle(self) -> None:
        """Wait for the pending turn task, if any (tests and shutdown)."""
        if self._task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._task


__all__ = ["TurnRunner"]
