"""The `Policy` interface (the seed's), its registry, checkpoints, and `NetPolicy`.

A checkpoint is a directory: ``policy.json`` (the registered type name, the
constructor config, the encoding version, training metadata) plus whatever
``save_weights`` writes (``weights.pt`` for `NetPolicy`: network and optimiser).

Decisions follow the serving contract: cards and trump from the policy head,
bids by the highest expected Wizard score under the tricks head's distribution
for each legal bid (`wizard.ai.policy.with_bid`, `bid_scores`).
"""

from __future__ import annotations

import json
import pickle
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, ClassVar, TypeVar

import numpy as np
import torch
from torch import nn

from wizard.ai.encoding import ENCODING_VERSION
from wizard.ai.policy import BID_POINTS_PER_LOGIT, bid_scores, bidding_rows, with_bid
from wizard.engine import BID_BASE, MAX_BID

from .network import PolicyNet

CHECKPOINT_FILE = "policy.json"
_POLICIES: dict[str, type[Policy]] = {}
P = TypeVar("P", bound="type[Policy]")


class CheckpointError(ValueError):
    """A checkpoint that cannot be loaded: missing, corrupt, unknown type, old encoding."""


def register_policy(cls: P) -> P:
    """Class decorator: make checkpoints of ``cls.type_name`` loadable by `load_checkpoint`."""
    _POLICIES[cls.type_name] = cls
    return cls


class Policy(ABC):
    """What a trainer needs from a policy; subclasses are registered with `register_policy`."""

    type_name: ClassVar[str]

    @abstractmethod
    def select(self, features: np.ndarray, masks: np.ndarray, *, explore: bool = False
               ) -> np.ndarray:
        """One legal action index per row; ``explore`` samples instead of taking the best."""

    @abstractmethod
    def update(self, batch: Mapping[str, np.ndarray]) -> dict[str, float]:
        """One optimisation step on a batch; returns its losses."""

    @abstractmethod
    def config(self) -> dict[str, Any]:
        """Constructor keyword arguments, stored in the checkpoint."""

    @abstractmethod
    def save_weights(self, directory: Path) -> None:
        """Write the parameters (and optimiser state) into ``directory``."""

    @classmethod
    @abstractmethod
    def load(cls, directory: Path, config: Mapping[str, Any]) -> Policy:
        """Rebuild from ``config`` and the weights in ``directory``."""


def save_checkpoint(policy: Policy, directory: Path, meta: Mapping[str, Any] | None = None
                    ) -> Path:
    """Write ``policy`` as a checkpoint directory (written to a temporary name, then renamed)."""
    directory = Path(directory)
    staging = directory.with_name(directory.name + ".tmp")
    staging.mkdir(parents=True, exist_ok=True)
    policy.save_weights(staging)
    record = {"type": policy.type_name, "config": policy.config(),
              "encoding_version": ENCODING_VERSION, "meta": dict(meta or {})}
    (staging / CHECKPOINT_FILE).write_text(json.dumps(record, indent=2) + "\n")
    if directory.exists():
        old = directory.with_name(directory.name + ".old")
        directory.rename(old)
        staging.rename(directory)
        for item in old.iterdir():
            item.unlink()
        old.rmdir()
    else:
        staging.rename(directory)
    return directory


def read_checkpoint(directory: Path) -> dict[str, Any]:
    """``policy.json`` of a checkpoint; raises `CheckpointError` when unusable."""
    path = Path(directory) / CHECKPOINT_FILE
    if not path.is_file():
        raise CheckpointError(f"{directory} is not a checkpoint: {CHECKPOINT_FILE} is missing")
    try:
        record = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise CheckpointError(f"cannot read {path}: {exc}") from exc
    if not isinstance(record, dict) or not isinstance(record.get("config"), dict):
        raise CheckpointError(f"{path} is not a checkpoint record")
    if record.get("encoding_version") != ENCODING_VERSION:
        raise CheckpointError(f"{directory} was trained with encoding version "
                              f"{record.get('encoding_version')}, this build encodes "
                              f"version {ENCODING_VERSION}")
    return record


