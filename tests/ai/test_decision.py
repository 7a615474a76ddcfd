"""The inline decider: legal, reproducible decisions that say which agent decided."""

from __future__ import annotations

import asyncio
import random

from wizard.ai.decision import AgentSpec, DecisionRequest, InlineDecider
from wizard.ai.levels import BotLevel, BotSettings
from wizard.engine import WizardGame


def test_inline_decider_plays_a_whole_game_legally() -> None:
    async def play() -> list[str]:
        decider = InlineDecider()
        await decider.start()
        game = WizardGame(4, seed=8)
        agents = []
        move = 0
        while not game.is_finished:
            player = game.current_player
            assert player is not None
            obs = game.observation(player)
            bot = BotSettings(BotLevel.EASY, 5, seed=player)
            decision = await decider.decide(
                DecisionRequest(obs, AgentSpec("heuristic", bot, move)))
            assert decision.action in obs.legal_actions
            assert decision.reason is None
            agents.append(decision.agent)
            game.apply(player, decision.action)
            move += 1
        await decider.close()
        return agents

    agents = asyncio.run(play())
    # an easy bot (strength 5: ~31 % random moves) mixes random moves into the heuristic
    share = agents.count("random") / len(agents)
    assert 0.2 < share < 0.45
    assert set(agents) == {"random", "heuristic"}


def test_the_same_bot_seed_and_move_number_give_the_same_decision() -> None:
    game = WizardGame(4, seed=2)
    obs = game.observation(game.current_player)
    decider = InlineDecider()

    def decide(seed: int, move: int) -> object:
        bot = BotSettings(BotLevel.EASY, 5, seed=seed)
        request = DecisionRequest(obs, AgentSpec("heuristic", bot, move))
        return asyncio.run(decider.decide(request)).action

    rng = random.Random(0)
    for _ in range(20):
        seed, move = rng.getrandbits(32), rng.randrange(100)
        assert decide(seed, move) == decide(seed, move)
