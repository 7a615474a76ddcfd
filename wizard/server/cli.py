"""``wizard serve``: build `Settings` from flags and ``WIZARD_*`` variables, run uvicorn."""

from __future__ import annotations

import argparse
import sys

from wizard.ai.decision import Decider, InlineDecider
from wizard.ai.pool import InferencePool, PoolSettings

from .settings import FIELDS, Settings

# uvicorn refuses larger frames itself (close 1009) before the app buffers them; frames
# between the app's limit and this get the clearer ``error too_large`` first.
WS_MAX_SIZE_FACTOR = 2


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add the ``serve`` subcommand (one flag per `Settings` field)."""
    parser = sub.add_parser(
        "serve",
        help="run the server (lobby, tables, websocket protocol, browser client)",
        description="Run the Wizard online server. Every flag has a WIZARD_* variable; "
                    "see docs/operations.md.",
    )
    for field in FIELDS:
        # argparse formats help with %: a literal one ("20 %") must be doubled
        parser.add_argument(field.flag, dest=field.name, type=field.parse, default=None,
                            help=f"{field.help} (env {field.env})".replace("%", "%%"))
    parser.set_defaults(handler=run_serve)


def make_decider(settings: Settings) -> Decider:
    """The inference pool with ``ai_workers`` processes, or the inline heuristic for 0."""
    if settings.ai_workers <= 0:
        return InlineDecider()
    return InferencePool(PoolSettings(
        workers=settings.ai_workers, max_inflight=settings.ai_max_inflight,
        degrade_queue=settings.ai_degrade_queue, batch_window_ms=settings.ai_batch_window_ms,
        max_batch=settings.ai_max_batch))


def run_serve(args: argparse.Namespace) -> int:
    """Run uvicorn until SIGINT/SIGTERM; returns the exit status."""
    from .app import create_app
    from .logging import configure_logging
    from .net.fdlimit import HEADROOM, raise_fd_limit
    from .net.serving import WizardServer, uvicorn_config

    try:
        settings = Settings.from_env(overrides={f.name: getattr(args, f.name) for f in FIELDS})
    except ValueError as exc:
        print(f"wizard serve: {exc}", file=sys.stderr)
        return 2
    configure_logging(settings.log_level, settings.log_format)
    raise_fd_limit(settings.max_connections + HEADROOM)
    decider = make_decider(settings)
    app = create_app(settings, decider=decider, freeze_gc=True)
    state = app.state.server
    config = uvicorn_config(app, state,
                            ws_max_size=settings.max_message_bytes * WS_MAX_SIZE_FACTOR)
    WizardServer(config, state).run()
    return 0


__all__ = ["make_decider", "register", "run_serve"]
