"""``wizard train TRAINER ...``: the training commands.

Registering them is torch-free, so ``wizard --help`` works without the ``train``
extra; each handler imports its trainer (and so torch) only when it runs. Each
trainer family keeps its arguments in its own module:

- `policy_cli`: ``imitate`` and ``ppo`` (the learned policy of ``models/default.onnx``)
- `oi_cli`: ``oi`` (the per-card win-probability networks of the OI agent)

`register` also adds the top-level ``wizard export`` (`export_cli`).
"""

from __future__ import annotations

from typing import Any

from . import export_cli, oi_cli, policy_cli


def register(sub: Any) -> None:
    parser = sub.add_parser(
        "train",
        help="train bots (needs the train extra: pip install '.[train]')",
        description="Train a bot's networks; each trainer writes checkpoints and metrics.",
    )
    trainers = parser.add_subparsers(dest="trainer", metavar="TRAINER")
    policy_cli.register(trainers)
    oi_cli.register(trainers)
    parser.set_defaults(handler=lambda args: _usage(parser))
    export_cli.register(sub)


def _usage(parser: Any) -> int:
    parser.print_help()
    return 2
