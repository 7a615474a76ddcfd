"""`Settings`: the one typed configuration object of the server.

Every field comes, in this order of precedence, from a ``wizard serve`` flag,
a ``WIZARD_*`` environment variable, or its default. `FIELDS` is the single
table both the CLI and ``docs/operations.md`` are written from: the guide's
settings table is generated from it (`wizard.server.settings_table`; a test
fails while the guide differs).

>>> Settings.from_env({"WIZARD_PORT": "9000"}).port
9000
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any


def default_ai_workers() -> int:
    """CPU count − 1, at least 1 (the loop keeps one core)."""
    return max(1, (os.cpu_count() or 2) - 1)


@dataclass(frozen=True, slots=True)
class Field:
    """One setting: its name on the `Settings` object, env var, flag, parser and meaning.

    ``default_text`` is the default as the guide shows it, for a default that
    depends on the machine (else the guide shows the value).
    """

    name: str
    env: str
    flag: str
    parse: Callable[[str], Any]
    help: str
    default_text: str = ""


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


def _origins(text: str) -> tuple[str, ...]:
    """``"https://a.example, https://b.example"`` → a tuple of lower-case origins (``*``: any)."""
    origins = tuple(part.strip().rstrip("/").lower() for part in text.split(",") if part.strip())
    for origin in origins:
        if origin != "*" and "://" not in origin:
            raise ValueError(f"an origin looks like https://host[:port], got {origin!r}")
    return origins


def _addresses(text: str) -> tuple[str, ...]:
    """``"127.0.0.1, 10.0.0.0/8"`` → a tuple of addresses or networks (``*``: any peer)."""
    import ipaddress

    parts = tuple(part.strip() for part in text.split(",") if part.strip())
    for part in parts:
        if part != "*":
            try:
                ipaddress.ip_network(part, strict=False)
            except ValueError:
                raise ValueError(f"not an IP address or network: {part!r}") from None
    return parts


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
    ai_max_inflight: int = 64
    ai_degrade_queue: int = 0
    ai_batch_window_ms: float = 1.0
    ai_max_batch: int = 32
    max_message_bytes: int = 8192
    send_queue_size: int = 256
    send_queue_bytes: int = 1_048_576
    send_timeout_seconds: float = 30.0
    messages_per_second: float = 20.0
    message_burst: int = 40
    rate_limit_strikes: int = 20
    rate_limit_window_seconds: float = 10.0
    chat_per_minute: int = 20
    max_connections: int = 2000
    max_tables: int = 1000
    max_tables_per_player: int = 8
    max_spectators: int = 50
    allowed_origins: tuple[str, ...] = ()
    ws_ping_interval: float = 20.0
    ws_ping_timeout: float = 20.0
    hello_timeout_seconds: float = 30.0
    client_idle_seconds: float = 900.0
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
    static_dir: str = ""  # "": the client shipped with the package (`static_path`)
    ws_compression: bool = False
    bot_moves_per_turn: int = 8
    max_connections_per_address: int = 50
    max_tables_per_address: int = 20
    http_header_timeout_seconds: float = 10.0
    trusted_proxies: tuple[str, ...] = ("127.0.0.1", "::1")
    player_retention_days: float = 30.0
    analysis_queue: int = 8
    analysis_per_player: int = 1
    analysis_worlds: int = 32
    analysis_seconds: float = 300.0
    analysis_slice_seconds: float = 0.05
    db_full_check_mb: float = 128.0
    login_attempts_per_minute: float = 5.0
    login_attempt_burst: int = 10

    def __post_init__(self) -> None:
        checks = [
            (1 <= self.port <= 65535, "port must be 1-65535"),
            (self.ai_workers >= 0, "ai_workers must be >= 0"),
            (self.ai_max_inflight >= 1, "ai_max_inflight must be >= 1"),
            (0 <= self.ai_degrade_queue < self.ai_max_inflight,
             "ai_degrade_queue must be 0 or below ai_max_inflight"),
            (0.0 <= self.ai_batch_window_ms <= 2.0, "ai_batch_window_ms must be within 0-2"),
            (self.ai_max_batch >= 1, "ai_max_batch must be >= 1"),
            (self.max_message_bytes >= 256, "max_message_bytes must be >= 256"),
            (self.send_queue_size >= 1, "send_queue_size must be >= 1"),
            (self.send_queue_bytes >= 1024, "send_queue_bytes must be >= 1024"),
            (self.send_timeout_seconds > 0, "send_timeout_seconds must be > 0"),
            (self.messages_per_second > 0, "messages_per_second must be > 0"),
            (self.message_burst >= 1, "message_burst must be >= 1"),
            (self.rate_limit_strikes >= 1, "rate_limit_strikes must be >= 1"),
            (self.rate_limit_window_seconds > 0, "rate_limit_window_seconds must be > 0"),
            (self.max_connections >= 1, "max_connections must be >= 1"),
            (self.max_tables >= 1, "max_tables must be >= 1"),
            (self.max_tables_per_player >= 1, "max_tables_per_player must be >= 1"),
            (self.max_spectators >= 0, "max_spectators must be >= 0"),
            (self.ws_ping_interval >= 0, "ws_ping_interval must be >= 0"),
            (self.ws_ping_timeout > 0, "ws_ping_timeout must be > 0"),
            (self.hello_timeout_seconds > 0, "hello_timeout_seconds must be > 0"),
            (self.client_idle_seconds > 0, "client_idle_seconds must be > 0"),
            (self.chat_per_minute >= 1, "chat_per_minute must be >= 1"),
            (self.bot_delay >= 0, "bot_delay must be >= 0"),
            (self.bot_moves_per_turn >= 1, "bot_moves_per_turn must be >= 1"),
            (self.trick_show_seconds >= 0, "trick_show_seconds must be >= 0"),
            (0 <= self.turn_seconds <= 3600, "turn_seconds must be 0-3600"),
            (self.disconnect_grace_seconds >= 0, "disconnect_grace_seconds must be >= 0"),
            (self.idle_close_seconds > 0, "idle_close_seconds must be > 0"),
            (self.ai_deadline_seconds > 0, "ai_deadline_seconds must be > 0"),
            (self.tables_broadcast_seconds >= 0, "tables_broadcast_seconds must be >= 0"),
            (self.shutdown_seconds >= 0, "shutdown_seconds must be >= 0"),
            (self.max_connections_per_address >= 1, "max_connections_per_address must be >= 1"),
            (self.max_tables_per_address >= 1, "max_tables_per_address must be >= 1"),
            (self.http_header_timeout_seconds > 0, "http_header_timeout_seconds must be > 0"),
            (self.player_retention_days > 0, "player_retention_days must be > 0"),
            (self.analysis_queue >= 0, "analysis_queue must be >= 0"),
            (self.analysis_per_player >= 1, "analysis_per_player must be >= 1"),
            (self.analysis_worlds >= 1, "analysis_worlds must be >= 1"),
            (self.analysis_seconds > 0, "analysis_seconds must be > 0"),
            (self.analysis_slice_seconds > 0, "analysis_slice_seconds must be > 0"),
            (self.db_full_check_mb >= 0, "db_full_check_mb must be >= 0"),
            (self.login_attempts_per_minute > 0, "login_attempts_per_minute must be > 0"),
            (self.login_attempt_burst >= 1, "login_attempt_burst must be >= 1"),
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

    def static_path(self) -> Path:
        """The browser client's directory: ``static_dir`` if set, else the shipped one
        (inside the installed package, or the checkout's ``static/``)."""
        if self.static_dir:
            return Path(self.static_dir)
        from wizard.resources import shipped

        return shipped("static")

    def replace(self, **changes: Any) -> Settings:
        """A copy with some fields changed (tests use it)."""
        return dataclasses.replace(self, **changes)


FIELDS: tuple[Field, ...] = (
    Field("host", "WIZARD_HOST", "--host", str, "interface to listen on"),
    Field("port", "WIZARD_PORT", "--port", int, "TCP port"),
    Field("db_path", "WIZARD_DB", "--db", str,
          "SQLite database of the action log (`:memory:` for none on disk)"),
    Field("ai_workers", "WIZARD_AI_WORKERS", "--ai-workers", int,
          "worker processes of the inference pool (default CPU count − 1, at least 1)",
          default_text="CPU count − 1 (≥ 1)"),
    Field("ai_max_inflight", "WIZARD_AI_MAX_INFLIGHT", "--ai-max-inflight", int,
          "bot decisions in progress in the pool; more are answered by the heuristic "
          "(`overloaded`)"),
    Field("ai_degrade_queue", "WIZARD_AI_DEGRADE_QUEUE", "--ai-degrade-queue", int,
          "decisions waiting for a pool worker past which the heuristic answers (`queue`); "
          "0 = half of the in-flight limit, at least one batch (`--ai-max-batch`)"),
    Field("ai_batch_window_ms", "WIZARD_AI_BATCH_WINDOW_MS", "--ai-batch-window-ms", float,
          "milliseconds a model batch waits for more requests (0-2)"),
    Field("ai_max_batch", "WIZARD_AI_MAX_BATCH", "--ai-max-batch", int,
          "most requests in one ONNX call"),
    Field("max_message_bytes", "WIZARD_MAX_MESSAGE_BYTES", "--max-message-bytes", int,
          "largest websocket frame a client may send"),
    Field("send_queue_size", "WIZARD_SEND_QUEUE", "--send-queue", int,
          "messages queued for one connection before a client that does not read is dropped"),
    Field("send_queue_bytes", "WIZARD_SEND_QUEUE_BYTES", "--send-queue-bytes", int,
          "bytes (of message text) queued for one connection before it is dropped like a "
          "full queue"),
    Field("send_timeout_seconds", "WIZARD_SEND_TIMEOUT", "--send-timeout", float,
          "seconds a client's socket may accept no data before it is cut off"),
    Field("messages_per_second", "WIZARD_MESSAGES_PER_SECOND", "--messages-per-second", float,
          "messages one connection may send per second on average (then `rate_limited`)"),
    Field("message_burst", "WIZARD_MESSAGE_BURST", "--message-burst", int,
          "messages one connection may send at once before the per-second budget applies"),
    Field("rate_limit_strikes", "WIZARD_RATE_LIMIT_STRIKES", "--rate-limit-strikes", int,
          "`rate_limited` errors within the window after which the connection is closed (1008)"),
    Field("rate_limit_window_seconds", "WIZARD_RATE_LIMIT_WINDOW", "--rate-limit-window", float,
          "the window (seconds) in which rate-limit strikes are counted"),
    Field("chat_per_minute", "WIZARD_CHAT_PER_MINUTE", "--chat-per-minute", int,
          "chat messages one connection may send per minute (burst 5)"),
    Field("max_connections", "WIZARD_MAX_CONNECTIONS", "--max-connections", int,
          "open websockets; the next handshake is refused with HTTP 503"),
    Field("max_tables", "WIZARD_MAX_TABLES", "--max-tables", int,
          "open tables; one more is refused with `error table_limit`"),
    Field("max_tables_per_player", "WIZARD_MAX_TABLES_PER_PLAYER", "--max-tables-per-player",
          int, "tables one player may sit at at once (`error player_table_limit`)"),
    Field("max_spectators", "WIZARD_MAX_SPECTATORS", "--max-spectators", int,
          "spectating connections per table (`error spectator_limit`)"),
    Field("allowed_origins", "WIZARD_ALLOWED_ORIGINS", "--allowed-origins", _origins,
          "comma-separated browser origins allowed besides the server's own host (`*`: any); "
          "a handshake from another origin gets HTTP 403"),
    Field("ws_ping_interval", "WIZARD_WS_PING_INTERVAL", "--ws-ping-interval", float,
          "seconds between websocket pings the server sends (0 = none)"),
    Field("ws_ping_timeout", "WIZARD_WS_PING_TIMEOUT", "--ws-ping-timeout", float,
          "seconds a client has to answer a ping before it is disconnected"),
    Field("hello_timeout_seconds", "WIZARD_HELLO_TIMEOUT", "--hello-timeout", float,
          "seconds a new connection has to say `hello` before it is closed"),
    Field("client_idle_seconds", "WIZARD_CLIENT_IDLE", "--client-idle", float,
          "seconds a connection may send nothing before it is closed (clients send `ping`)"),
    Field("bot_delay", "WIZARD_BOT_DELAY", "--bot-delay", float,
          "factor on bot think time (trick display + random 0.8–2.5 s); 0 = bots answer at "
          "once: the bots after a bot's move are then decided at once and stored in its "
          "commit (a run of at most one round of the table; their updates leave in one "
          "write)"),
    Field("bot_moves_per_turn", "WIZARD_BOT_MOVES_PER_TURN", "--bot-moves-per-turn", int,
          "most bot moves applied per turn of the event loop, the moves of a run included: a "
          "person's action waits behind at most this many (1: lowest latency, more: more "
          "throughput under load)"),
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
          "limit for a graceful shutdown (SIGTERM): tell clients, flush the store, close"),
    Field("log_level", "WIZARD_LOG_LEVEL", "--log-level", _log_level,
          "debug, info, warning, error or critical"),
    Field("log_format", "WIZARD_LOG_FORMAT", "--log-format", _log_format,
          "json (one JSON object a line) or console (for people)"),
    Field("static_dir", "WIZARD_STATIC_DIR", "--static-dir", str,
          "directory of the browser client (default: the one shipped with the package)"),
    Field("ws_compression", "WIZARD_WS_COMPRESSION", "--ws-compression", _boolean,
          "permessage-deflate on websockets: ~5x less traffic, ~20 % of the server's CPU"),
    Field("max_connections_per_address", "WIZARD_MAX_CONNECTIONS_PER_ADDRESS",
          "--max-connections-per-address", int,
          "open websockets from one client address; the next handshake gets HTTP 429"),
    Field("max_tables_per_address", "WIZARD_MAX_TABLES_PER_ADDRESS", "--max-tables-per-address",
          int, "open tables created from one client address (`error address_table_limit`)"),
    Field("http_header_timeout_seconds", "WIZARD_HTTP_HEADER_TIMEOUT", "--http-header-timeout",
          float, "seconds a client has to send a request's headers before the socket is closed"),
    Field("trusted_proxies", "WIZARD_TRUSTED_PROXIES", "--trusted-proxies", _addresses,
          "comma-separated proxy addresses/networks whose X-Forwarded-For names the client "
          "(default loopback; `*`: any peer, only behind a proxy that sets the header)"),
    Field("player_retention_days", "WIZARD_PLAYER_RETENTION_DAYS", "--player-retention-days",
          float, "days a player who sits in no stored game is remembered after their last "
          "hello (then their token is forgotten)"),
    Field("analysis_queue", "WIZARD_ANALYSIS_QUEUE", "--analysis-queue", int,
          "game analyses waiting for a worker; one more is refused with `error analysis_busy`"),
    Field("analysis_per_player", "WIZARD_ANALYSIS_PER_PLAYER", "--analysis-per-player", int,
          "game analyses one player may have queued or running (`error analysis_limit`)"),
    Field("analysis_worlds", "WIZARD_ANALYSIS_WORLDS", "--analysis-worlds", int,
          "sampled worlds per decision of an analysis (two sets: the master chooses on one, "
          "both choices are valued on the other)"),
    Field("analysis_seconds", "WIZARD_ANALYSIS_SECONDS", "--analysis-seconds", float,
          "an analysis running longer fails (`analysis_progress` `failed`)"),
    Field("analysis_slice_seconds", "WIZARD_ANALYSIS_SLICE_SECONDS", "--analysis-slice-seconds",
          float, "an analysis runs in slices of about this long (at least one decision), so a "
          "live bot decision waits at most one slice"),
    Field("db_full_check_mb", "WIZARD_DB_FULL_CHECK_MB", "--db-full-check-mb", float,
          "a database file (with its log) up to this many MiB gets the full "
          "`PRAGMA integrity_check` at start (about 2 s per 100 MiB), a bigger one "
          "`quick_check` only; 0: always quick_check"),
    Field("login_attempts_per_minute", "WIZARD_LOGIN_ATTEMPTS_PER_MINUTE",
          "--login-attempts-per-minute", float,
          "password attempts (login, password change, claim) refilled per minute, per client "
          "address and per account name; past the burst: HTTP 429 `rate_limited`"),
    Field("login_attempt_burst", "WIZARD_LOGIN_ATTEMPT_BURST", "--login-attempt-burst", int,
          "password attempts allowed at once, per client address and per account name"),
)

assert {f.name for f in FIELDS} == set(Settings.__dataclass_fields__), "FIELDS out of date"

__all__ = ["FIELDS", "Field", "Settings", "default_ai_workers"]
