#!/usr/bin/env python3
"""Speed of the learned policy, one line per figure (one core; medians of --repeats runs).

    .venv/bin/python scripts/bench_model.py [--model models/default.onnx] [--repeats 5]

Policy part (`bench_policy`): decision latency p50/p99 and decisions/s at batch
1, 8, 32, 128 — "decide" is encode + ONNX + choice (`OnnxPolicy.logits`, bids by
expected score included), beside "raw", one onnxruntime call on the same
already-encoded inputs in the same run. Training part (`bench_selfplay`,
needs the train extra): PPO self-play decisions/s (VectorWizardEnv, one batched
forward pass per step, no update) with 64 games stepped together.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from pathlib import Path

import numpy as np

from wizard.ai.encoding import ActionSpace, encode_batch
from wizard.ai.policy import OnnxPolicy, models_dir
from wizard.engine import Observation, WizardGame

BATCHES = (1, 8, 32, 128)


def positions(count: int, seed: int = 1) -> list[Observation]:
    """Decisions of random games of 3–6 players (bids, cards and trump choices)."""
    out: list[Observation] = []
    rng = random.Random(seed)
    while len(out) < count:
        game = WizardGame(rng.choice((3, 4, 5, 6)), seed=rng.getrandbits(32))
        while not game.is_finished and len(out) < count:
            player = game.current_player
            assert player is not None
            obs = game.observation(player)
            out.append(obs)
            game.apply(player, rng.choice(obs.legal_actions))
    return out


def _percentile(values: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(values), q))


def bench_policy(model: Path, repeats: int) -> list[str]:
    """Latency and throughput of the policy at each batch size, beside raw onnxruntime."""
    policy = OnnxPolicy(model, threads=1)
    observations = positions(2048)
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, default=models_dir() / "default.onnx")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--no-selfplay", action="store_true", help="skip the training figure")
    args = parser.parse_args()
    for line in bench_policy(args.model, args.repeats):
        print(line, flush=True)
    if not args.no_selfplay:
        for line in bench_selfplay(args.repeats):
            print(line, flush=True)


if __name__ == "__main__":
    main()
