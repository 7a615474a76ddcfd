"""`InferencePool`: bot decisions in worker processes, bounded on the event loop.

A `Decider` (see `wizard.ai.decision`) backed by worker processes that hold
every shipped ONNX policy (`wizard.ai.pool.worker_process`). Every bound is checked on
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

A batch is one task for a worker process (`workers`, through one of the two
transports of `executors`), and there is room for ``batches_per_worker`` batches per
worker (2: the next batch already waits in the worker's queue while one computes, so
the worker does not sit idle through the round trip of the answer). A worker that
dies (``kill -9``) or hangs is replaced at once: every batch it held is answered with
``worker_lost``, and until the successor serves, requests that cannot outlast its
start fall back at once and the pool is not `ready` (degraded).
"""

from __future__ import annotations

import asyncio
import enum
import time

import structlog

from ..agents import Agent, HeuristicAgent
from ..agents.base import require_turn
from ..decision import Decision, DecisionRequest, act_with_strength
from .batches import Buffer, Waiting
from .deadlines import Deadlines
from .dispatch import Dispatcher
from .fallback import FallbackGate
from .metrics import PoolMetrics
from .routes import Routes
from .settings import PoolSettings, default_workers
from .workers import BadPoolTransitionError, Workers

log = structlog.get_logger(__name__)

#: every ``Decision.reason`` the pool gives besides ``None`` (the asked-for agent decided)
FALLBACK_REASONS = ("overloaded", "queue", "slow", "expired", "error", "worker_lost")


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
        self._routes = Routes(self.settings)
        self._buffers = self._routes.buffers
        self._dispatcher = Dispatcher(self.settings, self.metrics, self._workers, self._buffers)
        self._last_probe: dict[str, float] = {}  # when each route last admitted a request
        self._drained = asyncio.Event()
        self._fallbacks = FallbackGate(self._fallback)
        self._deadlines: Deadlines[Waiting] = Deadlines(self._time_up)
        self._loop: asyncio.AbstractEventLoop | None = None  # set by start

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
        try:
            await self._workers.start()
        except RuntimeError:
            self._become(PoolState.CLOSED)
            raise
        self.policies = self._routes.policies = self._workers.policies
        self._dispatcher.start()
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
        self._dispatcher.pump()
        if self.metrics.inflight:
            self._drained.clear()
            try:
                await asyncio.wait_for(self._drained.wait(), self.settings.max_wait_s)
            except TimeoutError:
                log.warning("pool_drain_timeout", inflight=self.metrics.inflight)
        await self._workers.close()
        self._dispatcher.open = False
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
        route = self._routes.route(request.spec.agent)
        if not isinstance(route, Agent):
            return None
        require_turn(request.observation)
        return self._inline(route, request)

    def _admit_or_answer(
        self, request: DecisionRequest, arrived: float
    ) -> Decision | str | tuple[Buffer, Waiting, float]:
        """Check every bound on the loop: an inline answer, a fallback reason, or the
        admitted request and its time budget."""
        require_turn(request.observation)
        route = self._routes.route(request.spec.agent)
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
        item = Waiting(request, self._loop.create_future(), arrived)
        self._dispatcher.admit(route, item)
        self._last_probe[route.name] = arrived
        return route, item, budget

    def _too_slow(self, name: str, window: float, now: float) -> bool:
        """Whether ``name``'s average compute time exceeds half the request's window.

        A route judged too slow still lets one request through every
        ``slow_probe_s`` (a probe, guarded by its deadline like any other), so
        its average follows the workers when they become fast again.
        """
        average = self._dispatcher.average_compute.get(name)
        if average is None or average <= window / 2:
            return False
        return now - self._last_probe.get(name, -float("inf")) < self.settings.slow_probe_s

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

    def _time_up(self, item: Waiting) -> None:
        """The request's time ran out: where it was decides the reason."""
        if item.future.done():
            return
        if item.dispatched is not None:
            self._dispatcher.kill_hung_workers()
            item.future.set_result("slow")
        else:
            item.future.set_result("expired" if self._workers.serving else "worker_lost")

    def _forget(self, buffer: Buffer, item: Waiting) -> None:
        """Take an answered request that never left its buffer out of it."""
        if item.dispatched is None:
            try:
                buffer.items.remove(item)
            except ValueError:
                return
            self.metrics.waiting -= 1

    def _workers_down(self) -> None:
        """The workers broke: the dispatcher answers what they held."""
        self._dispatcher.workers_down()

    def _workers_up(self) -> None:
        """A successor serves: what waited for it goes out."""
        self._dispatcher.pump()


__all__ = ["FALLBACK_REASONS", "InferencePool", "PoolMetrics", "PoolSettings", "PoolState",
           "default_workers"]
