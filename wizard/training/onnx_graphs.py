"""Small MLP policies with random weights, written straight to ONNX with `onnx.helper`.

Until a trained policy ships, tests and benchmarks need policy files of the
right shape and size: input ``features`` float32 ``[batch, FEATURE_SIZE]``,
hidden ReLU layers, output ``logits`` float32 ``[batch, ActionSpace.SIZE]``.
The weights come from a seeded numpy generator, so the same arguments give the
same file. ``onnx`` is a dev/train extra: serving code never imports this module.

>>> import tempfile, pathlib
>>> path = write_random_policy(pathlib.Path(tempfile.mkdtemp()), "tiny", hidden=(8,))
>>> path.name, path.with_suffix(".json").is_file()
('tiny.onnx', True)
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from wizard.ai.encoding import ENCODING_VERSION, FEATURE_SIZE, ActionSpace

#: the size the first shipped policy is expected to have (used by the pool benchmark)
SHIPPED_HIDDEN: tuple[int, ...] = (256, 256)
OPSET = 17


def random_mlp_policy(
    hidden: Sequence[int] = SHIPPED_HIDDEN,
    *,
    seed: int = 0,
    inputs: int = FEATURE_SIZE,
    outputs: int = ActionSpace.SIZE,
    name: str = "random_mlp",
) -> onnx.ModelProto:
    """An ONNX model ``features -> (Gemm, Relu)* -> Gemm -> logits`` with He-scaled random weights.

    ``outputs`` other than the action-space size makes a deliberately broken
    policy (tests use it for a model whose logits do not fit the mask).
    Raises `ValueError` for a non-positive layer size.
    """
    sizes = [inputs, *hidden, outputs]
    if any(size <= 0 for size in sizes):
        raise ValueError(f"layer sizes must be positive, got {sizes}")
    rng = np.random.default_rng(seed)
    nodes: list[onnx.NodeProto] = []
    initializers: list[onnx.TensorProto] = []
    current = "features"
    layers = len(sizes) - 1
    for layer, (fan_in, fan_out) in enumerate(itertools.pairwise(sizes)):
        weight = (rng.standard_normal((fan_in, fan_out)) * np.sqrt(2.0 / fan_in)).astype(np.float32)
        bias = np.zeros(fan_out, dtype=np.float32)
        initializers.append(numpy_helper.from_array(weight, f"w{layer}"))
        initializers.append(numpy_helper.from_array(bias, f"b{layer}"))
        last = layer == layers - 1
        gemm_out = "logits" if last else f"h{layer}"
        nodes.append(helper.make_node("Gemm", [current, f"w{layer}", f"b{layer}"], [gemm_out]))
        if not last:
            nodes.append(helper.make_node("Relu", [gemm_out], [f"a{layer}"]))
            current = f"a{layer}"
    graph = helper.make_graph(
        nodes,
        name,
        [helper.make_tensor_value_info("features", TensorProto.FLOAT, ["batch", inputs])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", outputs])],
        initializers,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 8  # readable by every onnxruntime >= 1.14
    onnx.checker.check_model(model)
    return model


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
) -> Path:
    """Write ``directory/<name>.onnx`` with random weights and its model card; returns the path."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{name}.onnx"
    onnx.save(random_mlp_policy(hidden, seed=seed, outputs=outputs, name=name), str(path))
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


__all__ = ["SHIPPED_HIDDEN", "random_mlp_policy", "write_model_card", "write_random_policy"]
