"""Policy networks written straight to ONNX with `onnx.helper`: the contract of `wizard.ai.policy`.

One graph shape serves every policy file: a ReLU MLP trunk over ``features``
and three linear heads. ``probs`` is the softmax of the policy head with the
illegal actions (``mask`` False) at -1e9, so they get exactly 0; ``tricks`` is
the softmax of the tricks head over 0..round number (read from the features);
``value`` is the critic's estimate of the round's score / 100.

`mlp_policy` builds the graph from given weights (``wizard export`` passes the
trained ones and then checks parity with torch); `write_random_policy` writes
seeded random weights for tests and benchmarks. ``onnx`` is a dev/train extra:
serving code never imports this module.

>>> import tempfile, pathlib
>>> path = write_random_policy(pathlib.Path(tempfile.mkdtemp()), "tiny", hidden=(8,))
>>> path.name, path.with_suffix(".json").is_file()
('tiny.onnx', True)
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import onnx
from google.protobuf.message import DecodeError
from onnx import TensorProto, helper, numpy_helper

from wizard.ai.encoding import BLOCKS, ENCODING_VERSION, FEATURE_SIZE, ActionSpace
from wizard.ai.policy import AFTER_OUTPUT, TRICKS_SIZE
from wizard.engine.cards import NUM_CARDS

from . import card_sense
from .card_head import CardHeadWeights, card_head_nodes, new_card_head
from .card_sense import CARD_ACTIONS, SENSE_SIZE, SENSED_SIZE, STATES

#: the shape the shipped policy (v4, as v3) has (the pool benchmark plays a random one of it)
SHIPPED_HIDDEN: tuple[int, ...] = (512, 512)
SHIPPED_SENSE = True  # the shipped policy reads the card-sense features (`card_sense`)
SHIPPED_CARD_HEAD = 64  # units a card of its card head (`card_head`; 0: none, as in v2)
OPSET = 17
ROUND_FEATURE = BLOCKS["round"].start  # round number / 20
Array = npt.NDArray[np.float32]


@dataclass(frozen=True)
class MlpWeights:
    """Weights as ``(in, out)`` matrices and biases: trunk layers, then the three heads, and
    the card head (`card_head`; only with card sense) if the net has one."""

    trunk: list[tuple[Array, Array]]
    policy: tuple[Array, Array]
    tricks: tuple[Array, Array]
    value: tuple[Array, Array]
    cards: CardHeadWeights | None = None
    after: tuple[Array, Array] | None = None  # the tricks head after a card (`after_head`)
    #: its ReLU layer and that layer's output map, added to ``after``'s logits (`after_deep`)
    after_deep: tuple[tuple[Array, Array], tuple[Array, Array]] | None = None


def random_weights(hidden: Sequence[int], *, seed: int, inputs: int = FEATURE_SIZE,
                   outputs: int = ActionSpace.SIZE) -> MlpWeights:
    """He-scaled random weights; raises `ValueError` for a non-positive layer size."""
    sizes = [inputs, *hidden]
    if any(size <= 0 for size in [*sizes, outputs]):
        raise ValueError(f"layer sizes must be positive, got {[*sizes, outputs]}")
    rng = np.random.default_rng(seed)

    def layer(fan_in: int, fan_out: int) -> tuple[Array, Array]:
        weight = (rng.standard_normal((fan_in, fan_out)) * np.sqrt(2.0 / fan_in))
        return weight.astype(np.float32), np.zeros(fan_out, np.float32)

    trunk = [layer(a, b) for a, b in itertools.pairwise(sizes)]
    width = sizes[-1]
    return MlpWeights(trunk, layer(width, outputs), layer(width, TRICKS_SIZE), layer(width, 1))


def _card_sense_nodes(nodes: list[onnx.NodeProto], const: Any) -> str:
    """The nodes of `card_sense.sense` over ``features`` and ``mask``; the name of
    ``features`` with the 243 card-sense features appended."""

    def block(name: str) -> str:
        part = BLOCKS[name]
        const(f"{name}_at", np.array([part.start], np.int64))
        const(f"{name}_end", np.array([part.stop], np.int64))
        nodes.append(helper.make_node("Slice", ["features", f"{name}_at", f"{name}_end", "one"],
                                      [f"f_{name}"]))
        return f"f_{name}"

    def node(op: str, inputs: list[str], output: str, **attrs: Any) -> str:
        nodes.append(helper.make_node(op, inputs, [output], **attrs))
        return output

    const("one", np.array([1], np.int64))
    const("sense_higher", card_sense.HIGHER)
    const("sense_suits", card_sense.SUITS)
    const("sense_suits_t", np.ascontiguousarray(card_sense.SUITS.T))
    const("sense_beats", card_sense.BEATS)
    const("sense_specials", card_sense.SPECIALS)
    const("f_one", np.array(1.0, np.float32))
    const("f_thirteen", np.array(13.0, np.float32))
    const("states_shape", np.array([-1, STATES * STATES, 1], np.int64))
    const("beaten_shape", np.array([-1, STATES * STATES, NUM_CARDS], np.int64))
    const("zero_at", np.array([0], np.int64))
    const("four", np.array([4], np.int64))
    const("cards_at", np.array([CARD_ACTIONS.start], np.int64))
    const("cards_end", np.array([CARD_ACTIONS.stop], np.int64))
    const("axis2", np.array([2], np.int64))
    hand, played, trick = block("hand"), block("played"), block("trick")
    trump, lead, turned = block("trump_suit"), block("lead_suit"), block("trump_card")
    seen = node("Add", [node("Add", [hand, played], "seen_a"), turned], "seen")
    unseen = node("Relu", [node("Sub", ["f_one", seen], "unseen_raw")], "unseen")
    higher = node("MatMul", [unseen, "sense_higher"], "sense_higher_out")
    states = node("Reshape", [node("Mul", [node("Unsqueeze", [trump, "axis2"], "trump_col"),
                                           node("Unsqueeze", [lead, "one"], "lead_row")],
                                   "states_grid"), "states_shape"], "states")
    beats = node("Reshape", [node("MatMul", [trick, "sense_beats"], "beats_flat"),
                             "beaten_shape"], "beats")
    beaten_sum = node("ReduceSum", [node("Mul", [beats, states], "beats_now"), "one"],
                      "beaten_sum", keepdims=0)
    beaten = node("Min", [beaten_sum, "f_one"], "beaten")
    trump4 = node("Slice", [trump, "zero_at", "four", "one"], "trump4")
    trumps = node("MatMul", [trump4, "sense_suits_t"], "trump_cards")
    legal = node("Cast", [node("Slice", ["mask", "cards_at", "cards_end", "one"], "legal_mask")],
                 "legal", to=TensorProto.FLOAT)
    by_suit = node("Mul", [node("MatMul", [unseen, "sense_suits"], "unseen_suits"), trump4],
                   "unseen_trump_suit")
    unseen_trumps = node("Div", [node("ReduceSum", [by_suit, "one"], "unseen_trump_count",
                                      keepdims=1), "f_thirteen"], "unseen_trumps")
    specials = node("MatMul", [unseen, "sense_specials"], "unseen_specials")
    return node("Concat", ["features", higher, beaten, trumps, legal, unseen_trumps, specials],
                "sensed", axis=1)


def add_card_sense(weights: MlpWeights) -> MlpWeights:
    """The same function reading the card-sense features too: zero weights for them."""
    first, bias = weights.trunk[0]
    if first.shape[0] != FEATURE_SIZE:
        raise ValueError(f"a first layer of {first.shape[0]} inputs already reads more than "
                         f"the {FEATURE_SIZE} features")
    zeros = np.zeros((SENSE_SIZE, first.shape[1]), np.float32)
    return MlpWeights([(np.vstack([first, zeros]), bias), *weights.trunk[1:]], weights.policy,
                      weights.tricks, weights.value, weights.cards)


def mlp_policy(weights: MlpWeights, *, name: str = "mlp_policy") -> onnx.ModelProto:
    """The ONNX graph ``(features, mask) -> (probs, tricks, value)`` for ``weights``.

    A policy head narrower than the action space makes a deliberately broken
    policy (its ``probs`` are left unmasked; `OnnxPolicy.run` refuses them).
    """
    nodes: list[onnx.NodeProto] = []
    inits: list[onnx.TensorProto] = []

    def const(name: str, value: npt.NDArray[Any]) -> str:
        inits.append(numpy_helper.from_array(value, name))
        return name

    def gemm(x: str, layer: tuple[Array, Array], tag: str) -> str:
        const(f"{tag}_w", layer[0])
        const(f"{tag}_b", layer[1])
        nodes.append(helper.make_node("Gemm", [x, f"{tag}_w", f"{tag}_b"], [f"{tag}_out"]))
        return f"{tag}_out"

    current = "features"
    if weights.trunk[0][0].shape[0] == SENSED_SIZE:
        current = _card_sense_nodes(nodes, const)
    elif weights.cards is not None:
        raise ValueError("the card head reads the card-sense features: a net without them "
                         "cannot have one")
    sensed = current
    for index, layer in enumerate(weights.trunk):
        out = gemm(current, layer, f"trunk{index}")
        nodes.append(helper.make_node("Relu", [out], [f"h{index}"]))
        current = f"h{index}"
    const("masked", np.array(-1e9, np.float32))
    actions = weights.policy[0].shape[1]
    policy_logits = gemm(current, weights.policy, "policy")
    if weights.cards is not None:
        cards = card_head_nodes(nodes, const, current, sensed, weights.cards)
        nodes.append(helper.make_node("Add", [policy_logits, cards], ["policy_and_cards"]))
        policy_logits = "policy_and_cards"
    if actions == ActionSpace.SIZE:
        nodes.append(helper.make_node("Where", ["mask", policy_logits, "masked"], ["legal_logits"]))
        policy_logits = "legal_logits"
    nodes.append(helper.make_node("Softmax", [policy_logits], ["probs"], axis=-1))
    # tricks beyond the round's number of cards are impossible: -1e9 before the softmax
    const("round_at", np.array([ROUND_FEATURE], np.int64))
    const("round_end", np.array([ROUND_FEATURE + 1], np.int64))
    const("axis1", np.array([1], np.int64))
    const("twenty", np.array(20.0, np.float32))
    const("half", np.array(0.5, np.float32))
    const("trick_counts", np.arange(TRICKS_SIZE, dtype=np.float32)[None, :])
    nodes += [
        helper.make_node("Slice", ["features", "round_at", "round_end", "axis1"], ["round"]),
        helper.make_node("Mul", ["round", "twenty"], ["cards"]),
        helper.make_node("Add", ["cards", "half"], ["cards_limit"]),
        helper.make_node("Less", ["trick_counts", "cards_limit"], ["possible"]),
    ]
    tricks_logits = gemm(current, weights.tricks, "tricks")
    nodes.append(helper.make_node("Where", ["possible", tricks_logits, "masked"],
                                  ["possible_logits"]))
    nodes.append(helper.make_node("Softmax", ["possible_logits"], ["tricks"], axis=-1))
    outputs = [
        helper.make_tensor_value_info("probs", TensorProto.FLOAT, ["batch", actions]),
        helper.make_tensor_value_info("tricks", TensorProto.FLOAT, ["batch", TRICKS_SIZE]),
        helper.make_tensor_value_info("value", TensorProto.FLOAT, ["batch", 1])]
    if weights.after is not None:
        after_logits = gemm(current, weights.after, "after")
        if weights.after_deep is not None:
            hidden = gemm(current, weights.after_deep[0], "after_hidden")
            nodes.append(helper.make_node("Relu", [hidden], ["after_units"]))
            deep = gemm("after_units", weights.after_deep[1], "after_deep")
            nodes.append(helper.make_node("Add", [after_logits, deep], ["after_sum"]))
            after_logits = "after_sum"
        nodes.append(helper.make_node("Where", ["possible", after_logits, "masked"],
                                      ["possible_after"]))
        nodes.append(helper.make_node("Softmax", ["possible_after"], [AFTER_OUTPUT], axis=-1))
        outputs.append(helper.make_tensor_value_info(AFTER_OUTPUT, TensorProto.FLOAT,
                                                     ["batch", TRICKS_SIZE]))
    value = gemm(current, weights.value, "value")
    nodes.append(helper.make_node("Identity", [value], ["value"]))
    graph = helper.make_graph(
        nodes,
        name,
        [helper.make_tensor_value_info("features", TensorProto.FLOAT, ["batch", FEATURE_SIZE]),
         helper.make_tensor_value_info("mask", TensorProto.BOOL, ["batch", ActionSpace.SIZE])],
        outputs,
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 8  # readable by every onnxruntime >= 1.14
    onnx.checker.check_model(model)
    return model


def weights_from_onnx(path: Path) -> MlpWeights:
    """The weights of a policy file written by `mlp_policy`: the inverse of the graph.

    Raises `ValueError` for a file that cannot be read or is not such a graph.
    """
    try:
        model = onnx.load(str(path))
    except (OSError, DecodeError) as exc:
        raise ValueError(f"cannot read {path} as ONNX: {exc}") from exc
    arrays = {t.name: numpy_helper.to_array(t).astype(np.float32)
              for t in model.graph.initializer}

    def layer(tag: str) -> tuple[Array, Array]:
        if f"{tag}_w" not in arrays or f"{tag}_b" not in arrays:
            raise ValueError(f"{path} is not an MLP policy graph: it has no layer {tag!r}")
        return arrays[f"{tag}_w"], arrays[f"{tag}_b"]

    trunk = []
    for index in itertools.count():
        if f"trunk{index}_w" not in arrays:
            break
        trunk.append(layer(f"trunk{index}"))
    if not trunk:
        raise ValueError(f"{path} is not an MLP policy graph: it has no trunk layer")
    cards = None
    if "card_query_w" in arrays:
        cards = CardHeadWeights(layer("card_query"), arrays["card_reads"], arrays["card_embed"],
                                layer("card_out"))
    after = layer("after") if "after_w" in arrays else None
    deep = (layer("after_hidden"), layer("after_deep")) if "after_hidden_w" in arrays else None
    return MlpWeights(trunk, layer("policy"), layer("tricks"), layer("value"), cards, after,
                      deep)


def widen(weights: MlpWeights, hidden: Sequence[int], *, seed: int = 0,
          noise: float = 1e-3) -> MlpWeights:
    """The same function with wider hidden layers (Net2Net, Chen et al. 2016): each new unit
    copies a random old one of its layer, and the outgoing weights of a unit and its copies
    are shared out between them, so the outputs stay the same (up to ``noise``, relative,
    which lets the copies drift apart in training).

    Raises `ValueError` for another number of layers or a narrower one.
    """
    if len(hidden) != len(weights.trunk):
        raise ValueError(f"cannot widen {len(weights.trunk)} hidden layers to {len(hidden)}")
    if weights.cards is not None:
        raise ValueError("cannot widen a net with a card head: widen first, then add the head")
    rng = np.random.default_rng(seed)
    trunk = [(w.copy(), b.copy()) for w, b in weights.trunk]
    heads = [weights.policy, weights.tricks, weights.value]
    for index, width in enumerate(hidden):
        w_in, b_in = trunk[index]
        old = w_in.shape[1]
        if width < old:
            raise ValueError(f"cannot narrow hidden layer {index} from {old} to {width}")
        source = np.concatenate([np.arange(old), rng.integers(0, old, width - old)])
        share = np.bincount(source, minlength=old)[source].astype(np.float32)
        w_in, b_in = w_in[:, source], b_in[source]
        w_in = w_in + noise * np.abs(w_in).mean() * rng.standard_normal(w_in.shape)
        trunk[index] = (w_in.astype(np.float32), b_in.astype(np.float32))
        outgoing = [trunk[index + 1]] if index + 1 < len(trunk) else heads
        spread = [((w[source] / share[:, None]).astype(np.float32), b) for w, b in outgoing]
        if index + 1 < len(trunk):
            trunk[index + 1] = spread[0]
        else:
            heads = spread
    return MlpWeights(trunk, heads[0], heads[1], heads[2])


def random_mlp_policy(
    hidden: Sequence[int] = SHIPPED_HIDDEN,
    *,
    seed: int = 0,
    inputs: int = FEATURE_SIZE,
    outputs: int = ActionSpace.SIZE,
    name: str = "random_mlp",
    sense: bool = False,
    card_head: int = 0,
) -> onnx.ModelProto:
    """`mlp_policy` with He-scaled random weights from a seeded generator (``card_head``:
    with a card head of that many units, its output weights random too, with ``sense``).

    Raises `ValueError` for a non-positive layer size.
    """
    width = SENSED_SIZE if sense else inputs
    weights = random_weights(hidden, seed=seed, inputs=width, outputs=outputs)
    if card_head:
        head = new_card_head(hidden[-1], card_head, seed=seed)
        rng = np.random.default_rng(seed + 1)
        out = (rng.standard_normal((card_head, 1)) * np.sqrt(2.0 / card_head)).astype(np.float32)
        weights = replace(weights, cards=replace(head, out=(out, head.out[1])))
    return mlp_policy(weights, name=name)


def write_model_card(path: Path, card: dict[str, Any]) -> Path:
    """Write the JSON model card beside policy file ``path`` (``x.onnx`` -> ``x.json``)."""
    card_path = path.with_suffix(".json")
    card_path.write_text(json.dumps(card, indent=2, sort_keys=True) + "\n")
    return card_path


def write_random_policy(
    directory: Path,
    name: str,
    hidden: Sequence[int] = SHIPPED_HIDDEN,
    *,
    seed: int = 0,
    outputs: int = ActionSpace.SIZE,
    sense: bool = False,
    card_head: int = 0,
) -> Path:
    """Write ``directory/<name>.onnx`` with random weights and its model card; returns the path.
    ``sense``, ``card_head``: the graph reads the card-sense features and has a card head, as
    the shipped policy does (`SHIPPED_SENSE`, `SHIPPED_CARD_HEAD`)."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{name}.onnx"
    onnx.save(random_mlp_policy(hidden, seed=seed, outputs=outputs, name=name, sense=sense,
                                card_head=card_head), str(path))
    write_model_card(
        path,
        {
            "name": name,
            "encoding_version": ENCODING_VERSION,
            "architecture": f"mlp {FEATURE_SIZE}-{'-'.join(map(str, hidden))}-{outputs}",
            "trained": False,
            "note": "random weights for tests and benchmarks, not a playing strength",
            "seed": seed,
        },
    )
    return path


__all__ = ["SHIPPED_CARD_HEAD", "SHIPPED_HIDDEN", "SHIPPED_SENSE", "MlpWeights", "add_card_sense",
           "mlp_policy", "random_mlp_policy", "random_weights", "weights_from_onnx", "widen",
           "write_model_card", "write_random_policy"]
