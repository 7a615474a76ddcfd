"""Capacity: ``wizard loadtest`` at growing client counts against one ``wizard serve``.

Starts the server on a free loopback port (bots answer at once, a message budget
no load client reaches, the action log in a temporary SQLite file, the pool with
``--ai-workers`` processes), then for each count in ``--clients`` runs
``wizard loadtest --json`` for ``--duration`` seconds and prints one line per
count: actions/s, act → update p50/p99, games, errors, the share of bot decisions the
pool answered with the fallback, and the CPU the server's main process and the load
tester used (% of one core); with ``--repeats`` the counts are run in turn that
many times and the medians printed; ``--fresh-server`` starts a new server for every
run (docs/performance.md quotes them).

    .venv/bin/python scripts/bench_capacity.py --clients 1,10,25,50,100 --repeats 3
    .venv/bin/python scripts/bench_capacity.py --level hard --models-dir models
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests import serve  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", default="1,5,10,25,50")
    parser.add_argument("--duration", type=float, default=20.0)
    parser.add_argument("--ramp", type=float, default=2.0)
    parser.add_argument("--level", default="easy")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--fresh-server", action="store_true",
                        help="a new server for every run (no state carried from the last one)")
    parser.add_argument("--ai-workers", default="1")
    parser.add_argument("--models-dir", default=None,
                        help="WIZARD_MODELS_DIR of the server (default: the shipped models)")
    args = parser.parse_args()
    # SIGTERM (e.g. `kill`) unwinds like Ctrl-C, so the servers this script started stop too
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    counts = [int(n) for n in args.clients.split(",")]
    rows: dict[int, list[dict[str, float]]] = {n: [] for n in counts}
    server = None if args.fresh_server else start_server(args)
    try:
        for repeat in range(args.repeats):  # interleaved: a swing of the host hits every count
            for clients in counts:
                live = server or start_server(args)
                try:
                    row = run_once(args, live, clients)
                finally:
                    if live is not server:
                        live.stop()
                if row is not None:
                    rows[clients].append(row)
                    print(f"run {repeat + 1} clients={clients} "
                          + " ".join(f"{k}={v:g}" for k, v in row.items()), flush=True)
    finally:
        if server is not None:
            server.stop()
    for clients in counts:
        if rows[clients]:
            print(f"median of {len(rows[clients])} clients={clients} " + " ".join(
                f"{k}={statistics.median(r[k] for r in rows[clients]):g}"
                for k in rows[clients][0]), flush=True)
    return 0


def start_server(args: argparse.Namespace) -> serve.LiveServer:
    work = Path(tempfile.mkdtemp(prefix="bench-capacity-"))
    env = {"WIZARD_DB": str(work / "wizard.db"), "WIZARD_AI_WORKERS": args.ai_workers,
           "WIZARD_LOG_LEVEL": "info",
           "WIZARD_MAX_CONNECTIONS": "5000", "WIZARD_MAX_TABLES": "5000"}
    if args.models_dir:
        env["WIZARD_MODELS_DIR"] = str(Path(args.models_dir).resolve())
    server = serve.start(work / "server.log", env=env, timeout=120)
    policies = [json.loads(line)["policies"] for line in server.log.read_text().splitlines()
                if '"pool_started"' in line]
    print(f"server: ai_workers={args.ai_workers} policies={policies[0] if policies else '-'} "
          f"level={args.level} players={args.players} duration={args.duration:g}s", flush=True)
    return server


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a live process (Linux ``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run_once(args: argparse.Namespace, server: serve.LiveServer,
             clients: int) -> dict[str, float] | None:
    url = server.url
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    server_cpu = cpu_seconds(server.process.pid)
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "wizard", "loadtest", "--url", url,
         "--clients", str(clients), "--duration", str(args.duration),
         "--ramp", str(min(args.ramp, args.duration / 2)), "--level", args.level,
         "--players", str(args.players), "--json", "--quiet"],
        cwd=ROOT, capture_output=True, text=True, timeout=args.duration + 120)
    wall = time.monotonic() - started
    server_cpu = cpu_seconds(server.process.pid) - server_cpu
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    client_cpu = (after.ru_utime + after.ru_stime) - (children.ru_utime + children.ru_stime)
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
            "fallback_pct": 100.0 * fallbacks / decisions if decisions else 0.0,
            "server_cpu_pct": 100.0 * server_cpu / wall,
            "loadtest_cpu_pct": 100.0 * client_cpu / wall}


if __name__ == "__main__":
    sys.exit(main())
