"""`InferencePool`: bot decisions in worker processes, bounded on the event loop.

A `Decider` (see `wizard.ai.decision`) backed by worker processes that hold
every shipped ONNX policy (`wizard.ai.pool_worker`). Every bound is checked on
the loop before any work is queued, and every caller is answered by its
deadline: when the pool cannot, the fallback agent (the heuristic) answers at
once on the loop and `Decision.reason` says why (`FALLBACK_REASONS`).

Routing by ``AgentSpec.agent``:

- ``model`` (the default policy) or ``model:<name>``: the observation is encoded
  on the loop (cheaper than shipping it to a worker) and waits in that policy's
  batch; a batch leaves when its window (``batch_window_ms``) closes or it is
  full (``max_batch``) and a worker is free, and runs as one ONNX call. The
  worker applies bot strength as `act_with_strength` does (random move, softmax
  temperature), from the bot's seed and move number;
- a name in ``worker_agents`` (search bots): one observation per task, in a worker;
- anything else (``heuristic``, ``random``): decided inline at once, as
  `InlineDecider` does; these agents cost microseconds.

Low-priority tasks (`run_background`: slices of a game analysis) run in one
more worker of the pool, the background worker: started on first use, at
``background_nice`` (19: the lowest CPU priority, and ``SCHED_IDLE`` on
Linux), never given a live
decision, so live bots never wait behind an analysis (`pool_background`).

Waiting is counted in batches ("work units"): ``degrade_queue`` 8 means eight
batches' worth of requests wait for a worker, so micro-batching can absorb a
burst of 64 requests without degrading.

Workers are spawned processes, each with one duplex pipe that the loop reads
with ``add_reader``: no helper threads in the server process (the stdlib
`ProcessPoolExecutor` needs two, and on a 2-core machine their hand-offs under
load cost more than the batched inference saves). A worker that dies (EOF on
its pipe, e.g. after ``kill -9``) has every request it held answered with
``worker_lost``; it is replaced, and the replacement serves once it has loaded
the policies.
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import multiprocessing
import os
import signal
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any

import numpy as np
import structlog

from . import pool_worker
from .agents import WORKER_AGENTS, Agent, HeuristicAgent, make_agent
from .agents.base import require_turn
from .decision import Decision, DecisionRequest, act_with_strength
from .encoding import ActionSpace, encode_batch
from .policy import models_dir
from .pool_background import BackgroundQueue, BackgroundTask

log = structlog.get_logger(__name__)

#: every ``Decision.reason`` the pool gives besides ``None`` (the asked-for agent decided)
FALLBACK_REASONS = ("overloaded", "queue", "slow", "expired", "error", "worker_lost")
MODEL_PREFIX = "model:"


def default_workers() -> int:
    """CPU count − 1, at least 1: the event loop keeps a core."""
    return max(1, (os.cpu_count() or 2) - 1)


@dataclass(frozen=True, slots=True)
class PoolSettings:
    """The pool's bounds; `from_env` reads the ``WIZARD_AI_*`` variables of `ENV_VARIABLES`."""

    workers: int = field(default_factory=default_workers)
    max_inflight: int = 64  # more requests in progress -> ``overloaded``
    degrade_queue: int = 8  # this many batches waiting for a worker -> ``queue``
    batch_window_ms: float = 1.0  # a batch waits at most this long for company (<= 2)
    max_batch: int = 32  # rows in one ONNX call
    models_dir: str | None = None  # None: `wizard.ai.policy.models_dir()`
    default_model: str = "default"  # the policy agent ``model`` means
    worker_agents: tuple[str, ...] = WORKER_AGENTS  # agent names decided in workers, one per task
    worker_imports: tuple[str, ...] = ()  # modules each worker imports (to register agents)
    deadline_margin_ms: float = 2.0  # answered this long before the deadline, fallback included
    max_wait_s: float = 30.0  # the deadline of a request that has none
    hung_worker_s: float = 60.0  # a worker stuck this long on one task is killed
    start_timeout_s: float = 120.0
    close_timeout_s: float = 10.0
    compute_average_weight: float = 0.2  # weight of the newest sample in the moving average
    background_nice: int = 19  # CPU niceness of the background worker (game analysis), 0-19

    def __post_init__(self) -> None:
        checks = (
            (self.workers >= 1, "workers must be >= 1"),
            (self.max_inflight >= 1, "max_inflight must be >= 1"),
            (self.degrade_queue >= 1, "degrade_queue must be >= 1"),
            (0.0 <= self.batch_window_ms <= 2.0, "batch_window_ms must be within 0-2"),
            (self.max_batch >= 1, "max_batch must be >= 1"),
            (self.deadline_margin_ms >= 0.0, "deadline_margin_ms must be >= 0"),
            (0.0 < self.compute_average_weight <= 1.0, "compute_average_weight must be in (0, 1]"),
            (0 <= self.background_nice <= 19, "background_nice must be within 0-19"),
        )
        for ok, message in checks:
            if not ok:
                raise ValueError(message)

    @staticmethod
    def from_env(environ: Mapping[str, str] = os.environ, **overrides: Any) -> PoolSettings:
        """Settings from ``WIZARD_AI_WORKERS`` etc.; raises `ValueError` naming a bad variable."""
        values: dict[str, Any] = {}
        for name, (variable, parse) in ENV_VARIABLES.items():
            raw = environ.get(variable)
            if raw is None or raw == "":
                continue
            try:
                values[name] = parse(raw)
            except ValueError:
                raise ValueError(f"{variable} must be a number, got {raw!r}") from None
        values.update(overrides)
        return PoolSettings(**values)


