"""The last stage: a tricks head of its own for the rows after a card (``wizard train after-head``).

A policy that plays one card ahead (`wizard.ai.lookahead`) asks a tricks head
about the features as they read once a card is played. A seat never decides in
such a state, so the tricks head, trained on decision rows, reads them badly
(log loss 1.28 against 0.86 before the card on the policy v4's games), and
training it on them as well costs the bids it also serves
(docs/measurements/ai.md). This stage leaves every weight of the net as it is
and fits a second linear head on the trunk's last hidden layer, for those rows
only (with ``hidden`` > 0 a ReLU layer of that many units beside it: the policy
v6's 64); the exported file gains the output ``after_tricks``, which the lookahead
reads instead of ``tricks`` (`wizard.ai.policy.OnnxPolicy.logits`). Bids, card
probabilities and the value are unchanged to the bit.

Rows: games played as in expert iteration (`wizard.training.teacher`): the net
(``init``, one card ahead through its tricks head at ``card_lookahead``) at a
share of the seats, ``opponents`` at the others; each of its card decisions with
a choice gives its row after the card played, and once a round, with chance
``explore_cards``, a random card shows the head a card the net would not play.
Each row is labelled with the tricks the seat ended the round with. Every tenth
chunk of games (at most ``chunk`` games a chunk, 20 chunks or more) is held out:
the metrics give the held-out log loss of both heads.

The head starts as a copy of the tricks head and is fitted by Adam for
``epochs`` passes; the epoch with the lowest held-out loss is kept. The
checkpoint (``OUT/checkpoint``) exports with ``wizard export``. With ``resume`` a
finished run is returned as it is; an interrupted one left no checkpoint and is run
again from the start (without ``resume``; its stale metrics are cleared).
"""

from __future__ import annotations

import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from tqdm import tqdm

from wizard.ai.encoding import BLOCKS

from .export import write_temp_policy
from .network import MASKED
from .policy import NetPolicy
from .progress import (
    CURVE_FILE,
    METRICS_FILE,
    append_metrics,
    evaluate_against_heuristics,
    read_metrics,
)
from .runs import load_init, open_run, save_run
from .teacher import Rows, TeacherConfig, concat, iter_teacher_chunks

_PLAYING = BLOCKS["phase"].start + 1
HELD_OUT_EVERY = 10  # every tenth chunk of games is held out


@dataclass(frozen=True, slots=True)
class AfterHeadConfig:
    games: int = 4_000
    seed: int = 101
    card_lookahead: float = 10.0  # points per logit, at the table and in the exported card
    learner_seats: float = 0.5
    opponents: tuple[str, ...] = ("heuristic", "oi")
    explore_cards: float = 0.3
    hidden: int = 0  # units of a ReLU layer beside the linear head (`PolicyNet.after_deep`)
    epochs: int = 12
    batch: int = 512
    lr: float = 1e-3
    chunk: int = 50
    workers: int = 1
    eval_games: int = 400


def after_rows(rows: Rows) -> Rows:
    """The rows after a card among a teacher run's rows: playing-phase rows that the policy
    head does not learn (`teacher._after_row`)."""
    keep = ~rows["imitate"] & (rows["features"][:, _PLAYING] > 0.5)
    return {key: value[keep] for key, value in rows.items()}


