"""``wizard export CHECKPOINT --out models/NAME.onnx`` (torch-free to register)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def register(sub: Any) -> None:
    """Add the top-level ``export`` command."""
    parser = sub.add_parser(
        "export",
        help="write a trained checkpoint as an ONNX policy and its model card (train extra)",
        description="Writes models/NAME.onnx and models/NAME.json; refuses unless torch and "
                    "onnxruntime agree on 1,000 observations from real games (< 1e-4).")
    parser.add_argument("checkpoint", type=Path, help="checkpoint directory (with policy.json)")
    parser.add_argument("--out", type=Path, required=True, help="the .onnx file to write")
    parser.add_argument("--name", default=None, help="policy name (default: the file's stem)")
    parser.add_argument("--card", type=Path, default=None,
                        help="JSON object merged into the model card (e.g. evaluations)")
    parser.set_defaults(handler=run_export)


def run_export(args: argparse.Namespace) -> int:
    from .export import ExportError, export_policy
    from .policy import CheckpointError

    try:
        extra = json.loads(args.card.read_text()) if args.card else None
        if extra is not None and not isinstance(extra, dict):
            raise ExportError(f"{args.card} must hold a JSON object")
        card = export_policy(args.checkpoint, args.out, name=args.name, card_extra=extra)
    except (CheckpointError, ExportError, OSError, ValueError) as exc:
        print(f"wizard export: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {args.out} ({card['sizes']['file_bytes']} bytes), parity max abs diff "
          f"{card['parity']['max_abs_diff']:.2g} on {card['parity']['observations']} observations")
    return 0
