"""`Deadlines`: every watched request is answered by its due time, earliest first."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any

from wizard.ai.pool.deadlines import Deadlines


@dataclass(eq=False)
class Item:
    name: str
    future: asyncio.Future[Any] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future())


def test_each_unanswered_item_is_due_in_order_and_answered_ones_are_skipped() -> None:
    async def main() -> tuple[list[str], int]:
        fired: list[str] = []
        deadlines: Deadlines[Item] = Deadlines(lambda item: fired.append(item.name))
        now = time.monotonic()
        items = {name: Item(name) for name in "abcd"}
        for name, delay in (("a", 0.06), ("b", 0.02), ("c", 0.04), ("d", 0.03)):
            deadlines.watch(items[name], now + delay)
        items["d"].future.set_result("answered")  # answered before its due time
        await asyncio.sleep(0.1)
        return fired, len(deadlines)

    fired, left = asyncio.run(main())
    assert fired == ["b", "c", "a"]
    assert left == 0


def test_the_heap_of_answered_items_is_swept_as_it_grows() -> None:
    async def main() -> int:
        deadlines: Deadlines[Item] = Deadlines(lambda item: None)
        due = time.monotonic() + 60
        for n in range(1000):
            item = Item(str(n))
            deadlines.watch(item, due)
            item.future.set_result(None)  # answered at once, as most requests are
        size = len(deadlines)
        deadlines.close()
        return size

    assert asyncio.run(main()) <= 4 * 64 + 1
