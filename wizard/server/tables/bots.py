"""Bot seats: settings drawn per game, think time, and decisions through the `Decider`.

A bot is an ordinary seat whose moves come from the injected `Decider`
(the inline heuristic now, the inference pool later). The decision is computed
during the think time, not after it; the table applies the proposal only if it
is still at the version the bot was asked about.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections import deque

import structlog

from wizard.ai.decision import Decider, Decision, DecisionRequest, InlineDecider
from wizard.ai.levels import BotLevel, BotSettings
from wizard.ai.levels.settings import BOT_VERSION, DEFAULT_POLICY, policy_for
from wizard.ai.pool.batches import MODEL_PREFIX

from ..metrics import ServerMetrics
from ..settings import Settings

log = structlog.get_logger(__name__)

THINK_SECONDS = (0.8, 2.5)

def level_agent(level: BotLevel, decider: Decider, version: int = BOT_VERSION) -> str:
    """The agent a bot of ``level`` asks the decider for: ``bot:<level>`` (see `wizard.ai.levels`).

    Easy and medium play the heuristic (cheap, decided on the loop), master the
    search (in the pool's workers). Hard plays the policy of its ``version``
    (`policy_for`: ``model:default-v3`` for a bot of today's version, an older bot's
    ``model:default-v1``; ``model`` would be ``models/default.onnx``) when the decider
    has it loaded (batched in the pool),
    else ``bot:hard`` (which loads that policy itself, or searches). Strength
    (random moves, temperature, budget) applies either way.
    """
    if level is BotLevel.HARD:
        policy = policy_for(version)
        if policy in decider.policies:
            return "model" if policy == DEFAULT_POLICY else f"{MODEL_PREFIX}{policy}"
    return f"bot:{level.value}"


#: Who plays for a person whose clock ran out or who is away.
STAND_IN_AGENT = "heuristic"

_last_resort = InlineDecider()


class BotGate:
    """Lets waiting bot moves through, at most ``per_turn`` per event-loop iteration.

    Bot moves are background work: without the gate a burst of them (many
    tables whose bots answer at once) runs back to back, and a person's action,
    read from the socket meanwhile, waits behind all of them. With it, every
    few bot moves are followed by a fresh look at the sockets, so a person's
    action waits behind at most ``per_turn`` bot moves per step. One gives the
    lowest latency; a few more let the moves of one turn share a commit and a
    poll of the sockets (more throughput under load).

    The first ``per_turn`` moves of an iteration pass at once, without
    suspending (nobody waits before them); the rest queue for later iterations,
    first come first served. The bot moves that a table makes in one step after a
    move that passed (a run, `Table._apply`) count too, while the share has room.
    """

    def __init__(self, per_turn: int = 1) -> None:
        self.per_turn = per_turn
        self._waiting: deque[asyncio.Future[None]] = deque()
        self._release_handle: asyncio.Handle | None = None
        self._passed = 0  # moves let through in the current iteration
        self._new_turn_handle: asyncio.Handle | None = None
        # the loop, looked up once: on Python 3.11 every lookup is a getpid() system call
        self._loop: asyncio.AbstractEventLoop | None = None

    @property
    def waiting(self) -> int:
        return len(self._waiting)

    async def wait(self) -> None:
        """Return when it is this bot move's turn (cancellable while waiting)."""
        loop = self._loop
        if loop is None:
            loop = self._loop = asyncio.get_running_loop()
        if not self._waiting and self._passed < self.per_turn:
            self._pass(loop)
            return
        future: asyncio.Future[None] = loop.create_future()
        self._waiting.append(future)
        if self._release_handle is None:
            self._release_handle = loop.call_soon(self._release)
        await future

    @property
    def has_share(self) -> bool:
        """Whether this iteration's share has room for one more move (one that follows a move
        that passed, in the same step, goes now if so; `take` it)."""
        return self._passed < self.per_turn

    def take(self) -> None:
        """Count a move that went now, without waiting (after `has_share`)."""
        loop = self._loop
        if loop is None:
            loop = self._loop = asyncio.get_running_loop()
        self._pass(loop)

    def _pass(self, loop: asyncio.AbstractEventLoop) -> None:
        self._passed += 1
        if self._new_turn_handle is None:  # the count starts again next iteration
            self._new_turn_handle = loop.call_soon(self._new_turn)

    def _new_turn(self) -> None:
        self._new_turn_handle = None
        self._passed = 0

    def _release(self) -> None:
        self._release_handle = None
        loop = self._loop
        assert loop is not None  # set by the wait that scheduled this
        while self._waiting and self._passed < self.per_turn:
            future = self._waiting.popleft()
            if not future.done():  # a cancelled wait gives its place up
                future.set_result(None)
                self._pass(loop)
        if self._waiting:
            self._release_handle = loop.call_soon(self._release)


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
        decision = _last_resort_decision(request)
    return _checked(decision, request, metrics, start, table_id)


def decide_now(decider: Decider, request: DecisionRequest, metrics: ServerMetrics,
               *, table_id: str) -> Decision | None:
    """`decide`, at once, when ``decider`` decides this agent on the loop (`Decider.decide_now`);
    ``None`` when the decision has to be awaited."""
    start = time.perf_counter()
    try:
        decision = decider.decide_now(request)
    except Exception:
        log.exception("decider_failed", table_id=table_id)
        decision = _last_resort_decision(request)
    if decision is None:
        return None
    return _checked(decision, request, metrics, start, table_id)


def _last_resort_decision(request: DecisionRequest) -> Decision:
    fallback = _last_resort.decide_now(request)
    return Decision(fallback.action, fallback.agent, "error", 0.0, fallback.compute_ms)


def _checked(decision: Decision, request: DecisionRequest, metrics: ServerMetrics, start: float,
             table_id: str) -> Decision:
    """``decision`` if its action is legal (else the heuristic's), counted in the metrics."""
    legal = request.observation.legal_actions
    # canonical actions: identity is the cheap test; equality is the fallback for others
    if not any(a is decision.action for a in legal) and decision.action not in legal:
        log.error("decider_illegal_action", table_id=table_id, agent=decision.agent,
                  action=decision.action.to_dict())
        decision = _last_resort_decision(request)
    metrics.decision_seconds.observe(time.perf_counter() - start)
    metrics.decisions.labels(decision.agent, decision.reason or "none").inc()
    if decision.reason is not None:  # a fallback (the counter above has every decision)
        log.debug("bot_decided", table_id=table_id, agent=decision.agent, reason=decision.reason,
                  queue_ms=round(decision.queue_ms, 2), compute_ms=round(decision.compute_ms, 2))
    return decision


__all__ = [
    "STAND_IN_AGENT",
    "THINK_SECONDS",
    "BotGate",
    "bot_id",
    "bot_name",
    "decide",
    "decide_now",
    "draw_settings",
    "level_agent",
    "think_seconds",
]
