"""Self-play training of the OI networks (torch): `train_oi` behind ``wizard train oi``.

Recipe (seed ``002``, adapted): the first epoch's games are played by the
heuristic (with exploring random moves), so the first networks learn from
sensible play; every later epoch plays whole games with every seat an
`OIAgent` on the current networks (with ``exploration``), records for every
decision the feature rows of the cards in hand (a share ``overall_sample_rate``
of them, they are strongly correlated) and of the card played, and labels them
1/0 by whether that card won a trick later in the round (overall) or won the
trick it was played to (immediate). Only rows the agent actually asks the
networks about are kept: certain cases are never learned. Each epoch trains
on the data of its own games plus the ``replay_epochs`` before, with a
learning rate that decays per epoch.

Metrics per epoch (``metrics.jsonl``): Brier score (= mean squared error
against the 0/1 labels) and log loss of both networks on that epoch's *fresh*
games, before training on them; mean score per OI seat. At the end ``heldout_games``
new games with exploration 0 give the calibration (`calibration_bins`,
``calibration.png``) and the final metrics; as many games with one OI seat
among heuristic players give ``calibration_vs_heuristic.png``.
"""

from __future__ import annotations

import json
import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import torch
from torch import nn

from wizard.ai.agents import HeuristicAgent
from wizard.ai.oi import (
    IMMEDIATE_KIND,
    IMMEDIATE_NAME,
    OVERALL_KIND,
    OVERALL_NAME,
    OIAgent,
    OIDecision,
)
from wizard.ai.oi.features import OI_FEATURE_SIZE, OI_FEATURE_VERSION
from wizard.engine import GameOptions, PlayCard, RoundCompleted, TrickCompleted, WizardGame

from .oi_export import export_mlp
from .oi_metrics import brier, calibration_bins, log_loss, max_calibration_gap, plot_calibration

Array = npt.NDArray[np.float32]


@dataclass(frozen=True, slots=True)
class OITrainConfig:
    """Everything that decides a training run (recorded in the model cards)."""

    games: int = 2000  # self-play games after the bootstrap epoch
    bootstrap_games: int = 200  # heuristic-played games of the first epoch
    games_per_epoch: int = 100
    heldout_games: int = 100
    players: tuple[int, ...] = (3, 4, 5, 6)
    hidden: tuple[int, ...] = (64, 32)
    learning_rate: float = 3e-3
    lr_decay: float = 0.93  # per epoch
    min_learning_rate: float = 2e-4
    passes: int = 2  # optimiser passes over an epoch's training data
    batch_size: int = 512
    replay_epochs: int = 2
    exploration: float = 0.05
    overall_sample_rate: float = 0.35
    option_rate: float = 0.25  # chance of each non-default option in a game
    heuristic_opponents: float = 0.2  # chance of each seat but the first being the heuristic
    seed: int = 1

    def __post_init__(self) -> None:
        if self.games < 0 or self.bootstrap_games < 1 or self.games_per_epoch < 1:
            raise ValueError("need games >= 0, bootstrap_games >= 1 and games_per_epoch >= 1")
        if not self.players or any(not 3 <= n <= 6 for n in self.players):
            raise ValueError(f"players must be 3-6, got {self.players}")
        if not 0.0 < self.overall_sample_rate <= 1.0:
            raise ValueError("overall_sample_rate must be within (0, 1]")


