"""The pool's requests on their way: waiting in a buffer, in a batch, in a worker's slot.

A `Waiting` request is admitted and holds its future answer; a `Buffer` collects
requests for one policy (or one worker agent) until its window closes or it is
full; a `Batch` is what one worker task carries, and a `Slot` is room for one
batch in the executor. `task_for` turns a batch into a worker's task and
`answers` a worker's reply into each request's action and chooser.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from wizard.engine import Action

from ..decision import Decision, DecisionRequest
from ..encoding import ActionSpace, encode_batch
from . import worker_process

MODEL_PREFIX = "model:"


class Waiting:
    """One admitted request, and its future answer (a `Decision` or a fallback reason)."""

    __slots__ = ("arrived", "bot", "dispatched", "future", "request")

    def __init__(self, request: DecisionRequest, future: asyncio.Future[Decision | str],
                 arrived: float) -> None:
        self.request = request
        self.future = future
        self.arrived = arrived
        self.dispatched: float | None = None
        self.bot = worker_process.bot_row(request.spec.bot, request.spec.move_number)


@dataclass(eq=False, slots=True)
class Buffer:
    """Requests for one policy (or worker agent) waiting for a worker."""

    kind: str  # "policy" or "agent"
    name: str
    capacity: int
    items: list[Waiting] = field(default_factory=list)
    timer: asyncio.TimerHandle | None = None
    ripe: bool = False  # the window has closed or the batch is full


@dataclass(eq=False, slots=True)
class Batch:
    buffer: Buffer
    items: list[Waiting]
    dispatched: float


@dataclass(eq=False, slots=True)
class Slot:
    """Room for one batch in the executor (``batches_per_worker`` slots per worker process)."""

    batch: Batch | None = None
    generation: int = 0  # the executor the batch went to (a broken one is replaced once)


def task_for(buffer: Buffer, items: list[Waiting]) -> tuple[str, tuple[Any, ...]]:
    """The task for a worker: a policy batch encoded here (no form of the observation
    ships cheaper, see `docs/pool.md`), or one observation for a worker agent."""
    if buffer.kind == "policy":
        observations = [item.request.observation for item in items]
        return ("policy", (
            buffer.name, encode_batch(observations), ActionSpace.mask_batch(observations),
            np.array([item.bot for item in items], dtype=np.int64)))
    request = items[0].request
    return ("agent", (buffer.name, request.spec, request.observation.to_dict()))


def resolve(items: list[Waiting], reason: str) -> None:
    """Answer each request not answered yet with a fallback reason."""
    for item in items:
        if not item.future.done():
            item.future.set_result(reason)


def answers(batch: Batch, result: Any) -> list[tuple[Action, str]]:
    """Each request's action and what chose it, from a worker's reply to ``batch``."""
    if batch.buffer.kind == "policy":
        codes, _ = result
        agent = MODEL_PREFIX + batch.buffer.name
        chosen: list[tuple[Action, str]] = []
        for item, code in zip(batch.items, codes.tolist(), strict=True):
            if code >= 0:
                chosen.append((ActionSpace.action(code), agent))
            else:  # the bot's random move: an index into the legal actions
                chosen.append((item.request.observation.legal_actions[-1 - code], "random"))
        return chosen
    index, chosen_by, _ = result
    return [(ActionSpace.action(index), chosen_by)]


__all__ = ["MODEL_PREFIX", "Batch", "Buffer", "Slot", "Waiting", "answers", "resolve", "task_for"]
