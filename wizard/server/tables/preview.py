"""What a table's link shows before its guest is anyone: ``GET /api/tables/{table_id}``.

Someone who opens a table's link (``#/table/<id>``, a private table's with its invite,
``#/table/<id>/<invite>``) is asked for a name first; the page says whose table it is
and how many seats are free, from this answer. It reveals no more than the link's
holder would see on taking a seat: the host's name, the number of seats, how many are
free and whether the game has started. A private table answers only with its invite
(``?invite=…``), as joining it does (`storage.visibility`).

>>> from wizard.server.tables.status import TableStatus
>>> msgspec.json.encode(TablePreview("Ada", 4, 2, TableStatus.WAITING)).decode()
'{"host":"Ada","players":4,"free_seats":2,"status":"waiting"}'
"""

from __future__ import annotations

from collections.abc import Callable

import msgspec
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from wizard.protocol import ErrorCode, ProtocolError

from ..net.responses import error_response
from ..storage.visibility import invite_matches
from .seats import SeatKind
from .state import TableState
from .status import TableStatus

#: The HTTP status of each refusal.
STATUS = {ErrorCode.NO_SUCH_TABLE: 404, ErrorCode.INVITE_REQUIRED: 403}


class TablePreview(msgspec.Struct, frozen=True):
    """A table as its link shows it: ``host`` is the host's name (null once the host left)."""

    host: str | None
    players: int
    free_seats: int
    status: TableStatus


def table_preview(table: TableState, invite: str | None) -> TablePreview:
    """The preview of ``table`` for a request carrying ``invite``.

    Raises `ProtocolError` ``invite_required`` for a private table without its invite.
    """
    if table.private and not invite_matches(invite, table.invite):
        raise ProtocolError(
            ErrorCode.INVITE_REQUIRED,
            "this table is private: open it with its invite link" if not invite
            else "this invite does not open that table (it may be mistyped or cut off)")
    free = sum(1 for seat in table.seats if seat.kind is SeatKind.EMPTY)
    return TablePreview(host=table.host.name if table.host else None, players=len(table.seats),
                        free_seats=free, status=table.status)


def preview_routes(find: Callable[[str], TableState]) -> list[Route]:
    """The route; ``find(table_id)`` is the open table or raises ``no_such_table``."""

    async def preview(request: Request) -> Response:
        try:
            table = find(request.path_params["table_id"])
            body = msgspec.json.encode(table_preview(table, request.query_params.get("invite")))
        except ProtocolError as exc:
            return error_response(STATUS.get(exc.code, 400), exc.code.value, exc.message)
        return Response(body, media_type="application/json", headers={"Cache-Control": "no-store"})

    return [Route("/api/tables/{table_id}", preview)]


__all__ = ["TablePreview", "preview_routes", "table_preview"]
