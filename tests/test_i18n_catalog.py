"""The client's message catalogs (static/i18n): every language has every key, with the same
placeholders; every key is used by the client and every key it uses is there; every error
code the server sends (`ErrorCode`, the HTTP API's codes) has a message.

A key is used when the client's code (static/js, index.html) names it in a string literal,
or names its family in a template literal (`` `error.${code}` `` uses every ``error.`` key).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from wizard.protocol.errors import ErrorCode

ROOT = Path(__file__).resolve().parents[1]
STATIC = ROOT / "static"
I18N = STATIC / "i18n"
MANIFEST = json.loads((I18N / "languages.json").read_text())
CODES = [language["code"] for language in MANIFEST["languages"]]
CATALOGS = {code: json.loads((I18N / f"{code}.json").read_text()) for code in CODES}
DEFAULT = CATALOGS[MANIFEST["default"]]
#: the plural categories of CLDR (Intl.PluralRules answers one of these)
PLURAL_FORMS = {"zero", "one", "two", "few", "many", "other"}

LITERAL = re.compile(r"""["']([a-z][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)+)["']""")
TEMPLATE_PREFIX = re.compile(r"`([a-z][A-Za-z0-9_]*\.[A-Za-z0-9_.]*)\$\{")
HTML_KEY = re.compile(r"""data-i18n=["']([^"']+)["']|data-i18n-attr=["']([^"']+)["']""")
PLACEHOLDER = re.compile(r"\{(\w+)\}")


def client_sources() -> str:
    return "\n".join(path.read_text() for path in sorted((STATIC / "js").glob("*.js")))


def html_keys() -> set[str]:
    keys: set[str] = set()
    for text, attrs in HTML_KEY.findall((STATIC / "index.html").read_text()):
        if text:
            keys.add(text)
        keys.update(pair.split("=", 1)[1] for pair in attrs.split())
    return keys


def named_keys() -> tuple[set[str], set[str]]:
    """(keys named whole, key prefixes named by a template) in the client's code."""
    source = client_sources()
    namespaces = {key.split(".")[0] for key in DEFAULT}
    whole = {key for key in LITERAL.findall(source) if key.split(".")[0] in namespaces}
    # the tutorial's `ui("next")` is `tutorial.ui.next`
    whole |= {f"tutorial.ui.{key}" for key in re.findall(r"\bui\(\s*\"(\w+)\"", source)}
    return whole | html_keys(), set(TEMPLATE_PREFIX.findall(source))


def texts(message: str | dict[str, str]) -> list[str]:
    return list(message.values()) if isinstance(message, dict) else [message]


def placeholders(message: str | dict[str, str]) -> set[str]:
    return {name for text in texts(message) for name in PLACEHOLDER.findall(text)}


def test_the_manifest_lists_languages_with_a_catalog_and_the_default_among_them() -> None:
    assert MANIFEST["default"] in CODES
    assert len(CODES) >= 2 and len(set(CODES)) == len(CODES)
    for language in MANIFEST["languages"]:
        assert language["name"], f"{language['code']} has no name for the language switch"


@pytest.mark.parametrize("code", CODES)
def test_every_language_has_every_key_and_no_other(code: str) -> None:
    catalog = CATALOGS[code]
    assert sorted(set(DEFAULT) - set(catalog)) == [], f"missing in {code}.json"
    assert sorted(set(catalog) - set(DEFAULT)) == [], f"only in {code}.json"


@pytest.mark.parametrize("code", CODES)
def test_placeholders_match_between_languages(code: str) -> None:
    wrong = {key: (sorted(placeholders(DEFAULT[key])), sorted(placeholders(message)))
             for key, message in CATALOGS[code].items()
             if key in DEFAULT and placeholders(message) != placeholders(DEFAULT[key])}
    assert wrong == {}, f"{code}.json: placeholders differ from the default language's"


@pytest.mark.parametrize("code", CODES)
def test_messages_are_text_or_plural_forms_with_other(code: str) -> None:
    for key, message in CATALOGS[code].items():
        if isinstance(message, dict):
            assert "other" in message and set(message) <= PLURAL_FORMS, f"{code}: {key}"
            assert all(isinstance(text, str) and text for text in message.values()), (
                f"{code}: {key}")
            assert "count" in placeholders(message) or "ordinal" in placeholders(message), (
                f"{code}: {key} has plural forms but no {{count}} or {{ordinal}} to choose by")
        else:
            assert isinstance(message, str) and message.strip(), f"{code}: {key} is empty"


def test_every_key_the_client_names_is_in_the_catalog() -> None:
    whole, prefixes = named_keys()
    assert sorted(whole - set(DEFAULT)) == []
    for prefix in prefixes:
        assert any(key.startswith(prefix) for key in DEFAULT), f"no key starts with {prefix!r}"


def test_every_key_of_the_catalog_is_used_by_the_client() -> None:
    whole, prefixes = named_keys()
    unused = [key for key in DEFAULT
              if key not in whole and not any(key.startswith(prefix) for prefix in prefixes)]
    assert unused == []


def server_http_codes() -> set[str]:
    """The ``error`` codes the HTTP API writes as literals (the rest are `ErrorCode`s)."""
    codes: set[str] = set()
    for path in (ROOT / "wizard" / "server").rglob("*.py"):
        source = path.read_text()
        codes.update(re.findall(r"""error_response\(\s*\d+\s*,\s*["']([a-z_]+)["']""", source))
        codes.update(re.findall(r"""["']error["']\s*:\s*["']([a-z_]+)["']""", source))
    return codes


def test_every_error_code_of_the_server_has_a_message() -> None:
    codes = {code.value for code in ErrorCode} | server_http_codes()
    assert {"bad_request", "no_such_player", "not_analysed"} <= codes  # the scan finds HTTP's
    assert sorted(code for code in codes if f"error.{code}" not in DEFAULT) == []


def test_the_german_catalog_uses_the_games_german_terms() -> None:
    german = CATALOGS["de"]
    assert german["card.wizard"] == "Zauberer" and german["card.jester"] == "Narr"
    assert german["trump.title"] == "Trumpf" and german["review.title"] == "Voriger Stich"
    assert german["seat.statBid"] == "Ansage" and german["leaderboard.title"] == "Rangliste"