class ProbabilityMLP(nn.Module):
    """``features -> (Linear, ReLU)* -> Linear -> logit``; `probability` applies the sigmoid."""

    def __init__(self, hidden: Sequence[int], inputs: int = OI_FEATURE_SIZE) -> None:
        super().__init__()
        layers: list[nn.Module] = []
        width = inputs
        for size in hidden:
            layers += [nn.Linear(width, size), nn.ReLU()]
            width = size
        layers.append(nn.Linear(width, 1))
        self.net = nn.Sequential(*layers)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x).squeeze(-1)  # type: ignore[no-any-return]

    def probability(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sigmoid(self.forward(x))

    def linear_layers(self) -> list[tuple[Array, Array]]:
        """``(weight (in, out), bias)`` of each linear layer, as numpy float32."""
        return [(m.weight.detach().numpy().T.astype(np.float32).copy(),
                 m.bias.detach().numpy().astype(np.float32).copy())
                for m in self.net if isinstance(m, nn.Linear)]


class NumpyMLP:
    """A frozen copy of a `ProbabilityMLP` evaluated in numpy (self-play needs no torch call)."""

    def __init__(self, model: ProbabilityMLP) -> None:
        self.layers = model.linear_layers()

    def __call__(self, x: Array) -> Array:
        h = x
        for i, (w, b) in enumerate(self.layers):
            h = h @ w + b
            if i < len(self.layers) - 1:
                np.maximum(h, 0.0, out=h)
        # the logistic function without overflow: 1 / (1 + e^−z) = e^−log(1 + e^−z)
        out: Array = np.exp(-np.logaddexp(0.0, -h[:, 0])).astype(np.float32)
        return out


@dataclass(slots=True)
class Samples:
    """Labelled rows of one network, with the prediction made when they were recorded."""

    keep_rows: bool = True  # False: only labels and predictions (held-out games)
    rows: list[Array] = field(default_factory=list)
    labels: list[float] = field(default_factory=list)
    predicted: list[float] = field(default_factory=list)

    def add(self, row: Array, label: float, predicted: float) -> None:
        if self.keep_rows:
            # float16 halves the memory (features are 0/1 or coarse fractions); a copy, not a
            # view that would keep the decision's whole matrix alive
            self.rows.append(row.astype(np.float16))
        self.labels.append(label)
        self.predicted.append(predicted)

    def __len__(self) -> int:
        return len(self.labels)

    def arrays(self) -> tuple[Array, Array, Array]:
        x = np.stack(self.rows).astype(np.float32) if self.rows else np.zeros(
            (0, OI_FEATURE_SIZE), np.float32)
        return x, np.array(self.labels, np.float32), np.array(self.predicted, np.float32)


@dataclass(slots=True)
class EpochData:
    keep_rows: bool = True
    overall: Samples = field(init=False)
    immediate: Samples = field(init=False)
    scores: list[float] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.overall = Samples(self.keep_rows)
        self.immediate = Samples(self.keep_rows)


def game_options(rng: random.Random, rate: float) -> GameOptions:
    return GameOptions(hidden_bids=rng.random() < rate,
                       forbid_even_bids=rng.random() >= rate,
                       wizard_trump_dealer_chooses=rng.random() < rate)


def play_recorded_game(
    agents: Sequence[OIAgent | None], seed: int, options: GameOptions, data: EpochData,
    sample: Callable[[], bool], heuristic_exploration: float | None = None,
    rng: random.Random | None = None,
) -> None:
    """Play one game and add the labelled samples of the OI seats to ``data``.

    A ``None`` seat is a heuristic player (opponent variety), not recorded.

    With ``heuristic_exploration`` set, the heuristic chooses (a random legal
    move with that chance, from ``rng``) and the agents only compute features.
    """
    n = len(agents)
    game = WizardGame(n, options, seed=seed)
    heuristic = HeuristicAgent()
    pending_overall: list[tuple[int, Array, float]] = []  # card, row, predicted
    pending_immediate: dict[int, tuple[Array, float]] = {}  # card -> row, predicted
    won_cards: set[int] = set()
    while not game.is_finished:
        player = game.current_player
        assert player is not None
        obs = game.observation(player)
        agent = agents[player]
        if agent is None:
            decision = OIDecision(heuristic.act(obs))
        else:
            decision = agent.decide(obs, record=True)
        action = decision.action
        if heuristic_exploration is not None:
            assert rng is not None
            if rng.random() < heuristic_exploration:
                action = rng.choice(obs.legal_actions)
            else:
                action = heuristic.act(obs)
        if decision.features is not None:
            assert decision.overall_asked is not None and decision.p_overall is not None
            for i, card in enumerate(decision.cards):
                if decision.overall_asked[i] and sample():
                    pending_overall.append(
                        (card, decision.features[i], float(decision.p_overall[i])))
            if isinstance(action, PlayCard):
                card = action.card.id
                i = decision.cards.index(card)
                if card in decision.immediate_asked:
                    pending_immediate[card] = (decision.features[i], decision.p_immediate[card])
        for event in game.apply(player, action):
            if isinstance(event, TrickCompleted):
                trick = event.trick
                winning = next(p.card.id for p in trick.cards if p.player == trick.winner)
                won_cards.add(winning)
                for played in trick.cards:
                    entry = pending_immediate.pop(played.card.id, None)
                    if entry is not None:
                        data.immediate.add(entry[0], float(played.card.id == winning), entry[1])
            elif isinstance(event, RoundCompleted):
                for card, row, predicted in pending_overall:
                    data.overall.add(row, float(card in won_cards), predicted)
                pending_overall.clear()
                won_cards.clear()
    data.scores.extend(float(s) for s, a in zip(game.scores, agents, strict=True) if a is not None)


def fit(model: ProbabilityMLP, x: Array, y: Array, *, lr: float, passes: int, batch: int,
        generator: torch.Generator) -> float:
    """Minimise binary cross-entropy on ``(x, y)``; returns the last pass's mean loss."""
    if len(y) == 0:
        return math.nan
    optimiser = torch.optim.Adam(model.parameters(), lr=lr)
    xs, ys = torch.from_numpy(x), torch.from_numpy(y)
    loss_fn = nn.BCEWithLogitsLoss()
    mean = math.nan
    for _ in range(passes):
        order = torch.randperm(len(ys), generator=generator)
        total, count = 0.0, 0
        for start in range(0, len(ys), batch):
            idx = order[start:start + batch]
            optimiser.zero_grad()
            loss = loss_fn(model(xs[idx]), ys[idx])
            loss.backward()
            optimiser.step()
            total += loss.item() * len(idx)
            count += len(idx)
        mean = total / count
    return mean


def _uniform(x: Array) -> Array:
    return np.full(len(x), 0.5, np.float32)


def _metrics(data: EpochData) -> dict[str, float]:
    _, yo, po = data.overall.arrays()
    _, yi, pi = data.immediate.arrays()
    return {
        "overall_samples": len(yo), "immediate_samples": len(yi),
        "overall_brier": brier(yo, po), "overall_log_loss": log_loss(yo, po),
        "immediate_brier": brier(yi, pi), "immediate_log_loss": log_loss(yi, pi),
        "mean_score": float(np.mean(data.scores)) if data.scores else math.nan,
    }


def _play_epoch(config: OITrainConfig, games: int, rng: random.Random, nets: tuple[Any, Any],
                *, exploration: float, bootstrap: bool, keep_rows: bool,
                update: Callable[[], None], opponents: float = 0.0) -> EpochData:
    data = EpochData(keep_rows)
    rate = config.overall_sample_rate if keep_rows else 1.0
    sample_rng = random.Random(rng.getrandbits(63))
    sample = (lambda: True) if rate >= 1.0 else (lambda: sample_rng.random() < rate)
    for _ in range(games):
        n = rng.choice(config.players)
        agents: list[OIAgent | None] = [
            OIAgent(nets[0], nets[1], exploration=0.0 if bootstrap else exploration,
                    seed=rng.getrandbits(63)) for _ in range(n)]
        for seat in range(1, n):
            if not bootstrap and rng.random() < opponents:
                agents[seat] = None
        play_recorded_game(agents, rng.getrandbits(63), game_options(rng, config.option_rate),
                           data, sample, config.exploration if bootstrap else None,
                           random.Random(rng.getrandbits(63)))
        update()
    return data


def _model_card(kind: str, name: str, config: OITrainConfig, model: ProbabilityMLP,
                extra: dict[str, Any]) -> dict[str, Any]:
    sizes = [OI_FEATURE_SIZE, *config.hidden, 1]
    return {
        "name": name, "kind": kind, "feature_version": OI_FEATURE_VERSION,
        "architecture": f"mlp {'-'.join(map(str, sizes))}, relu, sigmoid output",
        "parameters": sum(p.numel() for p in model.parameters()),
        "trained": True, "config": asdict(config), **extra,
    }


def train_oi(config: OITrainConfig, out: Path, *, command: str = "",
             progress: bool = True) -> dict[str, Any]:
    """Train both OI networks by self-play and write them to ``out`` (see the module docstring).

    Writes ``oi_overall.onnx`` / ``oi_immediate.onnx`` with model cards,
    ``metrics.jsonl``, ``calibration.png`` and ``summary.json``; returns the summary.
    """
    from tqdm import tqdm


    started = time.perf_counter()
    out.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(config.seed)
    torch.set_num_threads(1)
    rng = random.Random(config.seed)
    generator = torch.Generator().manual_seed(config.seed)
    overall, immediate = ProbabilityMLP(config.hidden), ProbabilityMLP(config.hidden)
    counts = [config.bootstrap_games]
    left = config.games
    while left > 0:
        counts.append(min(config.games_per_epoch, left))
        left -= counts[-1]
    total = sum(counts) + 2 * config.heldout_games
    bar = tqdm(total=total, unit="game", disable=not progress, dynamic_ncols=True)
    history: list[tuple[Array, Array, Array, Array]] = []
    metrics_path = out / "metrics.jsonl"
    metrics_path.write_text("")
    for epoch, games in enumerate(counts):
        bootstrap = epoch == 0
        nets = (_uniform, _uniform) if bootstrap else (NumpyMLP(overall), NumpyMLP(immediate))
        data = _play_epoch(config, games, rng, nets, exploration=config.exploration,
                           bootstrap=bootstrap, keep_rows=True, update=lambda: bar.update(1),
                           opponents=config.heuristic_opponents)
        fresh = _metrics(data)  # predictions made before these games were trained on
        xo, yo, _ = data.overall.arrays()
        xi, yi, _ = data.immediate.arrays()
        del data
        history = [*history[-config.replay_epochs:], (xo, yo, xi, yi)] if config.replay_epochs \
            else [(xo, yo, xi, yi)]
        lr = max(config.min_learning_rate, config.learning_rate * config.lr_decay ** epoch)
        loss_o, loss_i = (
            fit(model, np.concatenate([h[k] for h in history]),
                np.concatenate([h[k + 1] for h in history]), lr=lr, passes=config.passes,
                batch=config.batch_size, generator=generator)
            for model, k in ((overall, 0), (immediate, 2)))
        row = {"epoch": epoch, "games": games, "bootstrap": bootstrap, "learning_rate": lr,
               **fresh, "overall_train_loss": loss_o, "immediate_train_loss": loss_i,
               "elapsed_s": round(time.perf_counter() - started, 1)}
        with metrics_path.open("a") as f:
            f.write(json.dumps(row) + "\n")
        bar.set_postfix(epoch=epoch, O=f"{fresh['overall_brier']:.4f}",
                        I=f"{fresh['immediate_brier']:.4f}", score=f"{fresh['mean_score']:.0f}")
    del history
    final_nets = (NumpyMLP(overall), NumpyMLP(immediate))
    heldout = _play_epoch(config, config.heldout_games, random.Random(f"heldout:{config.seed}"),
                          final_nets, exploration=0.0, bootstrap=False, keep_rows=False,
                          update=lambda: bar.update(1))
    # the same networks with one OI seat among heuristic players (the evaluation's setting)
    mixed = _play_epoch(config, config.heldout_games, random.Random(f"mixed:{config.seed}"),
                        final_nets, exploration=0.0, bootstrap=False, keep_rows=False,
                        update=lambda: bar.update(1), opponents=1.0)
    bar.close()
    final = _metrics(heldout)
    bins = {"overall (p_O)": calibration_bins(*heldout.overall.arrays()[1:]),
            "immediate (p_I)": calibration_bins(*heldout.immediate.arrays()[1:])}
    gaps = {name: max_calibration_gap(rows) for name, rows in bins.items()}
    mixed_bins = {"overall (p_O)": calibration_bins(*mixed.overall.arrays()[1:]),
                  "immediate (p_I)": calibration_bins(*mixed.immediate.arrays()[1:])}
    plot_calibration(bins, out / "calibration.png",
                     f"OI calibration: {config.heldout_games} held-out self-play games")
    plot_calibration(mixed_bins, out / "calibration_vs_heuristic.png",
                     f"OI calibration: {config.heldout_games} held-out games, 1 OI seat "
                     "vs heuristics")
    duration = round(time.perf_counter() - started, 1)
    mixed_metrics = {k: v for k, v in _metrics(mixed).items() if k != "mean_score"}
    summary = {"heldout": final, "calibration": bins, "max_calibration_gap": gaps,
               "vs_heuristic": {**mixed_metrics, "calibration": mixed_bins,
                                "max_calibration_gap": {name: max_calibration_gap(rows)
                                                        for name, rows in mixed_bins.items()}},
               "duration_s": duration, "command": command, "config": asdict(config)}
    for kind, name, model in ((OVERALL_KIND, OVERALL_NAME, overall),
                              (IMMEDIATE_KIND, IMMEDIATE_NAME, immediate)):
        path = export_mlp(model.linear_layers(), out / f"{name}.onnx", name)
        prefix = "overall" if kind == OVERALL_KIND else "immediate"
        card = _model_card(kind, name, config, model, {
            "training_command": command, "training_duration_s": duration,
            "metrics": {k: v for k, v in final.items()
                        if k.startswith(prefix) or k == "mean_score"},
            "max_calibration_gap": gaps[next(n for n in bins if n.startswith(prefix))],
        })
        path.with_suffix(".json").write_text(json.dumps(card, indent=2, sort_keys=True) + "\n")
        torch.save(model.state_dict(), out / f"{name}.pt")
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    return summary


__all__ = ["NumpyMLP", "OITrainConfig", "ProbabilityMLP", "fit", "play_recorded_game",
           "train_oi"]
