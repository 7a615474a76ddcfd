"""Names read as what they are: no hidden or reordering characters, no fake bots."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from wizard.protocol import ProtocolError
from wizard.server.tables.names import player_name

from ..conftest import Harness

REFUSED = [
    "Ann\u202eevil",  # right-to-left override
    "\u2066Ann\u2069",  # isolates
    "An\u200bn",  # zero width space
    "Ann\u200d",  # zero width joiner
    "\ufeffAnn",  # byte order mark
    "Ann\x07",  # bell
    "Ann\nBen",  # a line break
    "\u3164",  # hangul filler: looks blank
    "\u2800\u2800",  # braille blank
    "A\u00a0nn",  # no-break space
    "\u0301\u0301",  # marks on nothing
    "Bot (hard)",
    "bot(master)",
    "BOT [easy]",
    "\uff22ot (hard)",  # fullwidth B
]


@pytest.mark.parametrize("name", REFUSED)
def test_a_name_that_hides_reorders_or_poses_as_a_bot_is_refused(name: str) -> None:
    with pytest.raises(ProtocolError) as refused:
        player_name(name)
    assert refused.value.code.value == "bad_message"


@pytest.mark.parametrize("name", ["Ann", "Zoë", "Søren Kierkegaard", "李小龍", "Bottom",
                                  "Robot (hard)", "José 🎩", "O'Neil-Smith"])
def test_ordinary_names_pass_unchanged(name: str) -> None:
    assert player_name(f" {name} ") == name


@given(st.text(min_size=1, max_size=32))
def test_an_accepted_name_has_only_visible_characters(text: str) -> None:
    try:
        name = player_name(text)
    except ProtocolError:
        return
    assert name == name.strip() and name
    assert not any(ord(c) < 32 or 0x202A <= ord(c) <= 0x202E or 0x2066 <= ord(c) <= 0x2069
                   or c in "\u200b\u200c\u200d\u2060\ufeff" for c in name)


def test_hello_with_a_bidi_name_is_refused_and_no_player_is_made(harness: Harness) -> None:
    eve = harness.connect("Eve")
    reply = eve.request({"type": "hello", "name": "\u202eBot (hard)"})
    assert reply["type"] == "error" and reply["code"] == "bad_message"
    assert "U+202E" in reply["message"]
    assert harness.server.lobby.players_by_token == {}
    assert harness.connect("Bob").request({"type": "hello", "name": "Bot (easy)"})["code"] \
        == "bad_message"
