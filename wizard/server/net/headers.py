"""`SecurityHeaders`: every HTTP response says where its page may load from, and to sniff nothing.

``Content-Security-Policy``: scripts, styles, connections (the websocket
included), fonts and frames from this origin only; images from this origin and
``data:`` (the "your turn" favicon is an inline SVG); no plugins, no ``<base>``,
no framing by other sites. ``X-Content-Type-Options: nosniff``: a file is
what its ``Content-Type`` says. A refused websocket handshake gets them too.

>>> dict(SECURITY_HEADERS)[b"x-content-type-options"]
b'nosniff'
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

CONTENT_SECURITY_POLICY = ("default-src 'self'; img-src 'self' data:; object-src 'none'; "
                           "base-uri 'none'; form-action 'self'; frame-ancestors 'none'")

SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
)
_NAMES = frozenset(name for name, _ in SECURITY_HEADERS)
_STARTS = frozenset({"http.response.start", "websocket.http.response.start"})


class SecurityHeaders:
    """ASGI middleware adding `SECURITY_HEADERS` to every response (replacing any given)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] in _STARTS:
                headers = [(k, v) for k, v in message.get("headers", ())
                           if k.lower() not in _NAMES]
                message = {**message, "headers": [*headers, *SECURITY_HEADERS]}
            await send(message)

        await self.app(scope, receive, send_with_headers)


__all__ = ["CONTENT_SECURITY_POLICY", "SECURITY_HEADERS", "SecurityHeaders"]
