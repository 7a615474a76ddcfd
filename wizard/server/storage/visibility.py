"""Who may see a private table's games: its people, and whoever holds its invite.

One rule for a private table and its history: the table and each game played at it
are open to the people who were at it — its players and those who watched the game —
and to whoever holds the table's invite (the secret its invite link carries, see
``docs/protocol.md``). The table id and the game id alone open nothing.

- "Recent games" (``GET /api/games``) lists public tables' games for everyone, and a
  private table's games for its players and spectators: the HTTP request names its
  player with the token of ``hello`` (``Authorization: Bearer <token>``).
- A private game's record, replay and analysis answer its players and spectators
  (same header) and any request carrying the invite (``?invite=…``; ``analyse``'s
  ``invite``). Its listed summary carries the invite, so that a player shares the
  game by its link (``#/replay/<game id>/<invite>``): whoever gets the link may watch
  the replay. The table itself takes its id *and* the invite, and no page of history
  shows a private table's id: a replay link opens the game, not the table.

No page of history shows a private table's id, and a private game's id is random,
not made from the table id. Games stored before the table settings were kept with
them (``table_info`` ``{}``) count as public, as they always were.

>>> bearer_token("Bearer abc")
'abc'
>>> bearer_token("Basic abc") is None
True
"""

from __future__ import annotations

import secrets
from typing import Any

from .records import StoredGame

#: The SQL condition on ``games`` for "listed for this viewer" (two ``?``: the player id).
_LISTED = ("(COALESCE(json_extract(games.table_info, '$.private'), 0) = 0 "
           "OR EXISTS (SELECT 1 FROM json_each(games.seats) AS seat "
           "WHERE json_extract(seat.value, '$.player_id') = ?) "
           "OR EXISTS (SELECT 1 FROM game_spectators AS watched "
           "WHERE watched.game_id = games.id AND watched.player_id = ?))")


def bearer_token(header: str | None) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header, or None."""
    if not header:
        return None
    scheme, _, token = header.partition(" ")
    token = token.strip()
    return token if scheme.lower() == "bearer" and token else None


def new_game_id(table_id: str, number: int, *, private: bool) -> str:
    """The id of a table's ``number``-th game: ``t_x-3`` for a public table, random for a
    private one (its link must not lead to the table).

    >>> new_game_id("t_x", 3, private=False)
    't_x-3'
    >>> new_game_id("t_x", 3, private=True).startswith("g_")
    True
    """
    return "g_" + secrets.token_urlsafe(12) if private else f"{table_id}-{number}"


def new_invite() -> str:
    """A private table's invite: 128 bits from `secrets` (22 URL-safe characters).

    >>> len(new_invite()), new_invite() != new_invite()
    (22, True)
    """
    return secrets.token_urlsafe(16)


def invite_matches(invite: str | None, expected: str | None) -> bool:
    """Whether ``invite`` is the ``expected`` one (compared in constant time).

    >>> invite_matches("abc", "abc"), invite_matches("abd", "abc"), invite_matches(None, "abc")
    (True, False, False)
    """
    if not invite or not expected:
        return False
    return secrets.compare_digest(invite.encode(), expected.encode())


def played_in(game: StoredGame, viewer_id: str | None) -> list[int]:
    """The seats ``viewer_id`` played in ``game``."""
    if not viewer_id:
        return []
    return [index for index, seat in enumerate(game.seats)
            if seat.kind == "player" and seat.player_id == viewer_id]


def may_view(game: StoredGame, viewer_id: str | None, invite: str | None) -> bool:
    """Whether a finished game's record, replay and analysis are open to this request:
    a public game to anyone; a private one to its players and spectators
    (``viewer_id``) and to whoever holds its table's ``invite``."""
    if not game.private:
        return True
    if viewer_id and (played_in(game, viewer_id) or viewer_id in game.spectators):
        return True
    return invite_matches(invite, game.invite)


def listed_condition(viewer_id: str | None) -> tuple[str, list[Any]]:
    """SQL condition and parameters: the games ``viewer_id`` (None: nobody known) may list."""
    # a player id never is the empty string, so an unknown viewer matches no seat
    return _LISTED, [viewer_id or "", viewer_id or ""]


__all__ = ["bearer_token", "invite_matches", "listed_condition", "may_view", "new_game_id",
           "new_invite", "played_in"]
