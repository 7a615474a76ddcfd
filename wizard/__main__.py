"""The `wizard` command: ``wizard serve``, ``wizard evaluate``, ...

Each subcommand lives with its layer; this module only parses and dispatches.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

Command = Callable[[argparse.Namespace], int]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="wizard",
        description="Wizard online: play the card game Wizard against people and bots.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for register in _registrations():
        register(sub)
    return parser


def _registrations() -> list[Callable[[argparse._SubParsersAction], None]]:  # type: ignore[type-arg]
    from wizard.ai.cli import register as register_ai
    from wizard.loadtest_cli import register as register_loadtest
    from wizard.play import register as register_play
    from wizard.server.analysis.cli import register as register_analyse
    from wizard.server.cli import register as register_serve
    from wizard.server.ratings.cli import register as register_ratings
    from wizard.training.cli import register as register_train

    return [register_ai, register_serve, register_play, register_loadtest, register_train,
            register_analyse, register_ratings]


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler: Command | None = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 0 if args.command is None else 2
    return handler(args)


if __name__ == "__main__":
    sys.exit(main())
