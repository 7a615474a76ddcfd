"""What each seat and spectator is sent: their own view, and the events in order."""

from __future__ import annotations

import json
from typing import Any

import msgspec

from wizard.engine import GameOptions, WizardGame
from wizard.protocol import ChatMessage, TableInfo, encode, message_tag
from wizard.server.clock import ManualClockLoop
from wizard.server.tables.audience import Audience
from wizard.server.tables.player import Player
from wizard.server.tables.seats import Seats
from wizard.server.tables.turns import Mover
from wizard.server.tables.views import TableView, clock_view, update_events, update_view

from ..unit import run_on_manual_clock


class Tab:
    """Stands in for a connection: keeps what it is sent, decoded."""

    def __init__(self) -> None:
        self.spectating: set[str] = set()
        self.messages: list[dict[str, Any]] = []

    def send_text(self, text: str, tag: str) -> None:
        self.messages.append(json.loads(text))

    def send(self, message: Any) -> None:
        self.send_text(encode(message), message_tag(message))


def table_of(players: int) -> tuple[Audience, list[Tab], WizardGame]:
    seats = Seats.empty(players)
    tabs = []
    for seat in seats:
        player, tab = Player(f"P{seat.index}"), Tab()
        player.connections.add(tab)  # type: ignore[arg-type]
        seat.sit(player)
        tabs.append(tab)
    return Audience(seats), tabs, WizardGame(players, GameOptions(), seed=3)


def test_each_seat_sees_its_own_hand_and_spectators_none() -> None:
    audience, tabs, game = table_of(3)
    spectator = Tab()
    audience.watch(spectator, "t_1")  # type: ignore[arg-type]
    view = TableView("t_1", audience, lambda: None)
    view.send_update(1, game, update_events(game.start_events(), 0, Mover.PLAYER))
    for seat, tab in enumerate(tabs):
        (update,) = tab.messages
        assert update["observation"] == game.observation(seat).to_dict()
        assert update["events"] == [e.to_dict() for e in game.start_events()]
    (watched,) = spectator.messages
    assert watched["observation"]["hand"] == [] and watched["observation"]["player"] is None
    assert spectator.spectating == {"t_1"}
    assert audience.unwatch(spectator, "t_1") and not audience.unwatch(spectator, "t_1")  # type: ignore[arg-type]
    assert spectator.spectating == set()


def test_a_stand_ins_move_is_announced_first() -> None:
    game = WizardGame(3, seed=1)
    player = game.current_player
    assert player is not None
    events = game.apply(player, game.legal_actions()[0])
    for by, reason in ((Mover.TIMEOUT, "timeout"), (Mover.AWAY, "away")):
        views = update_events(events, player, by)
        announced = json.loads(msgspec.json.encode(views[0]))
        assert announced == {"type": "auto_played", "player": player, "reason": reason}
        assert len(views) == len(events) + 1
    assert len(update_events(events, player, Mover.BOT)) == len(events)


def test_the_clock_counts_down_to_zero_and_bots_have_none() -> None:
    assert clock_view(None) is None
    assert clock_view((1, 100.0), now=lambda: 99.2) is not None
    assert clock_view((1, 100.0), now=lambda: 99.2).deadline_ms == 800  # type: ignore[union-attr]
    assert clock_view((1, 100.0), now=lambda: 120.0).deadline_ms == 0  # type: ignore[union-attr]


def test_a_resend_carries_the_table_the_latest_state_without_events_and_the_chat() -> None:
    run_on_manual_clock(a_resend, start=1000.0)


async def a_resend(loop: ManualClockLoop) -> None:
    audience, tabs, game = table_of(3)
    view = TableView("t_1", audience, lambda: (0, 1060.0))  # 60 s left on the loop's clock
    newcomer = Tab()
    view.resend(newcomer, table_info_stub(), 4, None, None)  # type: ignore[arg-type]
    assert [m["type"] for m in newcomer.messages] == ["table"]  # no game, no chat yet
    view.chat(ChatMessage("t_1", "P0", "gl hf", "p_0"))
    assert [m["type"] for m in tabs[1].messages] == ["chat"]
    newcomer.messages.clear()
    view.resend(newcomer, table_info_stub(), 4, game, 1)  # type: ignore[arg-type]
    table, update, backlog = newcomer.messages
    assert table["type"] == "table"
    assert (update["v"], update["events"], update["observation"]["player"]) == (4, [], 1)
    assert update["clock"] == {"player": 0, "deadline_ms": 60000}
    assert [line["text"] for line in backlog["messages"]] == ["gl hf"]


def table_info_stub() -> TableInfo:
    return TableInfo("t_1", None, [], {}, "waiting", False, 0, 0, 0)


def test_update_view_is_the_state_for_one_seat() -> None:
    game = WizardGame(4, seed=9)
    update = update_view("t_9", 7, game, 3, [], None)
    assert (update.table_id, update.v, update.clock) == ("t_9", 7, None)
    assert len(update.observation.hand) == 1 and update.observation.player == 3

