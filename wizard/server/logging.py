"""structlog setup: JSON lines (default) or a console renderer for people.

Every server log line is an event name plus fields; table and player lines
carry ``table_id`` / ``player_id``. Tokens are never logged.
"""

from __future__ import annotations

import logging
import sys

import structlog

_LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "warning": logging.WARNING,
           "error": logging.ERROR, "critical": logging.CRITICAL}


def configure_logging(level: str = "info", fmt: str = "json") -> None:
    """Route structlog (and stdlib logging, e.g. uvicorn's) to stderr in one format.

    ``fmt`` is ``json`` (one object per line: ``timestamp``, ``level``, ``event``,
    fields) or ``console``. Raises `KeyError` for an unknown level.
    """
    numeric = _LEVELS[level]
    renderer: structlog.types.Processor = (
        structlog.processors.JSONRenderer() if fmt == "json"
        else structlog.dev.ConsoleRenderer(colors=sys.stderr.isatty())
    )
    shared: list[structlog.types.Processor] = [
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]
    structlog.configure(
        processors=[*shared, structlog.processors.format_exc_info, renderer],
        wrapper_class=structlog.make_filtering_bound_logger(numeric),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=True,
    )
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(structlog.stdlib.ProcessorFormatter(
        processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, renderer],
        foreign_pre_chain=[*shared, structlog.stdlib.add_logger_name],
    ))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(numeric)
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        logger = logging.getLogger(name)
        logger.handlers[:] = []
        logger.propagate = True
    # one access line per HTTP request is noise at info level
    logging.getLogger("uvicorn.access").setLevel(max(numeric, logging.WARNING))


__all__ = ["configure_logging"]
