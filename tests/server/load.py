"""Load scenario shared by ``test_faults.py`` and ``scripts/bench_limits.py``:
busy tables (one person + bots, acting at once) measured act → own update,
with or without a crowd of idle connections."""

from __future__ import annotations

import asyncio
import json
import math
import time
from dataclasses import dataclass, field

import httpx
from websockets.asyncio.client import ClientConnection, connect

from .driver import act_message, finished, my_turn


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (``q`` in 0–100) of ``values``; nan when empty."""
    if not values:
        return math.nan
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]


@dataclass
class BusyResult:
    latencies: list[float] = field(default_factory=list)
    games: int = 0


async def _recv(ws: ClientConnection, timeout: float) -> dict[str, object]:
    message: dict[str, object] = json.loads(await asyncio.wait_for(ws.recv(), timeout))
    return message


async def busy_table(url: str, seconds: float, name: str) -> BusyResult:
    """Play ``play_bots`` games for ``seconds``: every own turn acts at once and times
    the send of ``act`` to the arrival of the update it caused (``v`` + 1)."""
    result = BusyResult()
    async with connect(url, open_timeout=20, close_timeout=2, ping_interval=None) as ws:
        await ws.send(json.dumps({"type": "hello", "name": name}))
        await ws.send(json.dumps({"type": "play_bots", "players": 3, "level": "easy",
                                  "turn_seconds": 0, "id": 1}))
        stop_at = time.monotonic() + seconds
        table_id = ""
        message = await _recv(ws, 20)
        while time.monotonic() < stop_at:
            if message["type"] == "table":
                table_id = str(message["table_id"])
            if table_id and finished(message, table_id):
                result.games += 1
                await ws.send(json.dumps({"type": "rematch", "table_id": table_id}))
            elif table_id and my_turn(message, table_id):
                sent = time.perf_counter()
                await ws.send(json.dumps(act_message(message)))
                target = int(str(message["v"])) + 1
                while True:
                    message = await _recv(ws, 20)
                    if message["type"] == "update" and message["v"] == target:
                        result.latencies.append(time.perf_counter() - sent)
                        break
                continue  # the update we caused may be our next turn (we took the trick)
            message = await _recv(ws, 20)
    return result


async def open_idle(url: str, count: int) -> list[ClientConnection]:
    """``count`` connections that say hello and then nothing (library pongs only)."""
    async def one(n: int) -> ClientConnection:
        ws = await connect(url, open_timeout=30, close_timeout=1, ping_interval=None)
        await ws.send(json.dumps({"type": "hello", "name": f"idle{n}", "id": 1}))
        while json.loads(await asyncio.wait_for(ws.recv(), 30)).get("type") != "ack":
            pass
        return ws

    sockets: list[ClientConnection] = []
    for start in range(0, count, 50):  # in waves: the accept backlog is finite
        sockets += await asyncio.gather(*(one(n) for n in range(start, min(count, start + 50))))
    return sockets


async def measure(url: str, busy: int, seconds: float) -> list[BusyResult]:
    return list(await asyncio.gather(*(busy_table(url, seconds, f"busy{n}")
                                       for n in range(busy))))


def server_connections(http_base: str) -> float:
    """``wizard_connections`` as the server reports it."""
    text = httpx.get(f"{http_base}/metrics", timeout=10).text
    line = next(li for li in text.splitlines() if li.startswith("wizard_connections "))
    return float(line.split()[1])


def summary(results: list[BusyResult]) -> dict[str, float]:
    latencies = [x for r in results for x in r.latencies]
    return {"samples": len(latencies), "p50_ms": 1000 * percentile(latencies, 50),
            "p99_ms": 1000 * percentile(latencies, 99),
            "max_ms": 1000 * max(latencies, default=math.nan),
            "tables_with_progress": sum(1 for r in results if r.latencies)}
