"""What every trainer shares: metrics.jsonl, the periodic duplicate evaluation, the curve.

The evaluation plays the current network (written to a scratch ONNX file and
served exactly as in production) against three heuristics in duplicate deals
with a fixed seed, so successive points of the curve are comparable.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from wizard.ai.agents import ModelAgent
from wizard.ai.evaluate import evaluate
from wizard.ai.policy import OnnxPolicy

from .export import write_temp_policy
from .policy import NetPolicy

METRICS_FILE = "metrics.jsonl"
CURVE_FILE = "learning_curve.png"
EVAL_SEED = 7


def append_metrics(out: Path, record: dict[str, Any]) -> None:
    with (out / METRICS_FILE).open("a") as stream:
        stream.write(json.dumps({"time": round(time.time(), 1), **record}) + "\n")


def read_metrics(out: Path) -> list[dict[str, Any]]:
    path = out / METRICS_FILE
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def evaluate_against_heuristics(policy: NetPolicy, games: int, seed: int = EVAL_SEED,
                                players: int = 4, jobs: int = 1,
                                card_lookahead: float = 0.0) -> dict[str, float]:
    """The policy in one seat, heuristics in the others: its mean, theirs, its bid accuracy.

    The policy is written as a scratch ``default.onnx``; with ``jobs`` > 1 the
    evaluation's worker processes load it as ``model`` (``WIZARD_MODELS_DIR``
    points at the scratch directory while they run).
    """
    with tempfile.TemporaryDirectory() as scratch:
        path = write_temp_policy(policy, Path(scratch), "default", card_lookahead)
        heuristics = ["heuristic"] * (players - 1)
        if jobs <= 1:
            result = evaluate([ModelAgent(OnnxPolicy(path)), *heuristics], games, seed=seed)
        else:
            saved = os.environ.get("WIZARD_MODELS_DIR")
            os.environ["WIZARD_MODELS_DIR"] = scratch
            try:
                result = evaluate(["model", *heuristics], games, seed=seed, jobs=jobs)
            finally:
                if saved is None:
                    del os.environ["WIZARD_MODELS_DIR"]
                else:
                    os.environ["WIZARD_MODELS_DIR"] = saved
    model, others = result.agents[0], result.agents[1:]
    heuristic_mean = sum(a.mean for a in others) / len(others)
    return {"eval_games": result.games, "model_mean": round(model.mean, 2),
            "heuristic_mean": round(heuristic_mean, 2),
            "margin": round(model.mean - heuristic_mean, 2),
            "model_stderr": round(model.stderr, 2),
            "model_bid_accuracy": round(model.bid_accuracy, 4),
            "heuristic_bid_accuracy": round(sum(a.bid_accuracy for a in others) / len(others), 4)}


def plot_learning_curve(out: Path, title: str) -> Path | None:
    """``out/learning_curve.png`` from the evaluations in ``metrics.jsonl`` (None without any)."""
    return plot_runs([out], out / CURVE_FILE, title)


def curve_series(runs: list[Path]) -> list[tuple[str, list[dict[str, Any]], int]]:
    """The learning curve's series: for each run with an evaluation its label (the stage;
    with the run's directory when two runs share a stage), its evaluated rows and the
    games of the runs before it."""
    series: list[tuple[str, list[dict[str, Any]], int]] = []
    offset = 0
    stages = [str(next((r["stage"] for r in read_metrics(run) if "stage" in r), run.name))
              for run in runs]
    for run, stage in zip(runs, stages, strict=True):
        rows = read_metrics(run)
        points = [r for r in rows if "margin" in r]
        if points:
            label = f"{stage} ({run.name})" if stages.count(stage) > 1 else stage
            series.append((label, points, offset))
        offset += max((int(r["total_games"]) for r in rows), default=0)
    return series


def plot_runs(runs: list[Path], path: Path, title: str) -> Path | None:
    """One curve over several runs in order (imitation, then PPO): x counts all their games.

    Returns None when no run has an evaluation yet.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    series = curve_series(runs)
    if not series:
        return None
    figure, axes = plt.subplots(1, 2, figsize=(11, 4))
    for stage, rows, shift in series:
        x = [shift + r["total_games"] for r in rows]
        axes[0].errorbar(x, [r["margin"] for r in rows],
                         yerr=[1.96 * r.get("model_stderr", 0.0) for r in rows],
                         marker="o", capsize=3, label=stage)
        axes[1].plot(x, [100 * r["model_bid_accuracy"] for r in rows], marker="o",
                     label=f"{stage}: model")
        axes[1].plot(x, [100 * r["heuristic_bid_accuracy"] for r in rows], linestyle="--",
                     label=f"{stage}: heuristics")
    axes[0].axhline(0.0, color="grey", linewidth=0.8)
    axes[0].set_xlabel("training games")
    axes[0].set_ylabel("points per game over the heuristics' mean")
    axes[0].set_title("vs 3 heuristics (duplicate, 95 % CI)")
    axes[1].set_xlabel("training games")
    axes[1].set_ylabel("exact bids (%)")
    axes[1].set_title("bid accuracy")
    for ax in axes:
        ax.grid(alpha=0.3)
        ax.legend()
    figure.suptitle(title)
    figure.tight_layout()
    figure.savefig(path, dpi=90)
    plt.close(figure)
    return path
