"""Private stays private, on a real server: a private table opens with its invite only,
and no list, history page or replay gives its id away.

Ann plays a private bot game to the end and opens a private waiting table; Eve, who
has no invite, watches the lobby, tries the table by its id and reads history: the
game's id alone opens nothing, the link Ann shares (id + invite) opens the game. Nothing
Eve can read names either table.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import httpx
from websockets.asyncio.client import connect

from ..serve import running_server
from .test_e2e_uvicorn import Client, play_to_end, table_of

TABLE_ID = re.compile(r"\bt_[A-Za-z0-9_-]{12}\b")


def test_no_list_history_page_or_replay_gives_a_private_table_away(tmp_path: Path) -> None:
    with running_server(tmp_path / "server.log") as base:
        ws_url = base.replace("http", "ws") + "/ws"

        async def scenario() -> tuple[str, str, str, str, list[str]]:
            async with connect(ws_url) as ann_ws, connect(ws_url) as eve_ws:
                ann, eve = Client(ann_ws, "Ann"), Client(eve_ws, "Eve")
                await ann.hello("Ann")
                await eve.hello("Eve")
                await eve.ok({"type": "list_tables"})
                await ann.ok({"type": "play_bots", "players": 3, "level": "easy",
                              "turn_seconds": 0})
                played = table_of(ann)
                await play_to_end([ann], played)
                await ann.ok({"type": "create_table", "players": 4, "private": True})
                waiting = table_of(ann)
                refused = await eve.request({"type": "spectate", "table_id": waiting})
                assert refused["code"] == "invite_required"
                await eve.ok({"type": "ping"})
                seen = [str(m) for m in eve.messages]
                assert ann.token is not None
                return played, waiting, ann.token, ann.player_id or "", seen

        played, waiting, token, ann_id, eve_saw = asyncio.run(
            asyncio.wait_for(scenario(), 90))
        lobby = httpx.get(f"{base}/api/tables", timeout=10).text
        strangers = httpx.get(f"{base}/api/games", timeout=10).json()
        assert strangers["games"] == []  # not listed for someone who did not play
        mine = httpx.get(f"{base}/api/games", timeout=10,
                         headers={"Authorization": f"Bearer {token}"}).json()["games"]
        assert len(mine) == 1 and mine[0]["players"][0]["player_id"] == ann_id
        # the game's id alone opens nothing; Ann shares her game's link (id + invite) with
        # Eve: the game opens, the table does not leak
        game_url = f"{base}/api/games/{mine[0]['id']}"
        assert httpx.get(game_url, timeout=10).status_code == 403
        link = {"invite": mine[0]["invite"]}
        record = httpx.get(game_url, params=link, timeout=10)
        replay = httpx.get(f"{game_url}/replay", params=link, timeout=10)
        assert record.status_code == replay.status_code == 200
        assert record.json()["scores"] == mine[0]["scores"]
        readable = [lobby, str(strangers), str(mine), record.text, replay.text, *eve_saw]
        for text in readable:
            assert played not in text and waiting not in text
            assert not TABLE_ID.search(text), TABLE_ID.search(text)
