"""Busy tables with and without a crowd of idle connections: act → own update latency.

Starts ``wizard serve`` on a free port (bots think 0.1× the normal time, inline
heuristic), plays ``--busy`` one-person-plus-two-bots tables for ``--seconds``,
then opens ``--idle`` connections that say hello and nothing else, and plays
again. Prints one line per figure (docs/limits.md quotes them).

    .venv/bin/python scripts/bench_limits.py --busy 20 --idle 500 --seconds 10
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.serve import free_port, start_server, stop_server  # noqa: E402
from tests.server.load import measure, open_idle, server_connections, summary  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--busy", type=int, default=20)
    parser.add_argument("--idle", type=int, default=500)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--bot-delay", default="0.1")
    args = parser.parse_args()
    port = free_port()
    log = Path(tempfile.mkdtemp()) / "server.log"
    process = start_server(port, log, WIZARD_BOT_DELAY=args.bot_delay,
                           WIZARD_TRICK_SHOW_SECONDS="0.5", WIZARD_AI_WORKERS="0",
                           WIZARD_MAX_CONNECTIONS=str(args.idle + args.busy + 100))
    url, http = f"ws://127.0.0.1:{port}/ws", f"http://127.0.0.1:{port}"

    def rss_mib() -> float:
        status = Path(f"/proc/{process.pid}/status").read_text()
        line = next(li for li in status.splitlines() if li.startswith("VmRSS"))
        return int(line.split()[1]) / 1024

    async def run() -> None:
        for label, idle in (("alone", 0), (f"with_{args.idle}_idle", args.idle)):
            before = rss_mib()
            crowd = await open_idle(url, idle) if idle else []
            print(f"{label} idle_rss_mib {rss_mib() - before:.1f}")
            figures = summary(await measure(url, args.busy, args.seconds))
            open_now = server_connections(http)
            for name, value in figures.items():
                print(f"{label} {name} {value:.1f}")
            print(f"{label} server_connections_after {open_now:.0f}")
            for ws in crowd:
                await ws.close()

    try:
        asyncio.run(run())
    finally:
        stop_server(process)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
