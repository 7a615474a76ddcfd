"""The card head: one small network, shared by the 60 cards, that scores each card to play.

The MLP's policy head has a weight row per action, so what it learns about
playing the green 7 teaches it nothing about the blue 7: each card's use of its
card-sense features (`card_sense`: the unseen cards above it, whether the trick
beats it, trump, legal) is learned 60 times over. The card head learns it once.
For every card ``c`` it reads the state (the trunk's last layer ``h``, through
``query``), the card's own four sense features and a learned vector for the card
itself, and adds its score to that card's logit:

    score[c] = out · relu(h @ query + sense[c] @ reads + embed[c]) + bias

With ``out`` and ``bias`` zero (`new_card_head`) the net is the same function as
without the head, so a trained net gains it and training goes on from the same play
(as with card sense). `card_head_nodes` writes the same maths into the ONNX graph;
the ONNX contract (``features``, ``mask`` -> ``probs``, ``tricks``, ``value``) stays.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import onnx
from onnx import helper

from wizard.ai.encoding import FEATURE_SIZE, ActionSpace
from wizard.engine.cards import NUM_CARDS

from .card_sense import CARD_ACTIONS

Array = npt.NDArray[np.float32]
#: the per-card sense features the head reads: higher, beaten, trumps, legal (`card_sense`)
CARD_SENSES = 4
#: PLACE[c, a] = 1 when action a plays card c: the head's 60 scores as 85 logits
PLACE = np.zeros((NUM_CARDS, ActionSpace.SIZE), np.float32)
PLACE[np.arange(NUM_CARDS), np.arange(CARD_ACTIONS.start, CARD_ACTIONS.stop)] = 1.0


@dataclass(frozen=True)
class CardHeadWeights:
    """``query`` ``(H, K)`` and its bias, ``reads`` ``(4, K)``, ``embed`` ``(60, K)``,
    ``out`` ``(K, 1)`` and its bias ``(1,)``."""

    query: tuple[Array, Array]
    reads: Array
    embed: Array
    out: tuple[Array, Array]

    @property
    def size(self) -> int:
        return int(self.reads.shape[1])


def new_card_head(width: int, size: int, *, seed: int) -> CardHeadWeights:
    """A head over a trunk of ``width`` with ``size`` units a card; its output weights are
    zero, so it adds nothing until trained. Raises `ValueError` for a size below 1."""
    if size < 1:
        raise ValueError(f"the card head needs at least one unit, got {size}")
    rng = np.random.default_rng(seed)

    def he(fan_in: int, shape: tuple[int, ...]) -> Array:
        return np.asarray(rng.standard_normal(shape) * np.sqrt(2.0 / fan_in), np.float32)

    return CardHeadWeights((he(width, (width, size)), np.zeros(size, np.float32)),
                           he(CARD_SENSES, (CARD_SENSES, size)),
                           (0.1 * rng.standard_normal((NUM_CARDS, size))).astype(np.float32),
                           (np.zeros((size, 1), np.float32), np.zeros(1, np.float32)))


def card_scores(hidden: Array, sense: Array, head: CardHeadWeights) -> Array:
    """The head's 60 scores per row, ``[N, 60]`` (numpy reference), from the trunk's last
    layer and the 243 card-sense features."""
    per_card = sense[:, :CARD_SENSES * NUM_CARDS].reshape(-1, CARD_SENSES, NUM_CARDS)
    per_card = per_card.transpose(0, 2, 1)
    query = hidden @ head.query[0] + head.query[1]
    units = np.maximum(query[:, None, :] + per_card @ head.reads + head.embed, 0.0)
    return np.asarray((units @ head.out[0])[:, :, 0] + head.out[1], np.float32)


def card_head_nodes(nodes: list[onnx.NodeProto], const: Callable[[str, Any], str],
                    hidden: str, sensed: str, head: CardHeadWeights) -> str:
    """The nodes of `card_scores` over trunk output ``hidden`` and ``sensed`` (the features
    with the card sense appended); the name of the ``[N, 85]`` logits to add."""
    def node(op: str, inputs: list[str], out: str, **attrs: Any) -> str:
        nodes.append(helper.make_node(op, inputs, [out], **attrs))
        return out

    const("card_sense_at", np.array([FEATURE_SIZE], np.int64))
    const("card_sense_end", np.array([FEATURE_SIZE + CARD_SENSES * NUM_CARDS], np.int64))
    const("card_axis1", np.array([1], np.int64))
    const("card_shape", np.array([-1, CARD_SENSES, NUM_CARDS], np.int64))
    const("card_query_w", head.query[0])
    const("card_query_b", head.query[1])
    const("card_reads", head.reads)
    const("card_embed", head.embed)
    const("card_out_w", head.out[0])
    const("card_out_b", head.out[1])
    const("card_place", PLACE)
    const("card_axes", np.array([1], np.int64))
    const("card_last", np.array([2], np.int64))
    flat = node("Slice", [sensed, "card_sense_at", "card_sense_end", "card_axis1"],
                "card_sense_flat")
    per_card = node("Transpose", [node("Reshape", [flat, "card_shape"], "card_sense_4x60")],
                    "card_sense_60x4", perm=[0, 2, 1])
    query = node("Gemm", [hidden, "card_query_w", "card_query_b"], "card_query")
    units = node("Add", [node("Add", [node("MatMul", [per_card, "card_reads"], "card_read"),
                                      "card_embed"], "card_own"),
                         node("Unsqueeze", [query, "card_axes"], "card_query_1")], "card_sum")
    scores = node("Squeeze", [node("MatMul", [node("Relu", [units], "card_units"),
                                              "card_out_w"], "card_out"), "card_last"],
                  "card_scores_raw")
    scores = node("Add", [scores, "card_out_b"], "card_scores")
    return node("MatMul", [scores, "card_place"], "card_logits")


__all__ = ["CARD_SENSES", "PLACE", "CardHeadWeights", "card_head_nodes", "card_scores",
           "new_card_head"]
