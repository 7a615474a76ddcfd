"""``wizard ratings rebuild [--db PATH]``: recompute every rating from the stored games.

Ratings are derived data (`wizard.server.storage.ratings`): the rebuild replays every
finished game's rating in the order the games were rated and gives the same numbers;
games finished before this build rated games are counted too. It runs in one
transaction on the database (``--db``, default ``WIZARD_DB`` or ``./data/wizard.db``),
migrating it first; stop the server while it runs (its commits would wait).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from ..storage.db import connect
from ..storage.ratings import rebuild
from ..storage.schema import migrate


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add the ``ratings`` subcommand (``ratings rebuild``)."""
    parser = sub.add_parser("ratings", help="players' ratings (rebuild them from the games)",
                            description="Ratings are derived from the stored games.")
    actions = parser.add_subparsers(dest="ratings_command", metavar="ACTION", required=True)
    again = actions.add_parser("rebuild", help="recompute every rating from the stored games",
                               description=__doc__.split("\n\n")[1] if __doc__ else None)
    again.add_argument("--db", default=None,
                       help="the server's database (default: WIZARD_DB or ./data/wizard.db)")
    again.set_defaults(handler=run_rebuild)


def run_rebuild(args: argparse.Namespace) -> int:
    path = args.db or os.environ.get("WIZARD_DB") or "./data/wizard.db"
    if not Path(path).is_file():
        print(f"wizard ratings rebuild: no database at {path}", file=sys.stderr)
        return 2
    conn = connect(path)
    try:
        migrate(conn)
        started = time.perf_counter()
        games, rated = rebuild(conn)
    finally:
        conn.close()
    print(f"{games} finished games counted, {rated} rated, "
          f"in {time.perf_counter() - started:.2f} s")
    return 0


__all__ = ["register", "run_rebuild"]