def load_checkpoint(directory: Path) -> Policy:
    """Load any registered policy from its checkpoint directory; raises `CheckpointError`."""
    record = read_checkpoint(directory)
    cls = _POLICIES.get(str(record.get("type")))
    if cls is None:
        raise CheckpointError(f"unknown policy type {record.get('type')!r} in {directory}; "
                              f"known: {', '.join(sorted(_POLICIES))}")
    try:
        return cls.load(Path(directory), record["config"])
    except (OSError, RuntimeError, KeyError, TypeError, ValueError, EOFError,
            pickle.UnpicklingError) as exc:
        raise CheckpointError(f"cannot load the weights in {directory}: {exc}") from exc


def _bid_logits(score: Callable[[np.ndarray, np.ndarray], np.ndarray], features: np.ndarray,
                masks: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Expected-score logits ``[len(rows), 21]`` of every legal bid (-inf where illegal)."""
    owners, bids = np.nonzero(masks[rows, BID_BASE:BID_BASE + MAX_BID + 1])
    out = np.full((len(rows), MAX_BID + 1), -np.inf, np.float32)
    tricks = score(with_bid(features[rows[owners]], bids), masks[rows[owners]])
    out[owners, bids] = bid_scores(tricks, bids) / BID_POINTS_PER_LOGIT
    return out


@register_policy
class NetPolicy(Policy):
    """`PolicyNet` trained with Adam; imitation or PPO losses, chosen by the batch's keys.

    A batch always has ``features``, ``masks``, ``tricks`` (the round's final
    tricks of the seat) and ``returns`` (the round's score / 100). Imitation adds
    ``actions`` and ``imitate`` (1 where the policy head learns), and ``targets``
    when it learns a distribution (a labeller's soft targets) rather than the action;
    PPO adds ``actions``, ``old_logp``, ``advantages`` and ``ppo`` (1 on the
    decisions the policy head made).
    """

    type_name = "mlp"

    def __init__(self, hidden: tuple[int, ...] | list[int] = (256, 256), lr: float = 1e-3,
                 clip: float = 0.2, entropy: float = 0.01, value_weight: float = 0.5,
                 tricks_weight: float = 1.0, seed: int = 0, sense: bool = False,
                 card_head: int = 0, after_head: bool = False, after_hidden: int = 0) -> None:
        torch.manual_seed(seed)
        self.net = PolicyNet(tuple(hidden), sense=sense, card_head=card_head,
                             after_head=after_head, after_hidden=after_hidden)
        self.hyper: dict[str, Any] = {"hidden": list(self.net.hidden), "lr": lr, "clip": clip,
                                      "entropy": entropy, "value_weight": value_weight,
                                      "tricks_weight": tricks_weight, "seed": seed,
                                      "sense": sense, "card_head": card_head,
                                      **({"after_head": True} if after_head else {}),
                                      **({"after_hidden": after_hidden} if after_hidden else {})}
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=lr)

    def config(self) -> dict[str, Any]:
        return dict(self.hyper)

    def set_lr(self, lr: float) -> None:
        for group in self.optimizer.param_groups:
            group["lr"] = lr

    def save_weights(self, directory: Path) -> None:
        torch.save({"net": self.net.state_dict(), "optimizer": self.optimizer.state_dict()},
                   directory / "weights.pt")

    @classmethod
    def load(cls, directory: Path, config: Mapping[str, Any]) -> NetPolicy:
        policy = cls(**config)
        state = torch.load(directory / "weights.pt", weights_only=True)
        policy.net.load_state_dict(state["net"])
        policy.optimizer.load_state_dict(state["optimizer"])
        return policy

    # -- deciding -----------------------------------------------------------------------------

    @torch.no_grad()
    def tricks_probs(self, features: np.ndarray, masks: np.ndarray) -> np.ndarray:
        _, tricks, _ = self.net(torch.from_numpy(features), torch.from_numpy(masks))
        return torch.softmax(tricks, -1).numpy()

    @torch.no_grad()
    def act(self, features: np.ndarray, masks: np.ndarray, *, explore: bool,
            rng: np.random.Generator, bid_temperature: float = 0.0
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Actions, their log-probabilities under the policy head, and the values.

        Bids maximise the expected score (sampled at ``bid_temperature`` in
        logits of `BID_POINTS_PER_LOGIT` points when above 0).
        """
        logits, _, value = self.net(torch.from_numpy(features), torch.from_numpy(masks))
        logp = torch.log_softmax(logits, -1).numpy()
        if explore:  # a sample of the softmax: argmax of log-probabilities plus Gumbel noise
            actions = (logp + rng.gumbel(size=logp.shape)).argmax(axis=1)
        else:
            actions = logp.argmax(axis=1)
        rows = bidding_rows(masks)
        if rows.size:
            bid = _bid_logits(self.tricks_probs, features, masks, rows)
            if bid_temperature > 0:
                noisy = bid / bid_temperature + rng.gumbel(size=bid.shape)
                actions[rows] = BID_BASE + noisy.argmax(axis=1)
            else:
                actions[rows] = BID_BASE + bid.argmax(axis=1)
        chosen = logp[np.arange(len(actions)), actions]
        return actions.astype(np.int64), chosen, value.numpy()

    def select(self, features: np.ndarray, masks: np.ndarray, *, explore: bool = False,
               seed: int | None = None) -> np.ndarray:
        rng = np.random.default_rng(seed)
        return self.act(features, masks, explore=explore, rng=rng)[0]

    # -- learning -----------------------------------------------------------------------------

    def update(self, batch: Mapping[str, np.ndarray]) -> dict[str, float]:
        t = {k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in batch.items()}
        logits, tricks_logits, value = self.net(t["features"].float(), t["masks"])
        logp_all = torch.log_softmax(logits, -1)
        tricks_logp = torch.log_softmax(tricks_logits, -1)
        tricks_loss = -tricks_logp.gather(1, t["tricks"].long()[:, None]).mean()
        value_loss = ((value - t["returns"].float()) ** 2).mean()
        stats = {"tricks_loss": tricks_loss.item(), "value_loss": value_loss.item()}
        loss = self.hyper["tricks_weight"] * tricks_loss + self.hyper["value_weight"] * value_loss
        actions = t["actions"].long()[:, None]
        if "advantages" in t:
            weight = t["ppo"].float()
            logp = logp_all.gather(1, actions).squeeze(1)
            ratio = torch.exp(logp - t["old_logp"].float())
            adv = t["advantages"].float()
            clip = self.hyper["clip"]
            surrogate = torch.min(ratio * adv, torch.clamp(ratio, 1 - clip, 1 + clip) * adv)
            probs = torch.exp(logp_all)
            entropy = -(probs * torch.where(t["masks"], logp_all, 0.0)).sum(-1)
            count = weight.sum().clamp(min=1.0)
            policy_loss = -(surrogate * weight).sum() / count
            entropy_mean = (entropy * weight).sum() / count
            loss = loss + policy_loss - self.hyper["entropy"] * entropy_mean
            stats |= {"policy_loss": policy_loss.item(), "entropy": entropy_mean.item(),
                      "clip_fraction": float((((ratio - 1).abs() > clip).float() * weight).sum()
                                             / count)}
        else:
            weight = t["imitate"].float()
            best = actions.squeeze(1)
            if "targets" in t:  # one-hot rows, or a labeller's soft targets
                targets = t["targets"].float()
                nll = -torch.where(targets > 0, targets * logp_all, 0.0).sum(-1)
                best = targets.argmax(-1)  # the label's best (the learner's own move differs)
            else:
                nll = -logp_all.gather(1, actions).squeeze(1)
            # each row by its cost (teacher.py: the spread of the teacher's values), a mean
            costed = weight * t["cost"].float() if "cost" in t else weight
            imitation_loss = (nll * costed).sum() / costed.sum().clamp(min=1e-6)
            # agreement: over the decisions with a choice (a forced card agrees trivially)
            chosen = weight * (t["masks"].sum(-1) > 1).float()
            agree = ((logp_all.argmax(-1) == best).float() * chosen).sum() / chosen.sum().clamp(
                min=1.0)
            loss = loss + imitation_loss
            stats |= {"imitation_loss": imitation_loss.item(), "agreement": agree.item()}
        self.optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(self.net.parameters(), 1.0)
        self.optimizer.step()
        return stats


__all__ = ["CheckpointError", "NetPolicy", "Policy", "load_checkpoint", "read_checkpoint",
           "register_policy", "save_checkpoint"]
