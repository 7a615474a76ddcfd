"""`Client`: an asyncio client of the websocket protocol (``docs/protocol.md``).

It speaks with the server's own msgspec structs: requests are `ClientMessage`
structs, every frame received is decoded into one `ServerMessage` struct. It
says ``hello`` (keeping the token), matches every ``ack``/``error`` to its
request, keeps the latest ``table`` and ``update`` of each table, sends
``sync`` when an update's ``v`` jumps, and reconnects with its token when the
socket drops (the server then re-sends every table it sits at).

A bot that plays one game against the server's bots::

    async with Client("ws://127.0.0.1:8000/ws", "Ann") as client:
        table_id = await client.play_bots(players=4, level="easy")
        async for message in client:
            if isinstance(message, Update) and client.is_my_turn(table_id):
                await client.act(table_id, message.observation["legal_actions"][0])
            elif client.is_finished(table_id):
                break

Failures raise `ServerError` (an ``error`` answer: ``code`` says which),
`ConnectionLost` (the socket closed and could not be reopened in time) or
`TimeoutError`.
"""

from __future__ import annotations

from .connection import Client
from .messages import *  # noqa: F403 - the protocol structs and the errors, re-exported
from .messages import __all__ as _messages

__all__ = ["Client", *_messages]
