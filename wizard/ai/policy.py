"""ONNX policies: a file of weights that maps features to action logits.

Contract of a policy file ``models/<name>.onnx`` (with its model card
``models/<name>.json``, whose ``kind`` is ``"policy"`` or absent): input
``features`` float32 ``[batch, FEATURE_SIZE]``, output ``logits`` float32
``[batch, 85]`` (extra outputs such as ``value`` are ignored). Illegal
actions are masked here, never trusted to the model.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from .encoding import ENCODING_VERSION, FEATURE_SIZE, ActionSpace

MASKED = np.float32(-1e9)


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


class OnnxPolicy:
    """An onnxruntime session around one policy file, with one intra-op thread.

    Raises `PolicyError` when the file is missing or its input does not have
    `FEATURE_SIZE` features, or its model card names another encoding version.
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
        inputs = self.session.get_inputs()
        if inputs[0].shape[-1] != FEATURE_SIZE:
            raise PolicyError(
                f"{self.path.name} expects {inputs[0].shape[-1]} features, not {FEATURE_SIZE}"
            )
        self.input_name = inputs[0].name
        self.name = str(self.card.get("name", self.path.stem))

    def logits(self, features: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        """Raw logits ``[batch, 85]`` for features ``[batch, FEATURE_SIZE]``."""
        out = self.session.run(["logits"], {self.input_name: features})[0]
        return np.asarray(out, dtype=np.float32)

    def masked_logits(
        self, features: npt.NDArray[np.float32], masks: npt.NDArray[np.bool_]
    ) -> npt.NDArray[np.float32]:
        """Logits with every illegal action pushed to -1e9."""
        return np.where(masks, self.logits(features), MASKED)


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
    """The JSON model card beside a policy file, or ``{}`` when there is none."""
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


__all__ = ["ActionSpace", "OnnxPolicy", "PolicyError", "choose", "models_dir", "read_model_card"]
