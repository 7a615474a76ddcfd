"""Game analysis on the server: ``analyse`` → progress → ``analysis``, stored, bounded;
``GET /api/games/{id}/analysis``."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from wizard.ai.agents.heuristic import HeuristicAgent
from wizard.ai.analysis import JUDGE_VERSION
from wizard.engine import WizardGame, action_index
from wizard.server.analysis.jobs import AnalysisSettings
from wizard.server.storage.records import StoredSeat, TableSettings

from ..conftest import Harness, WsClient

Message = dict[str, Any]


def store_game(harness: Harness, game_id: str, players: dict[int, WsClient], *,
               private: bool, num_players: int = 6, seed: int = 7, finish: bool = True,
               invite: str | None = None, watchers: tuple[WsClient, ...] = ()) -> None:
    """A game of heuristic moves written to the server's store as a table would write it."""
    seats = []
    for seat in range(num_players):
        if seat in players:
            seats.append(StoredSeat("player", player_id=players[seat].player_id,
                                    name=players[seat].label))
        else:
            seats.append(StoredSeat("bot", level="easy", name="Easy bot",
                                    bot={"level": "easy", "strength": 10, "seed": seat}))
    game = WizardGame(num_players, seed=seed)
    agent = HeuristicAgent()
    store = harness.server.store
    table_id = f"t_{game_id}"

    async def write() -> None:
        if invite is not None:
            await store.table_invite(table_id, invite)
        for watcher in watchers:
            assert watcher.player_id is not None
            store.watching(table_id, watcher.player_id)
        await store.game_started(table_id, game_id, options=game.options, seed=seed,
                                 seats=seats, table_info=TableSettings(num_players, private))
        seq = 0
        while not game.is_finished:
            seat = game.current_player
            assert seat is not None
            action = agent.act(game.observation(seat))
            seq += 1
            await store.append(table_id, seq, [(seat, action_index(action))])
            game.apply(seat, action)
        if finish:
            await store.game_finished(table_id, game.scores, game.winners())

    harness.client.portal.call(write)  # type: ignore[union-attr]


def small(harness: Harness, **changes: Any) -> None:
    """Two worlds a decision: the same path, quick enough for a test."""
    analysis = harness.server.analysis
    analysis.settings = AnalysisSettings(**{"worlds": 2, **changes})


def analysis_of(client: WsClient, game_id: str, timeout: float = 60) -> Message:
    return client.wait_for(lambda m: m["type"] == "analysis" and m["game_id"] == game_id,
                           timeout)


def test_a_player_analyses_their_seat_of_a_private_game_and_a_second_look_is_instant(
        harness: Harness) -> None:
    small(harness)
    ann, bob = harness.player("Ann"), harness.player("Bob")
    store_game(harness, "g_priv", {0: ann, 3: bob}, private=True)
    assert harness.client.get("/api/games/g_priv/analysis").status_code == 403
    ann.ok({"type": "analyse", "game_id": "g_priv"})
    result = analysis_of(ann, "g_priv")
    progress = [m for m in ann.messages if m["type"] == "analysis_progress"]
    assert progress and progress[0]["total"] == 10 + 55  # 10 bids, 1+…+10 cards of seat 0
    assert {m["state"] for m in progress} <= {"queued", "running", "waiting"}
    assert [s["seat"] for s in result["seats"]] == [0]  # only Ann's own seat
    seat = result["seats"][0]
    assert seat["name"] == "Ann" and len(seat["rounds"]) == 10
    assert sum(len(r["cards"]) for r in seat["rounds"]) == 55
    assert result["thresholds"] == {"mistake": 5.0, "blunder": 15.0} and result["worlds"] == 2
    # the second look comes from the store: the analysis arrives before the ack, no progress
    before = len(ann.messages)
    ann.ok({"type": "analyse", "game_id": "g_priv"})
    again = ann.messages[before:]
    assert [m["type"] for m in again] == ["analysis", "ack"]
    assert again[0]["seats"] == result["seats"]
    # Bob gets his own seat (a job for seat 3 only); over HTTP each needs their token
    bob.ok({"type": "analyse", "game_id": "g_priv"})
    assert [s["seat"] for s in analysis_of(bob, "g_priv")["seats"]] == [3]
    http = harness.client.get("/api/games/g_priv/analysis",
                              headers={"Authorization": f"Bearer {ann.token}"})
    assert http.status_code == 200 and http.json()["status"] == "done"
    assert [s["seat"] for s in http.json()["seats"]] == [0]