ENV_VARIABLES: dict[str, tuple[str, Any]] = {
    "workers": ("WIZARD_AI_WORKERS", int),
    "max_inflight": ("WIZARD_AI_MAX_INFLIGHT", int),
    "degrade_queue": ("WIZARD_AI_DEGRADE_QUEUE", int),
    "batch_window_ms": ("WIZARD_AI_BATCH_WINDOW_MS", float),
    "max_batch": ("WIZARD_AI_MAX_BATCH", int),
    "background_nice": ("WIZARD_AI_BACKGROUND_NICE", int),
}

LATENCY_BUCKETS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0)


class PoolMetrics:
    """Counters of the pool, readable as a dict (`snapshot`) or Prometheus text (`render`)."""

    def __init__(self) -> None:
        self.decisions: dict[tuple[str, str], int] = {}
        self.inflight = 0
        self.waiting = 0
        self.worker_restarts = 0
        self.batches = 0
        self.batch_rows = 0
        self.queue_seconds = [0] * (len(LATENCY_BUCKETS) + 1)
        self.compute_seconds = [0] * (len(LATENCY_BUCKETS) + 1)
        self.queue_sum = self.compute_sum = 0.0

    def count(self, decision: Decision) -> None:
        key = (decision.agent, decision.reason or "none")
        self.decisions[key] = self.decisions.get(key, 0) + 1

    def observe(self, queue_s: float, compute_s: float) -> None:
        self.queue_seconds[bisect.bisect_left(LATENCY_BUCKETS, queue_s)] += 1
        self.compute_seconds[bisect.bisect_left(LATENCY_BUCKETS, compute_s)] += 1
        self.queue_sum += queue_s
        self.compute_sum += compute_s

    def fallbacks(self, reason: str | None = None) -> int:
        """Decisions answered by the fallback (for one reason, or for all)."""
        return sum(n for (_, why), n in self.decisions.items()
                   if why != "none" and reason in (None, why))

    def snapshot(self) -> dict[str, Any]:
        return {
            "decisions": {f"{agent}/{reason}": n for (agent, reason), n in self.decisions.items()},
            "inflight": self.inflight,
            "waiting": self.waiting,
            "worker_restarts": self.worker_restarts,
            "batches": self.batches,
            "batch_rows": self.batch_rows,
        }

    def render(self, prefix: str = "wizard_pool") -> str:
        """Prometheus text format, ready to append to the server's ``/metrics``."""
        out = [f"# TYPE {prefix}_decisions_total counter"]
        for (agent, reason), n in sorted(self.decisions.items()):
            out.append(f'{prefix}_decisions_total{{agent="{agent}",reason="{reason}"}} {n}')
        for name, value, kind in (("inflight", self.inflight, "gauge"),
                                  ("waiting", self.waiting, "gauge"),
                                  ("worker_restarts_total", self.worker_restarts, "counter"),
                                  ("batches_total", self.batches, "counter"),
                                  ("batch_rows_total", self.batch_rows, "counter")):
            out += [f"# TYPE {prefix}_{name} {kind}", f"{prefix}_{name} {value}"]
        for name, counts, total in (("queue_seconds", self.queue_seconds, self.queue_sum),
                                    ("compute_seconds", self.compute_seconds, self.compute_sum)):
            out.append(f"# TYPE {prefix}_{name} histogram")
            running = 0
            for bound, hits in zip((*LATENCY_BUCKETS, "+Inf"), counts, strict=True):
                running += hits
                out.append(f'{prefix}_{name}_bucket{{le="{bound}"}} {running}')
            out += [f"{prefix}_{name}_sum {total!r}", f"{prefix}_{name}_count {running}"]
        return "\n".join(out) + "\n"


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


