#!/usr/bin/env python3
"""Speed of the model-backed agents, one line per figure (one core; medians of --repeats runs).

    .venv/bin/python scripts/bench_model.py [--agent model|oi|all] [--model models/default.onnx]
        [--repeats 5] [--positions 3000]

``--agent model`` (`bench_policy`, `bench_selfplay`): the learned policy's
decision latency p50/p99 and decisions/s at batch 1, 8, 32, 128 — "decide" is
encode + ONNX + choice (`OnnxPolicy.logits`, bids by expected score and, as the
policy's model card asks, its cards one card ahead included),
beside "raw", one onnxruntime call on the same already-encoded inputs in the
same run; then (needs the train extra) PPO self-play decisions/s
(VectorWizardEnv, one batched forward pass per step, no update) with 64 games
stepped together.

``--agent oi`` (`bench_oi`): the OI agent on the shipped networks
(``models/oi_*.onnx``), p50 / p99 / max milliseconds per decision over the
positions of 4-player games played by the heuristic (every phase: bids, plays,
trump choices), the median over ``--repeats`` runs, in wall-clock time and in
process CPU time (which leaves out waits for a core on a shared machine),
beside the heuristic's figures on the same positions in the same run.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from wizard.ai.agents import Agent, HeuristicAgent
from wizard.ai.encoding import ActionSpace, encode_batch
from wizard.ai.policy import OnnxPolicy, models_dir
from wizard.ai.positions import positions
from wizard.ai.registry import make_agent
from wizard.engine import Observation

BATCHES = (1, 8, 32, 128)


def _percentile(values: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(values), q))


def bench_policy(model: Path, repeats: int) -> list[str]:
    """Latency and throughput of the policy at each batch size, beside raw onnxruntime."""
    policy = OnnxPolicy(model, threads=1)
    observations = positions(2048, players=(3, 4, 5, 6))
    lines = []
    for batch in BATCHES:
        groups = [observations[i:i + batch] for i in range(0, len(observations), batch)]
        groups = groups[: max(8, 512 // batch)]
        encoded = [(encode_batch(g), ActionSpace.mask_batch(g)) for g in groups]
        decide_times: list[float] = []
        raw_times: list[float] = []
        for _ in range(repeats):
            for group in groups:
                start = time.perf_counter()
                features, masks = encode_batch(group), ActionSpace.mask_batch(group)
                policy.logits(features, masks).argmax(axis=1)
                decide_times.append(time.perf_counter() - start)
            for features, masks in encoded:
                start = time.perf_counter()
                policy.session.run(["probs", "tricks"], {"features": features, "mask": masks})
                raw_times.append(time.perf_counter() - start)
        for label, times in (("decide", decide_times), ("raw onnxruntime", raw_times)):
            ms = [t * 1000 for t in times]
            lines.append(f"policy batch {batch:>3} {label:<16} p50 {_percentile(ms, 50):7.3f} ms"
                         f"  p99 {_percentile(ms, 99):7.3f} ms"
                         f"  {batch / statistics.median(times):9.0f} decisions/s")
    return lines


def bench_selfplay(repeats: int, envs: int = 64, steps: int = 200) -> list[str]:
    """PPO self-play stepping: decisions/s of VectorWizardEnv plus the batched forward pass."""
    import torch

    from wizard.training.env import VectorWizardEnv
    from wizard.training.policy import NetPolicy

    torch.set_num_threads(1)
    policy = NetPolicy()
    rng = np.random.default_rng(1)
    rates = []
    for repeat in range(repeats):
        vec = VectorWizardEnv(envs, seed=repeat)
        state = vec.reset()
        start = time.perf_counter()
        for _ in range(steps):
            actions, _, _ = policy.act(state.features, state.masks, explore=True, rng=rng)
            state = vec.step(actions)
        rates.append(envs * steps / (time.perf_counter() - start))
    return [f"self-play {envs} games stepped together {statistics.median(rates):9.0f} "
            f"decisions/s (median of {repeats})"]


def heuristic_positions(count: int, seed: int = 1, num_players: int = 4) -> list[Observation]:
    """Observations of the seat to move in heuristic games (all options drawn at random)."""
    return positions(count, seed, players=(num_players,), play=HeuristicAgent().act,
                     random_options=True)


def latencies_ms(agent: Agent, observations: list[Observation],
                 clock: Callable[[], float] = time.perf_counter) -> list[float]:
    out = []
    for obs in observations:
        start = clock()
        agent.act(obs)
        out.append((clock() - start) * 1000.0)
    return sorted(out)


def percentile(sorted_values: list[float], q: float) -> float:
    return sorted_values[min(len(sorted_values) - 1, int(q * len(sorted_values)))]


def _report(name: str, runs: list[list[float]]) -> None:
    for label, q in (("p50", 0.50), ("p99", 0.99), ("max", 1.0)):
        values = [percentile(r, q) for r in runs]
        print(f"{name} decision latency {label}: {statistics.median(values):.3f} ms "
              f"(median of {len(runs)} runs; min {min(values):.3f}, max {max(values):.3f})",
              flush=True)


def bench_oi(observations: list[Observation], repeats: int) -> None:
    """OI agent latency beside the heuristic's on the same positions."""
    agent = make_agent("oi")  # raises PolicyError when the networks are missing
    agent.act(observations[0])  # warm the sessions up
    reference = HeuristicAgent()
    oi_runs, oi_cpu_runs, heuristic_runs = [], [], []
    for _ in range(repeats):
        oi_runs.append(latencies_ms(agent, observations))
        oi_cpu_runs.append(latencies_ms(agent, observations, time.process_time))
        heuristic_runs.append(latencies_ms(reference, observations))
    print(f"positions: {len(observations)} (4 players, heuristic games, all phases)")
    _report("oi", oi_runs)
    # CPU time leaves out the time the process waited for a core (a shared machine's
    # preemptions land in the wall-clock tail)
    _report("oi (process CPU time)", oi_cpu_runs)
    _report("heuristic (reference)", heuristic_runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agent", choices=("model", "oi", "all"), default="all")
    parser.add_argument("--model", type=Path, default=models_dir() / "default.onnx")
    parser.add_argument("--positions", type=int, default=3000, help="OI positions")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--no-selfplay", action="store_true", help="skip the training figure")
    args = parser.parse_args()
    if args.agent in ("model", "all"):
        for line in bench_policy(args.model, args.repeats):
            print(line, flush=True)
        if not args.no_selfplay:
            for line in bench_selfplay(args.repeats):
                print(line, flush=True)
    if args.agent in ("oi", "all"):
        bench_oi(heuristic_positions(args.positions), args.repeats)


if __name__ == "__main__":
    main()