def test_every_seat_of_a_public_game_and_http_says_when_it_is_not_analysed(
        harness: Harness) -> None:
    small(harness)
    ann, cat = harness.player("Ann"), harness.player("Cat")
    store_game(harness, "g_pub", {0: ann}, private=False, num_players=3, seed=2)
    missing = harness.client.get("/api/games/g_pub/analysis")
    assert missing.status_code == 404 and missing.json()["error"] == "not_analysed"
    cat.ok({"type": "analyse", "game_id": "g_pub"})  # Cat did not play: a public game is open
    result = analysis_of(cat, "g_pub")
    assert [s["seat"] for s in result["seats"]] == [0, 1, 2]
    http = harness.client.get("/api/games/g_pub/analysis").json()
    assert http["status"] == "done" and http["seats"] == result["seats"]
    stored = harness.client.portal.call(  # type: ignore[union-attr]
        harness.server.analysis.results.store.db.read,
        lambda c: c.execute("SELECT COUNT(*) FROM analyses WHERE game_id = 'g_pub'").fetchone())
    assert stored == (3,)


def test_a_seat_judged_by_an_earlier_master_is_analysed_again_when_asked(
        harness: Harness) -> None:
    small(harness)
    ann = harness.player("Ann")
    store_game(harness, "g_old", {0: ann}, private=False, num_players=3, seed=5)
    ann.ok({"type": "analyse", "game_id": "g_old"})
    first = analysis_of(ann, "g_old")
    assert [s["judge"] for s in first["seats"]] == [JUDGE_VERSION] * 3
    service, db = harness.server.analysis, harness.server.analysis.results.store.db

    async def judged_before() -> None:  # as the reports stored before the judge's version
        rows = await db.read(lambda c: c.execute(
            "SELECT seat, report FROM analyses WHERE game_id = 'g_old'").fetchall())
        updates = []
        for seat, report in rows:
            old = {k: v for k, v in json.loads(report).items() if k != "judge"}
            if seat == 1:
                old["summary"] = {**old["summary"], "play_loss": -1.0}  # a mark to look for
            updates.append(("UPDATE analyses SET report = ? WHERE game_id = 'g_old' AND seat = ?",
                            (json.dumps(old), seat)))
        await db.write(*updates)
        service.results._cache.clear()

    harness.client.portal.call(judged_before)  # type: ignore[union-attr]
    # over HTTP it is what is stored, the earlier judge's report as it is
    http = harness.client.get("/api/games/g_old/analysis").json()
    assert http["status"] == "done" and "judge" not in http["seats"][1]
    assert http["seats"][1]["summary"]["play_loss"] == -1.0
    # asked for again, it is analysed again: progress, then today's judge's report, stored
    before = len(ann.messages)
    ann.ok({"type": "analyse", "game_id": "g_old"})
    again = analysis_of(ann, "g_old")
    assert any(m["type"] == "analysis_progress" for m in ann.messages[before:])
    assert [s["judge"] for s in again["seats"]] == [JUDGE_VERSION] * 3
    assert again["seats"] == first["seats"]  # the same judge, the same worlds: the same values
    http = harness.client.get("/api/games/g_old/analysis").json()
    assert http["seats"] == first["seats"]


def test_refusals_have_clear_codes_and_change_nothing(harness: Harness) -> None:
    small(harness)
    ann, bob = harness.player("Ann"), harness.player("Bob")
    store_game(harness, "g_mine", {0: ann}, private=True, num_players=3)
    store_game(harness, "g_open", {0: ann}, private=True, num_players=3, finish=False)

    def code(client: WsClient, message: Message) -> str:
        reply = client.request(message)
        assert reply["type"] == "error", reply
        return str(reply["code"])

    assert code(ann, {"type": "analyse", "game_id": "g_nope"}) == "no_such_game"
    assert code(ann, {"type": "analyse", "game_id": "g_open"}) == "not_finished"
    assert code(bob, {"type": "analyse", "game_id": "g_mine"}) == "invite_required"
    assert code(ann, {"type": "analyse"}) == "bad_message"
    assert code(ann, {"type": "analyse", "game_id": ""}) == "bad_message"
    assert harness.server.analysis.jobs == {}
    assert harness.client.get("/api/games/g_nope/analysis").status_code == 404
    assert harness.client.get("/api/games/g_open/analysis").json()["error"] == "not_finished"


class BlockedRunner:
    """Slices that wait until released: jobs stay queued/running as long as a test needs."""

    workers = 1

    def __init__(self) -> None:
        self.release: asyncio.Event | None = None
        self.calls = 0

    async def run(self, args: tuple[Any, ...]) -> tuple[int, int, list[dict[str, Any]]]:
        self.calls += 1
        if self.release is None:
            self.release = asyncio.Event()
        await self.release.wait()
        raise RuntimeError("released: this slice fails")

    def live_busy(self) -> bool:
        return True

    async def close(self) -> None:
        return None


