"""Bot strength: the table, the one draw recipe, and the same choice on every path.

A bot's move at a (seed, move number) must be the same whether `LevelAgent` plays it
(`wizard calibrate`, `wizard evaluate`), `act_with_strength` / `InlineDecider` does, or
the inference pool (its batched policy rows, its worker agents, its inline levels).
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from wizard.ai.agents import HeuristicAgent
from wizard.ai.decision import AgentSpec, DecisionRequest, InlineDecider, act_with_strength
from wizard.ai.encoding import ActionSpace, encode_batch
from wizard.ai.levels import STRENGTH_RANGES, BotLevel, BotSettings
from wizard.ai.levels.agent import LevelAgent, brain_for
from wizard.ai.levels.settings import HARD_POLICY
from wizard.ai.levels.strength import (
    POLICY_BRAIN,
    STRENGTH_JITTER,
    choose_rows,
    draw_rows,
    move_draw,
    move_strength,
    random_move_chance,
    search_worlds,
    temperature,
    value_temperature,
    varies_per_move,
)
from wizard.ai.policy import OnnxPolicy, models_dir
from wizard.ai.pool import InferencePool, PoolSettings
from wizard.ai.pool import worker_process as pool_worker
from wizard.ai.registry import make_agent
from wizard.engine import Action, Observation, WizardGame, action_index
from wizard.server.tables.bots import level_agent

needs_policy = pytest.mark.skipif(
    not (models_dir() / f"{HARD_POLICY}.onnx").is_file(),
    reason="the shipped policy v3 (models/default-v3.onnx) is what hard plays")


def test_random_move_chance_and_temperature_fall_with_strength() -> None:
    assert random_move_chance(0) == pytest.approx(0.35)
    assert random_move_chance(100) == 0.0
    assert random_move_chance(12.5) == pytest.approx(0.25)  # halfway between 0.35 and 0.15
    values = [random_move_chance(s) for s in range(0, 101, 5)]
    assert values == sorted(values, reverse=True)
    assert temperature(100) == 0.0 and temperature(0) == pytest.approx(2.0)
    assert random_move_chance(-10) == random_move_chance(0)  # clamped


def test_the_table_gets_stronger_with_strength() -> None:
    worlds = [search_worlds(s) for s in range(0, 101, 5)]
    temps = [value_temperature(s) for s in range(0, 101, 5)]
    assert worlds == sorted(worlds) and worlds[-1] == 32 and worlds[0] == 1
    assert temps == sorted(temps, reverse=True) and temps[-1] == 0.0


def test_each_move_varies_the_strength_by_at_most_five_within_0_100() -> None:
    rng = random.Random(1)
    for strength in (0, 3, 50, 98, 100):
        seen = {move_strength(strength, rng) for _ in range(500)}
        assert min(seen) == max(0, strength - STRENGTH_JITTER)
        assert max(seen) == min(100, strength + STRENGTH_JITTER)


def test_master_searches_19_to_32_worlds_and_hard_without_a_model_1_to_12() -> None:
    """What README and docs/ai.md say: the ±5 per move reaches below the level's range."""
    def worlds(level: BotLevel) -> tuple[int, int]:
        low, high = STRENGTH_RANGES[level]
        return (search_worlds(max(0, low - STRENGTH_JITTER)),
                search_worlds(min(100, high + STRENGTH_JITTER)))

    assert worlds(BotLevel.MASTER) == (19, 32)
    assert worlds(BotLevel.HARD) == (1, 12)
    # before bot version 5 master drew 85-100: 8-32 worlds with the ±5
    assert search_worlds(80) == 8 and search_worlds(85) == 12


def old_recipe(strength: int, seed: int, move: int, legal: int, varies: bool) -> tuple[
        int, int, float]:
    """The draws the server made before the recipe had one module (stored games follow
    them): `LevelAgent` varied the strength, the pool's policy rows and fallbacks did not."""
    rng = random.Random(f"bot:{seed}:{move}")
    if varies:
        strength = min(100, max(0, strength + rng.randint(-5, 5)))
    if rng.random() < random_move_chance(strength):
        return strength, rng.choice(range(legal)), 0.0
    return strength, -1, rng.random()


def test_the_draws_are_the_ones_stored_games_were_played_with() -> None:
    rng = random.Random(8)
    for _ in range(3000):
        strength, seed, move = rng.randint(0, 100), rng.getrandbits(63), rng.randrange(300)
        legal, varies = rng.randint(1, 20), rng.random() < 0.5
        assert tuple(move_draw(strength, seed, move, legal, varies=varies)) == old_recipe(
            strength, seed, move, legal, varies)


