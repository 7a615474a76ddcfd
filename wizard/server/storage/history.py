"""Finished games for people: ``/api/games`` (a page of results) and one game, or its replay.

"Recent games" lists public games and the requester's own private ones (see
`wizard.server.storage.visibility`); a game's own URL works for whoever has the link.
Only finished games are served — a game in progress would give its seed (and so
every hand) away. ``/api/games/{id}`` holds enough to replay the game in the
engine exactly (options, seed, seats, every action with its seat, final scores);
``/api/games/{id}/replay`` is that replay done here: each round's hands and
trump, then every step with its engine events, for the browser's replay view.
"""

from __future__ import annotations

import asyncio
import json
from collections import OrderedDict
from typing import Any

import msgspec
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from wizard.engine import GameOptions, RoundStarted, WizardGame, action_from_dict

from .db import StoredGame
from .store import STATUS_FINISHED, SqliteStore, iso_time, public_seats
from .visibility import bearer_token, shown_table_id

MAX_PAGE = 100
DEFAULT_PAGE = 20
REPLAY_CACHE = 64


def _json(data: Any, status: int = 200) -> Response:
    return Response(msgspec.json.encode(data), status_code=status, media_type="application/json")


def _error(status: int, code: str, message: str) -> Response:
    return _json({"error": code, "message": message}, status)


def game_record(stored: StoredGame) -> dict[str, Any]:
    """``/api/games/{id}``: the game as data, enough to replay it exactly."""
    result = json.loads(stored.result) if stored.result else {"scores": [], "winners": []}
    seats = public_seats(stored.seats)
    return {
        "id": stored.id,
        "table_id": shown_table_id(stored.table_id, stored.table_info),
        "num_players": len(seats),
        "options": json.loads(stored.options),
        "seed": stored.seed,
        "players": seats,
        "actions": [{"seq": seq, "seat": seat, "action": json.loads(action)}
                    for seq, seat, action, _ in stored.actions],
        "scores": result["scores"],
        "winners": result["winners"],
        "created": iso_time(stored.created),
        "finished": iso_time(stored.finished),
    }


def replay(stored: StoredGame) -> dict[str, Any]:
    """Replay a stored game through the engine: rounds with all hands, steps with events.

    Raises `ValueError` (or an `IllegalActionError`) if the record does not replay.
    """
    record = game_record(stored)
    options = GameOptions.from_dict(record["options"])
    game = WizardGame(record["num_players"], options, seed=stored.seed)

    def round_view() -> dict[str, Any]:
        trump = game.trump_card
        return {
            "round_number": game.round_number,
            "dealer": game.dealer,
            "trump_card": trump.to_dict() if trump else None,
            "trump_suit": game.trump_suit.value if game.trump_suit else None,
            "hands": [[card.to_dict() for card in game.hand(seat)]
                      for seat in range(game.num_players)],
        }

    rounds = [round_view()]
    steps = []
    for step in record["actions"]:
        events = game.apply(step["seat"], action_from_dict(step["action"]))
        steps.append({**step, "events": [event.to_dict() for event in events]})
        if any(isinstance(event, RoundStarted) for event in events):
            rounds.append(round_view())
    return {
        "id": record["id"],
        "num_players": record["num_players"],
        "options": record["options"],
        "players": record["players"],
        "rounds": rounds,
        "steps": steps,
        "scores": game.scores,
        "winners": game.winners(),
    }


class History:
    """The history routes over a store, with a small cache of built replays."""

    def __init__(self, store: SqliteStore) -> None:
        self.store = store
        self._replays: OrderedDict[str, bytes] = OrderedDict()
        self._building: dict[str, asyncio.Future[bytes]] = {}  # one build per game at a time

    def routes(self) -> list[Route]:
        return [
            Route("/api/games", self.list_games),
            Route("/api/games/{game_id}", self.one_game),
            Route("/api/games/{game_id}/replay", self.one_replay),
        ]

    async def list_games(self, request: Request) -> Response:
        try:
            limit = int(request.query_params.get("limit", DEFAULT_PAGE))
        except ValueError:
            return _error(400, "bad_request", "limit must be an integer")
        if not 1 <= limit <= MAX_PAGE:
            return _error(400, "bad_request", f"limit must be 1-{MAX_PAGE}")
        token = bearer_token(request.headers.get("authorization"))
        known = await self.store.known_player(token) if token else None
        try:
            games, next_before = await self.store.finished_games(
                limit, request.query_params.get("before"), known[0] if known else None)
        except ValueError as exc:
            return _error(400, "bad_request", str(exc))
        return _json({"games": games, "next_before": next_before})

    async def _finished(self, game_id: str) -> StoredGame | Response:
        stored = await self.store.game(game_id)
        if stored is None or stored.status != STATUS_FINISHED:
            return _error(404, "no_such_game", f"no finished game {game_id!r}")
        return stored

    async def one_game(self, request: Request) -> Response:
        stored = await self._finished(request.path_params["game_id"])
        if isinstance(stored, Response):
            return stored
        return _json(game_record(stored))

    async def one_replay(self, request: Request) -> Response:
        game_id = request.path_params["game_id"]
        body = self._replays.get(game_id)
        if body is None:
            stored = await self._finished(game_id)
            if isinstance(stored, Response):
                return stored
            body = await self._build(stored)
        if game_id in self._replays:
            self._replays.move_to_end(game_id)
        return Response(body, media_type="application/json")

    async def _build(self, stored: StoredGame) -> bytes:
        """Replay ``stored`` in a worker thread (never on the event loop), once, and cache it."""
        building = self._building.get(stored.id)
        if building is None:
            building = asyncio.ensure_future(
                asyncio.to_thread(lambda: msgspec.json.encode(replay(stored))))
            self._building[stored.id] = building
            building.add_done_callback(lambda _: self._building.pop(stored.id, None))
        body = await asyncio.shield(building)
        self._replays[stored.id] = body
        if len(self._replays) > REPLAY_CACHE:
            self._replays.popitem(last=False)
        return body


__all__ = ["History", "game_record", "replay"]
