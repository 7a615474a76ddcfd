"""``wizard analyse GAME_ID_OR_FILE [--json]``: the master's review of a finished game.

The argument is an exported record (the JSON of ``GET /api/games/{id}``) when
it names a file, else the id of a finished game in the server's database
(``--db``, default ``WIZARD_DB`` or ``./data/wizard.db``). The analysis is
`wizard.ai.analysis.analyse_slice` run here, in this process; torch is not needed.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

from wizard.ai.analysis import AnalysisBudget, GameRecord, analyse_slice, build_report
from wizard.ai.search.prior import master_prior
from wizard.engine import SUITS, card_by_id

from ..storage.db import load_games
from ..storage.history import game_record
from ..storage.records import GameStatus

SLICE_SECONDS = 0.5


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add the ``analyse`` subcommand."""
    parser = sub.add_parser(
        "analyse", help="review a finished game with the master (search) bot",
        description="Per round: the bid and the master's bid with their expected scores; "
                    "per card: the points the master expects it lost (mistake >= 5, "
                    "blunder >= 15); a summary per seat.")
    parser.add_argument("game", metavar="GAME_ID_OR_FILE",
                        help="an exported game record (JSON file) or a stored game's id")
    parser.add_argument("--db", default=None,
                        help="the server's database (default: WIZARD_DB or ./data/wizard.db)")
    parser.add_argument("--seats", default=None,
                        help="seats to analyse, e.g. 0,2 (default: every seat)")
    parser.add_argument("--worlds", type=int, default=AnalysisBudget().worlds,
                        help="sampled worlds per decision (default %(default)s)")
    parser.add_argument("--json", action="store_true", help="print the analysis as JSON")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    parser.set_defaults(handler=run_analyse)


def load_record(game: str, db: str | None) -> dict[str, Any]:
    """The record of a file or a stored finished game; raises `ValueError` if there is none."""
    path = Path(game)
    if path.is_file():
        try:
            data: dict[str, Any] = json.loads(path.read_text())
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ValueError(f"{game}: not a JSON game record ({exc})") from None
        return data
    db_path = db or os.environ.get("WIZARD_DB") or "./data/wizard.db"
    if db_path == ":memory:" or not Path(db_path).is_file():
        raise ValueError(f"{game!r} is no file, and there is no database at {db_path!r}")
    try:
        conn = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
        try:
            games = load_games(conn, "id = ?", (game,))
        finally:
            conn.close()
    except sqlite3.Error as exc:
        raise ValueError(f"cannot read the database {db_path!r}: {exc}") from None
    if not games or games[0].status is not GameStatus.FINISHED:
        raise ValueError(f"no finished game {game!r} in {db_path}")
    return game_record(games[0])


def _card(card_id: int) -> str:
    return str(card_by_id(card_id))


def _choice(decision: dict[str, Any], key: str) -> str:
    if decision["kind"] == "card":
        return _card(decision[key])
    if decision["kind"] == "trump":
        return f"trump {SUITS[decision[key]].value}"
    return f"bid {decision[key]}"


def format_report(report: dict[str, Any]) -> str:
    """The analysis as text: per seat a round table, the marked decisions and a summary."""
    lines = [f"Analysis by the master ({report['worlds']} worlds per decision)"]
    for seat in report["seats"]:
        s = seat["summary"]
        lines += ["", f"Seat {seat['seat'] + 1}: {seat['name']}",
                  f"{'round':>5} {'bid':>4} {'master':>6} {'exp.':>7} {'master exp.':>11} "
                  f"{'tricks':>6} {'points':>6} {'lost (bid/play)':>16}"]
        for r in seat["rounds"]:
            def num(value: float | None) -> str:
                return "-" if value is None else f"{value:.1f}"
            lines.append(f"{r['round']:>5} {r['bid'] if r['bid'] is not None else '-':>4} "
                         f"{r['master_bid'] if r['master_bid'] is not None else '-':>6} "
                         f"{num(r['expected']):>7} {num(r['master_expected']):>11} "
                         f"{r['tricks'] if r['tricks'] is not None else '-':>6} "
                         f"{r['points'] if r['points'] is not None else '-':>6} "
                         f"{r['bid_loss']:>7.1f}/{r['play_loss']:<8.1f}")
        for r in seat["rounds"]:
            for d in [r["trump"], *r["cards"]] if r["trump"] else r["cards"]:
                if d["marker"]:
                    lines.append(f"  round {r['round']} trick {d['trick']}: {d['marker']} "
                                 f"({d['loss']:.1f}): {_choice(d, 'played')}, "
                                 f"the master plays {_choice(d, 'master')}")
            if r["bid_marker"]:
                lines.append(f"  round {r['round']}: bid {r['bid']} is a {r['bid_marker']} "
                             f"({r['bid_loss']:.1f}); the master bids {r['master_bid']}")
        lines.append(f"  lost in bidding {s['bidding_loss']:.1f}, in play {s['play_loss']:.1f}; "
                     f"{s['mistakes']} mistakes, {s['blunders']} blunders; expected "
                     f"{s['expected_total']:.1f}, scored {s['actual_total']}")
    return "\n".join(lines)


def run_analyse(args: argparse.Namespace) -> int:
    try:
        data = load_record(args.game, args.db)
        record = GameRecord.from_dict(data)
        seats = record.check_seats(
            [int(s) for s in args.seats.split(",") if s.strip()] if args.seats
            else range(record.num_players))
        budget = AnalysisBudget(worlds=args.worlds)
        prior = master_prior()  # the master bot's second opinion, as on the server
        decisions: list[dict[str, Any]] = []
        began = time.perf_counter()
        while True:
            part = analyse_slice(record, seats, budget, len(decisions), SLICE_SECONDS,
                                 prior=prior)
            decisions += part.decisions
            if not args.quiet and sys.stderr.isatty():
                print(f"\ranalysed {len(decisions)}/{part.total} decisions", end="",
                      file=sys.stderr, flush=True)
            if part.done:
                break
        report = build_report(record, seats, decisions, budget)
    except ValueError as exc:  # the engine's IllegalActionError is one too
        print(f"wizard analyse: {exc}", file=sys.stderr)
        return 2
    if not args.quiet:
        print(f"{chr(13) if sys.stderr.isatty() else ''}analysed {len(decisions)} decisions "
              f"in {time.perf_counter() - began:.1f} s", file=sys.stderr)
    print(json.dumps(report) if args.json else format_report(report))
    return 0


__all__ = ["format_report", "load_record", "register", "run_analyse"]
