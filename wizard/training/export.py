"""``wizard export CHECKPOINT --out models/NAME.onnx``: a checkpoint to a served policy file.

The ONNX graph is built from the trained weights (`onnx_graphs.mlp_policy`),
then checked: torch and onnxruntime must agree on `PARITY_OBSERVATIONS`
encoded observations from real games (heuristic games of 3–6 players, every
rule option) to `PARITY_TOLERANCE` on every output, else nothing is written.
The model card beside it records the encoding version, the sizes, the training
commands and duration, the evaluation results and the parity measured.
"""

from __future__ import annotations

import json
import random
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import onnx

from wizard.ai.agents import HeuristicAgent
from wizard.ai.encoding import ENCODING_VERSION, FEATURE_SIZE, ActionSpace, encode_observation
from wizard.ai.policy import AFTER_OUTPUT, OnnxPolicy
from wizard.engine import GameOptions, WizardGame

from .network import PolicyNet
from .onnx_graphs import mlp_policy, write_model_card
from .policy import CheckpointError, NetPolicy, load_checkpoint, read_checkpoint

PARITY_OBSERVATIONS = 1000
PARITY_TOLERANCE = 1e-4


class ExportError(RuntimeError):
    """Export refused: torch and onnxruntime disagree, or the checkpoint is not exportable."""


def parity_observations(count: int = PARITY_OBSERVATIONS, seed: int = 0
                        ) -> tuple[np.ndarray, np.ndarray]:
    """Features and masks of ``count`` decisions from heuristic games (3–6 players, all options)."""
    rng = random.Random(f"parity:{seed}")
    agent = HeuristicAgent()
    features: list[np.ndarray] = []
    masks: list[np.ndarray] = []
    flags = [(h, f, w) for h in (False, True) for f in (False, True) for w in (False, True)]
    game_number = 0
    while len(features) < count:
        hidden, forbid, chooses = flags[game_number % len(flags)]
        options = GameOptions(hidden_bids=hidden, forbid_even_bids=forbid,
                              wizard_trump_dealer_chooses=chooses)
        game = WizardGame(3 + game_number % 4, options, seed=rng.getrandbits(63))
        game_number += 1
        while not game.is_finished and len(features) < count:
            seat = game.current_player
            assert seat is not None
            obs = game.observation(seat)
            if rng.random() < 0.25:
                features.append(encode_observation(obs))
                masks.append(ActionSpace.mask(obs))
            game.apply(seat, agent.act(obs))
    return np.stack(features), np.stack(masks)


def check_parity(net: PolicyNet, path: Path, features: np.ndarray, masks: np.ndarray) -> float:
    """Largest absolute difference between torch and onnxruntime over every output."""
    import onnxruntime as ort

    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    ours = net.outputs(features, masks)
    names = ["probs", "tricks", "value", *([AFTER_OUTPUT] if net.after_head is not None else [])]
    theirs = session.run(names, {"features": features, "mask": masks})
    return max(float(np.max(np.abs(a - b))) for a, b in zip(ours, theirs, strict=True))


