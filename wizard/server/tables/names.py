"""What a player may be called: visible text, no impersonation of a bot.

A name is shown to everyone at a table, in the lobby and in history, so it
must read as what it is: no control characters, no bidirectional overrides or
isolates (they reorder the text around them), no invisible characters (zero
widths, fillers, blank glyphs), and nothing a reader would take for a bot.

Bots are shown as ``Bot (hard)``, ``Bot 2 (hard)`` or ``Bot 2`` over the level
(``Bot (Meister)`` in German) and rated as ``bot:hard``. A name poses as a bot
(compared after NFKC and case folding, so ``ＢＯＴ`` is ``bot``) when

- its first word is ``bot``, whatever follows: ``Bot``, ``Bot 2``, ``bot:easy``,
  ``Bot easy``, ``[Bot] x``, ``Bot Rita``;
- it starts with a bot level, English or German, and then the word ``bot``:
  ``Master · Bot 2``, ``Meister-Bot``, ``Masterbot``;
- or the word ``bot`` opens a bracket anywhere: ``Ann (bot)``, ``Ann [Bot 2]``.

A word is a run of letters: ``Botticelli``, ``Bottom``, ``Abbott``, ``Robot
(hard)``, ``Talbot`` and ``Ann the bot`` pass.

>>> player_name("  Merlin ")
'Merlin'
>>> player_name("Bot 2 (master)")
Traceback (most recent call last):
...
wizard.protocol.errors.ProtocolError: a name may not pose as a bot: 'Bot 2 (master)'
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
#: the bot levels as the client names them (``bot.level.*``, ``level.*`` in
#: static/i18n/en.json and de.json), case-folded
BOT_LEVEL_WORDS = ("easy", "medium", "hard", "master", "leicht", "mittel", "schwer", "meister")
_BOT_WORD = r"bot(?![^\W\d_])"  # "bot" not followed by a letter: "bot2" is, "botticelli" is not
_SEPARATOR = r"[\W_]*"  # spaces, punctuation, brackets
_BOT_LIKE = re.compile(
    rf"^{_SEPARATOR}(?:(?:{'|'.join(BOT_LEVEL_WORDS)}){_SEPARATOR})?{_BOT_WORD}"
    rf"|[(\[{{<]{_SEPARATOR}{_BOT_WORD}")


def visible_name(raw: str) -> str:
    """``raw`` stripped, or `ProtocolError` ``bad_message`` if it is blank or holds a
    character that is not visible text; `player_name` adds the bot rule."""
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
    return name


def poses_as_bot(name: str) -> bool:
    """Whether ``name`` could be read as a bot's (the rule of the module's docstring).

    >>> poses_as_bot("bot:easy"), poses_as_bot("Meister · Bot 2"), poses_as_bot("Botticelli")
    (True, True, False)
    """
    return _BOT_LIKE.search(unicodedata.normalize("NFKC", name).casefold()) is not None


def refuse_bot_like(name: str) -> str:
    """``name``, or `ProtocolError` ``bad_message`` if it `poses_as_bot`."""
    if poses_as_bot(name):
        raise ProtocolError(ErrorCode.BAD_MESSAGE, f"a name may not pose as a bot: {name!r}")
    return name


def player_name(raw: str) -> str:
    """``raw`` stripped, or `ProtocolError` ``bad_message`` saying what is wrong with it."""
    return refuse_bot_like(visible_name(raw))


def name_key(name: str) -> str:
    """The form two names are compared in: equal keys, the same name (a claimed name is
    unique in this form: `wizard.server.accounts`).

    >>> name_key("Ｂｏｂ") == name_key("BOB") == name_key("bob")
    True
    """
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())


__all__ = ["BOT_LEVEL_WORDS", "name_key", "player_name", "poses_as_bot", "refuse_bot_like",
           "visible_name"]
