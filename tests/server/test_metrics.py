"""The Prometheus text format of the home-made registry."""

from __future__ import annotations

import pytest

from wizard.server.metrics import Registry


def test_counters_gauges_histograms_and_callbacks_render() -> None:
    registry = Registry()
    counter = registry.counter("x_total", "Things.", ("code",))
    counter.inc("a")
    counter.inc("a", amount=2)
    counter.inc('we"ird')
    gauge = registry.gauge("g", "A gauge.")
    gauge.set(value=1.5)
    histogram = registry.histogram("h_seconds", "Time.", buckets=(0.1, 1.0))
    histogram.observe(0.05)
    histogram.observe(0.5)
    histogram.observe(5.0)
    registry.callback("c", "Read when scraped.", ("s",), lambda: [(("w",), 3)])
    text = registry.render()
    assert "# TYPE x_total counter" in text
    assert 'x_total{code="a"} 3' in text and 'x_total{code="we\\"ird"} 1' in text
    assert "g 1.5" in text
    assert 'h_seconds_bucket{le="0.1"} 1' in text and 'h_seconds_bucket{le="1"} 2' in text
    assert 'h_seconds_bucket{le="+Inf"} 3' in text and "h_seconds_count 3" in text
    assert 'c{s="w"} 3' in text
    assert text.endswith("\n")


def test_a_name_is_registered_once() -> None:
    registry = Registry()
    registry.counter("a_total", "A.")
    with pytest.raises(ValueError):
        registry.gauge("a_total", "again")
