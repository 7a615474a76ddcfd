"""``wizard loadtest``: N protocol clients playing games against a server, for a bounded time.

Each client is a `wizard.client.Client` that plays ``play_bots`` games (or
shares a table with other clients, ``humans_per_table``), picks a random legal
move at once whenever it is its turn and times ``act`` → the ``update`` it
caused. The run stops by itself after ``duration`` seconds and leaves its
tables. Targets outside the loopback range are refused unless
``allow_remote``. ``rate_limited`` answers (the server's per-connection
message budget) are counted apart from server errors: they say the budget is
too small for the load, not that the server failed.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import math
import random
import re
import socket
import urllib.parse
import urllib.request
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .client import (
    Client,
    ClientError,
    ConnectionLost,
    Level,
    ServerError,
    Update,
)

RESERVOIR = 100_000  # latency samples kept for the percentiles (uniformly, past that)
MESSAGE_TIMEOUT = 60.0  # a client that hears nothing this long counts a ``timeout`` error
JOIN_WAIT = 10.0  # a host waits this long for its table's other clients, then seats bots


@dataclass(frozen=True, slots=True)
class LoadSettings:
    """One load run; `check` raises `ValueError` for settings that make no sense."""

    url: str = "ws://127.0.0.1:8000/ws"
    clients: int = 10
    duration: float = 10.0
    ramp: float = 0.0
    humans_per_table: int = 1
    players: int = 4
    level: Level = "easy"
    seed: int = 0
    allow_remote: bool = False

    def check(self) -> None:
        if self.clients < 1:
            raise ValueError("--clients must be at least 1")
        if not 0 < self.duration <= 24 * 3600:
            raise ValueError("--duration must be within (0, 86400] seconds")
        if not 0 <= self.ramp < self.duration:
            raise ValueError("--ramp must be >= 0 and shorter than --duration")
        if not 3 <= self.players <= 6:
            raise ValueError("--players must be 3-6")
        if not 1 <= self.humans_per_table <= self.players:
            raise ValueError(f"--humans-per-table must be 1-{self.players} (--players)")
        check_target(self.url, self.allow_remote)


def check_target(url: str, allow_remote: bool = False) -> None:
    """Raises `ValueError` unless ``url`` is ``ws://`` or ``wss://`` on a loopback address.

    >>> check_target("ws://127.0.0.1:8000/ws")
    >>> check_target("ws://192.0.2.1/ws")
    Traceback (most recent call last):
    ValueError: 192.0.2.1 is not a loopback address; pass --allow-remote to load a remote server
    """
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("ws", "wss") or not parts.hostname:
        raise ValueError(f"the target must look like ws://HOST:PORT/ws, got {url!r}")
    if allow_remote:
        return
    host = parts.hostname
    try:
        addresses = {ipaddress.ip_address(host)}
    except ValueError:
        try:
            infos = socket.getaddrinfo(host, parts.port or 80, proto=socket.IPPROTO_TCP)
        except OSError as exc:
            raise ValueError(f"cannot resolve {host}: {exc}") from None
        addresses = {ipaddress.ip_address(str(info[4][0]).split("%")[0]) for info in infos}
    if not all(address.is_loopback for address in addresses):
        raise ValueError(f"{host} is not a loopback address; "
                         "pass --allow-remote to load a remote server")


class LatencySample:
    """Act → update latencies: every count and the max exactly, percentiles from a reservoir."""

    def __init__(self, capacity: int = RESERVOIR, seed: int = 0) -> None:
        self.capacity = capacity
        self.values: list[float] = []
        self.count = 0
        self.max = 0.0
        self._rng = random.Random(seed)

    def add(self, value: float) -> None:
        self.count += 1
        self.max = max(self.max, value)
        if len(self.values) < self.capacity:
            self.values.append(value)
        else:
            slot = self._rng.randrange(self.count)
            if slot < self.capacity:
                self.values[slot] = value

    def percentile(self, q: float) -> float:
        return percentile(self.values, q)


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (``q`` in 0–100); nan for no values.

    >>> percentile([3.0, 1.0, 2.0, 4.0], 50)
    2.0
    """
    if not values:
        return math.nan
    ordered = sorted(values)
    return ordered[max(1, math.ceil(q / 100 * len(ordered))) - 1]


@dataclass
class LoadStats:
    """What the clients counted, live; `LoadReport` is its summary."""

    latencies: LatencySample = field(default_factory=LatencySample)
    recent: list[float] = field(default_factory=list)  # since the live view's last look
    connected: int = 0
    connected_max: int = 0
    games: int = 0
    actions: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    rate_limited: int = 0

    def latency(self, seconds: float) -> None:
        self.actions += 1
        self.latencies.add(seconds)
        self.recent.append(seconds)

    def joined(self) -> None:
        self.connected += 1
        self.connected_max = max(self.connected_max, self.connected)


