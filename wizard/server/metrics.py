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

from collections.abc import Callable, Iterable, Iterator, Sequence

import prometheus_client
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

# a `_created` series beside every counter only doubles the page
prometheus_client.disable_created_metrics()  # type: ignore[no-untyped-call]

CONTENT_TYPE = prometheus_client.CONTENT_TYPE_LATEST
Sample = tuple[tuple[str, ...], float]
DEFAULT_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)


class LabelledCounter(Counter):
    """A `Counter` whose ``labels(*values)`` is a dict lookup after the first call.

    ``prometheus_client`` validates the values and takes a lock on every
    ``labels`` call; the server counts every message and action, so the child of
    each label tuple is kept (children are never removed here).
    """

    _children: dict[tuple[str, ...], Counter]

    def labels(self, *values: str, **named: str) -> Counter:  # type: ignore[override]
        if named:
            return super().labels(*values, **named)
        try:
            return self._children[values]
        except AttributeError:
            self._children = {}
        except KeyError:
            pass
        child = self._children[values] = super().labels(*values)
        return child


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
        self.messages_in = LabelledCounter("wizard_messages_in_total",
                                   "Client messages received, by type.", ["type"], registry=r)
        self.messages_out = LabelledCounter("wizard_messages_out_total",
                                    "Server messages queued for sending, by type.", ["type"],
                                    registry=r)
        self.errors = LabelledCounter("wizard_errors_total", "Error replies, by code.", ["code"],
                              registry=r)
        self.actions = LabelledCounter("wizard_actions_total",
                                       "Accepted game actions, by who decided.", ["by"],
                                       registry=r)
        self.decisions = LabelledCounter("wizard_decisions_total",
                                 "Bot decisions, by the agent that decided and the fallback "
                                 "reason (none = no fallback).", ["agent", "reason"], registry=r)
        self.decision_seconds = Histogram("wizard_decision_seconds",
                                          "Time from asking the decider to its answer.",
                                          buckets=DEFAULT_BUCKETS, registry=r)
        self.stale_proposals = Counter("wizard_stale_proposals_total",
                                       "Bot proposals dropped because the table moved on.",
                                       registry=r)
        self.send_overflows = Counter("wizard_send_queue_overflows_total",
                                      "Connections dropped because their send queue was full.",
                                      registry=r)
        self.connections_refused = LabelledCounter(
            "wizard_connections_refused_total",
            "Websocket handshakes refused, by reason (full, address, origin, shutdown).",
            ["reason"], registry=r)
        self.tables_refused = LabelledCounter(
            "wizard_tables_refused_total",
            "New tables refused, by reason (full: max_tables, address: max_tables_per_address).",
            ["reason"], registry=r)
        self.connections_closed = LabelledCounter(
            "wizard_connections_closed_total",
            "Connections the server closed, by cause (too_large, rate_limit, send_queue_full, "
            "send_timeout, hello_timeout, idle, shutdown).", ["cause"], registry=r)
        self.rate_limited = LabelledCounter(
            "wizard_rate_limited_total",
            "Client messages refused for going over a budget, by budget (messages, chat).",
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


__all__ = ["CONTENT_TYPE", "CallbackGauge", "ServerMetrics"]
