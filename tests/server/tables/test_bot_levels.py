"""Bot levels in the server: each level's brain, master's search in the pool's workers,
answers by the deadline, and every bot move reproducible through a kill -9 restore."""

from __future__ import annotations

import asyncio
import json
import signal
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import connect

from wizard.ai.decision import AgentSpec, DecisionRequest
from wizard.ai.levels import BotLevel, BotSettings
from wizard.ai.levels.agent import LevelAgent
from wizard.ai.pool import InferencePool, PoolSettings
from wizard.engine import GameOptions, WizardGame, action_from_dict
from wizard.server.tables.bots import level_agent

from ..conftest import Harness
from ..driver import act_message
from ..test_e2e_uvicorn import Client, free_port, play_to_end, start_server, stop_server, table_of

TIMEOUT = 30.0


class _Decider:
    def __init__(self, policies: frozenset[str]) -> None:
        self.policies = policies


def test_each_level_asks_for_its_brain() -> None:
    without, with_model = _Decider(frozenset()), _Decider(frozenset({"default-v3"}))
    assert [level_agent(level, without) for level in BotLevel] == [
        "bot:easy", "bot:medium", "bot:hard", "bot:master"]
    assert level_agent(BotLevel.HARD, with_model) == "model:default-v3"  # batched in the pool
    # the shipped policy (v5) is the model agent's, not hard's
    assert level_agent(BotLevel.HARD, _Decider(frozenset({"default"}))) == "bot:hard"
    assert level_agent(BotLevel.MASTER, with_model) == "bot:master"


def test_a_hard_bot_asks_for_the_policy_of_its_version() -> None:
    every = _Decider(frozenset({"default", "default-v1", "default-v2", "default-v3"}))
    assert level_agent(BotLevel.HARD, every, version=5) == "model:default-v3"
    assert level_agent(BotLevel.HARD, every, version=4) == "model:default-v2"  # stored before v5
    assert level_agent(BotLevel.HARD, every, version=3) == "model:default-v1"  # stored before v4
    assert level_agent(BotLevel.HARD, every, version=1) == "model:default-v1"
    # the pool lacks the old file: the level agent decides (it loads the file, or searches)
    assert level_agent(BotLevel.HARD, _Decider(frozenset({"default-v3"})),
                       version=3) == "bot:hard"


def master_request(deadline_in: float) -> DecisionRequest:
    game = WizardGame(4, seed=4)
    seat = game.current_player
    assert seat is not None
    bot = BotSettings(BotLevel.MASTER, 100, seed=8)
    return DecisionRequest(game.observation(seat), AgentSpec("bot:master", bot, 0),
                           time.monotonic() + deadline_in)


def test_master_searches_in_a_worker_and_a_late_request_never_waits_for_it(
        tmp_path: Path) -> None:
    async def main() -> tuple[Any, Any]:
        pool = InferencePool(PoolSettings(workers=1, models_dir=str(tmp_path),
                                          close_timeout_s=2.0))
        await pool.start()
        try:
            searched = await pool.decide(master_request(30.0))
            late = await pool.decide(master_request(-0.1))
        finally:
            await pool.close()
        return searched, late

    searched, late = asyncio.run(main())
    request = master_request(30.0)
    assert request.spec.bot is not None
    expected = LevelAgent("master").act_as_bot(request.observation, request.spec.bot, 0)
    assert (searched.action, searched.agent, searched.reason) == (*expected, None)
    assert searched.agent == "bot:master:search"
    # past its deadline: the heuristic answers at once on the loop, nothing is searched
    assert (late.agent, late.reason) == ("heuristic", "expired")


