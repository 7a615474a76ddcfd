"""A training stage's run directory: how a stage starts (fresh or resumed) and saves.

Both stages (`imitate.train_imitation`, `ppo.train_ppo`) keep their checkpoint
in ``<out>/checkpoint``; its metadata counts the games trained so far and lists
every session that trained it (``training``), so a resumed run carries on where
the last checkpoint stood and its history shows each session.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

from .policy import Policy, load_checkpoint, read_checkpoint, save_checkpoint

CHECKPOINT_DIR = "checkpoint"


@dataclass
class Run:
    """A stage's run: its checkpoint directory and what earlier sessions left there.

    ``policy`` is the resumed policy (``None`` for a fresh run), ``done`` the games it
    was trained on, ``history`` the earlier sessions' entries.
    """

    checkpoint: Path
    policy: Policy | None = None
    done: int = 0
    history: list[dict[str, Any]] = field(default_factory=list)


def open_run(out: Path, *, resume: bool) -> Run:
    """Prepare ``out`` for a stage: its checkpoint resumed, or checked to hold no run yet.

    Raises `CheckpointError` when ``resume`` finds no usable checkpoint and
    `ValueError` when ``out`` already holds a run and ``resume`` is not set.
    """
    out.mkdir(parents=True, exist_ok=True)
    checkpoint = out / CHECKPOINT_DIR
    torch.set_num_threads(1)
    if not resume:
        if checkpoint.exists():
            raise ValueError(f"{out} already holds a run; pass --resume or another --out")
        return Run(checkpoint)
    record = read_checkpoint(checkpoint)
    return Run(checkpoint, load_checkpoint(checkpoint), int(record["meta"].get("games", 0)),
               history_of(record))


def history_of(record: dict[str, Any]) -> list[dict[str, Any]]:
    """The training sessions listed in a checkpoint record (`read_checkpoint`)."""
    return list(record["meta"].get("training", []))


def save_run(policy: Policy, run: Run, games: int, session: dict[str, Any], started: float,
             evaluation: dict[str, Any]) -> None:
    """Checkpoint ``policy`` after ``games``, with this session (since ``started``) listed."""
    entry = {**session, "ended_at_games": games, "seconds": round(time.time() - started, 1)}
    save_checkpoint(policy, run.checkpoint, {"games": games, "training": [*run.history, entry],
                                             "evaluation": evaluation})


__all__ = ["CHECKPOINT_DIR", "Run", "history_of", "open_run", "save_run"]
