"""The server's metrics, in one `prometheus_client` registry that ``/metrics`` renders.

Counters, gauges and histograms are `prometheus_client` objects; values read
only when scraped (open tables, known players, the inference pool's counters)
are collectors registered in the same registry (`ServerMetrics.register`).

>>> metrics = ServerMetrics()
>>> metrics.errors.labels("bad_json").inc()
>>> metrics.value("wizard_errors_total", code="bad_json")
1.0
>>> 'wizard_errors_total{code="bad_json"} 1.0' in metrics.render().decode()
True
"""

from __future__ import annotations

import bisect
import itertools
import math
from collections.abc import Callable, Iterable, Iterator, Sequence

import prometheus_client
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.registry import Collector
from prometheus_client.utils import floatToGoString

# a `_created` series beside every counter only doubles the page
prometheus_client.disable_created_metrics()  # type: ignore[no-untyped-call]

CONTENT_TYPE = prometheus_client.CONTENT_TYPE_LATEST
Sample = tuple[tuple[str, ...], float]
DEFAULT_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)


class _Count:
    """One labelled child of a `LoopCounter`: a plain number."""

    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value = 0.0

    def inc(self, amount: float = 1.0) -> None:
        self.value += amount


class LoopCounter(Collector):
    """A labelled counter that the event loop counts in plain numbers; `collect` reports them.

    ``prometheus_client``'s `Counter` validates the label values and takes a lock on every
    ``labels(...).inc()`` (1.3 µs, measured), and the server counts every message, action
    and bot decision on its one thread; here a child is kept per label tuple and an
    ``inc`` is one addition (0.2 µs). Only the loop's thread may count; a scrape reads a
    copy of the children.
    """

    def __init__(self, name: str, documentation: str, labelnames: Sequence[str],
                 registry: CollectorRegistry) -> None:
        self.name, self.documentation, self.labelnames = name, documentation, list(labelnames)
        self._children: dict[tuple[str, ...], _Count] = {}
        registry.register(self)

    def labels(self, *values: str) -> _Count:
        """The child of these label values (made on first use); raises `ValueError` for a
        count of values that is not the counter's."""
        child = self._children.get(values)
        if child is None:
            if len(values) != len(self.labelnames):
                raise ValueError(f"{self.name} takes labels {self.labelnames}, got {values!r}")
            child = self._children[values] = _Count()
        return child

    def collect(self) -> Iterator[Metric]:
        family = CounterMetricFamily(self.name, self.documentation, labels=self.labelnames)
        for values, child in list(self._children.items()):
            family.add_metric(list(values), child.value)
        yield family


class LoopHistogram(Collector):
    """A histogram that the event loop fills with plain numbers (see `LoopCounter`)."""

    def __init__(self, name: str, documentation: str, buckets: Sequence[float],
                 registry: CollectorRegistry) -> None:
        self.name, self.documentation = name, documentation
        self.bounds = tuple(buckets)
        self.counts = [0] * (len(self.bounds) + 1)  # the last: above every bound (+Inf)
        self.sum = 0.0
        registry.register(self)

    def observe(self, value: float) -> None:
        self.counts[bisect.bisect_left(self.bounds, value)] += 1
        self.sum += value

    def collect(self) -> Iterator[Metric]:
        counts, total = list(self.counts), self.sum
        cumulative = list(itertools.accumulate(counts))
        buckets = [(floatToGoString(bound), float(n))  # type: ignore[no-untyped-call]
                   for bound, n in zip((*self.bounds, math.inf), cumulative, strict=True)]
        family = HistogramMetricFamily(self.name, self.documentation)
        family.add_metric([], buckets, total)
        yield family


