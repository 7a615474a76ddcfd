"""Nothing is lost: a real server killed (-9) or stopped (SIGTERM) mid-game comes back.

Each test starts ``wizard serve`` on a file database, plays a ``play_bots`` game
halfway through the protocol, stops the process, starts a new one on the same
database, reconnects with the token and checks that the observation is exactly
the one before the stop; then the game plays to the end and its stored record
replays in the engine to the same final scores.
"""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import connect

from wizard.engine import GameOptions, WizardGame, action_from_dict

from ..driver import act_message, my_turn
from ..test_e2e_uvicorn import Client, free_port, play_to_end, start_server, stop_server, table_of

TIMEOUT = 20.0


async def open_client(url: str, name: str, token: str | None = None) -> tuple[Any, Client]:
    ws = await connect(url, open_timeout=10, close_timeout=2)
    client = Client(ws, name)
    await client.hello(name, token)
    return ws, client


async def play_until_round(client: Client, table_id: str, round_number: int) -> dict[str, Any]:
    """Act on every turn until it is our turn in ``round_number``; returns that update."""
    while True:
        update = await client.wait_for(lambda m: my_turn(m, table_id), TIMEOUT)
        if update["observation"]["round_number"] >= round_number:
            return update
        await client.send(act_message(update))


async def bot_table(url: str, players: int, level: str) -> tuple[Any, Client, str, str]:
    """Ann at a new ``play_bots`` table: her socket, her client, the table id and invite."""
    ws, ann = await open_client(url, "Ann")
    await ann.ok({"type": "play_bots", "players": players, "level": level})
    invite = next(m for m in ann.messages if m["type"] == "table")["invite"]
    return ws, ann, table_of(ann), invite


def restart_keeps_the_game(tmp_path: Path, stop: signal.Signals) -> None:
    db = str(tmp_path / "wizard.db")
    port = free_port()
    url = f"ws://127.0.0.1:{port}/ws"
    process = start_server(port, tmp_path / "first.log", WIZARD_DB=db)
    try:
        async def first_half() -> tuple[str, str, str, dict[str, Any]]:
            ws, ann, table_id, invite = await bot_table(url, 4, "hard")
            before = await play_until_round(ann, table_id, 6)
            assert ann.token is not None
            await ws.close()
            return ann.token, table_id, invite, before

        token, table_id, invite, before = asyncio.run(asyncio.wait_for(first_half(), 120))
    finally:
        if stop is signal.SIGKILL:
            process.kill()
            process.wait(timeout=10)
        else:
            stop_server(process)  # SIGTERM, bounded
    assert process.returncode is not None

    process = start_server(port, tmp_path / "second.log", WIZARD_DB=db)
    try:
        async def second_half() -> dict[str, Any]:
            ws, ann = await open_client(url, "Ann", token)
            after = await ann.wait_for(
                lambda m: m["type"] == "update" and m["table_id"] == table_id, TIMEOUT)
            assert after["v"] == before["v"]
            assert after["observation"] == before["observation"]
            # the private table keeps its invite: a friend may still watch by its link
            table = next(m for m in ann.messages if m["type"] == "table")
            assert table["invite"] == invite
            watcher_ws, watcher = await open_client(url, "Vic")
            assert (await watcher.request({"type": "spectate", "table_id": table_id})
                    )["code"] == "invite_required"
            await watcher.ok({"type": "spectate", "table_id": table_id, "invite": invite})
            await watcher_ws.close()
            await ann.send(act_message(after))
            last = await play_to_end([ann], table_id)
            await ws.close()
            return last

        last = asyncio.run(asyncio.wait_for(second_half(), 180))
        final_scores = last["observation"]["scores"]

        base = f"http://127.0.0.1:{port}"
        listing = httpx.get(f"{base}/api/games", params={"limit": 5}, timeout=10,  # her bot game
                            headers={"Authorization": f"Bearer {token}"}).json()
        assert listing["games"][0]["scores"] == final_scores
        game_id = listing["games"][0]["id"]
        mine = {"Authorization": f"Bearer {token}"}  # a private game: its player's token
        record = httpx.get(f"{base}/api/games/{game_id}", timeout=10, headers=mine).json()
        game = WizardGame(record["num_players"], GameOptions.from_dict(record["options"]),
                          seed=record["seed"])
        for step in record["actions"]:
            game.apply(step["seat"], action_from_dict(step["action"]))
        assert game.is_finished
        assert game.scores == record["scores"] == final_scores
        replay = httpx.get(f"{base}/api/games/{game_id}/replay", timeout=10,
                           headers=mine).json()
        assert len(replay["rounds"]) == 15 and replay["scores"] == final_scores
    finally:
        stop_server(process)


def test_kill_9_mid_game_loses_no_acknowledged_action(tmp_path: Path) -> None:
    restart_keeps_the_game(tmp_path, signal.SIGKILL)


def test_graceful_restart_mid_game_continues_the_game(tmp_path: Path) -> None:
    restart_keeps_the_game(tmp_path, signal.SIGTERM)


def test_a_finished_table_comes_back_finished_and_ready_for_a_rematch(tmp_path: Path) -> None:
    db = str(tmp_path / "wizard.db")
    port = free_port()
    url = f"ws://127.0.0.1:{port}/ws"
    process = start_server(port, tmp_path / "first.log", WIZARD_DB=db)
    try:
        async def play_one() -> tuple[str, str, str, dict[str, Any]]:
            ws, ann, table_id, invite = await bot_table(url, 3, "easy")
            last = await play_to_end([ann], table_id)
            assert ann.token is not None
            await ws.close()
            return ann.token, table_id, invite, last

        token, table_id, invite, last = asyncio.run(asyncio.wait_for(play_one(), 120))
    finally:
        process.kill()  # a crash right after the game: what it told Ann was committed
        process.wait(timeout=10)

    process = start_server(port, tmp_path / "second.log", WIZARD_DB=db)
    try:
        async def come_back() -> None:
            ws, ann = await open_client(url, "Ann", token)
            update = await ann.wait_for(
                lambda m: m["type"] == "update" and m["table_id"] == table_id, TIMEOUT)
            table = next(m for m in ann.messages if m["type"] == "table")
            assert table["status"] == "finished" and table["invite"] == invite
            assert update["v"] == last["v"]
            assert update["observation"] == last["observation"]  # the final scores, as left
            await ann.ok({"type": "rematch", "table_id": table_id})
            rematch = await ann.wait_for(
                lambda m: m["type"] == "update" and m["table_id"] == table_id
                and m["v"] == last["v"] + 1, TIMEOUT)
            assert rematch["observation"]["round_number"] == 1
            assert next(m for m in reversed(ann.messages)
                        if m["type"] == "table")["game"] == table["game"] + 1
            await ws.close()

        asyncio.run(asyncio.wait_for(come_back(), 60))
    finally:
        stop_server(process)
