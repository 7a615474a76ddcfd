#!/usr/bin/env python3
"""Server speed over loopback, one line per figure.

    .venv/bin/python scripts/bench_server.py [--clients 50] [--seconds 15] [--players 4]
        [--repeats N] [--baseline GIT-REF] [--profile DIR]

Starts ``wizard serve`` (``WIZARD_BOT_DELAY=0``) in a subprocess; N protocol
clients each play ``play_bots`` games (first legal action, ``rematch`` after
each game) for ``--seconds``. Then, in the same run, a plain websocket echo
(a tiny Starlette app on the same uvicorn stack, in its own subprocess) is
driven by the same number of clients as the physical reference.

Figures: table actions/s (every seat), player acts/s (= act→update round
trips/s), p50/p99 ms from ``act`` to the ``update`` that answers it, echo
round trips/s with p50/p99, and the ratios of player round trips and of table
actions to echo round trips. Targets with 50 clients: p99 < 30 ms and at least
0.4 x the echo round trips/s. The game part runs twice, on an in-memory and on
a file database (WIZARD_DB), to show what durability costs (target <= 20 %).

``--baseline REF`` also runs the game part (in-memory) on a checkout of the git
ref REF (a temporary worktree) in every repeat, alternating which goes first,
so a change is compared side by side with the same clients and settings.
``--profile DIR`` samples each game server with py-spy during its run (every
thread that is not idle: system calls and sqlite, which run without the GIL,
count too) and prints the 15 functions with the most own time (DIR keeps the
raw stacks). ``--breakdown`` times the current server's hot functions
(inclusive wall time per table action, `scripts/bench_breakdown/sitecustomize.py`).
They slow that run a little: take throughput from a run without.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import msgspec

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.serve import free_port, start_server, stop_server  # noqa: E402


def wait_healthy(port: int, process: subprocess.Popen[bytes], path: str) -> None:
    import httpx

    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"server on port {port} exited with {process.returncode}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}{path}", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            time.sleep(0.1)
    raise SystemExit(f"server on port {port} did not come up")


def stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


# --- the game clients ------------------------------------------------------------------------


class ObservationPart(msgspec.Struct):
    """What a client needs of an ``update``'s observation (the rest is skipped unread)."""

    phase: str
    legal_actions: list[Any]


class MessagePart(msgspec.Struct):
    """What a client needs of a server message: the load generator reads no more."""

    type: str
    v: int = 0
    table_id: str | None = None
    observation: ObservationPart | None = None


READ_MESSAGE = msgspec.json.Decoder(MessagePart).decode


