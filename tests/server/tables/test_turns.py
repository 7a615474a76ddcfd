"""`TurnRunner` on its own: a `Turn` value in, a proposal out through the callback."""

from __future__ import annotations

import asyncio
import time

import pytest

from wizard.ai.decision import AgentSpec, Decision, DecisionRequest, InlineDecider
from wizard.ai.levels import BotLevel, BotSettings
from wizard.engine import Action, Observation, WizardGame
from wizard.server.metrics import ServerMetrics
from wizard.server.settings import Settings
from wizard.server.tables.bots import BotGate
from wizard.server.tables.seats import Seat, SeatKind
from wizard.server.tables.services import TableServices
from wizard.server.tables.turns import Mover, Turn, TurnRunner, due_turn

GAME = WizardGame(3, seed=11)


class Proposals:
    """The table's side of the seam: records what the runner proposes."""

    def __init__(self, fail_first: int = 0) -> None:
        self.seen: list[tuple[int, int, Action, Mover, float]] = []
        self.fail_first = fail_first
        self.arrived = asyncio.Event()

    async def __call__(self, v: int, seat: int, action: Action, mover: Mover) -> bool:
        if self.fail_first:
            self.fail_first -= 1
            raise OSError("the store is briefly unwritable")
        self.seen.append((v, seat, action, mover, time.monotonic()))
        self.arrived.set()
        return True


def runner(propose: Proposals, decider: InlineDecider | None = None) -> TurnRunner:
    return TurnRunner(table_id="t_test", decider=decider or InlineDecider(),
                      metrics=ServerMetrics(), bot_gate=BotGate(), ai_deadline_seconds=0.5,
                      observe=GAME.observation, propose=propose)


def test_a_bot_turn_proposes_a_legal_action_after_its_think_time() -> None:
    async def scenario() -> tuple[list[tuple[int, int, Action, Mover, float]], float]:
        proposals = Proposals()
        turns = runner(proposals)
        started = time.monotonic()
        seat = GAME.current_player
        assert seat is not None
        turns.start(Turn(7, seat, Mover.BOT, AgentSpec("heuristic"), think=0.05))
        assert turns.clock is None  # bots have no turn clock
        await asyncio.wait_for(proposals.arrived.wait(), 5)
        return proposals.seen, started

    seen, started = asyncio.run(scenario())
    [(v, seat, action, mover, at)] = seen
    assert (v, seat, mover) == (7, GAME.current_player, Mover.BOT)
    assert action in GAME.legal_actions()
    assert at - started >= 0.05


def test_a_persons_clock_runs_out_into_the_stand_in_with_the_timeout_reason() -> None:
    async def scenario() -> tuple[tuple[int, float] | None, list[Mover]]:
        proposals = Proposals()
        turns = runner(proposals)
        seat = GAME.current_player
        assert seat is not None
        deadline = time.monotonic() + 0.05
        turns.start(Turn(3, seat, Mover.TIMEOUT, AgentSpec("heuristic"), deadline=deadline))
        clock = turns.clock
        await asyncio.wait_for(proposals.arrived.wait(), 5)
        return clock, [m for *_, m, _ in proposals.seen]

    clock, movers = asyncio.run(scenario())
    assert clock is not None and clock[0] == GAME.current_player
    assert movers == [Mover.TIMEOUT]
    assert Mover.TIMEOUT.auto_reason == "timeout" and Mover.AWAY.auto_reason == "away"
    assert Mover.BOT.auto_reason is None and Mover.PLAYER.auto_reason is None


def test_a_cancelled_turn_never_proposes_and_a_new_one_replaces_it() -> None:
    async def scenario() -> list[int]:
        proposals = Proposals()
        turns = runner(proposals)
        seat = GAME.current_player
        assert seat is not None
        turns.start(Turn(1, seat, Mover.BOT, AgentSpec("heuristic"), think=0.2))
        turns.start(Turn(2, seat, Mover.BOT, AgentSpec("heuristic"), think=0.0))
        await asyncio.wait_for(proposals.arrived.wait(), 5)
        turns.cancel()
        await asyncio.sleep(0.3)  # the first turn's think time is over: nothing more comes
        return [v for v, *_ in proposals.seen]

    assert asyncio.run(scenario()) == [2]


def test_a_turn_whose_proposal_failed_is_tried_again(monkeypatch: pytest.MonkeyPatch) -> None:
    import wizard.server.tables.turns as turns_module
    monkeypatch.setattr(turns_module, "RETRY_SECONDS", 0.01)

    async def scenario() -> list[int]:
        proposals = Proposals(fail_first=1)
        turns = runner(proposals)
        seat = GAME.current_player
        assert seat is not None
        turns.start(Turn(5, seat, Mover.BOT, AgentSpec("heuristic")))
        await asyncio.wait_for(proposals.arrived.wait(), 5)
        return [v for v, *_ in proposals.seen]

    assert asyncio.run(scenario()) == [5]


def test_the_decider_sees_the_observation_of_the_seat_to_move() -> None:
    asked: list[DecisionRequest] = []

    class Recording(InlineDecider):
        async def decide(self, request: DecisionRequest) -> Decision:
            asked.append(request)
            return await super().decide(request)

        def decide_now(self, request: DecisionRequest) -> Decision:  # on the loop: at once
            asked.append(request)
            return super().decide_now(request)

    async def scenario() -> None:
        proposals = Proposals()
        turns = runner(proposals, Recording())
        seat = GAME.current_player
        assert seat is not None
        turns.start(Turn(1, seat, Mover.BOT, AgentSpec("heuristic", None, 4)))
        await asyncio.wait_for(proposals.arrived.wait(), 5)

    asyncio.run(scenario())
    [request] = asked
    observation: Observation = request.observation
    assert observation.player == GAME.current_player and request.spec.move_number == 4
    assert request.deadline > time.monotonic() - 5


def test_what_is_due_depends_on_who_sits_in_the_seat() -> None:
    services = TableServices(Settings(bot_delay=0), InlineDecider(), None,  # type: ignore[arg-type]
                             ServerMetrics())
    bot = Seat(0, SeatKind.BOT, level=BotLevel.HARD,
               bot=BotSettings(BotLevel.HARD, 80, 1))
    turn = due_turn(bot, 4, 9, services, turn_seconds=60, trick_completed=False)
    assert turn is not None and (turn.mover, turn.spec.move_number, turn.deadline) == (
        Mover.BOT, 9, None)
    away = Seat(1, SeatKind.PLAYER, away=True)
    turn = due_turn(away, 4, 9, services, turn_seconds=60, trick_completed=False)
    assert turn is not None and (turn.mover, turn.spec.bot) == (Mover.AWAY, None)
    person = Seat(2, SeatKind.PLAYER)
    turn = due_turn(person, 4, 9, services, turn_seconds=60, trick_completed=False)
    assert turn is not None and turn.mover is Mover.TIMEOUT and turn.deadline is not None
    assert due_turn(person, 4, 9, services, turn_seconds=0, trick_completed=False) is None
