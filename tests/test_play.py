"""``wizard play``: an agent plays on a live server as a remote player."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Iterator

import pytest

from wizard.play import play_games

from . import serve
from .serve import ROOT, LiveServer


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    live = serve.start(tmp_path_factory.mktemp("play") / "server.log")
    try:
        yield live
    finally:
        live.stop()


def test_an_agent_plays_two_games_at_one_table(server: LiveServer) -> None:
    results = asyncio.run(asyncio.wait_for(
        play_games(server.url, "heuristic", games=2, players=3, level="easy", seed=5), 120))
    assert len(results) == 2 and results[0].table_id == results[1].table_id
    for result in results:
        assert len(result.scores) == 3 and result.winners and result.actions > 0
        assert result.won == (result.seat in result.winners)


def test_the_command_prints_one_line_per_game(server: LiveServer) -> None:
    done = subprocess.run([sys.executable, "-m", "wizard", "play", "--url", server.url,
                           "--agent", "random", "--players", "3", "--level", "easy"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    (line,) = done.stdout.splitlines()
    assert line.startswith("game 1: ") and "[" in line


def test_an_unknown_agent_or_an_absent_server_is_a_clear_error() -> None:
    unknown = subprocess.run([sys.executable, "-m", "wizard", "play", "--agent", "nobody"],
                             cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert unknown.returncode == 1 and "unknown agent 'nobody'" in unknown.stderr
    port = serve.free_port()
    absent = subprocess.run([sys.executable, "-m", "wizard", "play", "--url",
                             f"ws://127.0.0.1:{port}/ws"],
                            cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert absent.returncode == 1 and "cannot connect" in absent.stderr


@pytest.mark.parametrize("command", ["play", "loadtest"])
def test_help_works(command: str) -> None:
    done = subprocess.run([sys.executable, "-m", "wizard", command, "--help"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and f"usage: wizard {command}" in done.stdout, done.stderr
