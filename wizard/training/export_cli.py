"""``wizard export CHECKPOINT --out models/NAME.onnx`` (torch-free to register)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from .cli_args import points_per_logit


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
                        help="JSON object merged into the model card")
    parser.add_argument("--evaluations", type=Path, default=None, metavar="DIR",
                        help="the card's evaluation from DIR/eval_NAME.json (wizard evaluate "
                             "--json, the policy first); each margin is printed")
    parser.add_argument("--card-lookahead", type=points_per_logit, default=0.0, metavar="POINTS",
                        help="serve the policy's cards one card ahead: log probs + each "
                             "card's expected score after it / POINTS (0: probs alone; "
                             "the shipped policy: 20; wizard.ai.lookahead)")
    parser.add_argument("--note", action="append", default=[], metavar="KEY=VALUE",
                        help="a text field of the card, e.g. recipe=... (repeatable)")
    parser.set_defaults(handler=run_export)


def run_export(args: argparse.Namespace) -> int:
    from .export import ExportError, evaluation_summary, export_policy
    from .policy import CheckpointError

    try:
        extra: dict[str, Any] = json.loads(args.card.read_text()) if args.card else {}
        if not isinstance(extra, dict):
            raise ExportError(f"{args.card} must hold a JSON object")
        for note in args.note:
            key, equals, value = note.partition("=")
            if not equals or not key:
                raise ExportError(f"--note wants KEY=VALUE, got {note!r}")
            extra[key] = value
        if args.evaluations is not None:
            extra["evaluation"] = evaluation_summary(args.evaluations)
        card = export_policy(args.checkpoint, args.out, name=args.name, card_extra=extra,
                             card_lookahead=args.card_lookahead)
    except (CheckpointError, ExportError, OSError, ValueError, KeyError) as exc:
        print(f"wizard export: {exc}", file=sys.stderr)
        return 2
    if args.evaluations is not None:
        print(json.dumps({name: run["margin"] for name, run in card["evaluation"].items()}))
    print(f"wrote {args.out} ({card['sizes']['file_bytes']} bytes), parity max abs diff "
          f"{card['parity']['max_abs_diff']:.2g} on {card['parity']['observations']} observations")
    return 0