@dataclass(frozen=True, slots=True)
class LoadReport:
    """The result of a run (``--json`` prints `to_dict`)."""

    settings: LoadSettings
    seconds: float
    stats: LoadStats
    disconnects: int
    reconnects: int
    version_gaps: int
    server: dict[str, Any] | None

    def to_dict(self) -> dict[str, Any]:
        lat = self.stats.latencies

        def ms(value: float) -> float | None:
            return None if math.isnan(value) else round(value * 1000, 3)

        return {
            "url": self.settings.url,
            "clients": self.settings.clients,
            "humans_per_table": self.settings.humans_per_table,
            "players": self.settings.players,
            "level": self.settings.level,
            "duration_s": round(self.seconds, 3),
            "connected_max": self.stats.connected_max,
            "games_completed": self.stats.games,
            "actions": self.stats.actions,
            "actions_per_second": round(self.stats.actions / self.seconds, 2),
            "latency_ms": {"p50": ms(lat.percentile(50)), "p90": ms(lat.percentile(90)),
                           "p99": ms(lat.percentile(99)),
                           "max": ms(lat.max) if lat.count else None},
            "errors": dict(sorted(self.stats.errors.items())),
            "rate_limited": self.stats.rate_limited,
            "disconnects": self.disconnects,
            "reconnects": self.reconnects,
            "version_gaps": self.version_gaps,
            "server": self.server,
        }


class LoadTest:
    """Runs the clients of one `LoadSettings`; ``await run()`` returns the `LoadReport`."""

    def __init__(self, settings: LoadSettings,
                 on_tick: Callable[[LoadStats, float], None] | None = None) -> None:
        settings.check()
        self.settings = settings
        self.stats = LoadStats(latencies=LatencySample(seed=settings.seed))
        self.on_tick = on_tick
        self._clients: list[Client] = []
        self._tables: dict[int, asyncio.Future[tuple[str, str | None]]] = {}
        self._seated: dict[str, str] = {}  # player id -> table id, for the goodbye
        self._stopping = False

    async def run(self) -> LoadReport:
        s = self.settings
        loop = asyncio.get_running_loop()
        before = await asyncio.to_thread(server_decisions, s.url)
        started = loop.time()
        tasks = [loop.create_task(self._client(n)) for n in range(s.clients)]
        ticker = loop.create_task(self._tick(started))
        try:
            await asyncio.wait(tasks, timeout=s.duration)
        finally:
            seconds = loop.time() - started
            self._stopping = True
            for task in (*tasks, ticker):
                task.cancel()
            await asyncio.gather(*tasks, ticker, return_exceptions=True)
            await self._goodbye()
        after = await asyncio.to_thread(server_decisions, s.url)
        self.stats.rate_limited = sum(c.rate_limited for c in self._clients)
        return LoadReport(
            s, seconds, self.stats,
            disconnects=sum(c.disconnects for c in self._clients),
            reconnects=sum(c.reconnects for c in self._clients),
            version_gaps=sum(c.version_gaps for c in self._clients),
            server=decisions_delta(before, after))

    async def _tick(self, started: float) -> None:
        loop = asyncio.get_running_loop()
        while self.on_tick is not None:
            await asyncio.sleep(0.5)
            self.stats.rate_limited = sum(c.rate_limited for c in self._clients)
            self.on_tick(self.stats, loop.time() - started)
            self.stats.recent.clear()

    async def _client(self, n: int) -> None:
        s = self.settings
        group, member = divmod(n, s.humans_per_table)
        groups = math.ceil(s.clients / s.humans_per_table)
        await asyncio.sleep(s.ramp * group / groups)
        client = Client(s.url, f"load-{n}", reconnect_seconds=10.0, seed=s.seed * 7919 + n)
        self._clients.append(client)
        rng = random.Random(s.seed * 104729 + n)
        try:
            await client.connect()
        except ServerError as exc:
            self.stats.errors[exc.code] += 1
            return
        except (ClientError, TimeoutError):
            self.stats.errors["connect_failed"] += 1
            return
        self.stats.joined()
        try:
            table_id = await self._seat(client, group, member)
            if client.player_id is not None:
                self._seated[client.player_id] = table_id
            await self._play(client, table_id, rng, host=member == 0)
        except ServerError as exc:
            self.stats.errors[exc.code] += 1
        except ConnectionLost:
            self.stats.errors["connection_lost"] += 1
        except TimeoutError:
            self.stats.errors["timeout"] += 1
        finally:
            self.stats.connected -= 1

    async def _seat(self, client: Client, group: int, member: int) -> str:
        """The table this client plays at: its own ``play_bots`` game, or its group's table."""
        s = self.settings
        if s.humans_per_table == 1:
            return await client.play_bots(s.players, s.level, turn_seconds=0)
        loop = asyncio.get_running_loop()
        shared = self._tables.setdefault(group, loop.create_future())
        if member:
            async with asyncio.timeout(JOIN_WAIT * 2):
                table_id, invite = await asyncio.shield(shared)
            await client.join(table_id, invite=invite)  # a private table: by its invite
            return table_id
        table_id = await client.create_table(s.players, private=True, turn_seconds=0)
        shared.set_result((table_id, client.tables[table_id].invite))
        humans = min(s.humans_per_table, s.clients - group * s.humans_per_table)
        deadline = loop.time() + JOIN_WAIT
        while _people(client, table_id) < humans and loop.time() < deadline:
            with contextlib.suppress(TimeoutError):
                await client.recv(timeout=max(0.01, deadline - loop.time()))
        for _ in range(s.players - _people(client, table_id)):
            await client.add_bot(table_id, s.level)
        await client.start_game(table_id)
        return table_id

    async def _play(self, client: Client, table_id: str, rng: random.Random, *,
                    host: bool) -> None:
        """Answer every turn at once with a random legal move; the host starts the rematch."""
        counted_v = -1
        while not self._stopping:
            message = await client.recv(timeout=MESSAGE_TIMEOUT)
            latest = client.updates.get(table_id)
            if not isinstance(message, Update) or message is not latest:
                continue
            if client.is_finished(table_id):
                if host and message.v != counted_v:
                    counted_v = message.v
                    self.stats.games += 1
                    await client.rematch(table_id)
            elif client.is_my_turn(table_id):
                await self._act(client, table_id, rng.choice(client.legal_actions(table_id)))

    async def _act(self, client: Client, table_id: str, action: dict[str, Any]) -> None:
        try:
            answer = await client.act(table_id, action)
        except ConnectionLost:
            return  # the client reconnects; the re-sent update says whose turn it is
        found = answer.first(Update, table_id)
        if found is not None:
            self.stats.latency(found[1] - answer.sent)

    async def _goodbye(self) -> None:
        """Leave every table (the server closes it) and close the sockets, bounded."""
        async def one(client: Client) -> None:
            table_id = self._seated.get(client.player_id or "")
            if table_id and client.connected:
                with contextlib.suppress(ClientError, TimeoutError):
                    async with asyncio.timeout(2.0):
                        await client.leave(table_id)
            await client.close()

        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(10.0):
                await asyncio.gather(*(one(c) for c in self._clients), return_exceptions=True)


