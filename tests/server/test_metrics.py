"""``/metrics``: one Prometheus page (prometheus-client), the server's and the pool's metrics."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.parser import text_string_to_metric_families

from wizard.ai.pool.metrics import PoolMetrics
from wizard.server.metrics import DEFAULT_BUCKETS, LoopCounter, LoopHistogram, ServerMetrics

from .conftest import Harness, sample_value


def test_the_page_parses_as_prometheus_text_and_has_every_server_family(
        harness: Harness) -> None:
    ann = harness.player("Ann")
    ann.ok({"type": "play_bots", "players": 3})
    page = harness.client.get("/metrics")
    assert page.headers["content-type"].startswith("text/plain")
    families = {f.name: f.type for f in text_string_to_metric_families(page.text)}
    for name, kind in (("wizard_connections", "gauge"), ("wizard_messages_in", "counter"),
                       ("wizard_decision_seconds", "histogram"), ("wizard_tables", "gauge"),
                       ("wizard_event_loop_lag_seconds", "histogram")):
        assert families.get(name) == kind, name
    assert not any(name.endswith("_created") for name in families)


def test_callback_gauges_are_read_at_every_scrape() -> None:
    metrics = ServerMetrics()
    value = [1.0]
    metrics.callback("demo_level", "A level.", ("side",), lambda: [(("left",), value[0])])
    assert sample_value(metrics.render().decode(), "demo_level", side="left") == 1.0
    value[0] = 4.5
    assert sample_value(metrics.render().decode(), "demo_level", side="left") == 4.5


def test_the_pools_counters_join_the_servers_page() -> None:
    metrics, pool = ServerMetrics(), PoolMetrics()
    metrics.register(pool)
    pool.batches, pool.batch_rows = 3, 40
    pool.observe(0.003, 0.02)
    text = metrics.render().decode()
    assert sample_value(text, "wizard_pool_batches_total") == 3
    assert sample_value(text, "wizard_pool_batch_rows_total") == 40
    assert sample_value(text, "wizard_pool_queue_seconds_bucket", le="0.005") == 1
    assert sample_value(text, "wizard_pool_queue_seconds_bucket", le="0.002") == 0
    assert sample_value(text, "wizard_pool_compute_seconds_count") == 1


@settings(max_examples=30, deadline=None)
@given(counts=st.lists(st.tuples(st.sampled_from(["a", "b", "c"]), st.integers(1, 5))),
       seconds=st.lists(st.floats(0, 10, allow_nan=False)))
def test_the_loops_counters_and_histograms_read_as_prometheus_clients_own(
        counts: list[tuple[str, int]], seconds: list[float]) -> None:
    """`LoopCounter` and `LoopHistogram` give the page `Counter` and `Histogram` would."""
    ours, theirs = CollectorRegistry(), CollectorRegistry()
    loop_counter = LoopCounter("demo_total", "Demo.", ["kind"], registry=ours)
    counter = Counter("demo_total", "Demo.", ["kind"], registry=theirs)
    loop_histogram = LoopHistogram("demo_seconds", "Demo.", DEFAULT_BUCKETS, ours)
    histogram = Histogram("demo_seconds", "Demo.", buckets=DEFAULT_BUCKETS, registry=theirs)
    for kind, amount in counts:
        loop_counter.labels(kind).inc(amount)
        counter.labels(kind).inc(amount)
    for value in seconds:
        loop_histogram.observe(value)
        histogram.observe(value)
    assert generate_latest(ours) == generate_latest(theirs)
    with pytest.raises(ValueError, match="takes labels"):
        loop_counter.labels("a", "b")
