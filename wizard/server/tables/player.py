"""A human player: public id, name, secret token, open connections and tables.

The token is the player's identity for reconnecting (an account's player may hold
one per device: ``token`` is the latest). It is sent to its owner
in ``welcome`` and nowhere else: not in any other message, not in logs, not
in ``/api`` (``repr`` leaves it out too).
"""

from __future__ import annotations

import secrets
from typing import Protocol

from wizard.protocol import ServerMessage, encode, message_tag


class Outlet(Protocol):
    """One open connection of a player's, as the tables use it (`Connection` is one:
    the connection module imports this one, so this one names only what it needs).
    ``spectating``: the ids of the tables it watches."""

    spectating: set[str]

    def send_text(self, text: bytes, tag: str) -> None:
        """Send an encoded message (`encode`), tagged ``tag`` for the metrics."""


def new_token() -> str:
    """A fresh reconnect token: 192 random bits, URL-safe text."""
    return secrets.token_urlsafe(24)


def new_player_id() -> str:
    """A public player id, e.g. ``p_3f9a1c0b7d2e``."""
    return "p_" + secrets.token_hex(6)


class Player:
    """A person known to the server; may have several connections (tabs) or none."""

    __slots__ = ("account", "connections", "last_seen", "name", "player_id", "tables", "token")

    def __init__(self, name: str, *, player_id: str | None = None,
                 token: str | None = None, seen_at: float = 0.0) -> None:
        self.player_id = player_id or new_player_id()
        self.name = name
        self.token = token or new_token()
        self.connections: set[Outlet] = set()
        self.tables: set[str] = set()
        self.last_seen = seen_at  # on the loop's clock, set again on every (dis)connect
        self.account = False  # a claimed name (`wizard.server.accounts`): hello cannot rename

    @property
    def connected(self) -> bool:
        return bool(self.connections)

    def send(self, message: ServerMessage) -> None:
        """Queue ``message`` on every connection of this player (encoded once)."""
        if self.connections:
            self.send_text(encode(message), message_tag(message))

    def send_text(self, text: bytes, tag: str) -> None:
        for connection in tuple(self.connections):
            connection.send_text(text, tag)

    def __repr__(self) -> str:
        return f"Player(player_id={self.player_id!r}, name={self.name!r})"


__all__ = ["Outlet", "Player", "new_player_id", "new_token"]
