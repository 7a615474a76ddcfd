"""Write an OI probability network to ONNX: ``features -> (Gemm, Relu)* -> Gemm -> Sigmoid``.

The graph is built with `onnx.helper` from the weights (no tracing), so the file
is the same on every machine for the same weights: input ``features`` float32
``[batch, OI_FEATURE_SIZE]``, output ``probability`` float32 ``[batch]``.

>>> import tempfile, pathlib
>>> w = [(np.zeros((OI_FEATURE_SIZE, 4), np.float32), np.zeros(4, np.float32)),
...      (np.zeros((4, 1), np.float32), np.zeros(1, np.float32))]
>>> path = export_mlp(w, pathlib.Path(tempfile.mkdtemp()) / "x.onnx", "x")
>>> path.name
'x.onnx'
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
import onnx
from onnx import TensorProto, helper, numpy_helper

from wizard.ai.oi.agent import INPUT_NAME, OUTPUT_NAME
from wizard.ai.oi.features import OI_FEATURE_SIZE

OPSET = 17

Layer = tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]


def mlp_graph(layers: Sequence[Layer], name: str) -> onnx.ModelProto:
    """The ONNX model of linear ``layers`` (weight ``(in, out)``, bias) with ReLUs between.

    Raises `ValueError` unless the first layer takes `OI_FEATURE_SIZE` inputs and
    the last gives one output.
    """
    if not layers or layers[0][0].shape[0] != OI_FEATURE_SIZE or layers[-1][0].shape[1] != 1:
        raise ValueError("an OI network maps OI_FEATURE_SIZE features to one logit")
    nodes: list[onnx.NodeProto] = []
    initializers: list[onnx.TensorProto] = []
    current = INPUT_NAME
    for i, (weight, bias) in enumerate(layers):
        initializers.append(numpy_helper.from_array(weight.astype(np.float32), f"w{i}"))
        initializers.append(numpy_helper.from_array(bias.astype(np.float32), f"b{i}"))
        nodes.append(helper.make_node("Gemm", [current, f"w{i}", f"b{i}"], [f"h{i}"]))
        current = f"h{i}"
        if i < len(layers) - 1:
            nodes.append(helper.make_node("Relu", [current], [f"a{i}"]))
            current = f"a{i}"
    initializers.append(numpy_helper.from_array(np.array([-1], np.int64), "flat"))
    nodes.append(helper.make_node("Reshape", [current, "flat"], ["logit"]))
    nodes.append(helper.make_node("Sigmoid", ["logit"], [OUTPUT_NAME]))
    graph = helper.make_graph(
        nodes, name,
        [helper.make_tensor_value_info(INPUT_NAME, TensorProto.FLOAT, ["batch", OI_FEATURE_SIZE])],
        [helper.make_tensor_value_info(OUTPUT_NAME, TensorProto.FLOAT, ["batch"])],
        initializers,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 8  # readable by every onnxruntime >= 1.14
    onnx.checker.check_model(model)
    return model


def export_mlp(layers: Sequence[Layer], path: Path, name: str) -> Path:
    """Write `mlp_graph` to ``path``; returns it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(mlp_graph(layers, name), str(path))
    return path


__all__ = ["export_mlp", "mlp_graph"]
