"""The account rows: a claim, a device's token, ending tokens, a password change; an
account is never pruned however long unseen; a migrated database gets the table."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

import pytest

from wizard.server.storage.accounts import AccountStore
from wizard.server.storage.errors import StoreError
from wizard.server.storage.schema import SCHEMA_VERSION, migrate
from wizard.server.storage.store import SqliteStore

T = TypeVar("T")


def run(tmp_path: Path, scenario: Callable[[SqliteStore, AccountStore], Awaitable[T]]) -> T:
    async def main() -> T:
        store = SqliteStore(str(tmp_path / "w.db"))
        await store.open()
        try:
            return await scenario(store, AccountStore(store))
        finally:
            await store.close()

    return asyncio.run(main())


def test_claim_login_and_password_change(tmp_path: Path) -> None:
    async def scenario(store: SqliteStore, accounts: AccountStore) -> None:
        await store.remember_player("guest-token", "p_1", "Ann")
        await accounts.create("p_1", "Annie", "annie", "scrypt$hash")
        assert await store.known_player("guest-token") == ("p_1", "Annie", True)
        account = await accounts.by_name("annie")
        assert account is not None and account.player_id == "p_1"
        assert await accounts.of_player("p_1") == account
        await accounts.add_token("phone-token", account)
        assert (await store.known_player("phone-token")) == ("p_1", "Annie", True)
        await accounts.change_password(account, "scrypt$new", "fresh-token")
        assert await store.known_player("guest-token") is None
        assert await store.known_player("phone-token") is None
        assert await store.known_player("fresh-token") == ("p_1", "Annie", True)
        assert (await accounts.of_player("p_1")).password == "scrypt$new"  # type: ignore[union-attr]
        await accounts.end_tokens("p_1")
        assert await store.known_player("fresh-token") is None
        assert await accounts.of_player("p_1") is not None  # the account stays

    run(tmp_path, scenario)


def test_a_taken_name_or_a_second_claim_changes_nothing(tmp_path: Path) -> None:
    async def scenario(store: SqliteStore, accounts: AccountStore) -> None:
        await store.remember_player("a", "p_1", "Ann")
        await store.remember_player("b", "p_2", "Bob")
        await accounts.create("p_1", "Ann", "ann", "scrypt$x")
        with pytest.raises(StoreError):
            await accounts.create("p_2", "ANN", "ann", "scrypt$y")  # the unique key
        with pytest.raises(StoreError):
            await accounts.create("p_1", "Other", "other", "scrypt$y")
        assert await store.known_player("b") == ("p_2", "Bob", False)
        assert await accounts.by_name("other") is None

    run(tmp_path, scenario)


def test_an_account_is_never_pruned(tmp_path: Path) -> None:
    async def scenario(store: SqliteStore, accounts: AccountStore) -> int:
        await store.remember_player("guest", "p_1", "Guest")
        await store.remember_player("owner", "p_2", "Owner")
        await accounts.create("p_2", "Owner", "owner", "scrypt$x")
        return await store.prune_players(time.time() + 86400)  # everyone looks long gone

    assert run(tmp_path, scenario) == 1
    names = [r[0] for r in sqlite3.connect(tmp_path / "w.db").execute("SELECT name FROM players")]
    assert names == ["Owner"]


def test_an_older_database_gets_the_accounts_table(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "old.db", isolation_level=None)
    migrate(conn, 7)
    conn.execute("INSERT INTO players (token_hash, player_id, name) VALUES ('h', 'p_1', 'Ann')")
    assert migrate(conn) == 7
    assert conn.execute("SELECT count(*) FROM accounts").fetchone() == (0,)
    assert conn.execute("SELECT name FROM players").fetchall() == [("Ann",)]


def test_accounts_of_schema_8_get_public_profiles(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "old.db", isolation_level=None)
    migrate(conn, 8)
    conn.execute("INSERT INTO accounts (player_id, name, name_key, password, created, changed) "
                 "VALUES ('p_1', 'Ann', 'ann', 'scrypt$x', 1, 1)")
    assert migrate(conn) == 8 and SCHEMA_VERSION == 9
    assert conn.execute("SELECT name, private FROM accounts").fetchall() == [("Ann", 0)]
