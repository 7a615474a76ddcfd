"""The OI agent in the inference pool: decided in a worker; its networks are not policies."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path

import pytest

from wizard.ai.decision import AgentSpec, Decision, DecisionRequest
from wizard.ai.oi import OIAgent, load_networks
from wizard.ai.pool import InferencePool, PoolSettings
from wizard.ai.pool.worker_process import THREAD_VARIABLES, init_worker, ping
from wizard.engine import WizardGame
from wizard.training.onnx_graphs import write_random_policy

from ..oi.test_agent import write_random_networks


def models(directory: Path) -> Path:
    write_random_policy(directory, "default", (16,), seed=1)
    return write_random_networks(directory, seed=2)


def test_a_worker_loads_policies_but_leaves_the_oi_networks_alone(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in (*THREAD_VARIABLES, "WIZARD_MODELS_DIR"):  # restored after the test
        monkeypatch.setenv(variable, os.environ.get(variable, ""))
    sigint = signal.getsignal(signal.SIGINT)
    try:
        init_worker(str(models(tmp_path)))
        held = ping()
    finally:
        signal.signal(signal.SIGINT, sigint)
    assert held["policies"] == ["default"]
    assert held["errors"] == {}


def test_the_pool_decides_oi_in_a_worker(tmp_path: Path) -> None:
    directory = models(tmp_path)
    game = WizardGame(4, seed=8)
    observations = []
    while len(observations) < 12:
        player = game.current_player
        assert player is not None
        obs = game.observation(player)
        observations.append(obs)
        game.apply(player, obs.legal_actions[-1])
    expected = OIAgent(*load_networks(directory))

    async def main() -> list[Decision]:
        settings = PoolSettings(workers=1, models_dir=str(directory), close_timeout_s=2.0)
        assert "oi" in settings.worker_agents
        pool = InferencePool(settings)
        await pool.start()
        assert pool.policies == frozenset({"default"})
        try:
            deadline = time.monotonic() + 20
            return [await pool.decide(DecisionRequest(o, AgentSpec("oi"), deadline))
                    for o in observations]
        finally:
            await pool.close()

    decisions = asyncio.run(asyncio.wait_for(main(), 60))
    for obs, decision in zip(observations, decisions, strict=True):
        assert (decision.agent, decision.reason) == ("oi", None)
        assert decision.action == expected.act(obs)
