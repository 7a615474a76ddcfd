"""A client that does not read is dropped once its queue holds too many bytes, however few
messages that is (a few lobby pages of big tables are a lot of memory)."""

from __future__ import annotations

import contextlib
from pathlib import Path

import httpx

from ...serve import free_port, start_server, stop_server
from ..rawws import RawWebSocket


def metric(port: int, line_start: str) -> float:
    text = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=10).text
    return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
               if line.startswith(line_start))


def test_a_reader_that_stops_is_dropped_at_the_byte_bound(tmp_path: Path) -> None:
    port = free_port()
    # the message-count bound and the send timeout are out of reach: only bytes can trip
    process = start_server(port, tmp_path / "server.log", WIZARD_SEND_QUEUE="1000000",
                           WIZARD_SEND_QUEUE_BYTES="65536", WIZARD_SEND_TIMEOUT="600",
                           WIZARD_AI_WORKERS="0")
    try:
        slow = RawWebSocket(port, rcvbuf=4096)
        slow.send({"type": "hello", "name": "Slow"})
        slow.send({"type": "play_bots", "players": 6, "level": "easy", "turn_seconds": 0})
        table_id = slow.read_until(rb'"table_id":"(t_[\w-]+)"').group(1).decode()
        with contextlib.suppress(OSError):  # the server cuts the socket off mid-flood
            for _ in range(2000):
                slow.send({"type": "sync", "table_id": table_id})
        assert slow.drain_until_closed(30) < 4_000_000  # the buffers' worth, then closed
        slow.close()
        assert metric(port, 'wizard_connections_closed_total{cause="send_queue_full"}') == 1
        assert metric(port, "wizard_connections ") == 0
    finally:
        stop_server(process)
