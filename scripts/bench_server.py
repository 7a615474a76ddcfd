#!/usr/bin/env python3
"""Server speed over loopback, one line per figure.

    .venv/bin/python scripts/bench_server.py [--clients 50] [--seconds 15] [--players 4]

Starts ``wizard serve`` (``WIZARD_BOT_DELAY=0``) in a subprocess; N protocol
clients each play ``play_bots`` games (first legal action, ``rematch`` after
each game) for ``--seconds``. Then, in the same run, a plain websocket echo
(a tiny Starlette app on the same uvicorn stack, in its own subprocess) is
driven by the same number of clients as the physical reference.

Figures: table actions/s (every seat), player acts/s (= act→update round
trips/s), p50/p99 ms from ``act`` to the ``update`` that answers it, echo
round trips/s with p50/p99, and the ratios of player round trips and of table
actions to echo round trips. Targets with 50 clients: p99 < 50 ms and at least
0.25 x the echo round trips/s. The game part runs twice, on an in-memory and on
a file database (WIZARD_DB), to show what durability costs (target <= 20 %).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


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
            message = json.loads(await ws.recv())
            kind = message["type"]
            if kind == "table":
                table_id = message["table_id"]
            elif kind == "error":
                raise SystemExit(f"server error: {message}")
            if kind != "update":
                continue
            now = time.perf_counter()
            if sent_at is not None:
                latencies.append(now - sent_at)
                sent_at = None
            totals["actions"] += max(0, message["v"] - last_v - 1) + 1
            last_v = message["v"]
            observation = message["observation"]
            if observation["phase"] == "finished":
                totals["games"] += 1
                if time.monotonic() >= stop_at:
                    return
                await ws.send(json.dumps({"type": "rematch", "table_id": table_id}))
            elif observation["legal_actions"]:
                if time.monotonic() >= stop_at:
                    return
                sent_at = time.perf_counter()
                totals["acts"] += 1
                await ws.send(json.dumps({"type": "act", "table_id": table_id,
                                          "action": observation["legal_actions"][0]}))


async def run_games(url: str, clients: int, players: int, seconds: float) -> dict[str, float]:
    latencies: list[float] = []
    totals = {"acts": 0, "actions": 0, "games": 0}
    start = time.monotonic()
    await asyncio.gather(*(game_client(url, players, start + seconds, latencies, totals)
                           for _ in range(clients)))
    elapsed = time.monotonic() - start
    return {"actions_per_s": totals["actions"] / elapsed, "acts_per_s": totals["acts"] / elapsed,
            "p50_ms": percentile(latencies, 0.50) * 1000,
            "p99_ms": percentile(latencies, 0.99) * 1000, "games": totals["games"]}


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


async def run_echo(url: str, clients: int, seconds: float) -> dict[str, float]:
    latencies: list[float] = []
    start = time.monotonic()
    await asyncio.gather(*(echo_client(url, start + seconds, latencies) for _ in range(clients)))
    elapsed = time.monotonic() - start
    return {"per_s": len(latencies) / elapsed, "p50_ms": percentile(latencies, 0.5) * 1000,
            "p99_ms": percentile(latencies, 0.99) * 1000}


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


def measure_games(args: argparse.Namespace, db: str) -> dict[str, float]:
    """The game server part with database ``db`` (a path or ``:memory:``)."""
    env = {**os.environ, "WIZARD_BOT_DELAY": "0", "WIZARD_LOG_LEVEL": "warning",
           "WIZARD_DB": db, "WIZARD_TURN_SECONDS": "0", "WIZARD_AI_WORKERS": "0",
           # the clients act the instant it is their turn, faster than any person: lift
           # the per-connection message budget so it measures the server, not the limit
           "WIZARD_MESSAGES_PER_SECOND": "10000", "WIZARD_MESSAGE_BURST": "10000"}
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "wizard", "serve", "--port", str(port)],
                              cwd=ROOT, env=env)
    try:
        wait_healthy(port, server, "/healthz")
        return asyncio.run(run_games(f"ws://127.0.0.1:{port}/ws", args.clients, args.players,
                                     args.seconds))
    finally:
        stop(server)


def measure(args: argparse.Namespace) -> tuple[dict[str, float], dict[str, float],
                                               dict[str, float] | None]:
    """One run: the game server on an in-memory database, on a file database, then echo."""
    games = measure_games(args, ":memory:")
    on_file = None
    if args.file_db:
        with tempfile.TemporaryDirectory() as directory:
            on_file = measure_games(args, str(Path(directory) / "bench.db"))
    echo_port = free_port()
    echo = subprocess.Popen([sys.executable, __file__, "--echo-server", str(echo_port)], cwd=ROOT)
    try:
        wait_healthy(echo_port, echo, "/healthz")
        ref = asyncio.run(run_echo(f"ws://127.0.0.1:{echo_port}/ws", args.clients, args.seconds))
    finally:
        stop(echo)
    return games, ref, on_file


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--no-file-db", dest="file_db", action="store_false",
                        help="skip the run on a file database (WIZARD_DB on disk)")
    parser.add_argument("--echo-server", type=int, metavar="PORT", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.echo_server:
        serve_echo(args.echo_server)
        return 0

    runs = [measure(args) for _ in range(args.repeats)]

    def median(part: int, key: str) -> float:
        return statistics.median(run[part][key] for run in runs)

    games = {key: median(0, key) for key in runs[0][0]}
    ref = {key: median(1, key) for key in runs[0][1]}
    ratio = statistics.median(run[0]["acts_per_s"] / run[1]["per_s"] for run in runs)
    print(f"clients                      {args.clients} ({args.players}-player play_bots games, "
          f"{args.seconds:.0f} s each part, median of {args.repeats} runs)")
    print(f"games finished               {games['games']:.0f}")
    print(f"table actions/s (all seats)  {games['actions_per_s']:.0f}")
    print(f"player acts/s (round trips)  {games['acts_per_s']:.0f}")
    print(f"act->update p50 ms           {games['p50_ms']:.1f}")
    print(f"act->update p99 ms           {games['p99_ms']:.1f}")
    print(f"echo round trips/s           {ref['per_s']:.0f}")
    print(f"echo p50 ms                  {ref['p50_ms']:.1f}")
    print(f"echo p99 ms                  {ref['p99_ms']:.1f}")
    print(f"player round trips / echo    {ratio:.2f}")
    print(f"table actions / echo         {games['actions_per_s'] / ref['per_s']:.2f}")
    if args.file_db:
        on_file = {key: statistics.median(run[2][key] for run in runs if run[2])
                   for key in runs[0][2] or {}}
        cost = statistics.median(1 - run[2]["actions_per_s"] / run[0]["actions_per_s"]
                                 for run in runs if run[2])
        print(f"file db: table actions/s     {on_file['actions_per_s']:.0f}")
        print(f"file db: act->update p50 ms  {on_file['p50_ms']:.1f}")
        print(f"file db: act->update p99 ms  {on_file['p99_ms']:.1f}")
        print(f"file db cost in actions/s    {cost:.1%} (target <= 20 %)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
