"""Finished games for people: ``/api/games`` (a page of results) and one game, or its replay.

"Recent games" lists public games and the private ones the requester played or
watched; a private game's record and replay answer its players and spectators
(``Authorization: Bearer <token>``) and whoever holds its link (``?invite=``): see
`wizard.server.storage.visibility`.
Only finished games are served — a game in progress would give its seed (and so
every hand) away. ``/api/games/{id}`` holds enough to replay the game in the
engine exactly (options, seed, seats, every action with its seat, final scores);
``/api/games/{id}/replay`` is that replay done here: each round's hands and
trump, then every step with its engine events, for the browser's replay view.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from typing import Any

import msgspec
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from wizard.engine import RoundStarted, WizardGame, action_from_dict

from ..net.responses import error_response, json_response
from .records import GameStatus, StoredGame
from .store import SqliteStore, iso_time, public_seats
from .visibility import bearer_token, may_view

MAX_PAGE = 100
DEFAULT_PAGE = 20
REPLAY_CACHE = 64


def game_record(stored: StoredGame) -> dict[str, Any]:
    """``/api/games/{id}``: the game as data, enough to replay it exactly."""
    seats = public_seats(stored.seats)
    return {
        "id": stored.id,
        "table_id": None if stored.private else stored.table_id,
        "num_players": len(seats),
        "options": stored.options.to_dict(),
        "seed": stored.seed,
        "players": seats,
        "actions": [{"seq": a.seq, "seat": a.seat, "action": a.action}
                    for a in stored.actions],
        "scores": stored.result.scores if stored.result else [],
        "winners": stored.result.winners if stored.result else [],
        "created": iso_time(stored.created),
        "finished": iso_time(stored.finished),
    }


def replay(stored: StoredGame) -> dict[str, Any]:
    """Replay a stored game through the engine: rounds with all hands, steps with events.

    Raises `ValueError` (or an `IllegalActionError`) if the record does not replay.
    """
    record = game_record(stored)
    game = WizardGame(record["num_players"], stored.options, seed=stored.seed)

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
        self._replays: OrderedDict[str, tuple[bool, bytes]] = OrderedDict()  # (public, body)
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
            return error_response(400, "bad_request", "limit must be an integer")
        if not 1 <= limit <= MAX_PAGE:
            return error_response(400, "bad_request", f"limit must be 1-{MAX_PAGE}")
        try:
            games, next_before = await self.store.finished_games(
                limit, request.query_params.get("before"), await self.viewer(request))
        except ValueError as exc:
            return error_response(400, "bad_request", str(exc))
        return json_response({"games": games, "next_before": next_before})

    async def viewer(self, request: Request) -> str | None:
        """The player id of the request's ``Authorization: Bearer <token>``, if known."""
        token = bearer_token(request.headers.get("authorization"))
        known = await self.store.known_player(token) if token else None
        return known[0] if known else None

    async def open_game(self, request: Request, game_id: str) -> StoredGame | Response:
        """The finished game ``game_id`` if this request may see it, else the error response
        (404 ``no_such_game``; 403 ``invite_required`` for a private game)."""
        stored = await self.store.game(game_id)
        if stored is None or stored.status is not GameStatus.FINISHED or stored.problem is not None:
            return error_response(404, "no_such_game", f"no finished game {game_id!r}")
        if stored.private and not may_view(stored, await self.viewer(request),
                                           request.query_params.get("invite")):
            return error_response(403, "invite_required",
                                  "this game was played at a private table: open it with its link "
                                  "(it carries the invite), or sign in as one of its players")
        return stored

    async def one_game(self, request: Request) -> Response:
        stored = await self.open_game(request, request.path_params["game_id"])
        if isinstance(stored, Response):
            return stored
        return json_response(game_record(stored))

    async def one_replay(self, request: Request) -> Response:
        game_id = request.path_params["game_id"]
        cached = self._replays.get(game_id)
        if cached is not None and cached[0]:  # a public game's: no one to ask
            body = cached[1]
        else:
            stored = await self.open_game(request, game_id)
            if isinstance(stored, Response):
                return stored
            body = cached[1] if cached is not None else await self._build(stored)
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
        self._replays[stored.id] = (not stored.private, body)
        if len(self._replays) > REPLAY_CACHE:
            self._replays.popitem(last=False)
        return body


__all__ = ["History", "game_record", "replay"]