def test_a_table_of_master_bots_plays_to_the_end_through_the_pool(
        make_harness: Callable[..., Harness], tmp_path: Path) -> None:
    pool = InferencePool(PoolSettings(workers=1, models_dir=str(tmp_path)))
    harness = make_harness(decider=pool, ai_deadline_seconds=30.0)
    ann = harness.player("Ann")
    ann.ok({"type": "play_bots", "players": 4, "level": "master"})
    table_id = next(m for m in reversed(ann.messages) if m["type"] == "table")["table_id"]
    while True:
        update = ann.wait_for(lambda m: m["type"] == "update" and m["table_id"] == table_id
                              and (m["observation"]["legal_actions"]
                                   or m["observation"]["phase"] == "finished"), TIMEOUT)
        if update["observation"]["phase"] == "finished":
            break
        ann.send(act_message(update))
    metrics = harness.client.get("/metrics").text
    key = 'wizard_pool_decisions_total{agent="bot:master:search",reason="none"}'
    served = [line for line in metrics.splitlines() if line.startswith(key)]
    assert served and int(float(served[0].split()[-1])) > 100


def stored_game(db: Path) -> tuple[dict[str, Any], list[tuple[int, dict[str, Any]]]]:
    with sqlite3.connect(db) as conn:
        game_id, seed, options, seats = conn.execute(
            "SELECT id, seed, options, seats FROM games").fetchone()
        actions = conn.execute("SELECT seat, action FROM actions WHERE game_id = ? ORDER BY seq",
                               (game_id,)).fetchall()
    info = {"seed": seed, "options": json.loads(options), "seats": json.loads(seats)}
    return info, [(seat, json.loads(action)) for seat, action in actions]


@pytest.mark.slow
def test_every_master_move_replays_from_its_seed_through_a_kill_9_restore(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "wizard.db"
    port = free_port()
    url = f"ws://127.0.0.1:{port}/ws"
    # a generous decision deadline: every bot move is the level's own, never a fallback
    env = {"WIZARD_DB": str(db), "WIZARD_AI_DEADLINE": "60", "WIZARD_MODELS_DIR": str(tmp_path)}

    async def first_half() -> tuple[str, str]:
        async with connect(url, open_timeout=10, close_timeout=2) as ws:
            ann = Client(ws, "Ann")
            await ann.hello("Ann", None)
            await ann.ok({"type": "play_bots", "players": 4, "level": "master"})
            table_id = table_of(ann)
            while True:
                update = await ann.wait_for(
                    lambda m: m["type"] == "update" and m["table_id"] == table_id
                    and m["observation"]["legal_actions"], TIMEOUT)
                if update["observation"]["round_number"] >= 4:
                    break
                await ann.send(act_message(update))
            assert ann.token is not None
            return ann.token, table_id

    async def second_half(token: str, table_id: str) -> None:
        async with connect(url, open_timeout=10, close_timeout=2) as ws:
            ann = Client(ws, "Ann")
            await ann.hello("Ann", token)
            update = await ann.wait_for(
                lambda m: m["type"] == "update" and m["table_id"] == table_id, TIMEOUT)
            await ann.send(act_message(update))
            await play_to_end([ann], table_id)

    process = start_server(port, tmp_path / "first.log", **env)
    try:
        token, table_id = asyncio.run(asyncio.wait_for(first_half(), 180))
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)
    process = start_server(port, tmp_path / "second.log", **env)
    try:
        asyncio.run(asyncio.wait_for(second_half(token, table_id), 300))
    finally:
        stop_server(process)

    info, actions = stored_game(db)
    game = WizardGame(len(info["seats"]), GameOptions.from_dict(info["options"]),
                      seed=info["seed"])
    # replay with the models the server had (none: master's OI prior is off there too)
    monkeypatch.setenv("WIZARD_MODELS_DIR", str(tmp_path))
    bots = {i: (LevelAgent(s["level"]), BotSettings.from_dict(s["bot"]))
            for i, s in enumerate(info["seats"]) if s["kind"] == "bot"}
    assert len(bots) == 3
    checked = 0
    for move, (seat, stored) in enumerate(actions):
        action = action_from_dict(stored)
        if seat in bots:
            agent, bot = bots[seat]
            assert agent.act_as_bot(game.observation(seat), bot, move)[0] == action, move
            checked += 1
        game.apply(seat, action)
    assert game.is_finished and checked > 300
