"""Who is asking: a client's address, and how much of the server each address holds.

Caps apply to every address but loopback (`capped`). The address is the
socket's peer, or — when that peer is a trusted proxy
(``WIZARD_TRUSTED_PROXIES``, loopback by default) — the client it names in
``X-Forwarded-For``; uvicorn's proxy-headers middleware puts it into the ASGI
scope's ``client`` before the app sees the request.

>>> counts = AddressCounts()
>>> counts.add("10.0.0.1"); counts.add("10.0.0.1"); counts.remove("10.0.0.1")
>>> counts["10.0.0.1"], counts["10.0.0.2"]
(1, 0)
"""

from __future__ import annotations

import ipaddress
from collections import Counter
from collections.abc import Mapping
from typing import Any

UNKNOWN_ADDRESS = "unknown"


def client_address(scope: Mapping[str, Any]) -> str:
    """The client's address of an ASGI scope (``"unknown"`` when the server gives none)."""
    client = scope.get("client")
    if not client:
        return UNKNOWN_ADDRESS
    return str(client[0])


def capped(address: str | None) -> bool:
    """Whether per-address caps apply: not to the server's own host (loopback: the
    operator's load tests and probes), nor when the address is not known.

    >>> capped("203.0.113.7"), capped("127.0.0.1"), capped("::1"), capped(None)
    (True, False, False, False)
    """
    if address is None or address == UNKNOWN_ADDRESS:
        return False
    try:
        return not ipaddress.ip_address(address).is_loopback
    except ValueError:
        return True  # a name, not an address (e.g. a test client): capped like any other


class AddressCounts:
    """How many of something (open websockets) each address holds right now."""

    __slots__ = ("_counts",)

    def __init__(self) -> None:
        self._counts: Counter[str] = Counter()

    def __getitem__(self, address: str) -> int:
        return self._counts.get(address, 0)

    def add(self, address: str) -> None:
        self._counts[address] += 1

    def remove(self, address: str) -> None:
        left = self._counts[address] - 1
        if left > 0:
            self._counts[address] = left
        else:
            self._counts.pop(address, None)

    def __len__(self) -> int:
        return len(self._counts)


__all__ = ["UNKNOWN_ADDRESS", "AddressCounts", "capped", "client_address"]
