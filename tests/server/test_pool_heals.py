"""The server's pool heals itself: a worker killed under a table of master bots is
replaced at once, and the table's later decisions come from the pool again.

One test through a real ``wizard serve`` with bots answering at once
(``WIZARD_BOT_DELAY=0``, the default 0.5 s decision deadline: what a load test
runs), one through the app in-process that watches ``/readyz`` and ``/metrics``
say "degraded" while a successor cannot start.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from websockets.asyncio.client import connect

from wizard.ai.pool import InferencePool, PoolSettings

from ..serve import free_port, http_get, start_server, stop_server
from .conftest import Harness, sample_value
from .test_e2e_uvicorn import Client, table_of

SEARCH = {"agent": "bot:master:search", "reason": "none"}


def pool_worker_pids(server_pid: int) -> list[int]:
    """The server's worker processes (its children started by multiprocessing's spawn)."""
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
        except OSError:  # gone meanwhile
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        if parent == server_pid and b"spawn_main" in cmdline:
            pids.append(int(entry))
    return pids


def metric(base: str, name: str, **labels: str) -> float:
    status, body = http_get(f"{base}/metrics")
    assert status == 200
    return sample_value(body.decode(), name, **labels) or 0.0


def test_a_worker_killed_under_master_bots_is_replaced_and_the_table_uses_the_pool_again(
        tmp_path: Path) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    process = start_server(port, tmp_path / "server.log", WIZARD_MODELS_DIR=str(tmp_path),
                           WIZARD_AI_WORKERS="1")  # TEST_ENV: WIZARD_BOT_DELAY=0

    async def scenario() -> dict[str, float]:
        async with connect(f"ws://127.0.0.1:{port}/ws", open_timeout=10) as ws:
            ann = Client(ws, "Ann")
            await ann.hello("Ann", None)
            await ann.ok({"type": "play_bots", "players": 4, "level": "master"})
            table_id = table_of(ann)
            figures: dict[str, float] = {}
            while True:
                update = await ann.wait_for(
                    lambda m: m["type"] == "update" and m["table_id"] == table_id
                    and (m["observation"]["legal_actions"]
                         or m["observation"]["phase"] == "finished"))
                observation = update["observation"]
                if observation["phase"] == "finished":
                    return figures
                searched = await asyncio.to_thread(metric, base, "wizard_pool_decisions_total",
                                                   **SEARCH)
                if "killed" not in figures and observation["round_number"] >= 2:
                    [victim] = pool_worker_pids(process.pid)
                    os.kill(victim, signal.SIGKILL)
                    figures.update(killed=victim, searched_before=searched)
                elif "killed" in figures and "replaced" not in figures:
                    restarts = await asyncio.to_thread(
                        metric, base, "wizard_pool_worker_restarts_total")
                    if restarts >= 1 and pool_worker_pids(process.pid):
                        figures.update(replaced=pool_worker_pids(process.pid)[0],
                                       searched_at_restart=searched)
                elif "replaced" in figures and searched >= figures["searched_at_restart"] + 20:
                    figures["searched_later"] = searched
                    status, _ = await asyncio.to_thread(http_get, f"{base}/readyz")
                    figures["ready_status"] = status
                    figures["serving"] = await asyncio.to_thread(
                        metric, base, "wizard_pool_serving")
                    return figures
                await ann.send({"type": "act", "table_id": table_id,
                                "action": observation["legal_actions"][0]})

    try:
        figures = asyncio.run(asyncio.wait_for(scenario(), 240))
    finally:
        stop_server(process)
    assert figures["searched_before"] > 0, figures  # master searched in the pool
    assert figures["replaced"] != figures["killed"], figures
    assert figures.get("searched_later", 0) >= figures["searched_at_restart"] + 20, figures
    assert figures["ready_status"] == 200 and figures["serving"] == 1.0, figures


@pytest.fixture
def fragile_pool(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[InferencePool, Path]:
    marker = tmp_path / "fail-start"
    monkeypatch.setenv("WIZARD_TEST_FAIL_START", str(marker))
    pool = InferencePool(PoolSettings(workers=1, models_dir=str(tmp_path), close_timeout_s=2.0,
                                      worker_imports=("tests.ai.pool.fragile_start",),
                                      restart_backoff_s=0.1, restart_backoff_max_s=0.2))
    return pool, marker


def wait_for(condition: Callable[[], bool], limit: float = 30.0) -> None:
    deadline = time.monotonic() + limit
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_readyz_and_metrics_say_degraded_while_no_worker_serves(
        make_harness: Callable[..., Harness], fragile_pool: tuple[InferencePool, Path]) -> None:
    pool, marker = fragile_pool
    harness = make_harness(decider=pool)
    client = harness.client
    assert client.get("/readyz").json()["degraded"] is False
    marker.touch()
    os.kill(pool.worker_pids()[0], signal.SIGKILL)
    wait_for(lambda: client.get("/readyz").status_code == 503)
    assert client.get("/readyz").json() == {"ready": False, "decider": True, "degraded": True,
                                            "store": True}
    page = client.get("/metrics").text
    assert sample_value(page, "wizard_pool_serving") == 0.0
    assert sample_value(page, "wizard_ready") == 0.0
    wait_for(lambda: (sample_value(client.get("/metrics").text,
                                   "wizard_pool_restart_failures_total") or 0) >= 2)
    marker.unlink()
    wait_for(lambda: client.get("/readyz").status_code == 200)
    page = client.get("/metrics").text
    assert sample_value(page, "wizard_pool_serving") == 1.0
    assert sample_value(page, "wizard_pool_worker_restarts_total") == 1.0