def test_every_brain_but_the_policy_varies_per_move() -> None:
    assert [varies_per_move(b) for b in ("heuristic", "search", "oi")] == [True] * 3
    assert not varies_per_move(POLICY_BRAIN) and not varies_per_move(None)


def test_without_the_model_file_every_level_varies_per_move(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WIZARD_MODELS_DIR", str(tmp_path))
    assert all(varies_per_move(brain_for(level)) for level in BotLevel)  # hard: the search
    (tmp_path / f"{HARD_POLICY}.onnx").write_bytes(b"")
    assert not varies_per_move(brain_for(BotLevel.HARD))  # the policy, when it ships


def test_the_batched_draws_are_the_per_row_draws() -> None:
    rng = random.Random(2)
    rows: list[tuple[int, int, int] | None] = [
        None if rng.random() < 0.1 else (rng.randint(0, 100), rng.getrandbits(63),
                                         rng.randrange(200)) for _ in range(500)]
    counts = [rng.randint(1, 15) for _ in rows]
    for varies in (False, True):
        picks, temperatures, uniforms = draw_rows(rows, counts, varies=varies)
        for i, (row, count) in enumerate(zip(rows, counts, strict=True)):
            if row is None:
                assert (picks[i], temperatures[i], uniforms[i]) == (-1, 0.0, 0.0)
                continue
            draw = move_draw(*row, count, varies=varies)
            assert picks[i] == draw.random_pick and uniforms[i] == draw.uniform
            assert temperatures[i] == (draw.temperature if draw.random_pick < 0 else 0.0)


def test_draws_refuse_a_strength_outside_0_100_and_no_legal_action() -> None:
    with pytest.raises(ValueError, match="strength must be within 0-100, got 101"):
        move_draw(101, 1, 1, 3, varies=False)
    with pytest.raises(ValueError, match="without a legal action"):
        move_draw(50, 1, 1, 0, varies=False)
    with pytest.raises(ValueError, match="without a legal action"):
        choose_rows(np.zeros((1, 3), np.float32), np.zeros((1, 3), bool), np.zeros(1),
                    np.zeros(1))


# --- one choice on every path ------------------------------------------------------

def positions(count: int, seed: int) -> Iterator[Observation]:
    """Observations with a choice (two or more legal actions) along heuristic games."""
    rng = random.Random(seed)
    agent = HeuristicAgent()
    made = 0
    while made < count:
        game = WizardGame(rng.randint(3, 6), seed=rng.getrandbits(32))
        while not game.is_finished and made < count:
            seat = game.current_player
            assert seat is not None
            observation = game.observation(seat)
            if len(observation.legal_actions) > 1 and rng.random() < 0.15:
                yield observation
                made += 1
            game.apply(seat, agent.act(observation))


Case = tuple[Observation, BotSettings, int]


def cases(count: int, seed: int, levels: tuple[BotLevel, ...]) -> list[Case]:
    """(position, bot, move number): strengths across each level's range, ends included."""
    rng = random.Random(seed)
    made = []
    for i, observation in enumerate(positions(count, seed)):
        level = levels[i % len(levels)]
        low, high = STRENGTH_RANGES[level]
        strength = (low, high, rng.randint(low, high))[i % 3]
        made.append((observation, BotSettings(level, strength, rng.getrandbits(63)),
                     rng.randrange(250)))
    return made


class PolicyDecider(InlineDecider):
    """A decider that holds hard's policy, as the pool does (hard asks for
    ``model:default-v3``)."""

    policies = frozenset({HARD_POLICY})


def served_agent(level: BotLevel) -> str:
    """The agent name the server asks a decider with the shipped policy for."""
    return level_agent(level, PolicyDecider())


def pool_rows(batch: list[Case]) -> list[Action]:
    """The pool's batched policy path, in this process: the rows the loop encodes
    (`InferencePool._message`), `run_policy_batch`, the codes read as `_deliver` does."""
    observations = [observation for observation, _, _ in batch]
    bots = np.array([pool_worker.bot_row(bot, move) for _, bot, move in batch], dtype=np.int64)
    codes, _ = pool_worker.run_policy_batch(
        HARD_POLICY, encode_batch(observations), ActionSpace.mask_batch(observations), bots)
    return [observation.legal_actions[-1 - code] if code < 0 else ActionSpace.action(code)
            for observation, code in zip(observations, codes.tolist(), strict=True)]


def pool_worker_agent(case: Case) -> Action:
    """The pool's worker-agent path (search bots), in this process: `run_agent`."""
    observation, bot, move = case
    index, _, _ = pool_worker.run_agent(f"bot:{bot.level.value}",
                                        AgentSpec(f"bot:{bot.level.value}", bot, move),
                                        observation.to_dict())
    return ActionSpace.action(index)


@pytest.fixture
def worker_policy(monkeypatch: pytest.MonkeyPatch) -> None:
    """The shipped policy loaded as a pool worker holds it (`init_worker`, without the
    process-wide settings a worker process makes)."""
    policy = OnnxPolicy(models_dir() / f"{HARD_POLICY}.onnx", threads=1)
    monkeypatch.setitem(pool_worker._policies, HARD_POLICY, policy)


@needs_policy
def test_calibration_the_inline_decider_and_the_pool_make_the_same_choice(
        worker_policy: None) -> None:
    levels = (BotLevel.EASY, BotLevel.MEDIUM, BotLevel.HARD, BotLevel.HARD, BotLevel.MASTER)
    batch = cases(150, seed=4, levels=levels)
    calibrated = {level: make_agent(f"bot:{level.value}") for level in BotLevel}
    inline = {level: InlineDecider(make_agent(f"bot:{level.value}")) for level in BotLevel}
    hard = [case for case in batch if case[1].level is BotLevel.HARD]
    batched = dict(zip(map(id, hard), pool_rows(hard), strict=True))
    for case in batch:
        observation, bot, move = case
        agent = calibrated[bot.level]
        assert isinstance(agent, LevelAgent)
        expected, _ = agent.act_as_bot(observation, bot, move)
        served = served_agent(bot.level)
        spec = AgentSpec(served, bot, move)
        assert act_with_strength(agent, spec, observation)[0] == expected
        decision = inline[bot.level].decide_now(DecisionRequest(observation, spec))
        assert decision.action == expected
        if served == f"model:{HARD_POLICY}":  # hard: the pool's batched policy rows
            assert batched[id(case)] == expected, (bot, move)
        elif served in pool_worker_agents():  # master: one task per decision in a worker
            assert pool_worker_agent(case) == expected, (bot, move)
    assert {served_agent(level) for level in BotLevel} == {
        "bot:easy", "bot:medium", f"model:{HARD_POLICY}", "bot:master"}


def pool_worker_agents() -> tuple[str, ...]:
    return PoolSettings().worker_agents


def test_levelagent_act_is_act_as_bot_at_the_games_move_number() -> None:
    """`LevelAgent.act` (what `wizard calibrate` plays) is `act_as_bot` at the move number
    a table passes (the game's actions before this one, no trump choice among them)."""
    agent = LevelAgent("hard", seed=3)
    game = WizardGame(4, seed=6)
    move = 0
    while game.core.round_number < 3:
        seat = game.current_player
        assert seat is not None
        observation = game.observation(seat)
        action = agent.act(observation)
        assert action == agent.act_as_bot(observation, agent.bot, move)[0]
        game.apply(seat, action)
        move += 1


@needs_policy
def test_a_real_pool_serves_the_calibrated_choice() -> None:
    """One `InferencePool` with a worker process: hard's batched policy rows, master's
    worker task and easy's inline decision all equal `LevelAgent`'s."""
    batch = cases(24, seed=9, levels=(BotLevel.HARD, BotLevel.HARD, BotLevel.EASY,
                                      BotLevel.MASTER))
    expected = [LevelAgent(bot.level).act_as_bot(observation, bot, move)[0]
                for observation, bot, move in batch]

    async def main() -> list[tuple[Action, str, str | None]]:
        pool = InferencePool(PoolSettings(workers=1, models_dir=str(models_dir()),
                                          close_timeout_s=5.0, max_wait_s=60.0))
        await pool.start()
        try:
            assert HARD_POLICY in pool.policies
            deadline = time.monotonic() + 60
            decisions = await asyncio.gather(*(
                pool.decide(DecisionRequest(observation,
                                            AgentSpec(level_agent(bot.level, pool), bot, move),
                                            deadline))
                for observation, bot, move in batch))
            return [(d.action, d.agent, d.reason) for d in decisions]
        finally:
            await pool.close()

    served = asyncio.run(asyncio.wait_for(main(), 120))
    assert [reason for _, _, reason in served] == [None] * len(batch)
    assert [action_index(a) for a, _, _ in served] == [action_index(a) for a in expected]
    paths = {agent.split(":")[0] if agent != "random" else agent for _, agent, _ in served}
    assert {"model", "bot"} <= paths  # the batched policy rows and the levels both answered


@needs_policy
def test_a_model_choice_is_choose_rows_on_one_row(worker_policy: None) -> None:
    """`LevelAgent`'s model brain and the pool choose with the same code (`choose_rows`):
    one row alone gives the row's choice in a batch of many."""
    batch = cases(60, seed=12, levels=(BotLevel.HARD,))
    together = pool_rows(batch)
    for case, action in zip(batch, together, strict=True):
        assert pool_rows([case]) == [action]