def train_after_head(out: Path, config: AfterHeadConfig, *, init: Path, resume: bool = False,
                     command: str = "", progress: bool = True) -> Path:
    """Fit the after-card head of ``init`` (a checkpoint or an exported policy) into
    ``out``; returns the checkpoint directory. Raises `CheckpointError` or `ValueError` as
    `open_run` and `load_init` do, and `ValueError` when the games give no held-out rows."""
    run = open_run(out, resume=resume)
    if run.policy is not None and run.done >= config.games:
        return run.checkpoint
    loaded, run.history = load_init(init)
    if not isinstance(loaded, NetPolicy):
        raise ValueError(f"the after-card head is fitted on a NetPolicy, not {loaded.type_name}")
    started = time.time()
    (out / METRICS_FILE).unlink(missing_ok=True)  # an interrupted run's epochs
    learner = write_temp_policy(loaded, out, "table", config.card_lookahead)
    teacher = TeacherConfig("heuristic", keep_plays=1.0, learner_seats=config.learner_seats,
                            opponents=config.opponents, after_card_rows=True,
                            explore_cards=config.explore_cards)
    train: list[Rows] = []
    held: list[Rows] = []
    chunk = max(1, min(config.chunk, config.games // (2 * HELD_OUT_EVERY)))  # 20 chunks or more
    try:
        chunks = iter_teacher_chunks(teacher, config.games, config.seed, workers=config.workers,
                                     chunk=chunk, learner=lambda: learner)
        with tqdm(total=config.games, unit="game", disable=not progress, file=sys.stderr,
                  dynamic_ncols=True, desc="games") as bar:
            for number, (played, rows) in enumerate(chunks):
                (held if number % HELD_OUT_EVERY == HELD_OUT_EVERY - 1 else train).append(
                    after_rows(rows))
                bar.update(played - bar.n)
    finally:
        learner.unlink(missing_ok=True)
        learner.with_suffix(".json").unlink(missing_ok=True)
    if not held or not train:
        raise ValueError(f"{config.games} games hold out no rows: play at least "
                         f"{HELD_OUT_EVERY} games")
    policy = NetPolicy(**{**loaded.config(), "after_head": True, "after_hidden": config.hidden})
    state = policy.net.state_dict() | loaded.net.state_dict()  # a new layer keeps its init
    state |= {f"after_head.{k}": v.clone() for k, v in loaded.net.tricks_head.state_dict().items()}
    policy.net.load_state_dict(state)
    record = fit(policy, concat(train), concat(held), config, out, progress)
    evaluation = evaluate_against_heuristics(policy, config.eval_games, jobs=config.workers,
                                             card_lookahead=config.card_lookahead)
    append_metrics(out, {"stage": "after-head", "total_games": config.games, **record,
                         **evaluation})
    session = {"stage": "after-head", "command": command, "config": asdict(config),
               "started_at_games": 0}
    save_run(policy, run, config.games, session, started, evaluation)
    plot_fit(out)
    return run.checkpoint


def fit(policy: NetPolicy, train: Rows, held: Rows, config: AfterHeadConfig, out: Path,
        progress: bool) -> dict[str, Any]:
    """Adam on the after-card head alone (its ReLU layer too, if it has one); the held-out
    best epoch's weights are kept (epoch 0: the tricks head's copy). Each epoch's losses go
    to ``out/metrics.jsonl``; returns the kept epoch's."""
    net = policy.net.eval()
    assert net.after_head is not None
    head = torch.nn.ModuleList([net.after_head, *([net.after_deep] if net.after_deep else [])])
    generator = torch.Generator().manual_seed(config.seed)
    with torch.no_grad():
        hidden_train, possible_train, tricks_train = _inputs(policy, train)
        hidden_held, possible_held, tricks_held = _inputs(policy, held)
        before = _loss(net.tricks_head(hidden_held), possible_held, tricks_held)
    optimizer = torch.optim.Adam(head.parameters(), lr=config.lr)
    best: dict[str, Any] = {"total_games": config.games, "epoch": 0,
                            "held_out_after_loss": round(before.item(), 4)}  # the copy
    kept = {k: v.clone() for k, v in head.state_dict().items()}
    for epoch in tqdm(range(1, config.epochs + 1), unit="epoch", disable=not progress,
                      file=sys.stderr, dynamic_ncols=True, desc="fit"):
        order = torch.randperm(len(tricks_train), generator=generator)
        losses = []
        for start in range(0, len(order), config.batch):
            pick = order[start:start + config.batch]
            loss = _loss(net.after_logits(hidden_train[pick]), possible_train[pick],
                         tricks_train[pick])
            optimizer.zero_grad()
            loss.backward()  # type: ignore[no-untyped-call]
            optimizer.step()
            losses.append(loss.item())
        with torch.no_grad():
            held_loss = _loss(net.after_logits(hidden_held), possible_held, tricks_held).item()
        record = {"total_games": config.games, "epoch": epoch, "train_rows": len(tricks_train),
                  "held_out_rows": len(tricks_held), "after_loss": round(float(np.mean(losses)), 4),
                  "held_out_after_loss": round(held_loss, 4),
                  "held_out_tricks_head_loss": round(before.item(), 4)}
        append_metrics(out, {"stage": "after-head", **record})
        if held_loss < best["held_out_after_loss"]:
            best = record
            kept = {k: v.clone() for k, v in head.state_dict().items()}
    head.load_state_dict(kept)
    return best


def plot_fit(out: Path) -> Path | None:
    """``out/learning_curve.png``: the log losses by epoch (None before the first epoch)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    rows = [r for r in read_metrics(out) if "epoch" in r and "margin" not in r]
    if not rows:
        return None
    epochs = [r["epoch"] for r in rows]
    figure, axes = plt.subplots(figsize=(6, 4))
    axes.plot(epochs, [r["after_loss"] for r in rows], marker="o", label="after-card head, train")
    axes.plot(epochs, [r["held_out_after_loss"] for r in rows], marker="o",
              label="after-card head, held out")
    axes.plot(epochs, [r["held_out_tricks_head_loss"] for r in rows], linestyle="--",
              label="tricks head, held out")
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes.set_xlabel("epoch")
    axes.set_ylabel("log loss of the round's tricks")
    axes.set_title(f"the tricks head after a card ({rows[-1]['train_rows']:,} rows)")
    axes.grid(alpha=0.3)
    axes.legend()
    figure.tight_layout()
    path = out / CURVE_FILE
    figure.savefig(path, dpi=90)
    plt.close(figure)
    return path


def _inputs(policy: NetPolicy, rows: Rows) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """The trunk's hidden layer, the possible trick counts and the labels of ``rows``."""
    net = policy.net
    hidden, possible = [], []
    for start in range(0, len(rows["tricks"]), 8192):
        features = torch.from_numpy(rows["features"][start:start + 8192].astype(np.float32))
        h, _ = net.trunk_out(features, torch.from_numpy(rows["masks"][start:start + 8192]))
        hidden.append(h)
        possible.append(net.possible(features))
    return (torch.cat(hidden), torch.cat(possible),
            torch.from_numpy(rows["tricks"].astype(np.int64)))


def _loss(logits: torch.Tensor, possible: torch.Tensor, tricks: torch.Tensor) -> torch.Tensor:
    masked = torch.where(possible, logits, torch.tensor(MASKED, dtype=logits.dtype))
    return -torch.log_softmax(masked, -1).gather(1, tricks[:, None]).mean()


__all__ = ["AfterHeadConfig", "after_rows", "fit", "plot_fit", "train_after_head"]
