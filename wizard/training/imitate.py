"""Stage (a): imitation of a teacher agent, with the tricks head learning bid outcomes.

Teacher games are played in worker processes (`teacher.iter_teacher_chunks`)
and streamed into a replay buffer; after each chunk the network takes
``epochs`` passes' worth of minibatch steps sampled from the buffer. The
learning rate decays linearly to a tenth over the run. Checkpoints go to
``OUT/checkpoint`` (resumable: the run continues at the next chunk), metrics to
``OUT/metrics.jsonl``, a duplicate evaluation against three heuristics every
``eval_every`` games, and ``OUT/learning_curve.png`` at the end.
"""

from __future__ import annotations

import sys
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from wizard.ai.policy import bidding_rows

from .card_head import new_card_head
from .export import write_temp_policy
from .network import PolicyNet
from .onnx_graphs import add_card_sense, widen
from .policy import NetPolicy
from .progress import append_metrics, evaluate_against_heuristics, plot_learning_curve
from .runs import load_init, open_run, save_run
from .teacher import ROW_KEYS, Rows, TeacherConfig, iter_teacher_chunks


@dataclass(frozen=True, slots=True)
class ImitationConfig:
    games: int = 20_000
    teacher: str = "heuristic"
    hidden: tuple[int, ...] = (256, 256)
    lr: float = 1e-3
    batch: int = 512
    epochs: float = 2.0
    buffer_rows: int = 600_000
    chunk: int = 100
    explore_bids: float = 0.3
    keep_plays: float = 0.35
    eval_every: int = 5_000
    eval_games: int = 400
    checkpoint_every: int = 2_000
    workers: int = 1
    seed: int = 1
    labeller: str | None = None
    soft_temperature: float = 5.0
    learner_seats: float = 0.0  # > 0: the net plays that share of the seats (teacher.py)
    widen: tuple[int, ...] = ()  # wider hidden layers for the ``init`` net (`widen`)
    card_sense: bool = False  # the net reads the card-sense features (`card_sense`)
    opponents: tuple[str, ...] = ()
    cost_weight: float = 0.0  # > 0: card rows weighted by the teacher's spread (teacher.py)
    card_head: int = 0  # > 0: the ``init`` net gains a card head of this size (`card_head`)
    card_lookahead: float = 0.0  # > 0: the learner and the evaluations play one card ahead
    after_card_rows: bool = False  # the tricks head also learns the rows after each card
    explore_cards: float = 0.0  # chance of one random card a learner seat and round


