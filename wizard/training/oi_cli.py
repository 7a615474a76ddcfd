"""Arguments of ``wizard train oi`` (torch-free: the handler imports the trainer when it runs)."""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path
from typing import Any

from .cli_args import command_line, int_list

_players = int_list("players", "3,4,5,6", 3, 6)
_hidden = int_list("hidden layer sizes", "64,32", 1)


def register(trainers: Any) -> None:
    """Add the OI trainer to ``wizard train``."""
    parser = trainers.add_parser(
        "oi",
        help="train the OI agent's two per-card win-probability networks by self-play",
        description="Self-play training of the OI networks (overall p_O and immediate p_I). "
                    "Writes DIR/oi_overall.onnx, DIR/oi_immediate.onnx with model cards, "
                    "DIR/metrics.jsonl, DIR/calibration.png and DIR/summary.json.",
    )
    parser.add_argument("--games", type=int, default=2000,
                        help="self-play games after the bootstrap epoch (default 2000)")
    parser.add_argument("--out", required=True, type=Path, help="output directory DIR")
    parser.add_argument("--bootstrap-games", type=int, default=200,
                        help="heuristic-played games of the first epoch (default 200)")
    parser.add_argument("--games-per-epoch", type=int, default=100)
    parser.add_argument("--heldout-games", type=int, default=100,
                        help="new exploration-free games for calibration and final metrics")
    parser.add_argument("--players", type=_players, default=(3, 4, 5, 6),
                        help="player counts to draw from, e.g. 3,4,5,6")
    parser.add_argument("--hidden", type=_hidden, default=(64, 32),
                        help="hidden layer sizes (default 64,32)")
    parser.add_argument("--lr", type=float, default=3e-3, help="initial learning rate")
    parser.add_argument("--lr-decay", type=float, default=0.93, help="per-epoch decay factor")
    parser.add_argument("--exploration", type=float, default=0.05,
                        help="chance of an exploring move in self-play")
    parser.add_argument("--heuristic-opponents", type=float, default=0.2,
                        help="chance of each seat but one being a heuristic player in self-play")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--install", type=Path, default=None, metavar="MODELS_DIR",
                        help="copy the two networks and their cards there when done")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.set_defaults(handler=run_train_oi)


def run_train_oi(args: argparse.Namespace) -> int:
    try:
        from .oi import OITrainConfig, train_oi
    except ImportError as exc:
        print(f"wizard train oi: needs the train extra (pip install '.[train]'): {exc}",
              file=sys.stderr)
        return 2
    try:
        config = OITrainConfig(
            games=args.games, bootstrap_games=args.bootstrap_games,
            games_per_epoch=args.games_per_epoch, heldout_games=args.heldout_games,
            players=args.players, hidden=args.hidden, learning_rate=args.lr,
            lr_decay=args.lr_decay, exploration=args.exploration,
            heuristic_opponents=args.heuristic_opponents, seed=args.seed)
    except ValueError as exc:
        print(f"wizard train oi: {exc}", file=sys.stderr)
        return 2
    summary = train_oi(config, args.out, command=command_line("wizard train oi"),
                       progress=not args.quiet)
    print(json.dumps({"heldout": summary["heldout"],
                      "max_calibration_gap": summary["max_calibration_gap"],
                      "duration_s": summary["duration_s"]}, indent=2))
    if args.install is not None:
        args.install.mkdir(parents=True, exist_ok=True)
        for name in ("oi_overall", "oi_immediate"):
            for suffix in (".onnx", ".json"):
                shutil.copy2(args.out / f"{name}{suffix}", args.install / f"{name}{suffix}")
        print(f"installed into {args.install}", file=sys.stderr)
    return 0