@dataclass(eq=False)
class _Worker:
    """One worker process and the loop's end of its pipe."""

    process: BaseProcess
    conn: Connection
    ready: asyncio.Future[dict[str, Any]]  # the worker's ping once it has loaded the policies
    batch: _Batch | None = None
    background: BackgroundTask | None = None  # a low-priority task (game analysis) it runs
    alive: bool = True
    attempt: int = 0  # failed starts in a row before this one (backoff of replacements)

    @property
    def idle(self) -> bool:
        return (self.alive and self.batch is None and self.background is None
                and self.ready.done())


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
        self._state = "new"  # new -> starting -> ready -> closing -> closed
        self._workers: list[_Worker] = []
        self._replacing: set[asyncio.Task[None]] = set()
        self._buffers: dict[tuple[str, str], _Buffer] = {}
        self._average_compute: dict[str, float] = {}
        self._inline_agents: dict[str, Agent] = {}
        self._warned: set[tuple[str, str]] = set()
        self._drained = asyncio.Event()
        self.background = BackgroundQueue()
        self._background_worker: _Worker | None = None
        self._background_starting: asyncio.Task[None] | None = None

    # -- lifecycle -----------------------------------------------------------------------

    @property
    def ready(self) -> bool:
        """True once the workers have loaded the policies, until `close` (``/readyz``)."""
        return self._state == "ready"

    async def start(self) -> None:
        """Start the workers and wait until each has loaded the policies.

        Raises `RuntimeError` when they do not come up within ``start_timeout_s``.
        """
        if self._state != "new":
            return
        self._state = "starting"
        try:
            self._workers = [await self._spawn() for _ in range(self.settings.workers)]
            pings = await asyncio.wait_for(asyncio.gather(*(w.ready for w in self._workers)),
                                           self.settings.start_timeout_s)
        except (TimeoutError, ConnectionError, OSError) as exc:
            await self._stop_workers()
            self._state = "closed"
            raise RuntimeError(f"inference pool workers did not start: {exc!r}") from exc
        self.policies = frozenset(pings[0]["policies"])
        for stem, error in pings[0]["errors"].items():
            log.warning("pool_policy_not_loaded", policy=stem, error=error)
        self._state = "ready"
        log.info("pool_started", workers=len(self._workers), policies=sorted(self.policies))

    async def close(self) -> None:
        """Answer every request in progress (by its deadline at the latest), then stop workers."""
        if self._state in ("closing", "closed"):
            return
        self._state = "closing"
        for buffer in self._buffers.values():
            buffer.ripe = True
        self._pump()
        if self.metrics.inflight:
            self._drained.clear()
            try:
                await asyncio.wait_for(self._drained.wait(), self.settings.max_wait_s)
            except TimeoutError:
                log.warning("pool_drain_timeout", inflight=self.metrics.inflight)
        for task in self._replacing:
            task.cancel()
        self.background.cancel_all("the inference pool is closing")
        if self._background_starting is not None:
            self._background_starting.cancel()
        background = self._background_worker
        if background is not None and background.background is not None:
            background.background.finish(("error", "the inference pool is closing"))
            background.background = None
        await self._stop_workers()
        self._state = "closed"
        log.info("pool_closed")

    def worker_pids(self) -> list[int]:
        """Process ids of the live workers (for operators and tests)."""
        return [w.process.pid for w in self._workers
                if w.alive and w.process.pid is not None and w.process.is_alive()]

    # -- deciding ------------------------------------------------------------------------

    async def decide(self, request: DecisionRequest) -> Decision:
        """The decision for ``request``; see the module docstring for who decides."""
        admitted = self._admit_or_answer(request)
        if isinstance(admitted, Decision):
            await asyncio.sleep(0)  # a storm of instant answers still lets the loop breathe
            return admitted
        buffer, item, budget = admitted
        loop = asyncio.get_running_loop()
        timer = loop.call_at(loop.time() + budget, self._time_up, item)
        try:
            outcome = await item.future
        finally:
            timer.cancel()
            self._forget(buffer, item)  # only does something for a cancelled caller
            self.metrics.inflight -= 1
            if self.metrics.inflight == 0:
                self._drained.set()
        if isinstance(outcome, str):
            return self._fallback(request, outcome, item.arrived, item.dispatched)
        self.metrics.count(outcome)
        return outcome

    def _admit_or_answer(
        self, request: DecisionRequest
    ) -> Decision | tuple[_Buffer, _Waiting, float]:
        """Check every bound on the loop: an answer at once, or the admitted request and budget."""
        arrived = time.monotonic()
        require_turn(request.observation)
        route = self._route(request.spec.agent)
        if isinstance(route, Agent):
            return self._inline(route, request)
        if route is None or self._state != "ready":
            return self._fallback(request, "error", arrived)
        if request.deadline <= arrived:
            return self._fallback(request, "expired", arrived)
        settings = self.settings
        if self.metrics.inflight >= settings.max_inflight:
            return self._fallback(request, "overloaded", arrived)
        if self._waiting_units() >= settings.degrade_queue:
            return self._fallback(request, "queue", arrived)
        deadline = min(request.deadline, arrived + settings.max_wait_s)
        budget = deadline - arrived - settings.deadline_margin_ms / 1000.0
        average = self._average_compute.get(route.name)
        if budget <= 0.0 or (average is not None and average > (deadline - arrived) / 2):
            return self._fallback(request, "slow", arrived)
        item = _Waiting(request, asyncio.get_running_loop().create_future(), arrived)
        self._admit(route, item)
        return route, item, budget

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
            log.warning(event, agent=agent, policies=sorted(self.policies), state=self._state)

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
            self._kill_hung_workers()  # e.g. a background task that never ends
            item.future.set_result("worker_lost" if self._replacing else "expired")

    def _forget(self, buffer: _Buffer, item: _Waiting) -> None:
        """Take an answered request that never left its buffer out of it."""
        if item.dispatched is None:
            try:
                buffer.items.remove(item)
            except ValueError:
                return
            self.metrics.waiting -= 1

    async def run_background(self, task: str, args: tuple[Any, ...]) -> Any:
        """Run a low-priority worker task (``pool_worker.TASKS``), e.g. a slice of an analysis.

        It goes to a worker only when no live decision waits (`BackgroundQueue`);
        raises `RuntimeError` when the pool is not ready or the task failed.
        """
        if self._state != "ready":
            raise RuntimeError("the inference pool is not ready")
        item = self.background.add(task, args)
        self._start_background_worker()
        self._pump()
        return await item.result()

    @property
    def background_pid(self) -> int | None:
        """Process id of the background worker, once it was started (for operators, tests)."""
        worker = self._background_worker
        return worker.process.pid if worker is not None and worker.alive else None

    def _start_background_worker(self) -> None:
        if self._background_worker is None and self._background_starting is None:
            self._background_starting = asyncio.get_running_loop().create_task(
                self._spawn_background())

    async def _spawn_background(self) -> None:
        """Start the background worker; its callers fail if it does not come up."""
        try:
            worker = self._background_worker = await self._spawn(background=True)
            await asyncio.wait_for(asyncio.shield(worker.ready), self.settings.start_timeout_s)
        except (TimeoutError, ConnectionError, OSError) as exc:
            log.error("pool_background_worker_not_ready", error=repr(exc))
            if self._background_worker is not None:
                self._lost(self._background_worker)
            self.background.cancel_all("the background worker did not start")
            return
        finally:
            self._background_starting = None
        log.info("pool_background_worker_started", pid=worker.process.pid,
                 nice=self.settings.background_nice)
        self._pump()

    # -- batching ------------------------------------------------------------------------

    def _waiting_units(self) -> int:
        return sum(-(-len(b.items) // b.capacity) for b in self._buffers.values())

    def _admit(self, buffer: _Buffer, item: _Waiting) -> None:
        self.metrics.inflight += 1
        self.metrics.waiting += 1
        buffer.items.append(item)
        if len(buffer.items) >= buffer.capacity:
            buffer.ripe = True
            self._pump()
        elif buffer.timer is None and not buffer.ripe:
            loop = asyncio.get_running_loop()
            buffer.timer = loop.call_later(self.settings.batch_window_ms / 1000.0,
                                           self._window_closed, buffer)

    def _window_closed(self, buffer: _Buffer) -> None:
        buffer.timer = None
        buffer.ripe = bool(buffer.items)
        self._pump()

    def _pump(self) -> None:
        """Send ripe batches, oldest first, to idle workers."""
        if self._state not in ("ready", "closing"):
            return
        for worker in self._workers:
            if not worker.idle:
                continue
            ripe = [b for b in self._buffers.values() if b.ripe and b.items]
            if not ripe:
                break
            buffer = min(ripe, key=lambda b: b.items[0].arrived)
            items = buffer.items[:buffer.capacity]
            del buffer.items[:buffer.capacity]
            if not buffer.items:
                buffer.ripe = False
                if buffer.timer is not None:
                    buffer.timer.cancel()
                    buffer.timer = None
            self._dispatch(worker, buffer, items)
        background = self._background_worker
        if background is not None and background.idle and self._state == "ready":
            self._send_background(background)

    def _send_background(self, worker: _Worker) -> bool:
        """Give an idle worker the next background task; False when none is left."""
        item = self.background.next()
        if item is None:
            return False
        try:
            worker.conn.send((item.task, item.args))
        except OSError:
            self.background.retry(item)
            self._lost(worker)
            return True
        worker.background = item
        return True

    def _dispatch(self, worker: _Worker, buffer: _Buffer, items: list[_Waiting]) -> None:
        now = time.monotonic()
        self.metrics.waiting -= len(items)
        for item in items:
            item.dispatched = now
        worker.batch = _Batch(buffer, items, now)
        try:
            if buffer.kind == "policy":
                observations = [item.request.observation for item in items]
                message: tuple[str, tuple[Any, ...]] = ("policy", (
                    buffer.name, encode_batch(observations), ActionSpace.mask_batch(observations),
                    np.array([item.bot for item in items], dtype=np.int64)))
            else:
                request = items[0].request
                message = ("agent", (buffer.name, request.spec, request.observation.to_dict()))
        except Exception:
            log.exception("pool_dispatch_error", agent=buffer.name)
            worker.batch = None
            self._resolve(items, "error")
            return
        try:
            worker.conn.send(message)
        except OSError:  # the worker is gone; its EOF may not have been read yet
            self._lost(worker)
            return
        self.metrics.batches += 1
        self.metrics.batch_rows += len(items)

    def _readable(self, worker: _Worker) -> None:
        """A message (or EOF) from a worker."""
        try:
            message = worker.conn.recv()
        except (EOFError, OSError):
            self._lost(worker)
            return
        if message[0] == "ready":
            if not worker.ready.done():
                worker.ready.set_result(message[1])
            self._pump()
            return
        background, worker.background = worker.background, None
        if background is not None:
            background.finish(message)
            self._pump()
            return
        batch, worker.batch = worker.batch, None
        if batch is not None:
            if message[0] == "ok":
                self._deliver(batch, message[1], time.monotonic())
            else:
                log.error("pool_worker_error", agent=batch.buffer.name, rows=len(batch.items),
                          error=message[1], traceback=message[2])
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

    async def _spawn(self, background: bool = False) -> _Worker:
        """Start one worker process; its `_Worker.ready` resolves once it has loaded policies.

        The background worker loads no policy and runs at ``background_nice``.
        """
        context = multiprocessing.get_context("spawn")  # no fork of a process with a loop
        ours, theirs = context.Pipe()
        directory = os.devnull if background else self.settings.models_dir or str(models_dir())
        process = context.Process(
            target=pool_worker.serve,
            args=(theirs, directory, self.settings.worker_imports,
                  self.settings.background_nice if background else 0),
            name="wizard-ai-background" if background else "wizard-ai-worker", daemon=True)
        await asyncio.to_thread(process.start)  # spawning takes milliseconds: not on the loop
        theirs.close()  # so that the worker's death reads as EOF here
        loop = asyncio.get_running_loop()
        worker = _Worker(process, ours, loop.create_future())
        loop.add_reader(ours.fileno(), self._readable, worker)
        return worker

    def _lost(self, worker: _Worker) -> None:
        """A worker died: answer what it held, then replace it (unless the pool is stopping)."""
        if not worker.alive:
            return
        worker.alive = False
        asyncio.get_running_loop().remove_reader(worker.conn.fileno())
        worker.conn.close()
        if worker.process.is_alive():
            worker.process.kill()
        if not worker.ready.done():
            worker.ready.set_exception(ConnectionError("worker exited before it was ready"))
        background, worker.background = worker.background, None
        if background is not None:
            self.background.retry(background)
        batch, worker.batch = worker.batch, None
        if batch is not None:
            self._resolve(batch.items, "worker_lost")
        if worker is self._background_worker:
            self._background_worker = None
            log.warning("pool_background_worker_lost", pid=worker.process.pid,
                        exitcode=worker.process.exitcode)
            if self._state == "ready" and len(self.background):
                self._start_background_worker()
            return
        if worker in self._workers:
            self._workers.remove(worker)
        if self._state != "ready":
            return
        self.metrics.worker_restarts += 1
        log.warning("pool_worker_lost", pid=worker.process.pid, exitcode=worker.process.exitcode,
                    held=len(batch.items) if batch else 0, restarts=self.metrics.worker_restarts)
        task = asyncio.get_running_loop().create_task(self._replace(worker))
        self._replacing.add(task)
        task.add_done_callback(self._replacing.discard)

    async def _replace(self, dead: _Worker) -> None:
        """Start a successor; a successor that dies before it is ready is retried with backoff."""
        await asyncio.to_thread(dead.process.join, 5.0)  # reap it
        if dead.attempt:
            await asyncio.sleep(min(30.0, 0.5 * 2 ** (dead.attempt - 1)))
        if self._state != "ready":
            return
        worker = await self._spawn()
        worker.attempt = dead.attempt + 1
        self._workers.append(worker)
        try:
            await asyncio.wait_for(asyncio.shield(worker.ready), self.settings.start_timeout_s)
        except (TimeoutError, ConnectionError) as exc:
            log.error("pool_worker_not_ready", error=repr(exc), attempt=worker.attempt)
            self._lost(worker)  # schedules the next try
            return
        worker.attempt = 0
        log.info("pool_worker_replaced", pid=worker.process.pid)
        self._pump()

    def _kill_hung_workers(self) -> None:
        """A worker stuck on one task for ``hung_worker_s`` is killed (and so replaced)."""
        now = time.monotonic()
        background = [self._background_worker] if self._background_worker is not None else []
        for worker in [*self._workers, *background]:
            since = worker.batch.dispatched if worker.batch is not None else (
                worker.background.started if worker.background is not None else None)
            if since is not None and now - since > self.settings.hung_worker_s \
                    and worker.process.pid is not None:
                log.error("pool_worker_hung", pid=worker.process.pid,
                          seconds=round(now - since, 1))
                os.kill(worker.process.pid, signal.SIGKILL)

    async def _stop_workers(self) -> None:
        """Ask every worker to stop; kill those that do not within ``close_timeout_s``."""
        workers, self._workers = self._workers, []
        if self._background_worker is not None:
            workers.append(self._background_worker)
            self._background_worker = None
        loop = asyncio.get_running_loop()
        for worker in workers:
            if worker.alive:
                worker.alive = False
                loop.remove_reader(worker.conn.fileno())
                with contextlib.suppress(OSError):  # already gone: nothing to ask
                    worker.conn.send(None)
        await asyncio.gather(*(self._join(worker) for worker in workers))

    async def _join(self, worker: _Worker) -> None:
        process = worker.process
        if process.pid is None:
            return
        await asyncio.to_thread(process.join, self.settings.close_timeout_s)
        if process.is_alive():
            log.warning("pool_worker_killed", pid=process.pid)
            process.kill()
            await asyncio.to_thread(process.join, self.settings.close_timeout_s)
        worker.conn.close()


__all__ = ["ENV_VARIABLES", "FALLBACK_REASONS", "InferencePool", "PoolMetrics", "PoolSettings",
           "default_workers"]
