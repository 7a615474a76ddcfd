"""The bot gate: bot moves pass a few per event-loop turn, in order, and leave room for I/O."""

from __future__ import annotations

import asyncio

from wizard.server.tables.bots import BotGate


def test_the_gate_lets_at_most_per_turn_moves_through_each_loop_turn() -> None:
    async def run() -> list[list[int]]:
        gate = BotGate(per_turn=2)
        passed: list[int] = []

        async def bot(n: int) -> None:
            await gate.wait()
            passed.append(n)

        tasks = [asyncio.create_task(bot(n)) for n in range(5)]
        seen = []
        for _ in range(8):  # one snapshot per loop turn
            await asyncio.sleep(0)
            seen.append(list(passed))
        await asyncio.gather(*tasks)
        return seen

    seen = asyncio.run(run())
    growth = [len(b) - len(a) for a, b in zip([[], *seen], seen, strict=False)]
    assert max(growth) <= 2  # never more than per_turn in one turn
    assert sum(1 for g in growth if g) >= 3  # so five moves took at least three turns
    assert seen[-1] == [0, 1, 2, 3, 4]  # everyone passes, first come first served


def test_a_cancelled_waiter_gives_its_place_up() -> None:
    async def run() -> list[int]:
        gate = BotGate(per_turn=1)
        passed: list[int] = []

        async def bot(n: int) -> None:
            await gate.wait()
            passed.append(n)

        tasks = [asyncio.create_task(bot(n)) for n in range(4)]
        await asyncio.sleep(0)  # the first passed at once, the other three wait
        assert passed == [0]
        tasks[1].cancel()
        await asyncio.gather(*tasks[2:])
        return passed

    assert asyncio.run(run()) == [0, 2, 3]


def test_the_first_moves_of_a_turn_pass_without_waiting_for_the_loop() -> None:
    async def run() -> tuple[list[str], list[str]]:
        gate = BotGate(per_turn=2)
        order: list[str] = []

        async def other() -> None:
            order.append("other")

        async def moves() -> list[str]:
            asyncio.get_running_loop().create_task(other())
            for n in range(3):
                await gate.wait()
                order.append(f"move {n}")
            return order

        return await moves(), order

    order, _ = asyncio.run(run())
    # two moves in this iteration; the third waits for the next one, after other work
    assert order == ["move 0", "move 1", "other", "move 2"]


def follow(gate: BotGate) -> bool:
    """A move that follows one that passed: it goes now if the share has room."""
    if not gate.has_share:
        return False
    gate.take()
    return True


def test_moves_that_follow_one_pass_only_within_the_turns_share_and_use_it_up() -> None:
    async def run() -> tuple[list[bool], list[bool]]:
        gate = BotGate(per_turn=3)
        await gate.wait()  # a bot move passes ...
        follows = [follow(gate) for _ in range(3)]  # ... and two more may follow it now
        waiting = asyncio.create_task(gate.wait())
        await asyncio.sleep(0)  # the next loop turn: a new share, first for who waited
        await waiting
        return follows, [follow(gate) for _ in range(3)]

    follows, next_turn = asyncio.run(run())
    assert follows == [True, True, False]
    assert next_turn == [True, True, False]  # the waiting move took one of the new three
