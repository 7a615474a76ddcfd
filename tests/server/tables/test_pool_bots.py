"""Bots of the server decide through the inference pool; a killed worker stalls nothing."""

from __future__ import annotations

import os
import signal
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from wizard.ai.levels.settings import HARD_POLICY
from wizard.ai.pool import InferencePool, PoolSettings
from wizard.training.onnx_graphs import write_random_policy

from ..conftest import Harness, sample_value
from ..driver import act_message


@pytest.fixture(scope="module")
def policy_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    directory = tmp_path_factory.mktemp("models")
    write_random_policy(directory, HARD_POLICY, hidden=(64,), seed=5)  # what hard bots play
    yield directory


def play_to_end(harness: Harness, on_update: Callable[[dict], None] | None = None) -> dict:
    ann = harness.player("Ann")
    ann.ok({"type": "play_bots", "players": 4, "level": "hard"})
    table_id = next(m for m in reversed(ann.messages) if m["type"] == "table")["table_id"]
    while True:
        update = ann.wait_for(lambda m: m["type"] == "update" and m["table_id"] == table_id
                              and (m["observation"]["legal_actions"]
                                   or m["observation"]["phase"] == "finished"), 30)
        if on_update is not None:
            on_update(update)
        if update["observation"]["phase"] == "finished":
            return update
        ann.send(act_message(update))


def test_bots_play_the_shipped_policy_through_the_pool(
    make_harness: Callable[..., Harness], policy_dir: Path
) -> None:
    pool = InferencePool(PoolSettings(workers=1, models_dir=str(policy_dir)))
    harness = make_harness(decider=pool)
    assert harness.client.get("/readyz").json()["ready"] is True
    final = play_to_end(harness)
    assert len(final["observation"]["round_history"]) == 15
    served = sample_value(harness.client.get("/metrics").text, "wizard_pool_decisions_total",
                          agent=f"model:{HARD_POLICY}", reason="none")
    assert served is not None and served > 0
    assert pool.metrics.batches > 0


def test_killing_a_pool_worker_mid_game_neither_stalls_nor_ends_the_game(
    make_harness: Callable[..., Harness], policy_dir: Path
) -> None:
    pool = InferencePool(PoolSettings(workers=1, models_dir=str(policy_dir)))
    harness = make_harness(decider=pool)
    killed: list[int] = []

    def kill_once(update: dict) -> None:
        if not killed and update["observation"]["round_number"] == 3:
            pid = pool.worker_pids()[0]
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)

    final = play_to_end(harness, kill_once)
    assert killed and len(final["observation"]["round_history"]) == 15
    assert pool.metrics.worker_restarts >= 1
    assert killed[0] not in pool.worker_pids()
