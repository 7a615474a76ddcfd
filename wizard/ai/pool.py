"""`InferencePool`: bot decisions in worker processes, bounded on the event loop.

A `Decider` (see `wizard.ai.decision`) backed by worker processes that hold
every shipped ONNX policy (`wizard.ai.pool_worker`). Every bound is checked on
the loop before any work is queued, and every caller is answered by its
deadline: when the pool cannot, the fallback agent (the heuristic) answers on
the loop and `Decision.reason` says why (`FALLBACK_REASONS`). Fallbacks are
computed through a `FallbackGate` (earliest deadline first, a slice of loop time
per loop turn), so a burst of refused requests neither blocks the loop nor
delays an admitted request past its deadline.

Routing by ``AgentSpec.agent``:

- ``model`` (the default policy) or ``model:<name>``: the observation is encoded
  on the loop (no other form of it ships cheaper, measured) and waits in that
  policy's batch; a batch leaves when its window
  (``batch_window_ms``) closes or it is full (``max_batch``) and a worker is
  free, and runs as one ONNX call. The
  worker applies bot strength as `act_with_strength` does (random move, softmax
  temperature), from the bot's seed and move number;
- a name in ``worker_agents`` (search bots): one observation per task, in a worker;
- anything else (``heuristic``, ``random``): decided inline at once, as
  `InlineDecider` does; these agents cost microseconds.

Waiting is counted in requests: past ``degrade_queue`` requests waiting for a
worker (default half of ``max_inflight``) a new one gets ``queue``; past
``max_inflight`` requests in progress (waiting or computing), ``overloaded``.

The workers are spawned processes behind an executor (each runs
`pool_worker.init_worker` once, then answers one task at a time): a batch is one
submitted task, and there is room for ``batches_per_worker`` batches per worker (2: the
next batch already waits in the worker's queue while one computes, so the worker does
not sit idle through the round trip of the answer). The executor is
`pool_pipes.PipeExecutor` (``transport="pipes"``, the default: the loop writes each task
to a worker's pipe and reads the answers with ``add_reader``) or the stdlib
`ProcessPoolExecutor` (``"executor"``). Measured side by side in one run of
`scripts/bench_pool.py` on a quiet machine, the pipes gave 1.6-1.8x the executor's
decisions/s and a third lower p99: the executor moves every task and answer through
helper threads of this process, and each of their steps waits for the GIL while the
loop holds it (`docs/performance.md`). A worker that dies (``kill -9``) breaks the
executor: every batch in it is answered with ``worker_lost``, a new executor takes
over, and its workers serve once they have loaded the policies; requests that cannot
outlast that start fall back at once.
"""

from __future__ import annotations

import asyncio
import enum
import threading
import time
from concurrent.futures import CancelledError, Future
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import structlog

from . import pool_worker
from .agents import Agent, HeuristicAgent, make_agent
from .agents.base import require_turn
from .decision import Decision, DecisionRequest, act_with_strength
from .encoding import ActionSpace, encode_batch
from .pool_deadlines import Deadlines
from .pool_fallback import FallbackGate
from .pool_metrics import PoolMetrics
from .pool_settings import PoolSettings, default_workers
from .pool_workers import BadPoolTransitionError, Workers

log = structlog.get_logger(__name__)

#: every ``Decision.reason`` the pool gives besides ``None`` (the asked-for agent decided)
FALLBACK_REASONS = ("overloaded", "queue", "slow", "expired", "error", "worker_lost")
MODEL_PREFIX = "model:"


class PoolState(enum.Enum):
    """The pool's lifecycle (whether its workers serve is `Workers`' state)."""

    NEW = "new"
    STARTING = "starting"
    OPEN = "open"  # deciding; ``ready`` while the workers serve, degraded while replaced
    CLOSING = "closing"
    CLOSED = "closed"


_NEXT_STATE = {
    PoolState.NEW: {PoolState.STARTING},
    PoolState.STARTING: {PoolState.OPEN, PoolState.CLOSED},
    PoolState.OPEN: {PoolState.CLOSING},
    PoolState.CLOSING: {PoolState.CLOSED},
    PoolState.CLOSED: set(),
}


class _Waiting:
    """One admitted request, and its future answer (a `Decision` or a fallback reason)."""

    __slots__ = ("arrived", "bot", "dispatched", "future", "request")

    def __init__(self, request: DecisionRequest, future: asyncio.Future[Decision | str],
                 arrived: float) -> None:
        self.request = request
        self.future = future
        self.arrived = arrived
        self.dispatched: float | None = None
        self.bot = pool_worker.bot_row(request.spec.bot, request.spec.move_number)