def test_the_queue_bound_and_the_per_player_limit_refuse_more_jobs(
        make_harness: Callable[..., Harness]) -> None:
    harness = make_harness()
    runner = BlockedRunner()
    harness.server.analysis.runner = runner
    small(harness, max_queue=1, per_player=1)
    ann, bob, cat = (harness.player(n) for n in ("Ann", "Bob", "Cat"))
    for name in ("g1", "g2", "g3"):
        store_game(harness, name, {0: ann, 1: bob, 2: cat}, private=name != "g2",
                   num_players=3)
    ann.ok({"type": "analyse", "game_id": "g1"})  # runs (one slot)
    ann.wait_for(lambda m: m["type"] == "analysis_progress" and m["state"] == "running")
    limited = ann.request({"type": "analyse", "game_id": "g2"})
    assert limited["type"] == "error" and limited["code"] == "analysis_limit"
    bob.ok({"type": "analyse", "game_id": "g2"})  # waits for the slot: the queue is full now
    queued = bob.wait_for(lambda m: m["type"] == "analysis_progress")
    assert queued["state"] == "queued" and queued["position"] == 1
    busy = cat.request({"type": "analyse", "game_id": "g3"})
    assert busy["type"] == "error" and busy["code"] == "analysis_busy"
    # a request for a job already queued joins it instead of starting one (g2 is public)
    cat.ok({"type": "analyse", "game_id": "g2"})
    assert cat.wait_for(lambda m: m["type"] == "analysis_progress")["position"] == 1
    assert len(harness.server.analysis.jobs) == 2
    # the running slice fails: Ann is told, the slot frees up and Bob's job starts
    assert runner.release is not None
    harness.client.portal.call(_set, runner.release)  # type: ignore[union-attr]
    failed = ann.wait_for(lambda m: m["type"] == "analysis_progress" and m["state"] == "failed")
    assert failed["reason"]
    bob.wait_for(lambda m: m["type"] == "analysis_progress" and m["state"] in ("running",
                                                                            "failed"))


async def _set(event: asyncio.Event) -> None:
    event.set()


@pytest.mark.parametrize("variable, value", [("WIZARD_ANALYSIS_QUEUE", "many"),
                                             ("WIZARD_ANALYSIS_WORLDS", "0")])
def test_bad_analysis_settings_are_refused(variable: str, value: str) -> None:
    with pytest.raises(ValueError):
        AnalysisSettings.from_env({variable: value})


def test_wizard_analyse_reads_a_stored_game_from_the_database(
        make_harness: Callable[..., Harness], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    from wizard.__main__ import main

    db = str(tmp_path / "w.db")
    harness = make_harness(db_path=db)
    ann = harness.player("Ann")
    store_game(harness, "g_cli", {1: ann}, private=True, num_players=3, seed=4)
    store_game(harness, "g_unfinished", {1: ann}, private=True, num_players=3, finish=False)
    harness.client.portal.call(harness.server.store.flush)  # type: ignore[union-attr]
    assert main(["analyse", "g_cli", "--db", db, "--json", "--worlds", "1", "--seats", "1",
                 "--quiet"]) == 0
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])  # after any log lines
    assert report["game_id"] == "g_cli"
    assert [(s["seat"], s["name"]) for s in report["seats"]] == [(1, "Ann")]
    assert len(report["seats"][0]["rounds"]) == 20
    assert main(["analyse", "g_unfinished", "--db", db, "--quiet"]) == 2
    assert "no finished game" in capsys.readouterr().err
    assert main(["analyse", "g_cli", "--db", db, "--seats", "5", "--quiet"]) == 2
    assert "no seat 5" in capsys.readouterr().err


def test_a_private_games_spectators_and_link_holders_may_analyse_every_seat(
        harness: Harness) -> None:
    ann, eve, bob = harness.player("Ann"), harness.player("Eve"), harness.player("Bob")
    store_game(harness, "g_watched", {0: ann}, private=True, num_players=3,
               invite="the-invite", watchers=(eve,))
    path = "/api/games/g_watched/analysis"

    def status(params: dict[str, str] | None = None, who: WsClient | None = None) -> int:
        token = who.token if who else None
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        response = harness.client.get(path, params=params or {}, headers=headers)
        if response.status_code == 403:
            assert response.json()["error"] == "invite_required"
        return response.status_code

    assert status() == 403 and status(who=bob) == 403
    assert status({"invite": "not-the-invite"}) == 403
    # allowed, and nothing stored yet
    assert status({"invite": "the-invite"}) == status(who=eve) == status(who=ann) == 404
    service = harness.server.analysis
    stored = harness.client.portal.call(harness.server.store.game, "g_watched")  # type: ignore[union-attr]
    assert stored is not None
    assert service.visible_seats(stored, ann.player_id) == [0]  # a player: their seats
    assert service.visible_seats(stored, eve.player_id) == [0, 1, 2]  # a spectator: all
    assert service.visible_seats(stored, bob.player_id, "the-invite") == [0, 1, 2]
    assert service.visible_seats(stored, bob.player_id) == []
