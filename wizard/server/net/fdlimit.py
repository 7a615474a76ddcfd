"""Raise the process's open-file limit at start, as far as the system allows.

Every websocket, HTTP request, database file and pool pipe is a file
descriptor. A soft limit of 1,024 (a common default) is below
``WIZARD_MAX_CONNECTIONS`` (2,000): past it even ``/healthz`` fails. The soft
limit may be raised to the hard one without privileges; ``wizard serve`` does
so before it listens (``tests/server/net/test_address_limits.py`` checks it).
"""

from __future__ import annotations

import structlog

log = structlog.get_logger(__name__)

#: descriptors beyond the websockets: listening socket, database, pool pipes, HTTP requests
HEADROOM = 256


def raise_fd_limit(wanted: int) -> int:
    """Raise the soft ``RLIMIT_NOFILE`` to the hard limit; returns the soft limit now.

    Logs ``fd_limit`` with the result, and a warning if it stays below ``wanted``.
    Where the platform has no such limit (Windows), returns ``wanted``.
    """
    try:
        import resource
    except ImportError:  # pragma: no cover - not on POSIX
        return wanted
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = hard if hard != resource.RLIM_INFINITY else max(soft, wanted, 65536)
    if soft != resource.RLIM_INFINITY and soft < target:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError) as exc:
            log.warning("fd_limit_not_raised", soft=soft, hard=hard, error=str(exc))
    level = log.warning if soft != resource.RLIM_INFINITY and soft < wanted else log.info
    level("fd_limit", soft=soft, hard=hard, wanted=wanted)
    return int(soft)


__all__ = ["HEADROOM", "raise_fd_limit"]