def export_policy(checkpoint: Path, out: Path, *, name: str | None = None,
                  card_extra: Mapping[str, Any] | None = None, card_lookahead: float = 0.0,
                  parity_count: int = PARITY_OBSERVATIONS) -> dict[str, Any]:
    """Write ``out`` (.onnx) and its model card from ``checkpoint``; returns the card.

    Raises `CheckpointError` for an unusable checkpoint and `ExportError` when
    parity fails (then neither file is written).
    """
    if out.suffix != ".onnx":
        raise ExportError(f"the policy file must end in .onnx, got {out}")
    record = read_checkpoint(checkpoint)
    policy = load_checkpoint(checkpoint)
    if not isinstance(policy, NetPolicy):
        raise ExportError(f"{checkpoint} holds a {policy.type_name} policy, not an exportable net")
    net = policy.net.eval()
    name = name or out.stem
    model = mlp_policy(net.to_weights(), name=name)
    features, masks = parity_observations(parity_count)
    with tempfile.TemporaryDirectory() as scratch:
        staged = Path(scratch) / out.name
        onnx.save(model, str(staged))
        difference = check_parity(net, staged, features, masks)
        if not difference < PARITY_TOLERANCE:
            raise ExportError(f"torch and onnxruntime disagree by {difference:.3g} "
                              f"(limit {PARITY_TOLERANCE}) on {len(features)} observations; "
                              f"nothing written")
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(staged.read_bytes())
    params = sum(p.numel() for p in net.parameters())
    deep = net.after_deep.hidden.out_features if net.after_deep is not None else 0
    meta = record.get("meta", {})
    card: dict[str, Any] = {
        "name": name,
        "encoding_version": ENCODING_VERSION,
        "trained": True,
        "architecture": f"mlp {FEATURE_SIZE}{' + card sense 243' if net.sense else ''}-"
                        f"{'-'.join(map(str, net.hidden))} "
                        f"heads: policy {ActionSpace.SIZE}, tricks 21, value 1"
                        f"{f', card head {net.card_head} a card' if net.card_head else ''}"
                        f"{', tricks after a card 21' if net.after_head is not None else ''}"
                        f"{f' (+ a ReLU layer of {deep})' if deep else ''}",
        "card_sense": net.sense,
        "card_head": net.card_head,
        "sizes": {"features": FEATURE_SIZE, "actions": ActionSpace.SIZE, "tricks": 21,
                  "hidden": list(net.hidden), "parameters": params,
                  "file_bytes": out.stat().st_size},
        "inputs": {"features": f"float32 [N, {FEATURE_SIZE}]", "mask": "bool [N, 85]"},
        "outputs": {"probs": "float32 [N, 85], illegal actions 0",
                    "tricks": "float32 [N, 21], tricks at the end of the round",
                    "value": "float32 [N, 1], round score / 100",
                    **({AFTER_OUTPUT: "float32 [N, 21], tricks at the end of the round, read "
                                      "after a card (the card lookahead's)"}
                       if net.after_head is not None else {})},
        "decisions": "cards and trump: argmax of probs; bids: highest expected score "
                     "under tricks for each legal bid" + (
                         "; cards with a choice: log probs + the expected score of the bid "
                         f"under {AFTER_OUTPUT if net.after_head is not None else 'tricks'} "
                         "after each card / card_lookahead (wizard.ai.lookahead)"
                         if card_lookahead > 0 else ""),
        "card_lookahead": card_lookahead,
        "parity": {"observations": len(features), "max_abs_diff": difference,
                   "tolerance": PARITY_TOLERANCE},
        "training": meta.get("training", []),
        "training_seconds": int(sum(session.get("seconds", 0)
                                    for session in meta.get("training", []))),
        "evaluation": meta.get("evaluation", {}),
        "checkpoint": str(checkpoint),
    }
    card.update(card_extra or {})
    write_model_card(out, card)
    OnnxPolicy(out)  # the served loader accepts it
    return card


def evaluation_summary(directory: Path) -> dict[str, Any]:
    """The model card's ``evaluation`` from the ``eval_NAME.json`` files in ``directory``
    (each the output of ``wizard evaluate --json``, the policy the first agent): for each
    NAME the command, the policy's result, the mean of the other agents, the policy's
    margin over them (with its paired interval, where the evaluation gives one) and
    whether the intervals are apart. The policy may sit at several
    seats (``model,oi,model,oi``): its result is the first, its margin over their mean."""
    runs: dict[str, Any] = {}
    for path in sorted(directory.glob("eval_*.json")):
        result = json.loads(path.read_text())
        model = result["agents"][0]
        mine = [a for a in result["agents"] if a["name"] == model["name"]]
        others = [a for a in result["agents"] if a["name"] != model["name"]]
        if not others:
            raise ExportError(f"{path} has no agent but the policy to compare with")
        mean_mine = sum(a["mean"] for a in mine) / len(mine)
        mean_others = sum(a["mean"] for a in others) / len(others)
        seed = f" --seed {result['seed']}" if "seed" in result else ""
        runs[path.stem.removeprefix("eval_")] = {
            "command": f"wizard evaluate --agents {','.join(a['name'] for a in result['agents'])}"
                       f" --games {result['games']}{seed}",
            "games": result["games"], "model": model,
            "others_mean": round(mean_others, 2), "margin": round(mean_mine - mean_others, 2),
            "intervals_apart": model["ci95"][0] > max(a["ci95"][1] for a in others),
            **({"margin_ci95": [round(x, 2) for x in model["margin_ci95"]]}  # paired by deal
               if "margin_ci95" in model else {}),
        }
    return runs


def write_temp_policy(policy: NetPolicy, directory: Path, name: str = "candidate",
                      card_lookahead: float = 0.0) -> Path:
    """The policy as an ONNX file for an in-training evaluation or game (no parity check);
    with ``card_lookahead`` > 0 a model card that asks for the cards one card ahead."""
    path = directory / f"{name}.onnx"
    onnx.save(mlp_policy(policy.net.to_weights(), name=name), str(path))
    card = path.with_suffix(".json")
    if card_lookahead > 0:
        write_model_card(path, {"name": name, "card_lookahead": card_lookahead})
    else:
        card.unlink(missing_ok=True)
    return path


__all__ = ["PARITY_OBSERVATIONS", "PARITY_TOLERANCE", "CheckpointError", "ExportError",
           "check_parity", "export_policy", "parity_observations", "write_temp_policy"]
