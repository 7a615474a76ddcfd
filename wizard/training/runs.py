"""A training stage's run directory: how a stage starts (fresh or resumed) and saves.

Both stages (`imitate.train_imitation`, `ppo.train_ppo`) keep their checkpoint
in ``<out>/checkpoint``; its metadata counts the games trained so far and lists
every session that trained it (``training``), so a resumed run carries on where
the last checkpoint stood and its history shows each session.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

from wizard.ai.encoding import ENCODING_VERSION

from .network import PolicyNet
from .onnx_graphs import weights_from_onnx
from .policy import (
    CheckpointError,
    NetPolicy,
    Policy,
    load_checkpoint,
    read_checkpoint,
    save_checkpoint,
)

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


def load_init(path: Path) -> tuple[Policy, list[dict[str, Any]]]:
    """What a stage starts from, with the sessions that trained it: a checkpoint directory,
    or an exported policy file (``.onnx``, e.g. the shipped ``models/default.onnx``), whose
    weights fill a fresh `NetPolicy` (a new optimiser) and whose model card's ``training``
    carries over. An after-card tricks head (`wizard.training.after_head`) is not carried
    over: it was fitted to the trunk as it was, and a stage that trains the trunk would leave
    it reading features it was not fitted on (fit a new one last). Raises `CheckpointError`
    when neither is usable.
    """
    path = Path(path)
    if not (path.is_file() and path.suffix == ".onnx"):
        policy = load_checkpoint(path)
        if isinstance(policy, NetPolicy) and policy.net.after_head is not None:
            fresh = NetPolicy(**{**policy.config(), "after_head": False, "after_hidden": 0})
            fresh.net.load_state_dict({k: v for k, v in policy.net.state_dict().items()
                                       if not k.startswith(("after_head.", "after_deep."))})
            policy = fresh
        return policy, history_of(read_checkpoint(path))
    card_path = path.with_suffix(".json")
    card: dict[str, Any] = {}
    if card_path.is_file():
        try:
            card = json.loads(card_path.read_text())
        except ValueError as exc:
            raise CheckpointError(f"cannot read the model card {card_path}: {exc}") from exc
    if card.get("encoding_version", ENCODING_VERSION) != ENCODING_VERSION:
        raise CheckpointError(f"{path} was trained with encoding version "
                              f"{card['encoding_version']}, this build encodes "
                              f"version {ENCODING_VERSION}")
    try:
        net = PolicyNet.from_weights(weights_from_onnx(path))
    except ValueError as exc:
        raise CheckpointError(f"cannot start from {path}: {exc}") from exc
    policy = NetPolicy(hidden=net.hidden, sense=net.sense, card_head=net.card_head)
    net.after_head = net.after_deep = None  # not carried over (see the docstring)
    policy.net.load_state_dict(net.state_dict())
    history = [entry for entry in card.get("training", []) if isinstance(entry, dict)]
    return policy, [*history, {"stage": "exported", "file": str(path),
                               "command": f"--init {path}: training goes on from this file"}]


def save_run(policy: Policy, run: Run, games: int, session: dict[str, Any], started: float,
             evaluation: dict[str, Any]) -> None:
    """Checkpoint ``policy`` after ``games``, with this session (since ``started``) listed."""
    entry = {**session, "ended_at_games": games, "seconds": round(time.time() - started, 1)}
    save_checkpoint(policy, run.checkpoint, {"games": games, "training": [*run.history, entry],
                                             "evaluation": evaluation})


__all__ = ["CHECKPOINT_DIR", "Run", "history_of", "load_init", "open_run", "save_run"]
