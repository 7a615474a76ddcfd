"""Accounts in the store: a player id with a claimed name and a password hash.

An account is a guest who claimed their name (``accounts``, schema 7): the row
keeps the player id the guest already had, so every game, seat and rating of
theirs stays theirs. Each signed-in device holds a token of its own; a token is
one ``players`` row (its SHA-256, the player id, the name), exactly like a
guest's, so ``hello`` and the HTTP endpoints that read a token need nothing new.
Ending an account's tokens deletes its ``players`` rows: a token without a row
is refused everywhere (``unknown_token``).

Every change here is awaited: it is committed before the caller answers.
"""

from __future__ import annotations

import sqlite3
import time
from typing import NamedTuple

from .db import Database
from .store import SqliteStore, token_hash

_ROW = "SELECT player_id, name, password, private FROM accounts"


class StoredAccount(NamedTuple):
    player_id: str
    name: str
    password: str  # the encoded hash (`wizard.server.accounts.credentials.hash_password`)
    private: bool = False  # the profile answers only to its player (schema 9)


class AccountStore:
    """Accounts in the store's SQLite database; ``name_key`` is the name's unique form."""

    def __init__(self, store: SqliteStore) -> None:
        self.store = store

    async def by_name(self, name_key: str) -> StoredAccount | None:
        return await self._one(f"{_ROW} WHERE name_key = ?", name_key)

    async def of_player(self, player_id: str) -> StoredAccount | None:
        return await self._one(f"{_ROW} WHERE player_id = ?", player_id)

    async def _one(self, sql: str, key: str) -> StoredAccount | None:
        def query(conn: sqlite3.Connection) -> tuple[str, str, str, int] | None:
            row: tuple[str, str, str, int] | None = conn.execute(sql, (key,)).fetchone()
            return row

        row = await self.store.db.read(query)
        return None if row is None else StoredAccount(row[0], row[1], row[2], bool(row[3]))

    async def create(self, player_id: str, name: str, name_key: str, password: str) -> None:
        """Claim: the account row, and ``name`` on every token of the player and on their
        rating, in one commit.

        The future raises `StoreError` (nothing changed) if the name or the player has an
        account already (the table's unique keys) or the write fails."""
        now = time.time()
        await self.store.db.write(
            ("INSERT INTO accounts (player_id, name, name_key, password, created, changed) "
             "VALUES (?, ?, ?, ?, ?, ?)", (player_id, name, name_key, password, now, now)),
            ("UPDATE players SET name = ? WHERE player_id = ?", (name, player_id)),
            # the leaderboard and profiles show the claimed name from now on
            ("UPDATE ratings SET name = ? WHERE player_id = ?", (name, player_id)))

    async def set_private(self, player_id: str, private: bool) -> None:
        """Whether the account's profile answers only to its player (and leaves the
        leaderboard)."""
        await self.store.db.write(("UPDATE accounts SET private = ? WHERE player_id = ?",
                                   (int(private), player_id)))

    async def add_token(self, token: str, account: StoredAccount) -> None:
        """A new device's token for ``account`` (login)."""
        await self.store.db.write(Database.upsert_player(token_hash(token), account.player_id,
                                                         account.name))

    async def end_tokens(self, player_id: str) -> None:
        """Log out: every token of the account stops working."""
        await self.store.db.write(("DELETE FROM players WHERE player_id = ?", (player_id,)))

    async def change_password(self, account: StoredAccount, password: str,
                              token: str) -> None:
        """The new hash, every old token gone and ``token`` the one that works, in one commit."""
        await self.store.db.write(
            ("UPDATE accounts SET password = ?, changed = ? WHERE player_id = ?",
             (password, time.time(), account.player_id)),
            ("DELETE FROM players WHERE player_id = ?", (account.player_id,)),
            Database.upsert_player(token_hash(token), account.player_id, account.name))


__all__ = ["AccountStore", "StoredAccount"]
