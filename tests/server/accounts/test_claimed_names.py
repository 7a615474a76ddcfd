"""A claimed name is the account's: a guest's ``hello`` with it (new, or renaming with a
guest token) is ``name_taken`` after NFKC + case folding, and nothing changes; the account
holder's devices are unaffected."""

from __future__ import annotations

import pytest

from ..conftest import Harness
from .test_service import claimed, harness, snapshot

__all__ = ["harness"]  # the fixture, imported for its addresses


@pytest.mark.parametrize("name", ["Ann", "ann", "ＡＮＮ", " ANN "])
def test_a_new_guest_cannot_say_hello_with_a_claimed_name(harness: Harness, name: str) -> None:
    ann = claimed(harness)
    before = snapshot(harness)
    guest = harness.connect("guest")
    refused = guest.request({"type": "hello", "name": name})
    assert refused["type"] == "error" and refused["code"] == "name_taken"
    assert "belongs to an account" in refused["message"]
    assert snapshot(harness) == before  # no player stored, none in the lobby
    assert not any(m["type"] == "welcome" for m in guest.messages)
    guest.hello("Annie")  # the connection may still say hello with another name
    again = harness.connect("ann again")
    assert again.hello("Ann", ann.token)["type"] == "ack"  # the holder is unaffected
    welcome = next(m for m in again.messages if m["type"] == "welcome")
    assert (welcome["player_id"], welcome["name"]) == (ann.player_id, "Ann")


def test_a_guest_cannot_rename_to_a_claimed_name(harness: Harness) -> None:
    claimed(harness)
    bob = harness.player("Bob")
    before = snapshot(harness)
    back = harness.connect("Bob again")
    refused = back.request({"type": "hello", "name": "aNN", "token": bob.token})
    assert refused["type"] == "error" and refused["code"] == "name_taken"
    assert snapshot(harness) == before  # Bob is still Bob, in the store and the lobby
    back.hello("Bob", bob.token)
    welcome = next(m for m in back.messages if m["type"] == "welcome")
    assert (welcome["player_id"], welcome["name"]) == (bob.player_id, "Bob")


def test_a_guest_named_like_an_account_before_the_claim_must_choose_another_name(
        harness: Harness) -> None:
    early = harness.player("Ann")  # a guest called Ann; then another guest claims "ANN"
    claimed(harness, "ANN")
    back = harness.connect("early again")
    assert back.request({"type": "hello", "name": "Ann", "token": early.token}
                        )["code"] == "name_taken"
    back.hello("Ann B", early.token)
    welcome = next(m for m in back.messages if m["type"] == "welcome")
    assert (welcome["player_id"], welcome["name"]) == (early.player_id, "Ann B")