class CallbackGauge(Collector):
    """A gauge read when scraped: ``read()`` returns ``[(label_values, value), ...]``."""

    def __init__(self, name: str, documentation: str, labels: Sequence[str],
                 read: Callable[[], Iterable[Sample]]) -> None:
        self.name, self.documentation, self.labels = name, documentation, list(labels)
        self.read = read

    def collect(self) -> Iterator[Metric]:
        family = GaugeMetricFamily(self.name, self.documentation, labels=self.labels)
        for labels, value in self.read():
            family.add_metric(list(labels), value)
        yield family


class ServerMetrics:
    """The server's metrics, one attribute each; the pool adds its collector (`register`)."""

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        r = self.registry = registry or CollectorRegistry()
        self.connections = Gauge("wizard_connections", "Open websocket connections.",
                                 registry=r)
        self.messages_in = LoopCounter("wizard_messages_in_total",
                                   "Client messages received, by type.", ["type"], registry=r)
        self.messages_out = LoopCounter("wizard_messages_out_total",
                                    "Server messages queued for sending, by type.", ["type"],
                                    registry=r)
        self.errors = LoopCounter("wizard_errors_total", "Error replies, by code.", ["code"],
                              registry=r)
        self.actions = LoopCounter("wizard_actions_total",
                                       "Accepted game actions, by who decided.", ["by"],
                                       registry=r)
        self.decisions = LoopCounter("wizard_decisions_total",
                                 "Bot decisions, by the agent that decided and the fallback "
                                 "reason (none = no fallback).", ["agent", "reason"], registry=r)
        self.decision_seconds = LoopHistogram("wizard_decision_seconds",
                                              "Time from asking the decider to its answer.",
                                              DEFAULT_BUCKETS, r)
        self.stale_proposals = Counter("wizard_stale_proposals_total",
                                       "Bot proposals dropped because the table moved on.",
                                       registry=r)
        self.send_overflows = Counter("wizard_send_queue_overflows_total",
                                      "Connections dropped because their send queue was full.",
                                      registry=r)
        self.connections_refused = LoopCounter(
            "wizard_connections_refused_total",
            "Websocket handshakes refused, by reason (full, address, origin, shutdown).",
            ["reason"], registry=r)
        self.tables_refused = LoopCounter(
            "wizard_tables_refused_total",
            "New tables refused, by reason (full: max_tables, address: max_tables_per_address).",
            ["reason"], registry=r)
        self.connections_closed = LoopCounter(
            "wizard_connections_closed_total",
            "Connections the server closed, by cause (too_large, rate_limit, send_queue_full, "
            "send_timeout, hello_timeout, idle, shutdown).", ["cause"], registry=r)
        self.rate_limited = LoopCounter(
            "wizard_rate_limited_total",
            "Client messages refused for going over a budget, by budget (messages, chat; "
            "password: account password attempts).",
            ["budget"], registry=r)
        self.loop_lag = Histogram("wizard_event_loop_lag_seconds",
                                  "Delay of a periodic event-loop tick past its due time.",
                                  buckets=DEFAULT_BUCKETS, registry=r)
        self.games_started = Counter("wizard_games_started_total", "Games started.", registry=r)
        self.games_finished = Counter("wizard_games_finished_total", "Games played to the end.",
                                      registry=r)

    def callback(self, name: str, documentation: str, labels: Sequence[str],
                 read: Callable[[], Iterable[Sample]]) -> None:
        """A gauge whose samples ``read()`` gives at every scrape."""
        self.registry.register(CallbackGauge(name, documentation, labels, read))

    def register(self, collector: Collector) -> None:
        """Another part's metrics (the inference pool's) on the same page."""
        self.registry.register(collector)

    def value(self, name: str, /, **labels: str) -> float:
        """The current value of one sample (0 when it was never set), e.g. for tests."""
        value = self.registry.get_sample_value(name, labels)
        return 0.0 if value is None else value

    def render(self) -> bytes:
        """The Prometheus text format of every metric (``/metrics``)."""
        return prometheus_client.generate_latest(self.registry)


__all__ = ["CONTENT_TYPE", "CallbackGauge", "LoopCounter", "LoopHistogram", "ServerMetrics"]
