"""Issue 35, item 4: a finished classic hand replays turn by turn with every hand shown
(``GET /api/tables/{code}/hands/{n}/replay``, ``server.replay``), on a real uvicorn with real
websocket clients: frames in order, whose turn it was, each hand and the one stock as they
stood, and the result, the same from the table in memory and from the store's record."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from serverhelpers import LiveServer, run, seated

from server.settings import Settings

#: Two seats: Ada lays a run and ends her turn, Bo draws, Ada adds the last card and goes out.
POSITION: dict[str, Any] = {
    "players": ["A", "B"],
    "hands": {"A": ["7H", "8H", "9H", "10H"], "B": ["KC", "QD", "2C"]},
    "stock": ["2S", "3S", "4S"],
}


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    with LiveServer(Settings(test_deals=True, resume_wait=0.2, secret="classic-replay")) as s:
        yield s


def test_a_finished_classic_hand_replays_turn_by_turn_with_every_hand(server: LiveServer) -> None:
    async def go() -> None:
        a, b = await seated(server, ["Ada", "Bo"], variant="classic_italian", players=2,
                            position=POSITION)
        code = a.code
        async with a.http() as c:
            r = await c.get(f"/api/tables/{code}/hands/1/replay")
            assert (r.status_code, r.json()["code"]) == (409, "hand_not_over")
        await a.ok("lay", cards=["7H", "8H", "9H"])
        await a.ok("end")
        await b.ok("draw")
        await a.ok("add", card="10H", meld=1)
        ended = await a.ok("end")
        await b.at_version(ended["version"])
        async with httpx.AsyncClient(base_url=server.url, trust_env=False, timeout=10) as c:
            r = await c.get(f"/api/tables/{code}/hands/1/replay")
            assert r.status_code == 200, r.text
            replay = r.json()
            assert (await c.get(f"/api/tables/{code}/hands/2/replay")).status_code == 404
        assert replay["variant"] == "classic_italian" and replay["seats"] == ["Ada", "Bo"]
        assert replay["dealt"] == {"Ada": ["7H", "8H", "9H", "10H"], "Bo": ["KC", "QD", "2C"]}
        assert replay["stock_dealt"] == ["2S", "3S", "4S"]
        frames = replay["frames"]
        versions = [f["version"] for f in frames]
        assert versions == sorted(versions) and len(set(versions)) == len(versions)
        assert [f["t"] for f in frames] == sorted(f["t"] for f in frames) and frames[0]["t"] == 0
        first, last = frames[0], frames[-1]
        assert first["view"]["turn"] == "Ada" and first["view"]["table"] == []
        assert first["hands"] == replay["dealt"] and first["stock"] == ["2S", "3S", "4S"]
        # Whose turn it was, frame by frame: Ada, then Bo, then Ada again, then nobody.
        turns = [f["view"]["turn"] for f in frames]
        changes = [x for i, x in enumerate(turns) if i == 0 or x != turns[i - 1]]
        assert changes == ["Ada", "Bo", "Ada", None], turns
        # Bo's draw: the stock's top card went to his hand, seen in the frame of the draw.
        drew = next(f for f in frames if any(e["kind"] == "drew" for e in f["events"]))
        assert drew["hands"]["Bo"] == ["KC", "QD", "2C", "2S"] and drew["stock"] == ["3S", "4S"]
        assert next(e for e in drew["events"] if e["kind"] == "drew")["card"] == "2S"
        assert last["hands"] == {"Ada": [], "Bo": ["KC", "QD", "2C", "2S"]}
        assert [m["cards"] for m in last["view"]["table"]] == [["7H", "8H", "9H", "10H"]]
        assert last["view"]["result"]["winner"] == "Ada" == replay["result"]["winner"]
        assert replay["duration"] == last["t"]
        assert {p["name"]: p["status"] for p in last["view"]["players"]} == {
            "Ada": "active", "Bo": "active"}
        # The page of the replay is served for a classic hand too.
        async with httpx.AsyncClient(base_url=server.url, trust_env=False, timeout=10) as c:
            assert (await c.get(f"/replay/{code}/1")).status_code == 200
    run(go())
