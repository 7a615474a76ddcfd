"""``wizard loadtest`` for a few seconds against a live server, and its guard rails."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from wizard.loadtest import (
    LatencySample,
    LoadSettings,
    LoadTest,
    check_target,
    decisions_delta,
    percentile,
)

from . import serve
from .serve import ROOT, LiveServer


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    live = serve.start(tmp_path_factory.mktemp("loadtest") / "server.log")
    try:
        yield live
    finally:
        live.stop()


def load(**changes: object) -> dict[str, object]:
    settings = LoadSettings(**changes)  # type: ignore[arg-type]
    return asyncio.run(LoadTest(settings).run()).to_dict()


def test_clients_complete_games_with_no_errors(server: LiveServer) -> None:
    report = load(url=server.url, clients=4, duration=6, ramp=1, players=3, seed=3)
    assert report["errors"] == {} and report["rate_limited"] == 0
    assert report["games_completed"] >= 1
    assert report["connected_max"] == 4
    assert isinstance(report["actions"], int) and report["actions"] > 0
    latency = report["latency_ms"]
    assert isinstance(latency, dict)
    assert 0 < latency["p50"] <= latency["p90"] <= latency["p99"] <= latency["max"]
    server_side = report["server"]
    assert isinstance(server_side, dict) and server_side["bot_decisions"] > 0
    assert server_side["fallbacks"] == {}


def test_clients_sharing_tables_play_together(server: LiveServer) -> None:
    report = load(url=server.url, clients=4, duration=6, humans_per_table=2, players=4)
    assert report["errors"] == {} and report["games_completed"] >= 1
    # the tables were left: the server has no table of this run open afterwards
    status, body = serve.http_get(f"{server.http}/api/tables")
    assert status == 200 and json.loads(body)["tables"] == []


def test_the_command_prints_one_json_object_and_stops_by_itself(server: LiveServer) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "wizard", "loadtest", "--url", server.url, "--clients", "2",
         "--duration", "3", "--json", "--quiet"],
        cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["clients"] == 2 and report["errors"] == {}
    assert 3 <= report["duration_s"] < 10
    assert set(report) >= {"games_completed", "actions_per_second", "latency_ms",
                           "disconnects", "rate_limited"}


def test_a_small_message_budget_is_reported_as_such_not_as_errors(tmp_path: Path) -> None:
    slow = serve.start(tmp_path / "server.log",
                             env={"WIZARD_MESSAGES_PER_SECOND": "4", "WIZARD_MESSAGE_BURST": "4"})
    try:
        done = subprocess.run(
            [sys.executable, "-m", "wizard", "loadtest", "--url", slow.url, "--clients", "1",
             "--duration", "4"],
            cwd=ROOT, capture_output=True, text=True, timeout=60)
    finally:
        slow.stop()
    assert done.returncode == 0, done.stdout + done.stderr
    assert "errors            none" in done.stdout
    assert "refused" in done.stdout and "WIZARD_MESSAGES_PER_SECOND" in done.stdout
    # the live view (stderr) said so while it ran
    assert "rate-limited" in done.stderr and "clients 1/1" in done.stderr


@pytest.mark.parametrize("url", ["ws://127.0.0.1:8000/ws", "ws://localhost:8000/ws",
                                 "ws://[::1]:8000/ws", "wss://127.8.9.10/ws"])
def test_loopback_targets_are_accepted(url: str) -> None:
    check_target(url)


@pytest.mark.parametrize("url", ["ws://10.0.0.1:8000/ws", "ws://[2001:db8::1]/ws",
                                 "ws://192.0.2.7/ws"])
def test_other_targets_need_allow_remote(url: str) -> None:
    with pytest.raises(ValueError, match="--allow-remote"):
        check_target(url)
    check_target(url, allow_remote=True)


def test_the_command_refuses_a_remote_target_before_connecting() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "wizard", "loadtest", "--url", "ws://192.0.2.7:8000/ws",
         "--duration", "1"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "not a loopback address" in done.stderr and done.stdout == ""


@pytest.mark.parametrize("changes, message", [
    ({"clients": 0}, "--clients"), ({"duration": 0}, "--duration"),
    ({"ramp": 5, "duration": 5}, "--ramp"), ({"humans_per_table": 5}, "--humans-per-table"),
    ({"url": "http://127.0.0.1/ws"}, "ws://"),
])
def test_bad_settings_are_refused(changes: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        LoadSettings(**changes).check()  # type: ignore[arg-type]


def test_the_reservoir_keeps_the_count_and_max_exactly() -> None:
    sample = LatencySample(capacity=10, seed=1)
    for value in range(1000):
        sample.add(float(value))
    assert sample.count == 1000 and sample.max == 999.0 and len(sample.values) == 10
    assert percentile([5.0], 99) == 5.0 and percentile(list(map(float, range(1, 101))), 99) == 99


def test_decision_counts_are_differenced_between_scrapes() -> None:
    before = {("heuristic", "none"): 10.0, ("model", "none"): 5.0}
    after = {("heuristic", "none"): 12.0, ("model", "none"): 9.0, ("heuristic", "queue"): 3.0}
    assert decisions_delta(before, after) == {
        "bot_decisions": 9, "by_agent": {"heuristic": 5, "model": 4}, "fallbacks": {"queue": 3}}
    assert decisions_delta(None, after) is None
