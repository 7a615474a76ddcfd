"""The account endpoints: ``POST /api/account`` (claim), ``/api/login``, ``/api/logout``,
``/api/password``, ``/api/profile`` (make the profile private or public).

Each takes a JSON object of at most `BODY_MAX` bytes; the token of a guest or an
account travels as ``Authorization: Bearer <token>`` (as for ``/api/games``). An
answer is JSON: the player (``player_id``, ``name``, and for a login or password
change the device's new ``token``), or ``{"error": code, "message": text}`` with
the status of `STATUS`; ``rate_limited`` adds ``retry_after`` (seconds, also the
``Retry-After`` header). A refused request changed nothing.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import msgspec
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from wizard.protocol import ErrorCode, ProtocolError

from ..net.addresses import client_address
from ..net.responses import error_response, json_response
from ..storage.errors import StoreError
from ..storage.visibility import bearer_token
from .service import Accounts, Identity, RateLimitedError

BODY_MAX = 4096
B = TypeVar("B", bound=msgspec.Struct)

STATUS = {
    ErrorCode.BAD_NAME: 400, ErrorCode.BAD_PASSWORD: 400,
    ErrorCode.TOKEN_REQUIRED: 401, ErrorCode.UNKNOWN_TOKEN: 401,
    ErrorCode.UNKNOWN_ACCOUNT: 401, ErrorCode.WRONG_PASSWORD: 401,
    ErrorCode.NO_ACCOUNT: 403,
    ErrorCode.NAME_TAKEN: 409, ErrorCode.ALREADY_CLAIMED: 409,
    ErrorCode.RATE_LIMITED: 429,
}


class Credentials(msgspec.Struct):
    """``/api/account`` and ``/api/login``."""

    name: str
    password: str


class NewPassword(msgspec.Struct):
    """``/api/password``: the current password and the new one."""

    password: str
    new_password: str


class ProfileSetting(msgspec.Struct, forbid_unknown_fields=True):
    """``/api/profile``: whether the profile answers only to its player."""

    private: bool


class BadRequestError(Exception):
    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


def account_routes(accounts: Accounts) -> list[Route]:
    async def claim(request: Request) -> Identity:
        body = await _body(request, Credentials)
        return await accounts.claim(_token(request), body.name, body.password,
                                    client_address(request.scope))

    async def login(request: Request) -> Identity:
        body = await _body(request, Credentials)
        return await accounts.login(body.name, body.password, client_address(request.scope))

    async def logout(request: Request) -> Identity:
        return await accounts.logout(_token(request))

    async def password(request: Request) -> Identity:
        body = await _body(request, NewPassword)
        return await accounts.change_password(_token(request), body.password,
                                              body.new_password, client_address(request.scope))

    async def profile(request: Request) -> Identity:
        body = await _body(request, ProfileSetting)
        return await accounts.set_private(_token(request), body.private)

    return [Route(path, _answer(handler), methods=["POST"])
            for path, handler in (("/api/account", claim), ("/api/login", login),
                                  ("/api/logout", logout), ("/api/password", password),
                                  ("/api/profile", profile))]


def _answer(handler: Callable[[Request], Awaitable[Identity]]
            ) -> Callable[[Request], Awaitable[Response]]:
    async def endpoint(request: Request) -> Response:
        try:
            identity = await handler(request)
        except BadRequestError as exc:
            return error_response(exc.status, exc.code, exc.message)
        except RateLimitedError as exc:
            return json_response({"error": exc.code.value, "message": exc.message,
                                  "retry_after": exc.retry_after}, 429,
                                 {"Retry-After": str(exc.retry_after)})
        except ProtocolError as exc:
            return error_response(STATUS.get(exc.code, 400), exc.code.value, exc.message)
        except StoreError:
            return error_response(503, ErrorCode.UNAVAILABLE.value,
                                  "the server cannot save right now; nothing changed, "
                                  "try again later")
        answer: dict[str, Any] = {"player_id": identity.player_id, "name": identity.name}
        if identity.token is not None:
            answer["token"] = identity.token
        if identity.private is not None:
            answer["private"] = identity.private
        return json_response(answer)

    return endpoint


async def _body(request: Request, kind: type[B]) -> B:
    """The request's JSON body as ``kind``; `BadRequestError` ``too_large`` past `BODY_MAX`
    bytes (not read further), ``bad_request`` if it is not such an object."""
    declared = request.headers.get("content-length", "0")
    if not declared.isdigit() or int(declared) > BODY_MAX:
        raise BadRequestError(413, ErrorCode.TOO_LARGE.value,
                              f"a request body is at most {BODY_MAX} bytes")
    data = bytearray()
    async for chunk in request.stream():
        data += chunk
        if len(data) > BODY_MAX:
            raise BadRequestError(413, ErrorCode.TOO_LARGE.value,
                                  f"a request body is at most {BODY_MAX} bytes")
    try:
        return msgspec.json.decode(bytes(data), type=kind)
    except msgspec.DecodeError as exc:  # a ValidationError is one too
        raise BadRequestError(400, "bad_request", f"the body must be a JSON object: {exc}"
                              ) from None


def _token(request: Request) -> str | None:
    return bearer_token(request.headers.get("authorization"))


__all__ = ["BODY_MAX", "account_routes"]
