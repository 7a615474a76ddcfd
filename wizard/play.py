"""``wizard play``: any `make_agent` agent plays games on a server as a remote player.

The agent sees exactly what a browser at that seat sees (the ``update``
observation) and answers through the protocol client::

    wizard play --url ws://127.0.0.1:8000/ws --agent heuristic --games 3
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from dataclasses import dataclass
from typing import Any

from wizard.ai.registry import agent_names, make_agent
from wizard.engine import Observation, action_to_dict

from .client import Client, ClientError, Level, Update

LEVELS = ("easy", "medium", "hard", "master")


@dataclass(frozen=True, slots=True)
class GameResult:
    """One finished game, from the remote player's seat."""

    table_id: str
    seat: int
    scores: tuple[int, ...]
    winners: tuple[int, ...]
    actions: int

    @property
    def won(self) -> bool:
        return self.seat in self.winners


async def play_games(url: str, agent_name: str, *, name: str = "", games: int = 1,
                     players: int = 4, level: Level = "medium", seed: int | None = None,
                     message_timeout: float = 120.0) -> list[GameResult]:
    """Play ``games`` games against server bots of ``level`` with agent ``agent_name``.

    Raises `ValueError` for an unknown agent, `ClientError` for a server that
    refuses or goes away, `TimeoutError` when no message comes for
    ``message_timeout`` seconds.
    """
    agent = make_agent(agent_name, seed=seed)
    results: list[GameResult] = []
    async with Client(url, name or f"{agent_name} bot"[:32]) as client:
        table_id = await client.play_bots(players, level, turn_seconds=0)
        for game in range(games):
            agent.reset(None if seed is None else seed + game)
            actions = 0
            while not client.is_finished(table_id):
                message = await client.recv(timeout=message_timeout)
                latest = client.updates.get(table_id)
                if not isinstance(message, Update) or message is not latest:
                    continue  # act only on the newest state of our table
                if client.is_my_turn(table_id):
                    observation = Observation.from_dict(message.observation)
                    await client.act(table_id, action_to_dict(agent.act(observation)))
                    actions += 1
            final: dict[str, Any] = client.updates[table_id].observation
            results.append(GameResult(table_id, int(final["player"]), tuple(final["scores"]),
                                      tuple(final["winners"]), actions))
            if game + 1 < games:
                await client.rematch(table_id)
        await client.leave(table_id)
    return results


def run_play(args: argparse.Namespace) -> int:
    try:
        results = asyncio.run(play_games(args.url, args.agent, name=args.name, games=args.games,
                                         players=args.players, level=args.level, seed=args.seed))
    except (ValueError, ClientError, TimeoutError) as exc:
        print(f"wizard play: {exc or type(exc).__name__}", file=sys.stderr)
        return 1
    for number, result in enumerate(results, 1):
        scores = " ".join(f"{s:+d}" if i != result.seat else f"[{s:+d}]"
                          for i, s in enumerate(result.scores))
        print(f"game {number}: {'won' if result.won else 'lost'}  scores {scores}  "
              f"({result.actions} actions, table {result.table_id})")
    return 0


def register(sub: Any) -> None:
    parser = sub.add_parser(
        "play",
        help="play games on a server with any agent as a remote player",
        description="Connect to a Wizard online server, start a game against its bots "
                    "(play_bots) and let AGENT play the seat through the websocket protocol.",
    )
    parser.add_argument("--url", default="ws://127.0.0.1:8000/ws", help="the server's websocket")
    parser.add_argument("--agent", default="heuristic",
                        help=f"agent to play with: {', '.join(agent_names())}")
    parser.add_argument("--name", default="", help="player name (default: '<agent> bot')")
    parser.add_argument("--games", type=int, default=1, help="games to play (default 1)")
    parser.add_argument("--players", type=int, default=4, choices=range(3, 7),
                        metavar="3-6", help="seats at the table (default 4)")
    parser.add_argument("--level", default="medium", choices=LEVELS,
                        help="level of the server's bots (default medium)")
    parser.add_argument("--seed", type=int, default=None, help="seed of the agent")
    parser.set_defaults(handler=run_play)


__all__ = ["GameResult", "play_games", "register", "run_play"]
