"""The inference pool: bot decisions in worker processes, bounded on the event loop.

`InferencePool` is the server's `Decider` when it has workers: it batches model
requests, sends search bots one task each, answers every caller by its deadline
(the heuristic falls back when it cannot), and replaces a worker that dies.

- `inference`: the pool itself (admission, routing, batching, answers);
- `workers`: the worker processes, started, watched and replaced;
- `executors`, `pipes`: the two transports to them;
- `worker_process`: what runs inside a worker (policies, agents, analysis);
- `deadlines`, `fallback`: answering by the deadline, and the heuristic's answers;
- `metrics`, `settings`: its Prometheus counters and its bounds.
"""

from __future__ import annotations

from .inference import FALLBACK_REASONS, InferencePool, PoolState
from .metrics import PoolMetrics
from .settings import PoolSettings, default_workers
from .workers import WorkerState

__all__ = ["FALLBACK_REASONS", "InferencePool", "PoolMetrics", "PoolSettings", "PoolState",
           "WorkerState", "default_workers"]
