"""Account names and passwords: what is allowed, the unique form of a name, the hash.

A claimed name follows the rules of every player name (`wizard.server.tables.names`:
visible text, nothing that poses as a bot) and is at most `NAME_MAX` characters; a
guest named like a bot before that rule keeps playing under that name but cannot
claim it. A login only looks a name up, so it does not apply the bot rule. Two
account names are the same name when their `name_key` is: NFKC, case-folded, NFKC
again (Unicode's caseless identifier match), so ``Ｂｏｂ`` (full width) and ``bob`` are
one name.

A password is `PASSWORD_MIN`-`PASSWORD_MAX` characters, NFKC-normalised (the same
password typed on another keyboard is the same bytes). It is stored only as a
salted scrypt hash (``hashlib.scrypt``, the standard library's binding of
OpenSSL): n = 2^14, r = 8, p = 1 (16 MiB of memory and ~50 ms of one core per
hash), a 16-byte random salt per hash, a 32-byte key. The stored text names its
parameters (``scrypt$n$r$p$salt$key``, base64), so they can be raised later
without breaking older hashes. A hash is checked in constant time
(``hmac.compare_digest``).

>>> name_key("Ｂｏｂ") == name_key("bob") == name_key("BOB")
True
>>> encoded = hash_password("correct horse")
>>> encoded.split("$")[:4]
['scrypt', '16384', '8', '1']
>>> verify_password("correct horse", encoded), verify_password("wrong horse", encoded)
(True, False)
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import unicodedata
from collections.abc import Callable

from wizard.protocol import ErrorCode, ProtocolError

from ..tables.names import name_key, player_name, visible_name

NAME_MAX = 32  # as in ``hello`` (`wizard.protocol.from_client.Name`)
PASSWORD_MIN = 8
PASSWORD_MAX = 128
SCRYPT_N = 2**14
SCRYPT_R = 8
SCRYPT_P = 1
SALT_BYTES = 16
KEY_BYTES = 32
# 128 * n * r bytes are needed; OpenSSL refuses more than maxmem (room for raising n once)
_MAXMEM = 64 * 1024 * 1024


def account_name(raw: str) -> str:
    """``raw`` as a name to claim (stripped), or `ProtocolError` ``bad_name`` saying why."""
    return _checked(raw, player_name)


def login_name(raw: str) -> str:
    """``raw`` as a name to log in with (stripped): `account_name` without the bot rule,
    so no account is locked out by a rule made after it was claimed."""
    return _checked(raw, visible_name)


def _checked(raw: str, rules: Callable[[str], str]) -> str:
    if len(raw) > NAME_MAX:
        raise ProtocolError(ErrorCode.BAD_NAME, f"a name is at most {NAME_MAX} characters")
    try:
        return rules(raw)
    except ProtocolError as exc:
        raise ProtocolError(ErrorCode.BAD_NAME, exc.message) from None


def password_text(raw: str) -> str:
    """``raw`` NFKC-normalised, or `ProtocolError` ``bad_password`` for a wrong length."""
    password = unicodedata.normalize("NFKC", raw)
    if not PASSWORD_MIN <= len(password) <= PASSWORD_MAX:
        raise ProtocolError(ErrorCode.BAD_PASSWORD,
                            f"a password is {PASSWORD_MIN}-{PASSWORD_MAX} characters")
    return password


def hash_password(password: str) -> str:
    """The stored form of ``password``: ``scrypt$n$r$p$salt$key`` (CPU-bound: call it off
    the event loop)."""
    salt = secrets.token_bytes(SALT_BYTES)
    key = _scrypt(password, salt, SCRYPT_N, SCRYPT_R, SCRYPT_P)
    return "$".join(("scrypt", str(SCRYPT_N), str(SCRYPT_R), str(SCRYPT_P),
                     _b64(salt), _b64(key)))


def verify_password(password: str, encoded: str) -> bool:
    """Whether ``password`` is the one ``encoded`` was made from (constant-time compare);
    False for a malformed ``encoded``."""
    try:
        scheme, n, r, p, salt, key = encoded.split("$")
        if scheme != "scrypt":
            return False
        expected = base64.b64decode(key)
        actual = _scrypt(password, base64.b64decode(salt), int(n), int(r), int(p),
                         len(expected))
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(actual, expected)


def _scrypt(password: str, salt: bytes, n: int, r: int, p: int,
            length: int = KEY_BYTES) -> bytes:
    return hashlib.scrypt(password.encode(), salt=salt, n=n, r=r, p=p, maxmem=_MAXMEM,
                          dklen=length)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


__all__ = ["NAME_MAX", "PASSWORD_MAX", "PASSWORD_MIN", "account_name", "hash_password",
           "login_name", "name_key", "password_text", "verify_password"]