class ReplayBuffer:
    """A fixed-capacity ring of rows; the oldest rows are overwritten first."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.size = 0
        self.cursor = 0
        self.data: Rows = {}

    def add(self, rows: Rows) -> None:
        count = len(rows["actions"])
        if not self.data:
            self.data = {k: np.zeros((self.capacity, *v.shape[1:]), v.dtype)
                         for k, v in rows.items()}
        for start in range(0, count, self.capacity):
            part = {k: v[start:start + self.capacity] for k, v in rows.items()}
            n = len(part["actions"])
            end = self.cursor + n
            first = min(end, self.capacity) - self.cursor
            for key in ROW_KEYS:
                self.data[key][self.cursor:self.cursor + first] = part[key][:first]
                self.data[key][:n - first] = part[key][first:]
            self.cursor = end % self.capacity
            self.size = min(self.capacity, self.size + n)

    def sample(self, rng: np.random.Generator, count: int) -> dict[str, np.ndarray]:
        picks = rng.integers(0, self.size, count)
        batch = {k: v[picks] for k, v in self.data.items()}
        batch["features"] = batch["features"].astype(np.float32)
        return batch


class LearnerFiles:
    """The net as it stands, written as ``directory/learner-N.onnx`` for each chunk that
    it plays; the files of chunks long done are removed."""

    def __init__(self, directory: Path, policy: NetPolicy, keep: int,
                 card_lookahead: float = 0.0) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self.directory, self.policy, self.keep = directory, policy, keep
        self.card_lookahead = card_lookahead
        self.count = 0

    def __call__(self) -> Path:
        self.count += 1
        stale = self.directory / f"learner-{self.count - self.keep - 1}.onnx"
        stale.unlink(missing_ok=True)
        stale.with_suffix(".json").unlink(missing_ok=True)
        return write_temp_policy(self.policy, self.directory, f"learner-{self.count}",
                                 self.card_lookahead)


def train_imitation(out: Path, config: ImitationConfig, *, resume: bool = False,
                    command: str = "", progress: bool = True, init: Path | None = None) -> Path:
    """Run stage (a) into ``out``, from ``init`` (a checkpoint) or a fresh net; returns the
    checkpoint directory.

    With ``config.labeller`` (expert iteration) the policy head learns the
    labeller's soft targets (`wizard.training.teacher`). Raises `CheckpointError`
    when ``resume`` finds no usable checkpoint or ``init`` is unusable, and
    `ValueError` when ``out`` already holds a run and ``resume`` is not set.
    """
    run = open_run(out, resume=resume)
    checkpoint, done = run.checkpoint, run.done
    if run.policy is None and init is not None:
        loaded, run.history = load_init(init)
        if not isinstance(loaded, NetPolicy):
            raise ValueError(f"imitation trains a NetPolicy, not {loaded.type_name}")
        policy = loaded
        has_head = policy.net.card_head
        if config.card_head > 0 and has_head and has_head != config.card_head:
            raise ValueError(f"{init} already has a card head of {has_head} units; a card head "
                             f"of {config.card_head} cannot replace it (leave out --card-head)")
        adds_head = config.card_head > 0 and not has_head
        if config.widen or (config.card_sense and not policy.net.sense) or adds_head:
            weights = policy.net.to_weights()
            if config.widen:
                weights = widen(weights, config.widen, seed=config.seed)
            if config.card_sense and not policy.net.sense:
                weights = add_card_sense(weights)
            if adds_head:
                weights = replace(weights, cards=new_card_head(
                    weights.trunk[-1][0].shape[1], config.card_head, seed=config.seed))
            net = PolicyNet.from_weights(weights)
            policy = NetPolicy(hidden=net.hidden, lr=config.lr, seed=config.seed,
                               sense=net.sense, card_head=net.card_head)
            policy.net.load_state_dict(net.state_dict())
        policy.set_lr(config.lr)
    elif run.policy is None:
        policy = NetPolicy(hidden=config.hidden, lr=config.lr, seed=config.seed,
                           sense=config.card_sense, card_head=config.card_head)
    elif done >= config.games:  # already complete: nothing to add to its history
        return checkpoint
    else:
        assert isinstance(run.policy, NetPolicy)
        policy = run.policy
    teacher = TeacherConfig(config.teacher, config.explore_bids, config.keep_plays,
                            labeller=config.labeller, soft_temperature=config.soft_temperature,
                            learner_seats=config.learner_seats, opponents=config.opponents,
                            cost_weight=config.cost_weight,
                            after_card_rows=config.after_card_rows,
                            explore_cards=config.explore_cards)
    learner = LearnerFiles(out / "learner", policy, keep=config.workers + 1,
                           card_lookahead=config.card_lookahead) \
        if config.learner_seats > 0 else None
    buffer = ReplayBuffer(config.buffer_rows)
    rng = np.random.default_rng(config.seed + done)
    started = time.time()
    session = {"stage": "imitate", "command": command, "config": asdict(config),
               "started_at_games": done}
    evaluation: dict[str, Any] = {}
    bar = tqdm(total=config.games, initial=done, unit="game", disable=not progress,
               file=sys.stderr, dynamic_ncols=True)
    remaining = config.games - done
    chunks = iter_teacher_chunks(teacher, max(0, remaining), config.seed + done,
                                 workers=config.workers, chunk=config.chunk, learner=learner)
    last_eval = done // config.eval_every
    last_checkpoint = done // config.checkpoint_every
    for played, rows in chunks:
        total = done + played
        buffer.add(rows)
        policy.set_lr(config.lr * (1.0 - 0.9 * total / config.games))
        steps = max(1, int(len(rows["actions"]) * config.epochs / config.batch))
        losses: dict[str, list[float]] = {}
        for _ in range(steps):
            for key, value in policy.update(buffer.sample(rng, config.batch)).items():
                losses.setdefault(key, []).append(value)
        elapsed = time.time() - started
        record: dict[str, Any] = {
            "stage": "imitate", "total_games": total,
            "games_per_s": round(played / max(elapsed, 1e-9), 2),
            "mean_round_score": round(float(rows["returns"][bidding_rows(rows["masks"])].mean())
                                      * 100, 2),  # one bid a seat and round
            **{k: round(float(np.mean(v)), 4) for k, v in losses.items()},
        }
        if total // config.eval_every > last_eval or total == config.games:
            last_eval = total // config.eval_every
            evaluation = evaluate_against_heuristics(policy, config.eval_games,
                                                     jobs=config.workers,
                                                     card_lookahead=config.card_lookahead)
            record |= evaluation
        append_metrics(out, record)
        bar.update(played - (bar.n - done))
        bar.set_postfix(games_s=record["games_per_s"], round_score=record["mean_round_score"],
                        agree=record.get("agreement"), margin=evaluation.get("margin"))
        if total // config.checkpoint_every > last_checkpoint or total == config.games:
            last_checkpoint = total // config.checkpoint_every
            save_run(policy, run, total, session, started, evaluation)
    bar.close()
    save_run(policy, run, max(done, config.games), session, started, evaluation)
    labelled = f", labelled by {config.labeller}" if config.labeller else ""
    plot_learning_curve(out, f"imitation of {config.teacher}{labelled}")
    return checkpoint

