"""Names read as what they are: no hidden or reordering characters, no fake bots."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from wizard.ai.levels import BotLevel
from wizard.protocol import ProtocolError
from wizard.server.accounts.credentials import hash_password
from wizard.server.storage.accounts import AccountStore
from wizard.server.tables.names import BOT_LEVEL_WORDS, name_key, player_name
from wizard.server.tables.player import new_token

from ..conftest import Harness, WsClient

I18N = Path(__file__).parents[3] / "static" / "i18n"
PASSWORD = "correct horse battery"

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
    # a bot seat as the client shows it (static/i18n: bot.name, bot.numbered), in English
    # and German, and its rating id
    "Bot 1 (easy)", "Bot 2", "Bot 2 (Meister)", "Bot (leicht)", "bot:easy", "Bot:Master",
    # the word "bot" first, then anything
    "Bot", "Bot2", "Bot easy", "Bot schwer", "[Bot] x", "-Bot- Ann", "Bot #3", "Bot Rita",
    "ＢＯＴ ２",
    # a level, then the word "bot"; "bot" opening a bracket
    "Master · Bot 2", "Meister-Bot", "hard bot", "Ann (bot)", "Ann [Bot 2]",
]


@pytest.mark.parametrize("name", REFUSED)
def test_a_name_that_hides_reorders_or_poses_as_a_bot_is_refused(name: str) -> None:
    with pytest.raises(ProtocolError) as refused:
        player_name(name)
    assert refused.value.code.value == "bad_message"


@pytest.mark.parametrize("name", ["Ann", "Zoë", "Søren Kierkegaard", "李小龍", "Bottom",
                                  "Robot (hard)", "José 🎩", "O'Neil-Smith", "Botticelli",
                                  "Abbott", "Robot Rita", "Talbot", "Ann the bot",
                                  "Master Yoda", "Hard Rock", "Bots4Life", "Ann (Botticelli)"])
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


def test_the_bot_rule_knows_every_level_word_the_client_shows() -> None:
    keys = {f"{prefix}{level.value}" for level in BotLevel for prefix in ("bot.level.", "level.")}
    shown = {text.casefold() for path in I18N.glob("*.json")
             for key, text in json.loads(path.read_text("utf-8")).items() if key in keys}
    assert len(shown) == 8 and shown <= set(BOT_LEVEL_WORDS)


def test_a_guest_named_like_a_bot_before_the_rule_keeps_playing_but_cannot_claim(
        harness: Harness) -> None:
    store = harness.server.store
    token = new_token()
    harness.client.portal.call(store.remember_player, token, "p_oldbot", "Bot 2")
    guest = harness.connect("old")
    guest.hello("Bot 2", token)
    assert welcome_name(guest) == "Bot 2" and guest.player_id == "p_oldbot"
    renamed = harness.connect("renamed").request({"type": "hello", "name": "Bot 3",
                                                   "token": token})
    assert renamed["code"] == "bad_message"  # a new bot-like name is refused, the old one stays
    assert harness.server.lobby.players_by_token[token].name == "Bot 2"
    answer = harness.client.post("/api/account", json={"name": "Bot 2", "password": PASSWORD},
                                 headers={"Authorization": f"Bearer {token}"})
    assert (answer.status_code, answer.json()["error"]) == (400, "bad_name")
    assert "pose as a bot" in answer.json()["message"]
    assert harness.client.portal.call(AccountStore(store).of_player, "p_oldbot") is None


def test_an_account_named_like_a_bot_before_the_rule_still_logs_in(harness: Harness) -> None:
    store = harness.server.store
    harness.client.portal.call(store.remember_player, new_token(), "p_oldbot", "Bot 3")
    harness.client.portal.call(AccountStore(store).create, "p_oldbot", "Bot 3",
                               name_key("Bot 3"), hash_password(PASSWORD))
    answer = harness.client.post("/api/login", json={"name": "Bot 3", "password": PASSWORD})
    assert answer.status_code == 200, answer.json()
    assert answer.json()["player_id"] == "p_oldbot"
    device = harness.connect("device")
    device.hello("Bot 3", answer.json()["token"])
    assert welcome_name(device) == "Bot 3"


def welcome_name(client: WsClient) -> str:
    return str(next(m for m in client.messages if m["type"] == "welcome")["name"])
