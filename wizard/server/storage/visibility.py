"""Who may see a finished game in "Recent games".

A public table's games are listed for everyone. A private table's games are listed
only for the players who sat at it: the HTTP request names its player with the
token of ``hello`` (``Authorization: Bearer <token>``). Anyone holding the link of
such a game (``/api/games/{id}``, whose id contains the unguessable table id) may
still open it: the players share it by sharing that link.

A private table's id is its invite (whoever has it may join or watch), so no page of
history shows it: a private game's id is random, not made from the table id, and its
record and replay leave ``table_id`` out. Sharing a game's link shares the game, never
a seat at the table.

Games stored before the table settings were kept with them (``table_info`` ``{}``)
count as public, as they always were.

>>> bearer_token("Bearer abc")
'abc'
>>> bearer_token("Basic abc") is None
True
"""

from __future__ import annotations

import json
import secrets
from typing import Any

#: The SQL condition on ``games`` for "listed for this viewer" (one ``?``: the player id).
_LISTED = ("(COALESCE(json_extract(games.table_info, '$.private'), 0) = 0 "
           "OR EXISTS (SELECT 1 FROM json_each(games.seats) AS seat "
           "WHERE json_extract(seat.value, '$.player_id') = ?))")


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


def is_private(table_info_json: str | None) -> bool:
    """Whether a stored game was played at a private table (its ``table_info`` JSON).

    >>> is_private('{"private": true}'), is_private("{}"), is_private(None)
    (True, False, False)
    """
    if not table_info_json:
        return False
    try:
        info = json.loads(table_info_json)
    except ValueError:
        return True  # unreadable: show less, not more
    return bool(isinstance(info, dict) and info.get("private"))


def shown_table_id(table_id: str, table_info_json: str | None) -> str | None:
    """The table id history may show: ``None`` for a private table's game."""
    return None if is_private(table_info_json) else table_id


def listed_condition(viewer_id: str | None) -> tuple[str, list[Any]]:
    """SQL condition and parameters: the games ``viewer_id`` (None: nobody known) may list."""
    # a player id never is the empty string, so an unknown viewer matches no seat
    return _LISTED, [viewer_id or ""]


__all__ = ["bearer_token", "is_private", "listed_condition", "new_game_id", "shown_table_id"]
