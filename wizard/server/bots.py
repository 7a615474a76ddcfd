"""Bot seats: settings drawn per game, think time, and decisions through the `Decider`.

A bot is an ordinary seat whose moves come from the injected `Decider`
(the inline heuristic now, the inference pool later). The decision is computed
during the think time, not after it; the table applies the proposal only if it
is still at the version the bot was asked about.
"""

from __future__ import annotations

import random
import time

import structlog

from wizard.ai.decision import Decider, Decision, DecisionRequest, InlineDecider
from wizard.ai.levels import BotLevel, BotSettings

from .metrics import ServerMetrics
from .settings import Settings

log = structlog.get_logger(__name__)

THINK_SECONDS = (0.8, 2.5)

#: The agent each level asks the decider for; the pool maps names to policies.
LEVEL_AGENTS: dict[BotLevel, str] = {
    BotLevel.EASY: "heuristic",
    BotLevel.MEDIUM: "heuristic",
    BotLevel.HARD: "heuristic",
    BotLevel.MASTER: "heuristic",
}
#: Who plays for a person whose clock ran out or who is away.
STAND_IN_AGENT = "heuristic"

_last_resort = InlineDecider()


def bot_id(level: BotLevel) -> str:
    """The public id of a bot seat: ``bot_id(BotLevel.HARD) == "bot:hard"``."""
    return f"bot:{level.value}"


def bot_name(level: BotLevel) -> str:
    """The display name of a bot seat: ``"Bot (hard)"``."""
    return f"Bot ({level.value})"


def draw_settings(level: BotLevel, rng: random.Random) -> BotSettings:
    """This game's `BotSettings` for a seat of ``level`` (strength within the level's range)."""
    return BotSettings.draw(level, rng)


def think_seconds(settings: Settings, rng: random.Random, *, trick_completed: bool) -> float:
    """How long a bot waits before its move is applied.

    The time the client needs to show a completed trick (if the last action
    completed one) plus a random 0.8–2.5 s, all scaled by ``bot_delay``; 0 with
    ``WIZARD_BOT_DELAY=0``.
    """
    if settings.bot_delay <= 0:
        return 0.0
    show = settings.trick_show_seconds if trick_completed else 0.0
    return (show + rng.uniform(*THINK_SECONDS)) * settings.bot_delay


async def decide(decider: Decider, request: DecisionRequest, metrics: ServerMetrics,
                 *, table_id: str) -> Decision:
    """Ask ``decider``; if it raises, the inline heuristic answers (reason ``error``).

    Always returns a legal action of the observation (the decider's, or the
    heuristic's when the decider proposed an illegal one).
    """
    start = time.perf_counter()
    try:
        decision = await decider.decide(request)
    except Exception:
        log.exception("decider_failed", table_id=table_id)
        fallback = await _last_resort.decide(request)
        decision = Decision(fallback.action, fallback.agent, "error", 0.0, fallback.compute_ms)
    if decision.action not in request.observation.legal_actions:
        log.error("decider_illegal_action", table_id=table_id, agent=decision.agent,
                  action=decision.action.to_dict())
        fallback = await _last_resort.decide(request)
        decision = Decision(fallback.action, fallback.agent, "error", 0.0, fallback.compute_ms)
    metrics.decision_seconds.observe(time.perf_counter() - start)
    metrics.decisions.inc(decision.agent, decision.reason or "none")
    return decision


__all__ = [
    "LEVEL_AGENTS",
    "STAND_IN_AGENT",
    "THINK_SECONDS",
    "bot_id",
    "bot_name",
    "decide",
    "draw_settings",
    "think_seconds",
]
