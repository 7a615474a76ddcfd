"""The worker side of the inference pool: runs in each worker process, never on the loop.

Each worker of the pool's `ProcessPoolExecutor` runs `init_worker` once: it
limits numeric libraries to one thread, imports the modules that register
extra agents and loads every shipped ONNX policy once (one intra-op thread
each); then it answers ``(task, args)`` messages (`run_task`), one at a time:

- ``policy``: `run_policy_batch` — features and legal-action masks encoded on
  the loop, plus each row's bot (level, strength, seed, move number); the bot's
  random-move and softmax draws (`wizard.ai.levels.strength.draw_rows`, the recipe
  every path draws with: the policy at the game's strength), the policy's
  decision logits for the whole batch (cards from its probabilities, bids by
  expected score), a masked choice per row (`wizard.ai.levels.strength.choose_rows`);
- ``agent``: `run_agent` — one observation (``Observation.to_dict()``) for an
  agent too slow for the loop (search bots), through `act_with_strength`.

Replies are ``("ok", result)`` or ``("error", message, traceback text)``;
`ping` says what a worker loaded (the pool's readiness check).
"""

from __future__ import annotations

import contextlib
import importlib
import os
import signal
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from wizard.engine import Observation, action_index

from ..agents import Agent
from ..decision import AgentSpec, act_with_strength
from ..levels import BotLevel, BotSettings
from ..levels.strength import POLICY_BRAIN, choose_rows, draw_rows, varies_per_move
from ..policy import OnnxPolicy, PolicyError, read_model_card
from ..registry import make_agent

THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")

_policies: dict[str, OnnxPolicy] = {}
_load_errors: dict[str, str] = {}
_agents: dict[str, Agent] = {}


def init_worker(models_dir: str, imports: tuple[str, ...] = ()) -> None:
    """Prepare a worker process: one thread per numeric library, every policy loaded once.

    A policy file that cannot be loaded is skipped and reported by `ping`, so
    one bad file does not take the other policies down with it. Files whose
    model card names another ``kind`` (the OI networks) are not policies and
    are left alone.
    """
    for variable in THREAD_VARIABLES:
        os.environ[variable] = "1"
    os.environ["WIZARD_MODELS_DIR"] = models_dir  # agents built here (oi) read the pool's models
    # Ctrl-C reaches the whole process group; the server shuts the pool down itself.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for module in imports:
        importlib.import_module(module)
    _policies.clear()
    _load_errors.clear()
    directory = Path(models_dir)
    for path in sorted(directory.glob("*.onnx")) if directory.is_dir() else ():
        try:
            if read_model_card(path).get("kind", "policy") != "policy":
                continue  # another agent's network (the OI agent's): not an action policy
            policy = OnnxPolicy(path, threads=1)
        except PolicyError as exc:
            _load_errors[path.stem] = str(exc)
            continue
        _policies[policy.name] = policy


def ping() -> dict[str, Any]:
    """What this worker holds: ``{"pid", "policies", "errors"}`` (the pool's readiness check)."""
    return {"pid": os.getpid(), "policies": sorted(_policies), "errors": dict(_load_errors)}


#: a bot row's level column: the index of the level in this tuple
LEVELS: tuple[BotLevel, ...] = tuple(BotLevel)
NO_BOT = -1  # level column of a row without bot settings: the policy's best action


def bot_row(bot: BotSettings | None, move_number: int) -> tuple[int, int, int, int, int]:
    """The five ints a policy row carries for its bot: level, strength, seed, move number,
    and 1 when its cards are played one card ahead as the policy's model card says (a
    row without a bot, the ``model`` agent), 0 for a bot: a level plays the policy's
    cards by their probabilities (`wizard.ai.levels.settings.BOT_VERSION`)."""
    if bot is None:
        return (NO_BOT, 100, 0, move_number, 1)
    return (LEVELS.index(bot.level), min(100, max(0, bot.strength)), bot.seed, move_number, 0)


