"""`Accounts`: claim a guest's name with a password, log in, log out, change the password.

A claim keeps the guest's player id, so their games, seats and rating stay theirs.
A login gives a new device a token of its own for that player id (``hello`` with
it is the same player, at the same tables). A logout or a password change ends
every token of the account, in the store and in the lobby, and closes the
account's open websockets (a password change answers with the one new token that
works). Each change is committed before it is answered; a refused request
changes nothing.

Every request that checks or hashes a password spends one attempt of its client
address's budget (not from loopback, as every per-address cap); a login or
password change also spends one of the account name's, given back when the
password was right. An empty budget is `RateLimitedError` with the seconds to
wait (`docs/limits.md`). Hashing runs in worker threads, at most
`HASHES_AT_ONCE` at a time, never on the event loop.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable
from typing import NamedTuple, TypeVar

import structlog

from wizard.protocol import ErrorCode, ProtocolError

from ..clock import loop_time
from ..net.addresses import capped
from ..net.connection import CLOSE_NORMAL, Connection
from ..settings import Settings
from ..storage.accounts import AccountStore, StoredAccount
from ..storage.store import SqliteStore
from ..tables.lobby import Lobby
from ..tables.player import Player, new_token
from .attempts import Attempts
from .credentials import (
    account_name,
    hash_password,
    login_name,
    name_key,
    password_text,
    verify_password,
)

log = structlog.get_logger(__name__)

HASHES_AT_ONCE = 2
T = TypeVar("T")


class RateLimitedError(ProtocolError):
    """Too many attempts: ``retry_after`` seconds until the next one is allowed."""

    def __init__(self, retry_after: float, what: str) -> None:
        seconds = max(1, math.ceil(retry_after))
        super().__init__(ErrorCode.RATE_LIMITED,
                         f"too many password attempts {what}; try again in {seconds} s")
        self.retry_after = seconds


class Identity(NamedTuple):
    """What a successful request answers: the player, and the token a device now holds."""

    player_id: str
    name: str
    token: str | None = None
    private: bool | None = None  # the profile setting, in the answer to a change of it


class Accounts:
    """The account requests; ``lobby`` is where the server's live tokens are."""

    def __init__(self, store: SqliteStore, lobby: Lobby, settings: Settings) -> None:
        self.store = store
        self.accounts = AccountStore(store)
        self.lobby = lobby
        per_minute, burst = settings.login_attempts_per_minute, settings.login_attempt_burst
        self.by_address = Attempts(per_minute, burst, loop_time)
        self.by_name = Attempts(per_minute, burst, loop_time)
        self._changing = asyncio.Lock()  # a check and the write it allows, one at a time
        self._hashing = asyncio.Semaphore(HASHES_AT_ONCE)

    async def claim(self, token: str | None, name: str, password: str,
                    address: str) -> Identity:
        """The guest holding ``token`` becomes the account ``name`` (same player id)."""
        name, password = account_name(name), password_text(password)
        if token is None:
            raise ProtocolError(ErrorCode.TOKEN_REQUIRED,
                                "claiming a name needs your guest token "
                                "(Authorization: Bearer <token>)")
        self._spend(address)
        player_id = await self._player_of(token)
        encoded = await self._off_loop(hash_password, password)
        key = name_key(name)
        async with self._changing:
            if await self.accounts.of_player(player_id) is not None:
                raise ProtocolError(ErrorCode.ALREADY_CLAIMED,
                                    "you have an account already; log in with it")
            if await self.accounts.by_name(key) is not None:
                raise ProtocolError(ErrorCode.NAME_TAKEN,
                                    f"the name {name!r} belongs to an account already")
            await self.accounts.create(player_id, name, key, encoded)
        for player in self._live(player_id):
            player.name, player.account = name, True
        log.info("account_claimed", player_id=player_id)
        return Identity(player_id, name)

    async def login(self, name: str, password: str, address: str) -> Identity:
        """A new token for the account ``name``, if ``password`` is its password."""
        name, password = login_name(name), password_text(password)
        key = name_key(name)
        self._spend(address, key)
        account = await self.accounts.by_name(key)
        if account is None:
            raise ProtocolError(ErrorCode.UNKNOWN_ACCOUNT, f"no account is called {name!r}")
        await self._check_password(password, account, key)
        token = new_token()
        await self.accounts.add_token(token, account)
        log.info("account_login", player_id=account.player_id)
        return Identity(account.player_id, account.name, token)

    async def logout(self, token: str | None) -> Identity:
        """Every token of the account holding ``token`` stops working."""
        account = await self._account_of(token)
        async with self._changing:
            await self.accounts.end_tokens(account.player_id)
        await self._sign_out(account.player_id, "logged out")
        log.info("account_logout", player_id=account.player_id)
        return Identity(account.player_id, account.name)

    async def change_password(self, token: str | None, password: str, new_password: str,
                              address: str) -> Identity:
        """``new_password`` for the account holding ``token``; every old token ends, and
        the answer carries the one that works now."""
        password, new_password = password_text(password), password_text(new_password)
        account = await self._account_of(token)
        key = name_key(account.name)
        self._spend(address, key)
        await self._check_password(password, account, key)
        encoded = await self._off_loop(hash_password, new_password)
        fresh = new_token()
        async with self._changing:
            await self.accounts.change_password(account, encoded, fresh)
        await self._sign_out(account.player_id, "password changed")
        log.info("account_password_changed", player_id=account.player_id)
        return Identity(account.player_id, account.name, fresh)

    async def set_private(self, token: str | None, private: bool) -> Identity:
        """The account holding ``token`` makes its profile private (or public again)."""
        account = await self._account_of(token)
        async with self._changing:
            await self.accounts.set_private(account.player_id, private)
        log.info("account_profile_private", player_id=account.player_id, private=private)
        return Identity(account.player_id, account.name, private=private)

    # --- the parts ------------------------------------------------------------------------

    def _spend(self, address: str, key: str | None = None) -> None:
        """One attempt from ``address`` (and of the name ``key``), or `RateLimitedError`."""
        limited = capped(address)
        refused = self.lobby.services.metrics.rate_limited.labels("password")
        if limited and (wait := self.by_address.wait(address)):
            refused.inc()
            raise RateLimitedError(wait, "from your address")
        if key is not None and (wait := self.by_name.wait(key)):
            refused.inc()
            raise RateLimitedError(wait, "for this name")
        if limited:
            self.by_address.spend(address)
        if key is not None:
            self.by_name.spend(key)

    async def _check_password(self, password: str, account: StoredAccount, key: str) -> None:
        if not await self._off_loop(verify_password, password, account.password):
            log.info("account_wrong_password", player_id=account.player_id)
            raise ProtocolError(ErrorCode.WRONG_PASSWORD, "that is not the password")
        self.by_name.give_back(key)

    async def _off_loop(self, fn: Callable[..., T], *args: str) -> T:
        async with self._hashing:
            return await asyncio.to_thread(fn, *args)

    async def _player_of(self, token: str) -> str:
        known = await self.store.known_player(token)
        if known is None:
            raise ProtocolError(ErrorCode.UNKNOWN_TOKEN, "this token is not known here")
        return known[0]

    async def _account_of(self, token: str | None) -> StoredAccount:
        if token is None:
            raise ProtocolError(ErrorCode.TOKEN_REQUIRED,
                                "send your token (Authorization: Bearer <token>)")
        account = await self.accounts.of_player(await self._player_of(token))
        if account is None:
            raise ProtocolError(ErrorCode.NO_ACCOUNT,
                                "this token is a guest's: claim a name first")
        return account

    def _live(self, player_id: str) -> list[Player]:
        """The lobby's objects for ``player_id`` (one, unless a restart split them)."""
        found = {id(p): p for p in self.lobby.players_by_token.values()
                 if p.player_id == player_id}
        restored = self.lobby.restored_players.get(player_id)
        if restored is not None:
            found[id(restored)] = restored
        return list(found.values())

    async def _sign_out(self, player_id: str, reason: str) -> None:
        """Forget the account's tokens in the lobby and close its websockets; a player who
        sits at tables keeps their seats for the next ``hello`` (after a login).

        Called once the tokens' rows are deleted: a lookup that read one before is waited
        for, so that what it found is forgotten too."""
        lobby = self.lobby
        await lobby.lookups_settled()
        for token in [t for t, p in lobby.players_by_token.items() if p.player_id == player_id]:
            player = lobby.players_by_token.pop(token)
            if player.tables:
                lobby.restored_players[player_id] = player
            for connection in tuple(player.connections):
                if isinstance(connection, Connection):
                    connection.close(CLOSE_NORMAL, reason, cause="signed_out")


__all__ = ["Accounts", "Identity", "RateLimitedError"]
