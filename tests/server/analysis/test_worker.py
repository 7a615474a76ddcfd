"""The analysis worker: a low-priority process beside the pool's live workers."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

from wizard.ai.decision import AgentSpec, DecisionRequest
from wizard.ai.pool import InferencePool, PoolSettings
from wizard.engine import WizardGame
from wizard.server.analysis.runners import PoolRunner

from ...ai.test_analysis import heuristic, play


def test_analysis_slices_run_in_a_low_priority_worker_and_never_hold_up_live_decisions(
        tmp_path: Path) -> None:
    """One live worker busy with nothing, analysis slices running, then a live decision:
    the asked-for agent answers it (no fallback) while the slices are still running, in a
    worker of their own at niceness 19."""
    game, actions = play(4, seed=6, rounds=8, choose=heuristic)
    exported = {"num_players": 4, "seed": game.seed, "options": game.options.to_dict(),
                "actions": [{"seat": s, "action": a.to_dict()} for s, a in actions]}
    live = WizardGame(4, seed=11)
    seat = live.current_player
    assert seat is not None
    finished: list[str] = []

    async def scenario() -> tuple[Any, int | None, list[int], int]:
        pool = InferencePool(PoolSettings(workers=1, models_dir=str(tmp_path)))
        await pool.start()
        runner = PoolRunner(pool)
        try:
            async def background(n: int) -> None:
                for _ in range(3):  # three slices back to back, as a job sends them
                    await runner.run((exported, [0, 1, 2, 3], 8, n * 20, 0.5))
                finished.append(f"slice {n}")

            slices = [asyncio.ensure_future(background(n)) for n in range(1)]
            while runner.running == 0 or runner.pid is None:  # the worker runs a slice
                await asyncio.sleep(0.05)
            request = DecisionRequest(live.observation(seat), AgentSpec("search"))
            decision = await pool.decide(request)
            finished.append("live")
            await asyncio.gather(*slices)
            pid = runner.pid  # the worker stays up between slices: read its priority now
            assert pid is not None
            niceness = os.getpriority(os.PRIO_PROCESS, pid)
            if hasattr(os, "SCHED_IDLE"):  # Linux: a core only when nothing else wants it
                assert os.sched_getscheduler(pid) == os.SCHED_IDLE
            return decision, pid, pool.worker_pids(), niceness
        finally:
            await runner.close()
            await pool.close()

    decision, background_pid, live_pids, niceness = asyncio.run(scenario())
    assert decision.reason is None and decision.agent == "search"
    assert finished[0] == "live", finished
    assert sorted(finished) == ["live", "slice 0"]
    assert background_pid is not None and background_pid not in live_pids
    assert niceness == 19  # the lowest CPU priority, whatever the server's own niceness
