"""``wizard loadtest``: the command line of `wizard.loadtest` — flags, live view, report."""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import sys
from typing import Any, TextIO

from .loadtest import LoadReport, LoadSettings, LoadStats, LoadTest, percentile

LEVELS = ("easy", "medium", "hard", "master")


class LiveView:
    """A tqdm bar over the run's seconds: clients connected, games, actions/s, p99 (stderr)."""

    def __init__(self, settings: LoadSettings, stream: TextIO = sys.stderr) -> None:
        from tqdm import tqdm

        self.settings = settings
        self.bar = tqdm(total=max(1, round(settings.duration)), unit="s", file=stream, leave=True,
                        bar_format="{bar:20}| {n:.0f}/{total} s  {desc}", dynamic_ncols=True)
        self._actions = 0
        self._seconds = 0.0

    def __call__(self, stats: LoadStats, elapsed: float) -> None:
        window = max(1e-9, elapsed - self._seconds)
        rate = (stats.actions - self._actions) / window
        self._actions, self._seconds = stats.actions, elapsed
        p99 = percentile(stats.recent, 99)
        errors = sum(stats.errors.values())
        shown = "-" if math.isnan(p99) else f"{p99 * 1000:.1f}"
        line = (f"clients {stats.connected}/{self.settings.clients}  games {stats.games}  "
                f"actions/s {rate:.0f}  p99 {shown} ms  errors {errors}")
        if stats.rate_limited:
            line += f"  rate-limited {stats.rate_limited} (server budget)"
        self.bar.set_description_str(line, refresh=False)
        self.bar.update(min(round(elapsed), self.bar.total) - self.bar.n)

    def close(self) -> None:
        self.bar.close()


def format_report(report: LoadReport) -> str:
    d = report.to_dict()
    lat = d["latency_ms"]

    def ms(key: str) -> str:
        return "-" if lat[key] is None else f"{lat[key]:.1f}"

    lines = [
        f"{d['clients']} clients ({d['humans_per_table']} per table, {d['players']} seats, "
        f"{d['level']} bots) for {d['duration_s']:.1f} s against {d['url']}",
        f"games completed   {d['games_completed']}",
        f"actions           {d['actions']} ({d['actions_per_second']:.1f}/s)",
        f"act -> update ms  p50 {ms('p50')}  p90 {ms('p90')}  p99 {ms('p99')}  max {ms('max')}",
        f"errors            {_counts(d['errors'])}",
        f"disconnects       {d['disconnects']} (reconnected {d['reconnects']})",
    ]
    server = d["server"]
    if server is not None:
        lines.append(f"bot decisions     {server['bot_decisions']} by {_counts(server['by_agent'])}"
                     f"; fallbacks {_counts(server['fallbacks'])}")
    if d["rate_limited"]:
        lines.append(rate_limit_note(d["rate_limited"]))
    return "\n".join(lines)


def rate_limit_note(count: int) -> str:
    return (f"note: the server refused {count} messages with rate_limited: its message budget "
            "(WIZARD_MESSAGES_PER_SECOND / WIZARD_MESSAGE_BURST) is below what one load client "
            "sends. These are not counted as server errors; to measure the server, start it "
            "with a larger budget (e.g. WIZARD_MESSAGES_PER_SECOND=1000 "
            "WIZARD_MESSAGE_BURST=1000).")


def _counts(counts: dict[str, Any]) -> str:
    return ", ".join(f"{k} {v}" for k, v in counts.items()) or "none"


def run_loadtest(args: argparse.Namespace) -> int:
    settings = LoadSettings(url=args.url, clients=args.clients, duration=args.duration,
                            ramp=args.ramp, humans_per_table=args.humans_per_table,
                            players=args.players, level=args.level, seed=args.seed,
                            allow_remote=args.allow_remote)
    try:
        settings.check()
    except ValueError as exc:
        print(f"wizard loadtest: {exc}", file=sys.stderr)
        return 2
    view = None if args.quiet else LiveView(settings)
    try:
        report = asyncio.run(LoadTest(settings, on_tick=view).run())
    except KeyboardInterrupt:
        return 130
    finally:
        if view is not None:
            view.close()
    if args.json:
        print(json.dumps(report.to_dict()))
        if report.stats.rate_limited:
            print(rate_limit_note(report.stats.rate_limited), file=sys.stderr)
    else:
        print(format_report(report))
    return 1 if report.stats.errors else 0


def register(sub: Any) -> None:
    parser = sub.add_parser(
        "loadtest",
        help="play many protocol clients against a server for a bounded time",
        description="N websocket clients each play games (play_bots, or shared tables) choosing "
                    "random legal moves at once, for --duration seconds; reports games, "
                    "actions/s, act->update latency, errors and disconnects. Only loopback "
                    "targets unless --allow-remote. Exit status 1 when any client saw an error.",
    )
    parser.add_argument("--url", default="ws://127.0.0.1:8000/ws", help="the server's websocket")
    parser.add_argument("--clients", type=int, default=10, help="clients (default 10)")
    parser.add_argument("--duration", type=float, default=10.0,
                        help="seconds the run lasts, ramp included (default 10)")
    parser.add_argument("--ramp", type=float, default=0.0,
                        help="seconds over which the clients start (default 0: all at once)")
    parser.add_argument("--humans-per-table", type=int, default=1,
                        help="clients sharing a table (default 1: each plays_bots alone)")
    parser.add_argument("--players", type=int, default=4, help="seats per table (default 4)")
    parser.add_argument("--level", default="easy", choices=LEVELS,
                        help="level of the server's bots (default easy)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the clients' move choices")
    parser.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    parser.add_argument("--quiet", action="store_true", help="no live view")
    parser.add_argument("--allow-remote", action="store_true",
                        help="allow a target outside 127.0.0.0/8 and ::1")
    parser.set_defaults(handler=run_loadtest)


__all__ = ["LiveView", "format_report", "rate_limit_note", "register", "run_loadtest"]
