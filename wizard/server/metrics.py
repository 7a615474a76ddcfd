"""A tiny Prometheus text-format registry: counters, gauges, histograms, callbacks.

No dependency; labels are a tuple of values in the order the metric names them.

>>> registry = Registry()
>>> hits = registry.counter("demo_hits_total", "Hits.", ("kind",))
>>> hits.inc("a")
>>> "demo_hits_total{kind=\\"a\\"} 1" in registry.render()
True
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

Sample = tuple[tuple[str, ...], float]


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _labels(names: Sequence[str], values: Sequence[str], extra: str = "") -> str:
    parts = [f'{n}="{_escape(v)}"' for n, v in zip(names, values, strict=True)]
    if extra:
        parts.append(extra)
    return "{" + ",".join(parts) + "}" if parts else ""


def _number(value: float) -> str:
    if value == math.inf:
        return "+Inf"
    if value == int(value) and abs(value) < 2**53:
        return str(int(value))
    return repr(value)


class Metric:
    """Base: a name, a help line, a type and label names."""

    kind = "untyped"

    def __init__(self, name: str, help: str, labels: Sequence[str] = ()) -> None:
        self.name = name
        self.help = help
        self.label_names = tuple(labels)

    def lines(self) -> Iterable[str]:  # pragma: no cover - overridden
        return ()

    def render(self) -> str:
        head = f"# HELP {self.name} {self.help}\n# TYPE {self.name} {self.kind}\n"
        return head + "".join(line + "\n" for line in self.lines())


class Counter(Metric):
    """A value that only grows; ``inc(*label_values, amount=1)``."""

    kind = "counter"

    def __init__(self, name: str, help: str, labels: Sequence[str] = ()) -> None:
        super().__init__(name, help, labels)
        self.values: dict[tuple[str, ...], float] = {}

    def inc(self, *labels: str, amount: float = 1.0) -> None:
        self.values[labels] = self.values.get(labels, 0.0) + amount

    def get(self, *labels: str) -> float:
        return self.values.get(labels, 0.0)

    def lines(self) -> Iterable[str]:
        if not self.values and not self.label_names:
            yield f"{self.name} 0"
        for labels, value in sorted(self.values.items()):
            yield f"{self.name}{_labels(self.label_names, labels)} {_number(value)}"


class Gauge(Counter):
    """A value that goes up and down; ``set`` / ``inc`` / ``dec``."""

    kind = "gauge"

    def set(self, *labels: str, value: float) -> None:
        self.values[labels] = value

    def dec(self, *labels: str, amount: float = 1.0) -> None:
        self.inc(*labels, amount=-amount)


class CallbackGauge(Metric):
    """A gauge read when scraped: ``read()`` returns ``[(label_values, value), ...]``."""

    kind = "gauge"

    def __init__(self, name: str, help: str, labels: Sequence[str],
                 read: Callable[[], Iterable[Sample]]) -> None:
        super().__init__(name, help, labels)
        self.read = read

    def lines(self) -> Iterable[str]:
        for labels, value in self.read():
            yield f"{self.name}{_labels(self.label_names, labels)} {_number(value)}"


DEFAULT_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)


class Histogram(Metric):
    """Observations in cumulative buckets (seconds by convention)."""

    kind = "histogram"

    def __init__(self, name: str, help: str, labels: Sequence[str] = (),
                 buckets: Sequence[float] = DEFAULT_BUCKETS) -> None:
        super().__init__(name, help, labels)
        self.buckets = tuple(sorted(buckets))
        self.series: dict[tuple[str, ...], list[float]] = {}  # bucket counts..., sum, count

    def observe(self, value: float, *labels: str) -> None:
        series = self.series.get(labels)
        if series is None:
            series = self.series[labels] = [0.0] * (len(self.buckets) + 2)
        index = bisect.bisect_left(self.buckets, value)
        if index < len(self.buckets):
            series[index] += 1
        series[-2] += value
        series[-1] += 1

    def count(self, *labels: str) -> float:
        series = self.series.get(labels)
        return series[-1] if series else 0.0

    def lines(self) -> Iterable[str]:
        names, name = self.label_names, self.name
        for labels, series in sorted(self.series.items()):
            running = 0.0
            for bound, hits in zip(self.buckets, series, strict=False):
                running += hits
                le = f'le="{_number(bound)}"'
                yield f"{name}_bucket{_labels(names, labels, le)} {_number(running)}"
            inf = 'le="+Inf"'
            yield f"{name}_bucket{_labels(names, labels, inf)} {_number(series[-1])}"
            yield f"{name}_sum{_labels(names, labels)} {_number(series[-2])}"
            yield f"{name}_count{_labels(names, labels)} {_number(series[-1])}"


M = TypeVar("M", bound=Metric)


class Registry:
    """Holds metrics in registration order and renders them as one text page."""

    content_type = "text/plain; version=0.0.4; charset=utf-8"

    def __init__(self) -> None:
        self.metrics: dict[str, Metric] = {}

    def _add(self, metric: M) -> M:
        if metric.name in self.metrics:
            raise ValueError(f"metric {metric.name} registered twice")
        self.metrics[metric.name] = metric
        return metric

    def counter(self, name: str, help: str, labels: Sequence[str] = ()) -> Counter:
        return self._add(Counter(name, help, labels))

    def gauge(self, name: str, help: str, labels: Sequence[str] = ()) -> Gauge:
        return self._add(Gauge(name, help, labels))

    def callback(self, name: str, help: str, labels: Sequence[str],
                 read: Callable[[], Iterable[Sample]]) -> CallbackGauge:
        return self._add(CallbackGauge(name, help, labels, read))

    def histogram(self, name: str, help: str, labels: Sequence[str] = (),
                  buckets: Sequence[float] = DEFAULT_BUCKETS) -> Histogram:
        return self._add(Histogram(name, help, labels, buckets))

    def render(self) -> str:
        return "".join(metric.render() for metric in self.metrics.values())


class ServerMetrics:
    """The server's metrics, one attribute each; the inference pool can add its own."""

    def __init__(self, registry: Registry | None = None) -> None:
        r = self.registry = registry or Registry()
        self.connections = r.gauge("wizard_connections", "Open websocket connections.")
        self.messages_in = r.counter("wizard_messages_in_total",
                                     "Client messages received, by type.", ("type",))
        self.messages_out = r.counter("wizard_messages_out_total",
                                      "Server messages queued for sending, by type.", ("type",))
        self.errors = r.counter("wizard_errors_total", "Error replies, by code.", ("code",))
        self.actions = r.counter("wizard_actions_total",
                                 "Accepted game actions, by who decided.", ("by",))
        self.decisions = r.counter("wizard_decisions_total",
                                   "Bot decisions, by the agent that decided and the fallback "
                                   "reason (none = no fallback).", ("agent", "reason"))
        self.decision_seconds = r.histogram("wizard_decision_seconds",
                                            "Time from asking the decider to its answer.")
        self.stale_proposals = r.counter("wizard_stale_proposals_total",
                                         "Bot proposals dropped because the table moved on.")
        self.send_overflows = r.counter("wizard_send_queue_overflows_total",
                                        "Connections dropped because their send queue was full.")
        self.connections_refused = r.counter(
            "wizard_connections_refused_total",
            "Websocket handshakes refused, by reason (full, origin, shutdown).", ("reason",))
        self.connections_closed = r.counter(
            "wizard_connections_closed_total",
            "Connections the server closed, by cause (too_large, rate_limit, send_queue_full, "
            "send_timeout, hello_timeout, idle, shutdown).", ("cause",))
        self.rate_limited = r.counter(
            "wizard_rate_limited_total",
            "Client messages refused for going over a budget, by budget (messages, chat).",
            ("budget",))
        self.loop_lag = r.histogram("wizard_event_loop_lag_seconds",
                                    "Delay of a periodic event-loop tick past its due time.")
        self.games_started = r.counter("wizard_games_started_total", "Games started.")
        self.games_finished = r.counter("wizard_games_finished_total", "Games played to the end.")


__all__ = ["Counter", "Gauge", "Histogram", "Registry", "ServerMetrics"]
