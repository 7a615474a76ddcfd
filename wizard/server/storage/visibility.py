"""Who may see a finished game in "Recent games".

A public table's games are listed for everyone. A private table's games are listed
only for the players who sat at it: the HTTP request names its player with the
token of ``hello`` (``Authorization: Bearer <token>``). Anyone holding the link of
such a game (``/api/games/{id}``, whose id contains the unguessable table id) may
still open it: the players share it by sharing that link.

Games stored before the table settings were kept with them (``table_info`` ``{}``)
count as public, as they always were.

>>> bearer_token("Bearer abc")
'abc'
>>> bearer_token("Basic abc") is None
True
"""

from __future__ import annotations

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


def listed_condition(viewer_id: str | None) -> tuple[str, list[Any]]:
    """SQL condition and parameters: the games ``viewer_id`` (None: nobody known) may list."""
    # a player id never is the empty string, so an unknown viewer matches no seat
    return _LISTED, [viewer_id or ""]


__all__ = ["bearer_token", "listed_condition"]
