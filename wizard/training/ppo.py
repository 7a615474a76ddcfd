"""Stage (b): PPO self-play over `VectorWizardEnv` (clipped objective, GAE, entropy bonus).

``envs`` games are stepped together; each step asks one batched forward pass of
the learner for every game whose seat to move is a learner seat (one more of a
frozen earlier checkpoint for the "past" seats; the heuristic decides its own
seats). Seats are dealt out per game: a heuristic with ``heuristic_share``, an
earlier checkpoint with ``past_share``, else the learner itself (at least one).

Each learner seat's decisions of one round form an episode; its reward is the
round's Wizard score / 100 at the last decision, so every round is scored on its
own. Card and trump decisions are PPO actions (advantages by GAE over the
round, gamma 1). Bids are not: the learner bids by expected score from the
tricks head (sampled at ``bid_temperature``), and every decision teaches the
tricks head the tricks the seat ended the round with, so bids follow the
improving card play. Rounds still open at the end of a rollout wait for the
next one (their old log-probabilities keep the ratio right).
"""

from __future__ import annotations

import copy
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from tqdm import tqdm

from wizard.ai.agents import HeuristicAgent
from wizard.ai.policy import with_bid
from wizard.engine import action_index

from .env import VectorWizardEnv
from .policy import NetPolicy
from .progress import append_metrics, evaluate_against_heuristics, plot_learning_curve
from .runs import load_init, open_run, save_run

LEARNER, PAST, HEURISTIC = 0, 1, 2


@dataclass(frozen=True, slots=True)
class PpoConfig:
    games: int = 20_000
    envs: int = 64
    rollout: int = 64
    epochs: int = 3
    batch: int = 1024
    lr: float = 3e-4
    clip: float = 0.2
    entropy: float = 0.01
    gae_lambda: float = 0.95
    heuristic_share: float = 0.4
    past_share: float = 0.2
    past_every: int = 10  # updates between snapshots of the learner for the "past" seats
    past_keep: int = 5
    bid_temperature: float = 0.5
    eval_every: int = 5_000
    eval_games: int = 400
    checkpoint_every: int = 2_000
    workers: int = 1  # processes of the periodic evaluation (the games step in this one)
    seed: int = 1


@dataclass(slots=True)
class _Step:
    features: np.ndarray
    mask: np.ndarray
    action: int
    logp: float
    value: float
    ppo: bool


@dataclass(slots=True)
class _Collector:
    """Open rounds per (game, seat) and the finished rows waiting for an update."""

    lam: float
    open: dict[tuple[int, int], list[_Step]] = field(default_factory=dict)
    rows: dict[str, list[Any]] = field(default_factory=lambda: {
        k: [] for k in ("features", "masks", "actions", "old_logp", "advantages", "returns",
                        "tricks", "ppo")})
    round_scores: list[float] = field(default_factory=list)

    def add(self, game: int, seat: int, step: _Step) -> None:
        self.open.setdefault((game, seat), []).append(step)

    def close_round(self, game: int, seat: int, reward: float, tricks: int) -> None:
        steps = self.open.pop((game, seat), [])
        if not steps:
            return
        self.round_scores.append(reward * 100.0)
        policy_steps = [s for s in steps if s.ppo]
        advantage, next_value = 0.0, 0.0
        advantages = [0.0] * len(policy_steps)
        for t in range(len(policy_steps) - 1, -1, -1):
            last = t == len(policy_steps) - 1
            delta = (reward if last else 0.0) + next_value - policy_steps[t].value
            advantage = delta + self.lam * advantage
            advantages[t] = advantage
            next_value = policy_steps[t].value
        by_step = {id(s): a for s, a in zip(policy_steps, advantages, strict=True)}
        for s in steps:
            self.rows["features"].append(s.features)
            self.rows["masks"].append(s.mask)
            self.rows["actions"].append(s.action)
            self.rows["old_logp"].append(s.logp)
            self.rows["advantages"].append(by_step.get(id(s), 0.0))
            self.rows["returns"].append(reward)
            self.rows["tricks"].append(tricks)
            self.rows["ppo"].append(s.ppo)

    def drop_game(self, game: int) -> None:
        for key in [k for k in self.open if k[0] == game]:
            del self.open[key]

    def take(self) -> dict[str, np.ndarray]:
        rows = self.rows
        out = {
            "features": np.stack(rows["features"]).astype(np.float32),
            "masks": np.stack(rows["masks"]).astype(np.bool_),
            "actions": np.asarray(rows["actions"], np.int64),
            "old_logp": np.asarray(rows["old_logp"], np.float32),
            "advantages": np.asarray(rows["advantages"], np.float32),
            "returns": np.asarray(rows["returns"], np.float32),
            "tricks": np.asarray(rows["tricks"], np.int64),
            "ppo": np.asarray(rows["ppo"], np.bool_),
        }
        for values in rows.values():
            values.clear()
        return out


def _deal_roles(rng: np.random.Generator, players: int, config: PpoConfig,
                have_past: bool) -> list[int]:
    draws = rng.random(players)
    roles = [HEURISTIC if d < config.heuristic_share
             else PAST if have_past and d < config.heuristic_share + config.past_share
             else LEARNER for d in draws]
    if LEARNER not in roles:
        roles[int(rng.integers(players))] = LEARNER
    return roles


