"""ONNX policies: the learned player's network, served by onnxruntime (never torch).

Contract of a policy file ``models/<name>.onnx`` (with its model card
``models/<name>.json``, whose ``kind`` is ``"policy"`` or absent):

- inputs ``features`` float32 ``[N, FEATURE_SIZE]`` and ``mask`` bool ``[N, 85]``
  (`ActionSpace.mask`: True at the legal actions);
- outputs ``probs`` float32 ``[N, 85]``, the action probabilities with every
  illegal action at exactly 0, and ``tricks`` float32 ``[N, TRICKS_SIZE]``, the
  distribution of the tricks the seat ends the round with (0 beyond the round's
  number of cards). An optional output ``after_tricks`` (`AFTER_OUTPUT`, same shape)
  is the tricks distribution of a row after a card: the card lookahead reads it
  where the file has it (`wizard.training.after_head`). Further outputs
  (``value``) are ignored here.

Cards and the trump choice come from ``probs``. Bids come from ``tricks``: each
legal bid is written into the bidding observation's features (`with_bid`) and
the bid with the highest expected Wizard score under its predicted tricks
distribution wins (`bid_scores`). `OnnxPolicy.logits` folds both into one row of
decision logits per observation, so every caller chooses the same way.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from wizard.engine import BID_BASE, MAX_BID, NUM_ACTIONS, PLAY_BASE
from wizard.engine.rules import round_score

from .encoding import BLOCKS, ENCODING_VERSION, FEATURE_SIZE, ActionSpace
from .lookahead import CARD_COLUMNS, after_card, card_rows

MASKED = np.float32(-1e9)
#: the tricks head covers 0..20 tricks (20 cards is the largest hand)
TRICKS_SIZE = MAX_BID + 1
#: expected points per unit of bid logit: a bid 10 points better is e times likelier
#: when a bot samples its decisions at temperature 1
BID_POINTS_PER_LOGIT = 10.0
INPUT_NAMES = ("features", "mask")
OUTPUT_NAMES = ("probs", "tricks")
#: the optional output the card lookahead reads: the tricks distribution of a row after a card
AFTER_OUTPUT = "after_tricks"

_OWN = BLOCKS["own"].start
_BALANCE = BLOCKS["bid_balance"].start
_BIDS = slice(BID_BASE, BID_BASE + MAX_BID + 1)
#: SCORE_TABLE[b, t]: the Wizard score of bid b when the round ends with t tricks
SCORE_TABLE = np.array(
    [[round_score(b, t) for t in range(TRICKS_SIZE)] for b in range(MAX_BID + 1)], np.float32
)


def models_dir() -> Path:
    """Where shipped policies live: ``WIZARD_MODELS_DIR``, else the models the installed
    package carries, else the checkout's ``models/`` (see `wizard.resources`)."""
    configured = os.environ.get("WIZARD_MODELS_DIR")
    if configured:
        return Path(configured)
    from wizard.resources import shipped

    return shipped("models")


class PolicyError(RuntimeError):
    """A policy file that cannot be used (missing, unreadable, wrong shape or encoding)."""


@dataclass(frozen=True, slots=True)
class PolicyOutput:
    probs: npt.NDArray[np.float32]  # (N, 85), 0 at illegal actions
    tricks: npt.NDArray[np.float32]  # (N, TRICKS_SIZE)
    after: npt.NDArray[np.float32] | None = None  # (N, TRICKS_SIZE): `AFTER_OUTPUT`, if any


def bidding_rows(masks: npt.NDArray[np.bool_]) -> npt.NDArray[np.int64]:
    """Indices of the rows whose legal actions are bids.

    >>> mask = np.zeros((2, 85), bool); mask[0, 3] = mask[1, 30] = True
    >>> bidding_rows(mask).tolist()
    [0]
    """
    return np.flatnonzero(masks[:, _BIDS].any(axis=1)).astype(np.int64)


def with_bid(features: npt.NDArray[np.float32], bids: npt.NDArray[np.integer[Any]]
             ) -> npt.NDArray[np.float32]:
    """Bidding features as they would read once the seat has bid ``bids[i]`` (row by row).

    The tricks head reads these to predict the round's outcome of each bid. The
    phase stays "bidding", so the network knows it is asked before any card.
    Raises `ValueError` when the shapes disagree.

    >>> rows = with_bid(np.zeros((1, 315), np.float32), np.array([4]))
    >>> [round(float(x), 6) for x in rows[0, 274:278]]  # has bid, bid, tricks, bid-tricks
    [1.0, 0.2, 0.0, 0.2]
    """
    if features.ndim != 2 or features.shape[0] != len(bids):
        raise ValueError(f"need one bid per feature row, got {features.shape} and {len(bids)}")
    out = features.copy()
    value = np.asarray(bids, np.float32) / 20.0
    out[:, _OWN] = 1.0
    out[:, _OWN + 1] = value
    out[:, _OWN + 3] = value - out[:, _OWN + 2]  # (bid - tricks) / 20
    out[:, _BALANCE] += value
    return out