def strength_draws(bots: npt.NDArray[np.int64], masks: npt.NDArray[np.bool_]) -> tuple[
        npt.NDArray[np.int64], npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Each row's bot draws (`wizard.ai.levels.strength.draw_rows` for the policy brain).

    Returns ``random_pick`` (the index into the observation's ``legal_actions``
    of a random move, or -1), the softmax temperature and the uniform draw.
    """
    rows = [None if level == NO_BOT else (strength, seed, move_number)
            for level, strength, seed, move_number, _ in bots.tolist()]
    return draw_rows(rows, masks.sum(axis=1).tolist(), varies=varies_per_move(POLICY_BRAIN))


def run_policy_batch(
    policy: str,
    features: npt.NDArray[np.float32],
    masks: npt.NDArray[np.bool_],
    bots: npt.NDArray[np.int64],
) -> tuple[npt.NDArray[np.int64], float]:
    """A batch decided by a policy; returns a code per row and the compute seconds.

    One ONNX call for the batch, with one row per legal bid of its bidding rows and,
    where a row looks ahead (`bot_row`), per legal card of its card rows
    (`OnnxPolicy.logits`). A code ``>= 0`` is
    the chosen action index; ``-1 - k`` means the bot plays a random move this
    time: ``legal_actions[k]``. Raises `KeyError` for a policy this worker did
    not load, and whatever the policy raises (a wrong output shape is a
    `ValueError`).
    """
    start = time.perf_counter()
    loaded = _policies.get(policy)
    if loaded is None:
        raise KeyError(f"policy {policy!r} is not loaded in this worker")
    random_pick, temperatures, uniforms = strength_draws(bots, masks)
    logits = loaded.logits(features, masks, lookahead=loaded.lookahead * bots[:, 4])
    chosen = choose_rows(logits, masks, temperatures, uniforms)
    codes = np.where(random_pick >= 0, -1 - random_pick, chosen)
    return codes, time.perf_counter() - start


def run_agent(agent: str, spec: AgentSpec, observation: dict[str, Any]) -> tuple[int, str, float]:
    """An agent too slow for the loop decides one observation.

    Returns the action index, the name of what chose it, and the compute seconds.
    """
    start = time.perf_counter()
    player = _agents.get(agent)
    if player is None:
        player = _agents[agent] = make_agent(agent)
    action, chosen_by = act_with_strength(player, spec, Observation.from_dict(observation))
    return action_index(action), chosen_by, time.perf_counter() - start


def run_analysis(record: dict[str, Any], seats: list[int], worlds: int, start: int,
                 max_seconds: float) -> tuple[int, int, list[dict[str, Any]]]:
    """A slice of a game analysis (`wizard.ai.analysis.analyse_slice`) with the master
    bot's prior: start, total, results."""
    from ..analysis import AnalysisBudget, GameRecord, analyse_slice
    from ..search.prior import master_prior

    part = analyse_slice(GameRecord.from_dict(record), seats, AnalysisBudget(worlds=worlds),
                         start, max_seconds, prior=master_prior())
    return part.start, part.total, part.decisions


def lower_priority(niceness: int) -> None:
    """Run this process at ``niceness`` and, where Linux offers it, as ``SCHED_IDLE``: it
    gets a core only when no other task wants it (the analysis worker). ``niceness`` is
    the level reached, whatever the server's own (``os.nice`` adds to the current one)."""
    os.nice(max(0, niceness - os.nice(0)))
    idle = getattr(os, "SCHED_IDLE", None)
    if idle is not None and niceness >= 19:
        with contextlib.suppress(OSError):
            os.sched_setscheduler(0, idle, os.sched_param(0))


TASKS: dict[str, Callable[..., Any]] = {"policy": run_policy_batch, "agent": run_agent,
                                        "analysis": run_analysis}


def run_task(message: tuple[str, tuple[Any, ...]]) -> tuple[Any, ...]:
    """One ``(task, args)`` message answered: ``("ok", result)`` or
    ``("error", message, traceback text)`` (the pool falls back and logs it)."""
    task, args = message
    try:
        return ("ok", TASKS[task](*args))
    except Exception as exc:
        return ("error", f"{type(exc).__name__}: {exc}", traceback.format_exc())


__all__ = ["LEVELS", "NO_BOT", "TASKS", "THREAD_VARIABLES", "bot_row",
           "init_worker", "lower_priority", "ping", "run_agent", "run_analysis",
           "run_policy_batch", "run_task", "strength_draws"]
