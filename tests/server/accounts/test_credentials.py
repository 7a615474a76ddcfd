"""Account names (unique after NFKC and case folding, nothing bot-like) and the password
hash (scrypt, salted, parameters in the stored text)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wizard.protocol import ErrorCode, ProtocolError
from wizard.server.accounts.credentials import (
    PASSWORD_MAX,
    PASSWORD_MIN,
    account_name,
    hash_password,
    login_name,
    name_key,
    password_text,
    verify_password,
)


@pytest.mark.parametrize(("one", "other"), [("Ｂｏｂ", "bob"), ("BOB", "bob"),
                                            ("Straße", "STRASSE"), ("ﬁnn", "Finn")])
def test_names_that_read_the_same_are_one_name(one: str, other: str) -> None:
    assert name_key(one) == name_key(other)


@given(st.text(min_size=1, max_size=32))
def test_the_name_key_is_stable(name: str) -> None:
    assert name_key(name_key(name)) == name_key(name)


BOT_LIKE = ["Bot (hard)", "ＢＯＴ (master)", "Bot 1 (easy)", "Bot 2", "bot:easy", "Bot:Master",
            "Bot easy", "[Bot] x", "Master · Bot 2", "Bot 2 (Meister)"]


@pytest.mark.parametrize("name", [*BOT_LIKE, "x" * 33, "   ", "Ann\u202e", "\u200b"])
def test_a_bad_name_is_bad_name(name: str) -> None:
    with pytest.raises(ProtocolError) as info:
        account_name(name)
    assert info.value.code is ErrorCode.BAD_NAME and info.value.message


@pytest.mark.parametrize("name", BOT_LIKE)
def test_a_bot_like_name_cannot_be_claimed_but_is_looked_up_at_login(name: str) -> None:
    with pytest.raises(ProtocolError, match="pose as a bot"):
        account_name(name)
    assert login_name(f" {name} ") == name  # an account claimed before the rule logs in


@pytest.mark.parametrize("name", ["x" * 33, "   ", "Ann\u202e", "\u200b"])
def test_a_login_name_is_still_checked(name: str) -> None:
    with pytest.raises(ProtocolError) as info:
        login_name(name)
    assert info.value.code is ErrorCode.BAD_NAME


@pytest.mark.parametrize("password", ["x" * (PASSWORD_MIN - 1), "x" * (PASSWORD_MAX + 1)])
def test_a_password_of_the_wrong_length_is_bad_password(password: str) -> None:
    with pytest.raises(ProtocolError) as info:
        password_text(password)
    assert info.value.code is ErrorCode.BAD_PASSWORD


def test_a_hash_is_salted_and_checks_only_its_password() -> None:
    one, two = hash_password("same password"), hash_password("same password")
    assert one != two and "same password" not in one
    assert verify_password("same password", one) and verify_password("same password", two)
    assert not verify_password("same passwore", one)
    assert not verify_password("same password", "md5$nope")
    assert not verify_password("same password", "scrypt$x$8$1$AA==$AA==")


@settings(max_examples=5, deadline=None)
@given(st.text(min_size=PASSWORD_MIN, max_size=20))
def test_a_typed_password_matches_its_normalised_form(password: str) -> None:
    encoded = hash_password(password_text(password))
    assert verify_password(password_text(password), encoded)
