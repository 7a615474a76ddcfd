"""The websocket protocol: every message a client and the server exchange, as msgspec
Structs in tagged unions (``"type"``), shared by the server (`wizard.server`) and the
Python client (`wizard.client`); it imports neither. ``docs/protocol.md`` is the
reference for every message.

- `from_client`: the client's messages and `decode_client` (strict, decoded once);
- `from_server`: the server's messages and `encode`;
- `actions`: an engine action as it travels (`ActionView`, one struct per action index);
- `game`: the observation, cards and events inside an ``update``;
- `errors`: `ErrorCode` and `ProtocolError`; `states`: table status, close reasons,
  auto-play reasons, analysis states.

>>> decode_client('{"type": "ping", "id": 1}')
Ping(id=1)
>>> encode(Ack(id=1))
b'{"type":"ack","id":1}'
"""

from __future__ import annotations

from .actions import *  # noqa: F403
from .actions import __all__ as _actions
from .errors import *  # noqa: F403
from .errors import __all__ as _errors
from .from_client import *  # noqa: F403
from .from_client import __all__ as _from_client
from .from_server import *  # noqa: F403
from .from_server import __all__ as _from_server
from .game import *  # noqa: F403
from .game import __all__ as _game
from .states import *  # noqa: F403
from .states import __all__ as _states

__all__ = [*_actions, *_errors, *_from_client, *_from_server, *_game, *_states]
