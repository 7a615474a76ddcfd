"""`PoolSettings`: the inference pool's bounds (the server fills them from its `Settings`).

>>> PoolSettings(workers=2, max_inflight=64).degrade_queue
32
>>> PoolSettings(workers=0)
Traceback (most recent call last):
...
ValueError: workers must be >= 1
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from ..registry import WORKER_AGENTS


def default_workers() -> int:
    """CPU count − 1, at least 1: the event loop keeps a core."""
    return max(1, (os.cpu_count() or 2) - 1)


@dataclass(frozen=True, slots=True)
class PoolSettings:
    """The pool's bounds; ``wizard serve`` sets them from the ``WIZARD_AI_*`` settings."""

    workers: int = field(default_factory=default_workers)
    max_inflight: int = 64  # more requests in progress -> ``overloaded``
    # this many requests waiting for a worker -> ``queue``; 0: half of max_inflight but at
    # least one full batch, so that with the defaults it trips before the in-flight bound
    degrade_queue: int = 0
    batch_window_ms: float = 1.0  # a batch waits at most this long for company (<= 2)
    max_batch: int = 32  # rows in one ONNX call
    # batches handed to the executor per worker: with 2 the next one waits in the worker's
    # queue while one computes, so the worker is not idle during the answer's round trip
    batches_per_worker: int = 2
    # how tasks reach the workers: "executor" (`ProcessPoolExecutor`) or "pipes"
    # (`pipes.PipeExecutor`: the loop writes and reads the workers' pipes itself)
    transport: str = "pipes"
    models_dir: str | None = None  # None: `wizard.ai.policy.models_dir()`
    default_model: str = "default"  # the policy agent ``model`` means
    worker_agents: tuple[str, ...] = WORKER_AGENTS  # agent names decided in workers, one per task
    worker_imports: tuple[str, ...] = ()  # modules each worker imports (to register agents)
    deadline_margin_ms: float = 2.0  # answered this long before the deadline, fallback included
    max_wait_s: float = 30.0  # the deadline of a request that has none
    hung_worker_s: float = 60.0  # a worker stuck this long on one task is killed
    start_timeout_s: float = 120.0
    close_timeout_s: float = 10.0
    # a successor that fails to start is retried after this long, doubling up to the max
    restart_backoff_s: float = 0.5
    restart_backoff_max_s: float = 30.0
    compute_average_weight: float = 0.2  # weight of the newest sample in the moving average
    # a route judged too slow still gets one request through this often, so that its
    # average can learn that it became fast again (else ``slow`` would stick forever)
    slow_probe_s: float = 1.0

    def __post_init__(self) -> None:
        checks = (
            (self.workers >= 1, "workers must be >= 1"),
            (self.max_inflight >= 1, "max_inflight must be >= 1"),
            (self.degrade_queue >= 0, "degrade_queue must be >= 0"),
            (0.0 <= self.batch_window_ms <= 2.0, "batch_window_ms must be within 0-2"),
            (self.max_batch >= 1, "max_batch must be >= 1"),
            (self.batches_per_worker >= 1, "batches_per_worker must be >= 1"),
            (self.transport in ("executor", "pipes"), "transport must be executor or pipes"),
            (self.deadline_margin_ms >= 0.0, "deadline_margin_ms must be >= 0"),
            (0.0 < self.compute_average_weight <= 1.0, "compute_average_weight must be in (0, 1]"),
            (self.slow_probe_s > 0.0, "slow_probe_s must be > 0"),
            (0.0 < self.restart_backoff_s <= self.restart_backoff_max_s,
             "restart_backoff_s must be > 0 and <= restart_backoff_max_s"),
        )
        for ok, message in checks:
            if not ok:
                raise ValueError(message)
        if self.degrade_queue == 0:
            object.__setattr__(self, "degrade_queue",
                               max(self.max_batch, self.max_inflight // 2))
        elif self.degrade_queue >= self.max_inflight:
            raise ValueError(f"degrade_queue ({self.degrade_queue}) must be below max_inflight "
                             f"({self.max_inflight}), or the queue bound can never trip")


__all__ = ["PoolSettings", "default_workers"]
