"""A table's chat backlog: its last lines, bounded, sent to whoever arrives.

Chat is not part of the game record (the store keeps actions only), so the backlog
lives as long as the table does. It is sent as one ``chat_backlog`` message when a
player joins or comes back (hello), on ``sync`` and on ``spectate``, so a reload or a
spectator sees what was said before.

>>> log = ChatLog(limit=2)
>>> for text in ("hi", "gl", "hf"):
...     log.add(ChatMessage("t_1", "Ada", text, "p_1"))
>>> [line.text for line in log.backlog("t_1").messages]
['gl', 'hf']
"""

from __future__ import annotations

from collections import deque

import msgspec

from wizard.protocol import ChatMessage, ServerMessage

#: Lines a table keeps (each at most the chat limit of 200 characters).
CHAT_BACKLOG = 50


class ChatLine(msgspec.Struct, frozen=True):
    name: str
    text: str
    player_id: str


class ChatBacklog(ServerMessage, tag="chat_backlog", frozen=True):
    """The table's last chat lines, oldest first (replaces what the client showed)."""

    table_id: str
    messages: list[ChatLine]


class ChatLog:
    """The last ``limit`` chat lines of one table.

    Raises `ValueError` for a limit below 1:

    >>> ChatLog(limit=0)
    Traceback (most recent call last):
    ...
    ValueError: a chat backlog keeps at least 1 line, not 0
    """

    def __init__(self, limit: int = CHAT_BACKLOG) -> None:
        if limit < 1:
            raise ValueError(f"a chat backlog keeps at least 1 line, not {limit}")
        self._lines: deque[ChatLine] = deque(maxlen=limit)

    def add(self, message: ChatMessage) -> None:
        """Keep ``message`` (the oldest line goes once the log is full)."""
        self._lines.append(ChatLine(message.name, message.text, message.player_id))

    def __len__(self) -> int:
        return len(self._lines)

    def backlog(self, table_id: str) -> ChatBacklog:
        """The message that brings a newcomer's chat up to date."""
        return ChatBacklog(table_id, list(self._lines))


__all__ = ["CHAT_BACKLOG", "ChatBacklog", "ChatLine", "ChatLog"]
