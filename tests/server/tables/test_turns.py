"""`TurnRunner` on its own: a `Turn` value in, a proposal out through the callback."""

from __future__ import annotations

import asyncio
import time

from wizard.ai.decision import AgentSpec, Decision, DecisionRequest, InlineDecider
from wizard.ai.levels import BotLevel, BotSettings
from wizard.engine import Action, Observation, WizardGame
from wizard.server.clock import ManualClockLoop
from wizard.server.metrics import ServerMetrics
from wizard.server.settings import Settings
from wizard.server.tables.bots import BotGate
from wizard.server.tables.seats import Seat, SeatKind
from wizard.server.tables.services import TableServices
from wizard.server.tables.turns import RETRY_SECONDS, Mover, Turn, TurnRunner, due_turn

from ..unit import run_on_manual_clock

GAME = WizardGame(3, seed=11)


Proposal = tuple[int, int, Action, Mover, float]  # v, seat, action, mover, loop time


class Proposals:
    """The table's side of the seam: records what the runner proposes."""

    def __init__(self, fail_first: int = 0) -> None:
        self.seen: list[Proposal] = []
        self.fail_first = fail_first
        self.arrived = asyncio.Event()

    async def __call__(self, v: int, seat: int, action: Action, mover: Mover) -> bool:
        if self.fail_first:
            self.fail_first -= 1
            raise OSError("the store is briefly unwritable")
        self.seen.append((v, seat, action, mover, asyncio.get_running_loop().time()))
        self.arrived.set()
        return True


def runner(propose: Proposals, decider: InlineDecider | None = None) -> TurnRunner:
    return TurnRunner(table_id="t_test", decider=decider or InlineDecider(),
                      metrics=ServerMetrics(), bot_gate=BotGate(), ai_deadline_seconds=0.5,
                      observe=GAME.observation, propose=propose)


def test_a_bot_turn_proposes_a_legal_action_after_its_think_time() -> None:
    async def scenario(loop: ManualClockLoop) -> tuple[int, list[Proposal]]:
        proposals = Proposals()
        turns = runner(proposals)
        seat = GAME.current_player
        assert seat is not None
        turns.start(Turn(7, seat, Mover.BOT, AgentSpec("heuristic"), think=2.0))
        assert turns.clock is None  # bots have no turn clock
        await loop.settle()  # the turn began: its think time runs
        loop.advance(1.5)
        await loop.settle()
        early = len(proposals.seen)
        loop.advance(0.5)
        await proposals.arrived.wait()
        return early, proposals.seen

    early, seen = run_on_manual_clock(scenario, start=100.0)
    [(v, seat, action, mover, at)] = seen
    assert early == 0
    assert (v, seat, mover, at) == (7, GAME.current_player, Mover.BOT, 102.0)
    assert action in GAME.legal_actions()


def test_a_persons_clock_runs_out_into_the_stand_in_with_the_timeout_reason() -> None:
    async def scenario(loop: ManualClockLoop) -> tuple[tuple[int, float] | None, list[float],
                                                       list[Mover]]:
        proposals = Proposals()
        turns = runner(proposals)
        seat = GAME.current_player
        assert seat is not None
        turns.start(Turn(3, seat, Mover.TIMEOUT, AgentSpec("heuristic"), deadline=160.0))
        clock = turns.clock
        loop.advance(59.0)
        await loop.settle()
        assert not proposals.seen
        loop.advance(1.0)
        await proposals.arrived.wait()
        return clock, [at for *_, at in proposals.seen], [m for *_, m, _ in proposals.seen]

    clock, times, movers = run_on_manual_clock(scenario, start=100.0)
    assert clock == (GAME.current_player, 160.0)
    assert (times, movers) == ([160.0], [Mover.TIMEOUT])
    assert Mover.TIMEOUT.auto_reason == "timeout" and Mover.AWAY.auto_reason == "away"
    assert Mover.BOT.auto_reason is None and Mover.PLAYER.auto_reason is None


def test_a_cancelled_turn_never_proposes_and_a_new_one_replaces_it() -> None:
    async def scenario(loop: ManualClockLoop) -> list[int]:
        proposals = Proposals()
        turns = runner(proposals)
        seat = GAME.current_player
        assert seat is not None
        turns.start(Turn(1, seat, Mover.BOT, AgentSpec("heuristic"), think=0.2))
        turns.start(Turn(2, seat, Mover.BOT, AgentSpec("heuristic"), think=0.0))
        await proposals.arrived.wait()
        turns.cancel()
        loop.advance(5.0)  # the first turn's think time is over: nothing more comes
        await loop.settle()
        return [v for v, *_ in proposals.seen]

    assert run_on_manual_clock(scenario) == [2]


def test_a_turn_whose_proposal_failed_is_tried_again() -> None:
    async def scenario(loop: ManualClockLoop) -> list[tuple[int, float]]:
        proposals = Proposals(fail_first=1)
        turns = runner(proposals)
        seat = GAME.current_player
        assert seat is not None
        turns.start(Turn(5, seat, Mover.BOT, AgentSpec("heuristic")))
        await loop.settle()
        assert proposals.fail_first == 0 and not proposals.seen  # the first try failed
        loop.advance(RETRY_SECONDS)
        await proposals.arrived.wait()
        return [(v, at) for v, *_, at in proposals.seen]

    assert run_on_manual_clock(scenario, start=100.0) == [(5, 100.0 + RETRY_SECONDS)]


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
    run_on_manual_clock(what_is_due, start=100.0)


async def what_is_due(loop: ManualClockLoop) -> None:
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
    assert turn is not None and turn.mover is Mover.TIMEOUT and turn.deadline == 160.0
    assert due_turn(person, 4, 9, services, turn_seconds=0, trick_completed=False) is None