def bid_scores(tricks: npt.NDArray[np.float32], bids: npt.NDArray[np.integer[Any]]
               ) -> npt.NDArray[np.float32]:
    """Expected Wizard score of bid ``bids[i]`` under the tricks distribution ``tricks[i]``.

    >>> certain_two = np.zeros((2, 21), np.float32); certain_two[:, 2] = 1
    >>> bid_scores(certain_two, np.array([2, 1])).tolist()
    [40.0, -10.0]
    """
    table = SCORE_TABLE[np.asarray(bids, np.int64)]
    return np.asarray((tricks * table).sum(axis=1), np.float32)


class OnnxPolicy:
    """An onnxruntime session around one policy file, with one intra-op thread.

    Raises `PolicyError` when the file is missing, is not ONNX, lacks the
    ``features``/``mask`` inputs or ``probs``/``tricks`` outputs, expects another
    feature count, or when its model card names another encoding version.
    """

    def __init__(self, path: str | os.PathLike[str], *, threads: int = 1) -> None:
        import onnxruntime as ort  # imported here: the engine-only paths never need it

        self.path = Path(path)
        if not self.path.is_file():
            raise PolicyError(f"policy file {self.path} does not exist")
        self.card = read_model_card(self.path)
        kind = self.card.get("kind", "policy")  # no kind: an action policy
        if kind != "policy":
            raise PolicyError(f"{self.path.name} is a {kind!r} network, not an action policy")
        version = self.card.get("encoding_version", ENCODING_VERSION)
        if version != ENCODING_VERSION:
            raise PolicyError(
                f"{self.path.name} was trained with encoding version {version}, "
                f"this build encodes version {ENCODING_VERSION}"
            )
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        try:
            self.session = ort.InferenceSession(
                str(self.path), sess_options=options, providers=["CPUExecutionProvider"]
            )
        except Exception as exc:  # onnxruntime raises several unrelated types
            raise PolicyError(f"cannot load {self.path}: {exc}") from exc
        inputs = {i.name: i for i in self.session.get_inputs()}
        outputs = {o.name for o in self.session.get_outputs()}
        missing = [n for n in INPUT_NAMES if n not in inputs]
        missing += [n for n in OUTPUT_NAMES if n not in outputs]
        if missing:
            raise PolicyError(f"{self.path.name} lacks {', '.join(missing)} (not a policy file "
                              f"of this contract: inputs features, mask; outputs probs, tricks)")
        width = inputs["features"].shape[-1]
        if width != FEATURE_SIZE:
            raise PolicyError(f"{self.path.name} expects {width} features, not {FEATURE_SIZE}")
        self.name = str(self.card.get("name", self.path.stem))
        self.lookahead = card_lookahead(self.card, self.path.name)
        self.outputs = [*OUTPUT_NAMES, *([AFTER_OUTPUT] if AFTER_OUTPUT in outputs else [])]

    def run(self, features: npt.NDArray[np.float32], masks: npt.NDArray[np.bool_]
            ) -> PolicyOutput:
        """The raw outputs for ``features [N, FEATURE_SIZE]`` and ``masks [N, 85]``.

        Raises `ValueError` when the policy's outputs do not fit the masks.
        """
        probs, tricks, *after = (np.asarray(out, np.float32) for out in self.session.run(
            self.outputs, {"features": features, "mask": np.ascontiguousarray(masks)}))
        if probs.shape != masks.shape:
            raise ValueError(f"policy logits have shape {probs.shape}, masks {masks.shape}")
        for name, out in zip(self.outputs[1:], (tricks, *after), strict=True):
            if out.shape != (len(masks), TRICKS_SIZE):
                raise ValueError(f"policy output {name} has shape {out.shape}, "
                                 f"not ({len(masks)}, {TRICKS_SIZE})")
        return PolicyOutput(probs, tricks, after[0] if after else None)

    def logits(self, features: npt.NDArray[np.float32], masks: npt.NDArray[np.bool_],
               lookahead: npt.NDArray[np.float32] | float | None = None
               ) -> npt.NDArray[np.float32]:
        """Decision logits ``[N, 85]``: illegal actions at -1e9, the best legal one highest.

        Card and trump rows hold the log of ``probs``; bidding rows hold each
        legal bid's expected score / `BID_POINTS_PER_LOGIT`, from the tricks head
        reading the row as it would be after that bid (one row per legal bid).
        A card row with a choice, where ``lookahead`` (points per logit, a row's
        or every row's; ``None``: the policy's own, `OnnxPolicy.lookahead`) is
        above 0, adds each legal card's expected score after it / ``lookahead``
        (`wizard.ai.lookahead`, one row per legal card). The rows, the bids' and
        the cards' go through the network in one ONNX call; a bidding row's own
        ``probs`` are never used, so it is not run. Raises `ValueError` when the
        outputs do not fit.
        """
        n = len(masks)
        points = np.broadcast_to(np.asarray(self.lookahead if lookahead is None else lookahead,
                                            np.float32), (n,))
        bidding = bidding_rows(masks)
        playing = np.setdiff1d(np.arange(n), bidding, assume_unique=True)
        owners, bids = np.nonzero(masks[bidding][:, _BIDS])
        asked = bidding[owners]
        looking = card_rows(features, masks)
        looking = looking[points[looking] > 0]
        lookers, cards = np.nonzero(masks[looking][:, CARD_COLUMNS])
        after, after_masks = after_card(features[looking[lookers]], cards)
        if not asked.size and not lookers.size:
            out = self.run(features, masks)
        else:
            out = self.run(np.concatenate([features[playing], with_bid(features[asked], bids),
                                           after]),
                           np.concatenate([masks[playing], masks[asked], after_masks]))
        logits = np.full(masks.shape, MASKED, np.float32)
        with np.errstate(divide="ignore"):
            logits[playing] = np.log(out.probs[:playing.size])
        if asked.size:
            tricks = out.tricks[playing.size:playing.size + asked.size]
            rows = np.full((bidding.size, NUM_ACTIONS), MASKED, np.float32)
            rows[owners, BID_BASE + bids] = bid_scores(tricks, bids) / BID_POINTS_PER_LOGIT
            logits[bidding] = rows
        if lookers.size:
            who = looking[lookers]
            own_bids = np.rint(features[who, _OWN + 1] * 20.0).astype(np.int64)
            after_tricks = out.tricks if out.after is None else out.after
            expected = bid_scores(after_tricks[playing.size + asked.size:], own_bids)
            logits[who, PLAY_BASE + cards] += expected / points[who]
        return np.where(masks, logits, MASKED).astype(np.float32)