def _people(client: Client, table_id: str) -> int:
    table = client.tables.get(table_id)
    return 0 if table is None else sum(seat.kind == "player" for seat in table.seats)


_DECISION_LINE = re.compile(
    r'^wizard_decisions_total\{agent="([^"]*)",reason="([^"]*)"\}\s+([0-9.eE+-]+)$')


def server_decisions(url: str, timeout: float = 3.0) -> dict[tuple[str, str], float] | None:
    """Bot decisions by (agent, reason) from the server's ``/metrics``; None if unreadable."""
    parts = urllib.parse.urlsplit(url)
    scheme = "https" if parts.scheme == "wss" else "http"
    try:
        with urllib.request.urlopen(f"{scheme}://{parts.netloc}/metrics",
                                    timeout=timeout) as response:
            text = response.read().decode()
    except (OSError, ValueError):
        return None
    counts: dict[tuple[str, str], float] = {}
    for line in text.splitlines():
        match = _DECISION_LINE.match(line.strip())
        if match:
            counts[(match[1], match[2])] = float(match[3])
    return counts


def decisions_delta(before: dict[tuple[str, str], float] | None,
                    after: dict[tuple[str, str], float] | None) -> dict[str, Any] | None:
    """``{"bot_decisions", "by_agent", "fallbacks"}`` made during the run, from two scrapes."""
    if before is None or after is None:
        return None
    delta = {key: after[key] - before.get(key, 0.0) for key in after}
    by_agent: Counter[str] = Counter()
    fallbacks: Counter[str] = Counter()
    for (agent, reason), n in delta.items():
        by_agent[agent] += int(n)
        if reason != "none":
            fallbacks[reason] += int(n)
    return {"bot_decisions": int(sum(delta.values())), "by_agent": dict(sorted(by_agent.items())),
            "fallbacks": dict(sorted((k, v) for k, v in fallbacks.items() if v))}


__all__ = ["LatencySample", "LoadReport", "LoadSettings", "LoadStats", "LoadTest",
           "check_target", "decisions_delta", "percentile", "server_decisions"]
