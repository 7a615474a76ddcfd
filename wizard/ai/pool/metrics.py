"""`PoolMetrics`: the inference pool's counters, read as a dict or scraped by Prometheus.

The pool counts with plain ints on the loop (no locks on the hot path);
`PoolMetrics.collect` turns them into Prometheus families when ``/metrics`` is
scraped, so the server registers the pool in its one registry.

>>> metrics = PoolMetrics()
>>> metrics.batches += 1
>>> sorted(f.name for f in metrics.collect())[:2]
['wizard_pool_batch_rows', 'wizard_pool_batches']
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator
from typing import Any

from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.registry import Collector

from ..decision import Decision

LATENCY_BUCKETS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0)


class PoolMetrics(Collector):
    """Counters of the pool, readable as a dict (`snapshot`) or scraped (`collect`)."""

    def __init__(self) -> None:
        self.decisions: dict[tuple[str, str], int] = {}
        self.inflight = 0
        self.waiting = 0
        self.worker_restarts = 0
        self.restart_failures = 0
        self.serving = False  # the workers answer (False before start, and while replaced)
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
            "restart_failures": self.restart_failures,
            "serving": self.serving,
            "batches": self.batches,
            "batch_rows": self.batch_rows,
        }

    def collect(self, prefix: str = "wizard_pool") -> Iterator[Metric]:
        """The Prometheus families of these counters (read at every scrape)."""
        decisions = CounterMetricFamily(f"{prefix}_decisions", "Pool decisions, by the agent "
                                        "that decided and the fallback reason.",
                                        labels=["agent", "reason"])
        for (agent, reason), n in sorted(self.decisions.items()):
            decisions.add_metric([agent, reason], n)
        yield decisions
        yield GaugeMetricFamily(f"{prefix}_inflight", "Requests in progress.", self.inflight)
        yield GaugeMetricFamily(f"{prefix}_waiting", "Requests waiting for a worker.",
                                self.waiting)
        yield CounterMetricFamily(f"{prefix}_worker_restarts", "Workers replaced after dying.",
                                  self.worker_restarts)
        yield CounterMetricFamily(f"{prefix}_restart_failures", "Successor workers that did "
                                  "not start (each retried with backoff).", self.restart_failures)
        yield GaugeMetricFamily(f"{prefix}_serving", "1 while the workers answer; 0 while a "
                                "dead worker's successor starts (the pool is degraded).",
                                float(self.serving))
        yield CounterMetricFamily(f"{prefix}_batches", "Batches sent to workers.", self.batches)
        yield CounterMetricFamily(f"{prefix}_batch_rows", "Requests sent in batches.",
                                  self.batch_rows)
        for name, documentation, counts, total in (
                ("queue_seconds", "Time a request waited for a worker.", self.queue_seconds,
                 self.queue_sum),
                ("compute_seconds", "Time a worker took for a batch.", self.compute_seconds,
                 self.compute_sum)):
            buckets, running = [], 0
            for bound, hits in zip((*LATENCY_BUCKETS, float("inf")), counts, strict=True):
                running += hits
                buckets.append(("+Inf" if bound == float("inf") else repr(bound), running))
            yield HistogramMetricFamily(f"{prefix}_{name}", documentation, buckets=buckets,
                                        sum_value=total)


__all__ = ["LATENCY_BUCKETS", "PoolMetrics"]