def train_ppo(out: Path, config: PpoConfig, *, init: Path | None = None, resume: bool = False,
              command: str = "", progress: bool = True) -> Path:
    """Run stage (b) into ``out``, starting from ``init`` (or a fresh net); returns the checkpoint.

    Raises `CheckpointError` for an unusable ``init`` or resume checkpoint and
    `ValueError` when ``out`` already holds a run and ``resume`` is not set.
    """
    run = open_run(out, resume=resume)
    checkpoint, done = run.checkpoint, run.done
    if run.policy is not None:
        if done >= config.games:  # already complete: nothing to add to its history
            return checkpoint
        loaded = run.policy
    elif init is not None:
        loaded, run.history = load_init(init)
    else:
        loaded = NetPolicy(seed=config.seed)
    if not isinstance(loaded, NetPolicy):
        raise ValueError(f"PPO trains a NetPolicy, not {loaded.type_name}")
    policy = loaded
    policy.hyper.update(clip=config.clip, entropy=config.entropy)
    policy.set_lr(config.lr)
    past_pool: list[dict[str, torch.Tensor]] = [copy.deepcopy(policy.net.state_dict())]
    past_net = copy.deepcopy(policy.net).eval()
    past = NetPolicy.__new__(NetPolicy)
    past.net, past.hyper = past_net, policy.hyper
    heuristic = HeuristicAgent()
    rng = np.random.default_rng(config.seed + done)
    vec = VectorWizardEnv(config.envs, seed=config.seed + done)
    state = vec.reset()
    roles = [_deal_roles(rng, env.game.num_players, config, True)  # type: ignore[union-attr]
             for env in vec.envs]
    collector = _Collector(config.gae_lambda)
    session = {"stage": "ppo", "command": command, "config": asdict(config),
               "started_at_games": done}
    started = time.time()
    evaluation: dict[str, Any] = {}
    bar = tqdm(total=config.games, initial=done, unit="game", disable=not progress,
               file=sys.stderr, dynamic_ncols=True)
    last_eval, last_checkpoint = done // config.eval_every, done // config.checkpoint_every
    updates, decisions = 0, 0
    total = done
    while total < config.games:
        for _ in range(config.rollout):
            actions = np.zeros(vec.num_envs, np.int64)
            role_of = np.array([roles[i][int(p)] for i, p in enumerate(state.players)])
            for role, net in ((LEARNER, policy), (PAST, past)):
                rows = np.flatnonzero(role_of == role)
                if rows.size == 0:
                    continue
                chosen, logp, values = net.act(
                    state.features[rows], state.masks[rows], explore=role == LEARNER, rng=rng,
                    bid_temperature=config.bid_temperature if role == LEARNER else 0.0)
                actions[rows] = chosen
                if role != LEARNER:
                    continue
                bidding = chosen <= 20
                for k, row in enumerate(rows.tolist()):
                    features = state.features[row]
                    if bidding[k]:
                        features = with_bid(features[None, :], chosen[k:k + 1])[0]
                    collector.add(row, int(state.players[row]), _Step(
                        features, state.masks[row], int(chosen[k]), float(logp[k]),
                        float(values[k]), not bool(bidding[k])))
            for row in np.flatnonzero(role_of == HEURISTIC).tolist():
                actions[row] = action_index(heuristic.act(vec.observations[row]))
            decisions += vec.num_envs
            state = vec.step(actions)
            for i, result in enumerate(state.round_results):
                if result is not None:
                    for seat in range(len(result.tricks)):
                        collector.close_round(i, seat, state.rewards[i, seat], result.tricks[seat])
                if state.dones[i]:
                    collector.drop_game(i)
                    total += 1
                    bar.update(1)
                    game = vec.envs[i].game
                    assert game is not None
                    roles[i] = _deal_roles(rng, game.num_players, config, True)
        if not collector.rows["actions"]:
            continue
        batch = collector.take()
        ppo_rows = batch["ppo"]
        if ppo_rows.any():
            adv = batch["advantages"][ppo_rows]
            batch["advantages"][ppo_rows] = (adv - adv.mean()) / (adv.std() + 1e-8)
        losses: dict[str, list[float]] = {}
        count = len(batch["actions"])
        for _ in range(config.epochs):
            order = rng.permutation(count)
            for start in range(0, count, config.batch):
                picks = order[start:start + config.batch]
                for key, value in policy.update({k: v[picks] for k, v in batch.items()}).items():
                    losses.setdefault(key, []).append(value)
        updates += 1
        if updates % config.past_every == 0:
            past_pool = [*past_pool, copy.deepcopy(policy.net.state_dict())][-config.past_keep:]
        past_net.load_state_dict(past_pool[int(rng.integers(len(past_pool)))])
        elapsed = time.time() - started
        scores = collector.round_scores
        record: dict[str, Any] = {
            "stage": "ppo", "total_games": total, "updates": updates,
            "games_per_s": round((total - done) / max(elapsed, 1e-9), 2),
            "decisions_per_s": round(decisions / max(elapsed, 1e-9), 1),
            "mean_round_score": round(float(np.mean(scores)), 2) if scores else None,
            **{k: round(float(np.mean(v)), 4) for k, v in losses.items()},
        }
        collector.round_scores = []
        if total // config.eval_every > last_eval or total >= config.games:
            last_eval = total // config.eval_every
            evaluation = evaluate_against_heuristics(policy, config.eval_games,
                                                     jobs=config.workers)
            record |= evaluation
        append_metrics(out, record)
        bar.set_postfix(games_s=record["games_per_s"], round_score=record["mean_round_score"],
                        margin=evaluation.get("margin"))
        if total // config.checkpoint_every > last_checkpoint or total >= config.games:
            last_checkpoint = total // config.checkpoint_every
            save_run(policy, run, total, session, started, evaluation)
    bar.close()
    save_run(policy, run, total, session, started, evaluation)
    plot_learning_curve(out, "PPO self-play")
    return checkpoint