@dataclass(eq=False, slots=True)
class _Buffer:
    """Requests for one policy (or worker agent) waiting for a worker."""

    kind: str  # "policy" or "agent"
    name: str
    capacity: int
    items: list[_Waiting] = field(default_factory=list)
    timer: asyncio.TimerHandle | None = None
    ripe: bool = False  # the window has closed or the batch is full


@dataclass(eq=False, slots=True)
class _Batch:
    buffer: _Buffer
    items: list[_Waiting]
    dispatched: float


@dataclass(eq=False, slots=True)
class _Slot:
    """Room for one batch in the executor (``batches_per_worker`` slots per worker process)."""

    batch: _Batch | None = None
    generation: int = 0  # the executor the batch went to (a broken one is replaced once)


class InferencePool:
    """The pool `Decider`: ``await start()``, ``await decide(request)``, ``await close()``.

    `decide` never raises for a pool problem and never waits past the
    request's deadline (minus ``deadline_margin_ms``); it raises `ValueError`
    only for an observation in which it is not the seat's turn.
    """

    def __init__(self, settings: PoolSettings | None = None,
                 fallback: Agent | None = None) -> None:
        self.settings = settings or PoolSettings()
        self.fallback = fallback or HeuristicAgent()
        self.metrics = PoolMetrics()
        self.policies: frozenset[str] = frozenset()
        self._state = PoolState.NEW
        self._workers = Workers(self.settings, self.metrics, on_up=self._workers_up,
                                on_down=self._workers_down)
        self._slots: list[_Slot] = []
        self._buffers: dict[tuple[str, str], _Buffer] = {}
        self._average_compute: dict[str, float] = {}
        self._last_probe: dict[str, float] = {}  # when each route last admitted a request
        self._inline_agents: dict[str, Agent] = {}
        self._warned: set[tuple[str, str]] = set()
        self._drained = asyncio.Event()
        self._fallbacks = FallbackGate(self._fallback)
        self._deadlines: Deadlines[_Waiting] = Deadlines(self._time_up)
        self._loop: asyncio.AbstractEventLoop | None = None  # set by start
        self._loop_thread = 0  # the loop's thread (where `PipeExecutor` completes futures)

    # -- lifecycle -----------------------------------------------------------------------

    @property
    def ready(self) -> bool:
        """True while the workers serve, from `start` until `close` (``/readyz``); False
        while a dead worker's successor is starting (the pool is degraded: the fallback
        answers what cannot wait for it)."""
        return self._state is PoolState.OPEN and self._workers.serving

    @property
    def serving(self) -> bool:
        """The `Decider` name of `ready`."""
        return self.ready

    def _become(self, state: PoolState) -> None:
        if state not in _NEXT_STATE[self._state]:
            raise BadPoolTransitionError(f"the pool cannot go from {self._state.value} "
                                         f"to {state.value}")
        self._state = state

    async def start(self) -> None:
        """Start the workers and wait until each has loaded the policies.

        Raises `RuntimeError` when they do not come up within ``start_timeout_s``.
        """
        if self._state is not PoolState.NEW:
            return
        self._become(PoolState.STARTING)
        self._loop = asyncio.get_running_loop()
        self._loop_thread = threading.get_ident()
        try:
            await self._workers.start()
        except RuntimeError:
            self._become(PoolState.CLOSED)
            raise
        self.policies = self._workers.policies
        self._slots = self._new_slots()
        self._become(PoolState.OPEN)
        log.info("pool_started", workers=self.settings.workers, policies=sorted(self.policies),
                 start_s=round(self._workers.start_seconds, 2))

    async def close(self) -> None:
        """Answer every request in progress (by its deadline at the latest), then stop workers."""
        if self._state in (PoolState.CLOSING, PoolState.CLOSED):
            return
        if self._state is not PoolState.OPEN:  # never started, or its start failed
            self._state = PoolState.CLOSED
            await self._workers.close()
            return
        self._become(PoolState.CLOSING)
        for buffer in self._buffers.values():
            buffer.ripe = True
        self._pump()
        if self.metrics.inflight:
            self._drained.clear()
            try:
                await asyncio.wait_for(self._drained.wait(), self.settings.max_wait_s)
            except TimeoutError:
                log.warning("pool_drain_timeout", inflight=self.metrics.inflight)
        await self._workers.close()
        self._slots = []
        self._deadlines.close()
        self._become(PoolState.CLOSED)
        log.info("pool_closed")

    @property
    def start_seconds(self) -> float:
        """How long the workers took to serve, the last successor's start included."""
        return self._workers.start_seconds

    def worker_pids(self) -> list[int]:
        """Process ids of the live workers (for operators and tests)."""
        return self._workers.pids()

    # -- deciding ------------------------------------------------------------------------

    async def decide(self, request: DecisionRequest) -> Decision:
        """The decision for ``request``; see the module docstring for who decides."""
        arrived = time.monotonic()
        admitted = self._admit_or_answer(request, arrived)
        if isinstance(admitted, Decision):
            await asyncio.sleep(0)  # a storm of instant answers still lets the loop breathe
            return admitted
        if isinstance(admitted, str):  # refused at the door: the fallback answers
            return await self._fallbacks.answer(request, admitted, arrived)
        buffer, item, budget = admitted
        self._deadlines.watch(item, arrived + budget, self.metrics.inflight)
        try:
            outcome = await item.future
        finally:
            self._forget(buffer, item)  # only does something for a cancelled caller
            self.metrics.inflight -= 1
            if self.metrics.inflight == 0:
                self._drained.set()
        if isinstance(outcome, str):
            return await self._fallbacks.answer(request, outcome, item.arrived, item.dispatched)
        self.metrics.count(outcome)
        return outcome

    def decide_now(self, request: DecisionRequest) -> Decision | None:
        """The decision at once for an agent decided on the loop (the heuristic levels), as
        `decide` gives it; ``None`` for one that goes to a worker."""
        route = self._route(request.spec.agent)
        if not isinstance(route, Agent):
            return None
        require_turn(request.observation)
        return self._inline(route, request)

    def _admit_or_answer(
        self, request: DecisionRequest, arrived: float
    ) -> Decision | str | tuple[_Buffer, _Waiting, float]:
        """Check every bound on the loop: an inline answer, a fallback reason, or the
        admitted request and its time budget."""
        require_turn(request.observation)
        route = self._route(request.spec.agent)
        if isinstance(route, Agent):
            return self._inline(route, request)
        if route is None or self._state is not PoolState.OPEN:
            return "error"
        if request.deadline <= arrived:
            return "expired"
        workers = self._workers
        if not workers.serving and request.deadline - arrived < workers.start_seconds:
            return "worker_lost"  # no worker, and the successor would not start in time
        settings = self.settings
        if self.metrics.inflight >= settings.max_inflight:
            return "overloaded"
        if self.metrics.waiting >= settings.degrade_queue:
            return "queue"
        deadline = min(request.deadline, arrived + settings.max_wait_s)
        budget = deadline - arrived - settings.deadline_margin_ms / 1000.0
        if budget <= 0.0 or self._too_slow(route.name, deadline - arrived, arrived):
            return "slow"
        assert self._loop is not None  # ready, so started
        item = _Waiting(request, self._loop.create_future(), arrived)
        self._admit(route, item)
        self._last_probe[route.name] = arrived
        return route, item, budget

    def _too_slow(self, name: str, window: float, now: float) -> bool:
        """Whether ``name``'s average compute time exceeds half the request's window.

        A route judged too slow still lets one request through every
        ``slow_probe_s`` (a probe, guarded by its deadline like any other), so
        its average follows the workers when they become fast again.
        """
        average = self._average_compute.get(name)
        if average is None or average <= window / 2:
            return False
        return now - self._last_probe.get(name, -float("inf")) < self.settings.slow_probe_s

    def _route(self, agent: str) -> _Buffer | Agent | None:
        """The buffer an agent name is batched in, the agent decided inline, or None (unknown)."""
        if agent in self.settings.worker_agents:
            return self._buffer("agent", agent, 1)
        if agent == "model" or agent.startswith(MODEL_PREFIX):
            policy = agent[len(MODEL_PREFIX):] if agent != "model" else self.settings.default_model
            if policy not in self.policies:
                self._warn_once("pool_unknown_policy", agent)
                return None
            return self._buffer("policy", policy, self.settings.max_batch)
        inline = self._inline_agents.get(agent)
        if inline is None:
            try:
                inline = self._inline_agents[agent] = make_agent(agent)
            except ValueError:
                self._warn_once("pool_unknown_agent", agent)
                return None
        return inline

    def _warn_once(self, event: str, agent: str) -> None:
        if (event, agent) not in self._warned:
            self._warned.add((event, agent))
            log.warning(event, agent=agent, policies=sorted(self.policies),
                        state=self._state.value)

    def _buffer(self, kind: str, name: str, capacity: int) -> _Buffer:
        buffer = self._buffers.get((kind, name))
        if buffer is None:
            buffer = self._buffers[(kind, name)] = _Buffer(kind, name, capacity)
        return buffer

    def _inline(self, agent: Agent, request: DecisionRequest) -> Decision:
        start = time.perf_counter()
        action, chosen_by = act_with_strength(agent, request.spec, request.observation)
        decision = Decision(action, chosen_by, None, 0.0, (time.perf_counter() - start) * 1000)
        self.metrics.count(decision)
        return decision

    def _fallback(self, request: DecisionRequest, reason: str, arrived: float,
                  dispatched: float | None = None) -> Decision:
        start = time.perf_counter()
        action, chosen_by = act_with_strength(self.fallback, request.spec, request.observation)
        queue_ms = ((dispatched or time.monotonic()) - arrived) * 1000
        decision = Decision(action, chosen_by, reason, queue_ms,
                            (time.perf_counter() - start) * 1000)
        self.metrics.count(decision)
        log.debug("pool_fallback", reason=reason, asked=request.spec.agent, agent=chosen_by,
                  queue_ms=round(queue_ms, 2))
        return decision

    def _time_up(self, item: _Waiting) -> None:
        """The request's time ran out: where it was decides the reason."""
        if item.future.done():
            return
        if item.dispatched is not None:
            self._kill_hung_workers()
            item.future.set_result("slow")
        else:
            item.future.set_result("expired" if self._workers.serving else "worker_lost")

    def _forget(self, buffer: _Buffer, item: _Waiting) -> None:
        """Take an answered request that never left its buffer out of it."""
        if item.dispatched is None:
            try:
                buffer.items.remove(item)
            except ValueError:
                return
            self.metrics.waiting -= 1

    # -- batching ------------------------------------------------------------------------


    def _admit(self, buffer: _Buffer, item: _Waiting) -> None:
        self.metrics.inflight += 1
        self.metrics.waiting += 1
        buffer.items.append(item)
        if len(buffer.items) >= buffer.capacity:
            buffer.ripe = True
            self._pump()
        elif buffer.timer is None and not buffer.ripe:
            loop = self._loop
            assert loop is not None
            buffer.timer = loop.call_later(self.settings.batch_window_ms / 1000.0,
                                           self._window_closed, buffer)

    def _window_closed(self, buffer: _Buffer) -> None:
        buffer.timer = None
        buffer.ripe = bool(buffer.items)
        self._pump()

    def _pump(self) -> None:
        """Send ripe batches, oldest first, to idle workers."""
        if self._state not in (PoolState.OPEN, PoolState.CLOSING) or not self._workers.serving:
            return
        for slot in self._slots:
            if slot.batch is not None:
                continue
            ripe = [b for b in self._buffers.values() if b.ripe and b.items]
            if not ripe:
                return
            buffer = min(ripe, key=lambda b: b.items[0].arrived)
            items = buffer.items[:buffer.capacity]
            del buffer.items[:buffer.capacity]
            if not buffer.items:
                buffer.ripe = False
                if buffer.timer is not None:
                    buffer.timer.cancel()
                    buffer.timer = None
            self._dispatch(slot, buffer, items)

    def _dispatch(self, slot: _Slot, buffer: _Buffer, items: list[_Waiting]) -> None:
        now = time.monotonic()
        self.metrics.waiting -= len(items)
        for item in items:
            item.dispatched = now
        slot.batch = _Batch(buffer, items, now)
        try:
            message = self._message(buffer, items)
        except Exception:
            log.exception("pool_dispatch_error", agent=buffer.name)
            slot.batch = None
            self._resolve(items, "error")
            return
        if not self._send(slot, message):
            return
        self.metrics.batches += 1
        self.metrics.batch_rows += len(items)

    @staticmethod
    def _message(buffer: _Buffer, items: list[_Waiting]) -> tuple[str, tuple[Any, ...]]:
        """The task for a worker: a policy batch encoded here (no form of the observation
        ships cheaper, see `docs/ai.md`), or one observation for a worker agent."""
        if buffer.kind == "policy":
            observations = [item.request.observation for item in items]
            return ("policy", (
                buffer.name, encode_batch(observations), ActionSpace.mask_batch(observations),
                np.array([item.bot for item in items], dtype=np.int64)))
        request = items[0].request
        return ("agent", (buffer.name, request.spec, request.observation.to_dict()))

    def _send(self, slot: _Slot, message: tuple[str, tuple[Any, ...]]) -> bool:
        """Submit ``message`` to the workers; False (its batch answered) if they broke."""
        loop = self._loop
        assert loop is not None  # started
        slot.generation = self._workers.generation
        done = self._workers.submit(message)
        if done is None:
            self._finished(slot, None)
            return False
        loop_thread = self._loop_thread

        def finished(future: Future[Any]) -> None:
            # `PipeExecutor` completes on the loop's own thread: no wake-up through the
            # loop's self-pipe is needed then (an executor's helper thread needs one)
            if threading.get_ident() == loop_thread:
                loop.call_soon(self._finished, slot, future)
            else:
                loop.call_soon_threadsafe(self._finished, slot, future)

        done.add_done_callback(finished)
        return True

    def _finished(self, slot: _Slot, done: Future[Any] | None) -> None:
        """A batch's task ended: its answers, or its fallback reason."""
        batch, slot.batch = slot.batch, None
        if batch is not None:
            try:
                if done is None:
                    raise BrokenProcessPool("the executor is broken")
                reply = done.result()
            except (BrokenProcessPool, CancelledError):
                self._resolve(batch.items, "worker_lost")
                self._workers.lost(slot.generation)
            except Exception as exc:  # e.g. the reply did not unpickle
                log.error("pool_worker_error", agent=batch.buffer.name, rows=len(batch.items),
                          error=f"{type(exc).__name__}: {exc}", traceback="")
                self._resolve(batch.items, "error")
            else:
                if reply[0] == "ok":
                    self._deliver(batch, reply[1], time.monotonic())
                else:  # the task raised in the worker
                    log.error("pool_worker_error", agent=batch.buffer.name,
                              rows=len(batch.items), error=reply[1], traceback=reply[2])
                    self._resolve(batch.items, "error")
        self._pump()

    def _deliver(self, batch: _Batch, result: Any, now: float) -> None:
        elapsed = now - batch.dispatched
        name = batch.buffer.name
        previous = self._average_compute.get(name)
        weight = self.settings.compute_average_weight
        self._average_compute[name] = (
            elapsed if previous is None else previous + weight * (elapsed - previous))
        compute_ms = elapsed * 1000
        if batch.buffer.kind == "policy":
            codes, _ = result
            agent = MODEL_PREFIX + name
            answers = []
            for item, code in zip(batch.items, codes.tolist(), strict=True):
                if code >= 0:
                    answers.append((ActionSpace.action(code), agent))
                else:  # the bot's random move: an index into the legal actions
                    answers.append((item.request.observation.legal_actions[-1 - code], "random"))
        else:
            index, chosen_by, _ = result
            answers = [(ActionSpace.action(index), chosen_by)]
        for item, (action, chosen) in zip(batch.items, answers, strict=True):
            if item.future.done():  # its caller was already answered at its deadline
                continue
            queue_s = batch.dispatched - item.arrived
            self.metrics.observe(queue_s, elapsed)
            item.future.set_result(Decision(action, chosen, None, queue_s * 1000, compute_ms))

    @staticmethod
    def _resolve(items: list[_Waiting], reason: str) -> None:
        for item in items:
            if not item.future.done():
                item.future.set_result(reason)

    # -- workers -------------------------------------------------------------------------

    def _new_slots(self) -> list[_Slot]:
        return [_Slot() for _ in range(self.settings.workers * self.settings.batches_per_worker)]

    def _workers_down(self) -> None:
        """The workers broke: what they held is lost, and so is what cannot outlast a
        successor's start. New slots, so that a late answer of the old workers finds none."""
        for slot in self._slots:
            if slot.batch is not None:
                self._resolve(slot.batch.items, "worker_lost")
                slot.batch = None
        self._slots = self._new_slots()
        now = time.monotonic()
        start_seconds = self._workers.start_seconds
        for buffer in self._buffers.values():
            keep = []
            for item in buffer.items:
                if item.request.deadline - now < start_seconds:
                    self.metrics.waiting -= 1
                    if not item.future.done():
                        item.future.set_result("worker_lost")
                else:
                    keep.append(item)
            buffer.items[:] = keep

    def _workers_up(self) -> None:
        """A successor serves: what waited for it goes out."""
        self._pump()

    def _kill_hung_workers(self) -> None:
        """A worker stuck on one task for ``hung_worker_s`` is killed (and so replaced)."""
        now = time.monotonic()
        stuck = [s.batch for s in self._slots
                 if s.batch is not None and now - s.batch.dispatched > self.settings.hung_worker_s]
        if stuck:
            log.error("pool_worker_hung", seconds=round(now - stuck[0].dispatched, 1))
            self._workers.kill_hung()


__all__ = ["FALLBACK_REASONS", "InferencePool", "PoolMetrics", "PoolSettings", "PoolState",
           "default_workers"]
