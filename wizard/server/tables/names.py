"""What a player may be called: visible text, no impersonation of a bot.

A name is shown to everyone at a table, in the lobby and in history, so it
must read as what it is: no control characters, no bidirectional overrides or
isolates (they reorder the text around them), no invisible characters (zero
widths, fillers, blank glyphs), and nothing a reader would take for a bot seat
(``Bot (hard)``).

>>> player_name("  Merlin ")
'Merlin'
>>> player_name("Bot (master)")
Traceback (most recent call last):
...
wizard.protocol.errors.ProtocolError: a name may not pose as a bot: 'Bot (master)'
"""

from __future__ import annotations

import re
import unicodedata

from wizard.protocol import ErrorCode, ProtocolError

# categories never allowed: controls, format characters (bidi controls, zero widths, BOM),
# private use, surrogates, unassigned; line and paragraph separators
_REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Co", "Cs", "Cn", "Zl", "Zp"})
# invisible characters Unicode files under letters, marks or spaces
_INVISIBLE = frozenset("\u115f\u1160\u17b4\u17b5\u180e\u2800\u3164\uffa0\u034f"
                       "\u2028\u2029\u00ad")
_BOT_LIKE = re.compile(r"^\W*bot\W*[(\[{<]", re.IGNORECASE)


def player_name(raw: str) -> str:
    """``raw`` stripped, or `ProtocolError` ``bad_message`` saying what is wrong with it."""
    name = raw.strip()
    if not name:
        raise ProtocolError(ErrorCode.BAD_MESSAGE, "name must not be blank")
    for char in name:
        category = unicodedata.category(char)
        if category in _REFUSED_CATEGORIES or char in _INVISIBLE or (
                category == "Zs" and char != " "):
            raise ProtocolError(
                ErrorCode.BAD_MESSAGE,
                f"a name may not contain U+{ord(char):04X} ({unicodedata.name(char, category)}): "
                "only visible characters and plain spaces")
    if all(unicodedata.category(c).startswith("M") or c == " " for c in name):
        raise ProtocolError(ErrorCode.BAD_MESSAGE, "a name needs at least one visible letter")
    if _BOT_LIKE.match(unicodedata.normalize("NFKC", name).casefold()):
        raise ProtocolError(ErrorCode.BAD_MESSAGE, f"a name may not pose as a bot: {name!r}")
    return name


def name_key(name: str) -> str:
    """The form two names are compared in: equal keys, the same name (a claimed name is
    unique in this form: `wizard.server.accounts`).

    >>> name_key("Ｂｏｂ") == name_key("BOB") == name_key("bob")
    True
    """
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())


__all__ = ["name_key", "player_name"]
