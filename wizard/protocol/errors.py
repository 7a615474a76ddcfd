"""`ErrorCode` and `ProtocolError`: how the server refuses a client message.

>>> ProtocolError(ErrorCode.NOT_HOST, "only the host may start").code
<ErrorCode.NOT_HOST: 'not_host'>
"""

from __future__ import annotations

import enum


class ErrorCode(enum.StrEnum):
    """Stable codes of ``error`` messages; clients switch on these, never on the text."""

    BAD_JSON = "bad_json"
    BAD_MESSAGE = "bad_message"
    TOO_LARGE = "too_large"
    NOT_IDENTIFIED = "not_identified"
    ALREADY_IDENTIFIED = "already_identified"
    UNKNOWN_TOKEN = "unknown_token"
    NO_SUCH_TABLE = "no_such_table"
    NO_SUCH_SEAT = "no_such_seat"
    TABLE_FULL = "table_full"
    SEAT_TAKEN = "seat_taken"
    ALREADY_SEATED = "already_seated"
    NOT_HOST = "not_host"
    NOT_SEATED = "not_seated"
    NOT_A_BOT = "not_a_bot"
    SEATS_OPEN = "seats_open"
    NOT_STARTED = "not_started"
    ALREADY_STARTED = "already_started"
    NOT_FINISHED = "not_finished"
    NOT_YOUR_TURN = "not_your_turn"
    ILLEGAL_ACTION = "illegal_action"
    GAME_OVER = "game_over"
    RATE_LIMITED = "rate_limited"
    TABLE_LIMIT = "table_limit"
    PLAYER_TABLE_LIMIT = "player_table_limit"
    ADDRESS_TABLE_LIMIT = "address_table_limit"
    SPECTATOR_LIMIT = "spectator_limit"
    INVITE_REQUIRED = "invite_required"  # a private table (or its game) without its invite
    NO_SUCH_GAME = "no_such_game"
    ANALYSIS_BUSY = "analysis_busy"
    ANALYSIS_LIMIT = "analysis_limit"
    UNAVAILABLE = "unavailable"  # the store cannot save (disk full); nothing changed
    # accounts (the HTTP endpoints /api/account, /api/login, /api/logout, /api/password)
    BAD_NAME = "bad_name"
    BAD_PASSWORD = "bad_password"
    TOKEN_REQUIRED = "token_required"
    NAME_TAKEN = "name_taken"
    ALREADY_CLAIMED = "already_claimed"
    NO_ACCOUNT = "no_account"
    UNKNOWN_ACCOUNT = "unknown_account"
    WRONG_PASSWORD = "wrong_password"
    PRIVATE_PLAYER = "private_player"  # GET /api/players/{name} of a private profile
    NOT_ON_LEADERBOARD = "not_on_leaderboard"  # GET /api/leaderboard?player= not listed
    INTERNAL = "internal"


class ProtocolError(Exception):
    """A refused client message: becomes ``error {id, code, message}``; nothing changed."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


__all__ = ["ErrorCode", "ProtocolError"]
