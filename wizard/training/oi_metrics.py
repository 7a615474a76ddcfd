"""Metrics of probability networks: Brier score, log loss, calibration bins and their plot."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import numpy.typing as npt

Array = npt.NDArray[np.float32]


def brier(labels: Array, predicted: Array) -> float:
    """Mean squared error of probabilities against 0/1 labels."""
    ok = ~np.isnan(predicted)
    return float(np.mean((predicted[ok] - labels[ok]) ** 2)) if ok.any() else math.nan


def log_loss(labels: Array, predicted: Array) -> float:
    ok = ~np.isnan(predicted)
    if not ok.any():
        return math.nan
    p = np.clip(predicted[ok].astype(np.float64), 1e-6, 1 - 1e-6)
    y = labels[ok]
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def calibration_bins(labels: Array, predicted: Array, bins: int = 10) -> list[dict[str, float]]:
    """Per bin of predicted probability: share of the samples, mean predicted, observed rate.

    >>> calibration_bins(np.array([0, 1], np.float32), np.array([0.05, 0.95], np.float32))[0]
    {'low': 0.0, 'high': 0.1, 'count': 1, 'share': 0.5, 'predicted': 0.05, 'observed': 0.0}
    """
    ok = ~np.isnan(predicted)
    labels, predicted = labels[ok], predicted[ok]
    index = np.minimum((predicted * bins).astype(np.int64), bins - 1)
    out = []
    for b in range(bins):
        inside = index == b
        count = int(inside.sum())
        out.append({
            "low": round(b / bins, 4), "high": round((b + 1) / bins, 4), "count": count,
            "share": round(count / max(1, len(labels)), 6),
            "predicted": round(float(predicted[inside].mean()), 6) if count else math.nan,
            "observed": round(float(labels[inside].mean()), 6) if count else math.nan,
        })
    return out


def max_calibration_gap(bins: list[dict[str, float]], min_share: float = 0.01) -> float:
    """The largest |observed − predicted| over bins holding at least ``min_share`` of samples."""
    gaps = [abs(b["observed"] - b["predicted"]) for b in bins if b["share"] >= min_share]
    return max(gaps) if gaps else math.nan


def plot_calibration(bins: dict[str, list[dict[str, float]]], path: Path, title: str) -> Path:
    """Predicted vs observed win rate per bin, one line per network; marker area ~ share."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax, hist) = plt.subplots(2, 1, figsize=(6, 7.5), height_ratios=(3, 1), sharex=True)
    ax.plot([0, 1], [0, 1], color="grey", linestyle="--", linewidth=1, label="perfect")
    ax.fill_between([0, 1], [-0.05, 0.95], [0.05, 1.05], color="grey", alpha=0.12,
                    label="±0.05")
    width = 0.1 / (len(bins) + 1)
    for k, (name, rows) in enumerate(bins.items()):
        used = [b for b in rows if b["count"]]
        xs = [b["predicted"] for b in used]
        ys = [b["observed"] for b in used]
        gap = max_calibration_gap(rows)
        line = ax.plot(xs, ys, marker="o", label=f"{name} (max gap {gap:.3f})")
        hist.bar([b["low"] + width * (k + 1) for b in rows], [b["share"] for b in rows],
                 width=width, color=line[0].get_color(), label=name)
    ax.set(xlim=(0, 1), ylim=(0, 1), ylabel="observed win rate", title=title)
    ax.legend(loc="upper left", fontsize=8)
    ax.grid(alpha=0.3)
    hist.set(xlabel="predicted probability (10 bins)", ylabel="share of cards", xlim=(0, 1))
    hist.axhline(0.01, color="grey", linewidth=0.8, linestyle=":")
    hist.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


__all__ = ["brier", "calibration_bins", "log_loss", "max_calibration_gap", "plot_calibration"]