def choose(
    logits: npt.NDArray[np.float32],
    mask: npt.NDArray[np.bool_],
    *,
    temperature: float = 0.0,
    uniform: float | None = None,
) -> int:
    """Pick an action index from one row of logits among the legal ones.

    ``temperature`` 0 takes the best legal action; above 0 samples from the
    softmax at that temperature using ``uniform`` (a draw in [0, 1)), so the
    caller owns the randomness and a seeded caller is reproducible.
    Raises `ValueError` when no action is legal.
    """
    legal = np.flatnonzero(mask)
    if legal.size == 0:
        raise ValueError("no legal action to choose from")
    values = logits[legal].astype(np.float64)
    if temperature <= 0.0 or uniform is None:
        return int(legal[int(np.argmax(values))])
    scaled = (values - values.max()) / temperature
    weights = np.exp(scaled)
    cumulative = np.cumsum(weights / weights.sum())
    pick = int(np.searchsorted(cumulative, uniform, side="right"))
    return int(legal[min(pick, legal.size - 1)])


def read_model_card(path: Path) -> dict[str, Any]:
    """The JSON model card beside a policy file, or ``{}`` when there is none.

    Raises `PolicyError` for a card that is not a JSON object.
    """
    card_path = path.with_suffix(".json")
    if not card_path.is_file():
        return {}
    try:
        data = json.loads(card_path.read_text())
    except (OSError, ValueError) as exc:
        raise PolicyError(f"cannot read model card {card_path}: {exc}") from exc
    if not isinstance(data, dict):
        raise PolicyError(f"model card {card_path} must hold a JSON object")
    return data


def card_lookahead(card: dict[str, Any], name: str) -> float:
    """A model card's ``card_lookahead`` (points per logit, `OnnxPolicy.logits`): 0 when
    absent (the policy's cards as its probabilities have them). Raises `PolicyError` for a
    value that is not a number of at least 0."""
    value = card.get("card_lookahead", 0.0)
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value < 1e6:
        raise PolicyError(f"{name}: card_lookahead must be a number of points per logit, "
                          f"0 or more, got {value!r}")
    return float(value)


__all__ = ["AFTER_OUTPUT", "BID_POINTS_PER_LOGIT", "SCORE_TABLE", "TRICKS_SIZE", "ActionSpace",
           "OnnxPolicy", "PolicyError", "PolicyOutput", "bid_scores", "bidding_rows",
           "card_lookahead", "choose", "models_dir", "read_model_card", "with_bid"]
