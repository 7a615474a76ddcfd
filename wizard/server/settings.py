"""`Settings`: the one typed configuration object of the server.

Every field comes, in this order of precedence, from a ``wizard serve`` flag,
a ``WIZARD_*`` environment variable, or its default. `FIELDS` is the single
table both the CLI and ``docs/operations.md`` are written from.

>>> Settings.from_env({"WIZARD_PORT": "9000"}).port
9000
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any


def default_ai_workers() -> int:
    """CPU count − 1, at least 1 (the loop keeps one core)."""
    return max(1, (os.cpu_count() or 2) - 1)


@dataclass(frozen=True, slots=True)
class Field:
    """One setting: its name on the `Settings` object, env var, flag, parser and meaning."""

    name: str
    env: str
    flag: str
    parse: Callable[[str], Any]
    help: str


def _log_format(text: str) -> str:
    if text not in ("json", "console"):
        raise ValueError(f"log format must be json or console, got {text!r}")
    return text


def _boolean(text: str) -> bool:
    value = text.strip().lower()
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"must be true or false, got {text!r}")


def _log_level(text: str) -> str:
    level = text.strip().lower()
    if level not in ("debug", "info", "warning", "error", "critical"):
        raise ValueError(f"log level must be debug, info, warning, error or critical, got {text!r}")
    return level


@dataclass(frozen=True, slots=True)
class Settings:
    """Server configuration; see `FIELDS` (and ``docs/operations.md``) for every field."""

    host: str = "127.0.0.1"
    port: int = 8000
    db_path: str = "./data/wizard.db"
    ai_workers: int = dataclasses.field(default_factory=default_ai_workers)
    max_message_bytes: int = 8192
    send_queue_size: int = 256
    chat_per_minute: int = 20
    bot_delay: float = 1.0
    trick_show_seconds: float = 1.5
    turn_seconds: int = 60
    disconnect_grace_seconds: float = 30.0
    idle_close_seconds: float = 600.0
    ai_deadline_seconds: float = 0.5
    tables_broadcast_seconds: float = 0.25
    shutdown_seconds: float = 5.0
    log_level: str = "info"
    log_format: str = "json"
    static_dir: str = "static"
    ws_compression: bool = False

    def __post_init__(self) -> None:
        checks = [
            (1 <= self.port <= 65535, "port must be 1-65535"),
            (self.ai_workers >= 0, "ai_workers must be >= 0"),
            (self.max_message_bytes >= 256, "max_message_bytes must be >= 256"),
            (self.send_queue_size >= 1, "send_queue_size must be >= 1"),
            (self.chat_per_minute >= 1, "chat_per_minute must be >= 1"),
            (self.bot_delay >= 0, "bot_delay must be >= 0"),
            (self.trick_show_seconds >= 0, "trick_show_seconds must be >= 0"),
            (0 <= self.turn_seconds <= 3600, "turn_seconds must be 0-3600"),
            (self.disconnect_grace_seconds >= 0, "disconnect_grace_seconds must be >= 0"),
            (self.idle_close_seconds > 0, "idle_close_seconds must be > 0"),
            (self.ai_deadline_seconds > 0, "ai_deadline_seconds must be > 0"),
            (self.tables_broadcast_seconds >= 0, "tables_broadcast_seconds must be >= 0"),
            (self.shutdown_seconds >= 0, "shutdown_seconds must be >= 0"),
        ]
        for ok, message in checks:
            if not ok:
                raise ValueError(message)
        _log_level(self.log_level)
        _log_format(self.log_format)

    @staticmethod
    def from_env(
        env: Mapping[str, str] | None = None, overrides: Mapping[str, Any] | None = None
    ) -> Settings:
        """Settings from ``WIZARD_*`` variables, then ``overrides`` (flags; ``None`` = unset).

        Raises `ValueError` naming the variable whose value does not parse.
        """
        env = os.environ if env is None else env
        values: dict[str, Any] = {}
        for field in FIELDS:
            raw = env.get(field.env)
            if raw is None or raw == "":
                continue
            try:
                values[field.name] = field.parse(raw)
            except ValueError as exc:
                raise ValueError(f"{field.env}={raw!r}: {exc}") from None
        for name, value in (overrides or {}).items():
            if value is not None:
                values[name] = value
        return Settings(**values)

    def replace(self, **changes: Any) -> Settings:
        """A copy with some fields changed (tests use it)."""
        return dataclasses.replace(self, **changes)


FIELDS: tuple[Field, ...] = (
    Field("host", "WIZARD_HOST", "--host", str, "interface to listen on"),
    Field("port", "WIZARD_PORT", "--port", int, "TCP port"),
    Field("db_path", "WIZARD_DB", "--db", str,
          "SQLite database of the action log (`:memory:` for none on disk)"),
    Field("ai_workers", "WIZARD_AI_WORKERS", "--ai-workers", int,
          "worker processes of the inference pool (default CPU count − 1, at least 1)"),
    Field("max_message_bytes", "WIZARD_MAX_MESSAGE_BYTES", "--max-message-bytes", int,
          "largest websocket frame a client may send"),
    Field("send_queue_size", "WIZARD_SEND_QUEUE", "--send-queue", int,
          "messages queued for one connection before a client that does not read is dropped"),
    Field("chat_per_minute", "WIZARD_CHAT_PER_MINUTE", "--chat-per-minute", int,
          "chat messages one connection may send per minute (burst 5)"),
    Field("bot_delay", "WIZARD_BOT_DELAY", "--bot-delay", float,
          "factor on bot think time (trick display + random 0.8–2.5 s); 0 = bots answer at once"),
    Field("trick_show_seconds", "WIZARD_TRICK_SHOW_SECONDS", "--trick-show-seconds", float,
          "time clients show a completed trick before a bot plays on"),
    Field("turn_seconds", "WIZARD_TURN_SECONDS", "--turn-seconds", int,
          "default turn clock of a new table (0 = no clock)"),
    Field("disconnect_grace_seconds", "WIZARD_DISCONNECT_GRACE", "--disconnect-grace", float,
          "seconds a disconnected player keeps the seat before a bot plays for them"),
    Field("idle_close_seconds", "WIZARD_IDLE_CLOSE", "--idle-close", float,
          "seconds a table with no connected player lives before it is closed"),
    Field("ai_deadline_seconds", "WIZARD_AI_DEADLINE", "--ai-deadline", float,
          "shortest time a bot decision may take before the fallback answers"),
    Field("tables_broadcast_seconds", "WIZARD_TABLES_BROADCAST", "--tables-broadcast", float,
          "least time between two `tables` broadcasts (they are coalesced)"),
    Field("shutdown_seconds", "WIZARD_SHUTDOWN_SECONDS", "--shutdown-seconds", float,
          "graceful shutdown limit for open connections"),
    Field("log_level", "WIZARD_LOG_LEVEL", "--log-level", _log_level,
          "debug, info, warning, error"),
    Field("log_format", "WIZARD_LOG_FORMAT", "--log-format", _log_format,
          "json (one JSON object a line) or console (for people)"),
    Field("static_dir", "WIZARD_STATIC_DIR", "--static-dir", str,
          "directory of the browser client"),
    Field("ws_compression", "WIZARD_WS_COMPRESSION", "--ws-compression", _boolean,
          "permessage-deflate on websockets: ~5x less traffic, ~20 % of the server's CPU"),
)

assert {f.name for f in FIELDS} == set(Settings.__dataclass_fields__), "FIELDS out of date"

__all__ = ["FIELDS", "Field", "Settings", "default_ai_workers"]

