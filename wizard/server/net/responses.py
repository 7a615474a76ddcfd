"""The HTTP API's JSON answers: one body encoder and one error shape for every route.

Every ``/api/...`` refusal is ``{"error": code, "message": text}`` with its status
(docs/protocol.md), whichever package's route answers it.

>>> error_response(404, "no_such_game", "no finished game g1").body
b'{"error":"no_such_game","message":"no finished game g1"}'
"""

from __future__ import annotations

from typing import Any

import msgspec
from starlette.responses import Response


def json_response(data: Any, status: int = 200,
                  headers: dict[str, str] | None = None) -> Response:
    """``data`` encoded as JSON (msgspec) with ``status`` and ``headers``."""
    return Response(msgspec.json.encode(data), status_code=status, headers=headers,
                    media_type="application/json")


def error_response(status: int, code: str, message: str) -> Response:
    """A refusal: ``{"error": code, "message": message}`` with ``status``."""
    return json_response({"error": code, "message": message}, status)


__all__ = ["error_response", "json_response"]
