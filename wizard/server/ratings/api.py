"""``GET /api/leaderboard`` and ``GET /api/players/{name}`` (see docs/protocol.md).

Both are paged or bounded and read on the store's reading thread. Bad parameters get
400 ``bad_request``, an unknown player 404 ``no_such_player``, a private player's profile
asked for by anyone but them 403 ``private_player``; nothing is changed.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from wizard.protocol import ErrorCode
from wizard.server.net.responses import error_response, json_response
from wizard.server.storage import profiles
from wizard.server.storage.store import SqliteStore
from wizard.server.storage.visibility import bearer_token
from wizard.server.tables.names import name_key

#: the largest leaderboard page, and the furthest it pages (a deeper offset costs a scan)
LEADERBOARD_MAX = 100
LEADERBOARD_DEFAULT = 50
OFFSET_MAX = 10_000
NAME_MAX = 64
PRIVATE = "private"  # what a profile read answers for a private player's profile


def _flag(text: str | None) -> bool | None:
    """A query flag: absent/0/false/no is False, 1/true/yes True, anything else None."""
    if text is None:
        return False
    return {"0": False, "false": False, "no": False,
            "1": True, "true": True, "yes": True}.get(text.lower())


class RatingRoutes:
    """The leaderboard and profile routes over a store."""

    def __init__(self, store: SqliteStore) -> None:
        self.store = store

    def routes(self) -> list[Route]:
        return [Route("/api/leaderboard", self.leaderboard),
                Route("/api/players/{name}", self.player)]

    async def leaderboard(self, request: Request) -> Response:
        query = request.query_params
        try:
            offset = int(query.get("offset", 0))
            limit = int(query.get("limit", LEADERBOARD_DEFAULT))
        except ValueError:
            return error_response(400, "bad_request", "offset and limit must be integers")
        provisional = _flag(query.get("provisional"))
        if not 0 <= offset <= OFFSET_MAX or not 1 <= limit <= LEADERBOARD_MAX:
            return error_response(400, "bad_request", f"offset must be 0-{OFFSET_MAX} and limit "
                                                      f"1-{LEADERBOARD_MAX}")
        if provisional is None:
            return error_response(400, "bad_request", "provisional must be true or false")
        player = query.get("player")
        if player is not None and not 0 < len(player) <= NAME_MAX:
            return error_response(400, "bad_request", f"a player id has 1-{NAME_MAX} characters")

        def read(conn: Any) -> dict[str, Any] | None:
            start = offset
            if player is not None:  # the page that lists this player, in one read
                found = profiles.page_of(conn, player, limit, provisional)
                if found is None or found > OFFSET_MAX:
                    return None
                start = found
            return profiles.leaderboard(conn, start, limit, provisional)

        page = await self.store.db.read(read)
        if page is None:
            return error_response(404, ErrorCode.NOT_ON_LEADERBOARD.value,
                                  f"{player!r} is not on the leaderboard"
                                  + ("" if provisional else " (provisional ratings are left out)"))
        return json_response(page)

    async def player(self, request: Request) -> Response:
        name = request.path_params["name"]
        if not 0 < len(name) <= NAME_MAX:
            return error_response(400, "bad_request", f"a player's name or id has 1-{NAME_MAX} "
                                                      "characters")
        token = bearer_token(request.headers.get("authorization"))
        known = await self.store.known_player(token) if token else None
        viewer = known[0] if known else None

        def read(conn: Any) -> dict[str, Any] | str | None:
            player_id = profiles.resolve(conn, name, name_key(name))
            if player_id is None:
                return None
            if player_id != viewer and profiles.is_private(conn, player_id):
                return PRIVATE
            return profiles.profile(conn, player_id, viewer)

        found = await self.store.db.read(read)
        if found is None:
            return error_response(404, "no_such_player", f"no player {name!r} has finished a game")
        if found == PRIVATE:
            return error_response(403, ErrorCode.PRIVATE_PLAYER.value,
                                  f"{name!r} keeps their profile private")
        return json_response(found)


__all__ = ["LEADERBOARD_MAX", "OFFSET_MAX", "RatingRoutes"]
