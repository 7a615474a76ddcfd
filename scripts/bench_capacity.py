"""Capacity: ``wizard loadtest`` at growing client counts against one ``wizard serve``.

Starts the server on a free loopback port (bots answer at once, a message budget
no load client reaches, the action log in a temporary SQLite file, the pool with
``--ai-workers`` processes), then for each count in ``--clients`` runs
``wizard loadtest --json`` for ``--duration`` seconds and prints one line per
count: actions/s, act → update p50/p99, games, errors, and the bot decisions the
pool answered with the fallback; with ``--repeats`` the counts are run in turn that
many times and the medians printed (docs/performance.md quotes them).

    .venv/bin/python scripts/bench_capacity.py --clients 1,10,25,50,100 --repeats 3
    .venv/bin/python scripts/bench_capacity.py --level hard --models-dir models
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests import live_server  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", default="1,5,10,25,50")
    parser.add_argument("--duration", type=float, default=20.0)
    parser.add_argument("--ramp", type=float, default=2.0)
    parser.add_argument("--level", default="easy")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--ai-workers", default="1")
    parser.add_argument("--models-dir", default=None,
                        help="WIZARD_MODELS_DIR of the server (default: the shipped models)")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-capacity-"))
    env = {"WIZARD_DB": str(work / "wizard.db"), "WIZARD_AI_WORKERS": args.ai_workers,
           "WIZARD_LOG_LEVEL": "info",
           "WIZARD_MAX_CONNECTIONS": "5000", "WIZARD_MAX_TABLES": "5000"}
    if args.models_dir:
        env["WIZARD_MODELS_DIR"] = str(Path(args.models_dir).resolve())
    server = live_server.start(work / "server.log", env=env, timeout=120)
    try:
        policies = [json.loads(line)["policies"] for line in server.log.read_text().splitlines()
                    if '"pool_started"' in line]
        print(f"server: ai_workers={args.ai_workers} policies={policies[0] if policies else '-'} "
              f"level={args.level} players={args.players} duration={args.duration:g}s", flush=True)
        counts = [int(n) for n in args.clients.split(",")]
        rows: dict[int, list[dict[str, float]]] = {n: [] for n in counts}
        for repeat in range(args.repeats):  # interleaved: a swing of the host hits every count
            for clients in counts:
                row = run_once(args, server.url, clients)
                if row is not None:
                    rows[clients].append(row)
                    print(f"run {repeat + 1} clients={clients} "
                          + " ".join(f"{k}={v:g}" for k, v in row.items()), flush=True)
        for clients in counts:
            if rows[clients]:
                print(f"median of {len(rows[clients])} clients={clients} " + " ".join(
                    f"{k}={statistics.median(r[k] for r in rows[clients]):g}"
                    for k in rows[clients][0]), flush=True)
    finally:
        server.stop()
    return 0


def run_once(args: argparse.Namespace, url: str, clients: int) -> dict[str, float] | None:
    done = subprocess.run(
        [sys.executable, "-m", "wizard", "loadtest", "--url", url,
         "--clients", str(clients), "--duration", str(args.duration),
         "--ramp", str(min(args.ramp, args.duration / 2)), "--level", args.level,
         "--players", str(args.players), "--json", "--quiet"],
        cwd=ROOT, capture_output=True, text=True, timeout=args.duration + 120)
    if not done.stdout.strip():
        print(f"clients={clients} failed: {done.stderr.strip()}", flush=True)
        return None
    r = json.loads(done.stdout)
    lat, srv = r["latency_ms"], r["server"] or {}
    decisions = srv.get("bot_decisions", 0) or 0
    fallbacks = sum((srv.get("fallbacks") or {}).values())
    return {"acts_per_s": r["actions_per_second"],
            "table_actions_per_s": (r["actions"] + decisions) / r["duration_s"],
            "p50_ms": lat["p50"] or 0.0, "p99_ms": lat["p99"] or 0.0,
            "games": r["games_completed"], "errors": sum(r["errors"].values()),
            "rate_limited": r["rate_limited"],
            "fallback_pct": 100.0 * fallbacks / decisions if decisions else 0.0}


if __name__ == "__main__":
    sys.exit(main())