def cpu_seconds(pid: int) -> tuple[float, float]:
    """(user, system) CPU time of process ``pid`` so far (Linux ``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    tick = os.sysconf("SC_CLK_TCK")
    return int(fields[11]) / tick, int(fields[12]) / tick


def cpu_figures(pid: int, before: tuple[float, float], own_before: float, elapsed: float,
                count: int) -> dict[str, float]:
    """CPU of the server ``pid`` per counted thing (µs, and its system part) and of both
    processes as a share of one core, since ``before`` / ``own_before``."""
    user, system = (a - b for a, b in zip(cpu_seconds(pid), before, strict=True))
    own = time.process_time() - own_before
    return {"server_us": 1e6 * (user + system) / max(1, count),
            "server_sys_us": 1e6 * system / max(1, count),
            "server_cpu": (user + system) / elapsed, "client_cpu": own / elapsed}


async def game_client(url: str, players: int, stop_at: float, latencies: list[float],
                      totals: dict[str, int]) -> None:
    from websockets.asyncio.client import connect

    async with connect(url, open_timeout=30, max_size=2**22) as ws:
        await ws.send(json.dumps({"type": "hello", "name": "bench"}))
        await ws.send(json.dumps({"type": "play_bots", "players": players, "level": "medium",
                                  "turn_seconds": 0}))
        table_id: str | None = None
        sent_at: float | None = None
        last_v = 0
        while True:
            frame = await ws.recv()
            message = READ_MESSAGE(frame)
            kind = message.type
            if kind == "table":
                table_id = message.table_id
            elif kind == "error":
                raise SystemExit(f"server error: {frame!r}")
            if kind != "update" or message.observation is None:
                continue
            now = time.perf_counter()
            if sent_at is not None:
                latencies.append(now - sent_at)
                sent_at = None
            totals["actions"] += max(0, message.v - last_v - 1) + 1
            last_v = message.v
            observation = message.observation
            if observation.phase == "finished":
                totals["games"] += 1
                if time.monotonic() >= stop_at:
                    return
                await ws.send(json.dumps({"type": "rematch", "table_id": table_id}))
            elif observation.legal_actions:
                if time.monotonic() >= stop_at:
                    return
                sent_at = time.perf_counter()
                totals["acts"] += 1
                await ws.send(json.dumps({"type": "act", "table_id": table_id,
                                          "action": observation.legal_actions[0]}))


async def run_games(url: str, clients: int, players: int, seconds: float,
                    server_pid: int) -> dict[str, float]:
    latencies: list[float] = []
    totals = {"acts": 0, "actions": 0, "games": 0}
    start, server_cpu, own_cpu = time.monotonic(), cpu_seconds(server_pid), time.process_time()
    await asyncio.gather(*(game_client(url, players, start + seconds, latencies, totals)
                           for _ in range(clients)))
    elapsed = time.monotonic() - start
    return {"actions_per_s": totals["actions"] / elapsed, "acts_per_s": totals["acts"] / elapsed,
            "p50_ms": percentile(latencies, 0.50) * 1000,
            "p99_ms": percentile(latencies, 0.99) * 1000, "games": totals["games"],
            **cpu_figures(server_pid, server_cpu, own_cpu, elapsed, totals["actions"])}


# --- the echo reference ----------------------------------------------------------------------

ECHO_MESSAGE = json.dumps({"type": "act", "table_id": "t_0123456789ab",
                           "action": {"type": "play", "card": 17}, "id": 12345})


async def echo_client(url: str, stop_at: float, latencies: list[float]) -> None:
    from websockets.asyncio.client import connect

    async with connect(url, open_timeout=30) as ws:
        while time.monotonic() < stop_at:
            sent = time.perf_counter()
            await ws.send(ECHO_MESSAGE)
            await ws.recv()
            latencies.append(time.perf_counter() - sent)


async def run_echo(url: str, clients: int, seconds: float, server_pid: int) -> dict[str, float]:
    latencies: list[float] = []
    start, server_cpu, own_cpu = time.monotonic(), cpu_seconds(server_pid), time.process_time()
    await asyncio.gather(*(echo_client(url, start + seconds, latencies) for _ in range(clients)))
    elapsed = time.monotonic() - start
    return {"per_s": len(latencies) / elapsed, "p50_ms": percentile(latencies, 0.5) * 1000,
            "p99_ms": percentile(latencies, 0.99) * 1000,
            **cpu_figures(server_pid, server_cpu, own_cpu, elapsed, len(latencies))}


def serve_echo(port: int) -> None:
    """The reference server: a Starlette websocket echo on uvicorn (same stack, no logic)."""
    import uvicorn
    from starlette.applications import Starlette
    from starlette.responses import PlainTextResponse
    from starlette.routing import Route, WebSocketRoute
    from starlette.websockets import WebSocket, WebSocketDisconnect

    async def echo(ws: WebSocket) -> None:
        await ws.accept()
        try:
            while True:
                await ws.send_text(await ws.receive_text())
        except WebSocketDisconnect:
            pass

    async def healthz(request: object) -> PlainTextResponse:
        return PlainTextResponse("ok")

    app = Starlette(routes=[WebSocketRoute("/ws", echo), Route("/healthz", healthz)])
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", access_log=False)


# --- main ------------------------------------------------------------------------------------


def measure_games(args: argparse.Namespace, db: str, root: Path = ROOT,
                  label: str = "current") -> dict[str, float]:
    """The game server part with database ``db`` (a path or ``:memory:``), code from ``root``."""
    port = free_port()
    with tempfile.TemporaryDirectory() as directory:
        timers = Path(directory) / "breakdown.json"
        extra = ({"PYTHONPATH": str(ROOT / "scripts" / "bench_breakdown"),
                  "WIZARD_BENCH_BREAKDOWN": str(timers)}
                 if args.breakdown and label == "current" and db == ":memory:" else {})
        server = start_server(
            port, Path(directory) / "server.log", root=root, WIZARD_DB=db,
            WIZARD_TURN_SECONDS="0", WIZARD_AI_WORKERS="0", **extra)
        # (start_server lifts the per-connection message budget: the clients act the
        # instant it is their turn, faster than any person; this measures the server)
        profiler = None
        if args.profile and db == ":memory:":
            Path(args.profile).mkdir(parents=True, exist_ok=True)
            raw = Path(args.profile) / f"{label}-{int(time.time())}.txt"
            profiler = subprocess.Popen(
                [str(Path(sys.executable).with_name("py-spy")), "record", "--pid",
                 str(server.pid), "--format", "raw", "--rate", "200", "--nonblocking",
                 "--duration", str(max(1, int(args.seconds))), "-o", str(raw)],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            result = asyncio.run(run_games(f"ws://127.0.0.1:{port}/ws", args.clients,
                                           args.players, args.seconds, server.pid))
        finally:
            if profiler is not None:
                profiler.wait(timeout=60)
            stop_server(server)
        if profiler is not None:
            print(f"-- py-spy, {label}: own time by function (top 15)")
            for line in top_functions(raw, 15):
                print(line)
        if extra and timers.exists():
            print_breakdown(json.loads(timers.read_text()))
        return result


def print_breakdown(totals: dict[str, list[float]]) -> None:
    """Inclusive time per table action of each timed part (nested parts overlap)."""
    actions = max(1.0, totals.get("table actions stored",
                                  totals.get("engine: applying the move", [1.0]))[0])
    print(f"-- breakdown: inclusive us per table action ({actions:.0f} actions timed)")
    for label, (calls, seconds) in sorted(totals.items(), key=lambda kv: -kv[1][1]):
        if label == "table actions stored":  # the denominator, counted not timed
            continue
        print(f"{1e6 * seconds / actions:7.1f} us  {label} ({calls / actions:.2f} calls, "
              f"{1e6 * seconds / max(1.0, calls):.1f} us each)")


def top_functions(raw: Path, count: int) -> list[str]:
    """The functions with the most own samples in a py-spy ``raw`` (collapsed) profile (the
    lines of a function counted together)."""
    own: Counter[str] = Counter()
    total = 0
    for line in raw.read_text().splitlines():
        stack, _, samples = line.rpartition(" ")
        if not stack:
            continue
        n = int(samples)
        total += n
        own[re.sub(r":\d+\)$", ")", stack.split(";")[-1])] += n
    return [f"{100 * n / max(1, total):5.1f} %  {frame}" for frame, n in own.most_common(count)]


def measure_echo(args: argparse.Namespace) -> dict[str, float]:
    echo_port = free_port()
    echo = subprocess.Popen([sys.executable, __file__, "--echo-server", str(echo_port)], cwd=ROOT)
    try:
        wait_healthy(echo_port, echo, "/healthz")
        return asyncio.run(run_echo(f"ws://127.0.0.1:{echo_port}/ws", args.clients,
                                    args.seconds, echo.pid))
    finally:
        stop(echo)


def measure(args: argparse.Namespace, repeat: int, baseline: Path | None) -> dict[str, Any]:
    """One run: the game server (and the baseline's, order alternating), file db, echo."""
    run: dict[str, Any] = {}
    order = ["current", "baseline"] if repeat % 2 == 0 else ["baseline", "current"]
    for which in order:
        if which == "current":
            run["games"] = measure_games(args, ":memory:")
        elif baseline is not None:
            run["baseline"] = measure_games(args, ":memory:", baseline, "baseline")
    if args.file_db:
        with tempfile.TemporaryDirectory() as directory:
            run["file"] = measure_games(args, str(Path(directory) / "bench.db"))
    run["echo"] = measure_echo(args)
    return run


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--baseline", metavar="GIT-REF",
                        help="also run the game part on this commit, side by side")
    parser.add_argument("--profile", metavar="DIR", help="py-spy each game server (top lines)")
    parser.add_argument("--breakdown", action="store_true",
                        help="time the current server's hot functions (us per table action)")
    parser.add_argument("--no-file-db", dest="file_db", action="store_false",
                        help="skip the run on a file database (WIZARD_DB on disk)")
    parser.add_argument("--echo-server", type=int, metavar="PORT", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.echo_server:
        serve_echo(args.echo_server)
        return 0

    baseline: Path | None = None
    worktree = tempfile.mkdtemp(prefix="bench-baseline-") if args.baseline else None
    if worktree is not None:
        subprocess.run(["git", "worktree", "add", "--detach", worktree, args.baseline],
                       cwd=ROOT, check=True, capture_output=True)
        baseline = Path(worktree)
    try:
        runs = [measure(args, k, baseline) for k in range(args.repeats)]
    finally:
        if worktree is not None:
            subprocess.run(["git", "worktree", "remove", "--force", worktree], cwd=ROOT,
                           check=False, capture_output=True)

    def median(part: str, key: str) -> float:
        return statistics.median(run[part][key] for run in runs)

    def ratio(part: str) -> float:
        return statistics.median(run[part]["acts_per_s"] / run["echo"]["per_s"] for run in runs)

    def cpu_line(part: str) -> str:
        return (f"{median(part, 'server_us'):.0f} us, {median(part, 'server_sys_us'):.0f} of it "
                f"system (server {median(part, 'server_cpu'):.0%} of a core, clients "
                f"{median(part, 'client_cpu'):.0%})")

    print(f"clients                      {args.clients} ({args.players}-player play_bots games, "
          f"{args.seconds:.0f} s each part, median of {args.repeats} runs)")
    parts = [("", "games")] + ([(f"baseline {args.baseline}: ", "baseline")] if baseline else [])
    for prefix, part in parts:
        print(f"{prefix}games finished               {median(part, 'games'):.0f}")
        print(f"{prefix}table actions/s (all seats)  {median(part, 'actions_per_s'):.0f}")
        print(f"{prefix}player acts/s (round trips)  {median(part, 'acts_per_s'):.0f}")
        print(f"{prefix}act->update p50 ms           {median(part, 'p50_ms'):.1f}")
        print(f"{prefix}act->update p99 ms           {median(part, 'p99_ms'):.1f}")
        print(f"{prefix}player round trips / echo    {ratio(part):.2f}")
        print(f"{prefix}server CPU per table action  {cpu_line(part)}")
    print(f"echo round trips/s           {median('echo', 'per_s'):.0f}")
    print(f"echo p50 ms                  {median('echo', 'p50_ms'):.1f}")
    print(f"echo p99 ms                  {median('echo', 'p99_ms'):.1f}")
    print(f"echo server CPU per trip     {cpu_line('echo')}")
    per_echo = median("games", "actions_per_s") / median("echo", "per_s")
    print(f"table actions / echo         {per_echo:.2f}")
    if baseline is not None:
        speedup = statistics.median(run["games"]["acts_per_s"] / run["baseline"]["acts_per_s"]
                                    for run in runs)
        print(f"round trips / baseline's     {speedup:.2f} (same run, same clients)")
    if args.file_db:
        cost = statistics.median(1 - run["file"]["actions_per_s"] / run["games"]["actions_per_s"]
                                 for run in runs)
        print(f"file db: table actions/s     {median('file', 'actions_per_s'):.0f}")
        print(f"file db: act->update p50 ms  {median('file', 'p50_ms'):.1f}")
        print(f"file db: act->update p99 ms  {median('file', 'p99_ms'):.1f}")
        print(f"file db cost in actions/s    {cost:.1%} (target <= 20 %)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
