"""Replays of finished hands over a real server, on both stores (issue 17, point 7).

A short stacked hand (``replayhelpers``: a chain undo, then C goes out) is played by three
websocket clients; ``GET /api/tables/{code}/hands/1/replay`` then gives every frame of it: the
dealt hands, the chain undo marked, the last frame as the players saw the end. A hand still
being played is refused (409 ``hand_not_over``). Once the table is forgotten by the process
(a sweep), the replay is made again from the store alone (the memory store's record, Redis's
table log) and is the same.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from replayhelpers import POSITION, chain_undo, get_replay, go_out, start_hand
from serverhelpers import LiveServer, run

from server.settings import Settings


@pytest.fixture(params=["memory", "redis"])
def server(request: pytest.FixtureRequest) -> Iterator[LiveServer]:
    extra: dict[str, Any] = {}
    if request.param == "redis":
        extra = {"redis_url": request.getfixturevalue("redis_url"),
                 "redis_prefix": f"replay{uuid.uuid4().hex[:8]}:", "store_timeout": 5.0}
    with LiveServer(Settings(test_deals=True, resume_wait=0, secret="replay-tests",
                             **extra)) as s:
        yield s


async def _forget(server: LiveServer, code: str) -> None:
    """What a sweep does to a finished table: out of the registry, task stopped; and the
    replays built so far forgotten, so the next one comes from the store."""
    async def forget() -> None:
        registry = server.app.state.registry
        table = registry.tables.pop(code)
        await table.stop()
        if registry.keeper is not None:
            await registry.keeper.release_all([table])
        server.app.state.replays = None

    await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(forget(), server.loop))


def test_a_finished_hand_replays_frame_by_frame_from_the_store(server: LiveServer) -> None:
    async def go() -> None:
        a, b, c = await start_hand(server)
        code = a.code or ""
        refused = await get_replay(server, code)
        assert refused.status_code == 409 and refused.json()["code"] == "hand_not_over"
        await chain_undo(a, b)
        refused = await get_replay(server, code)
        assert refused.status_code == 409 and refused.json()["code"] == "hand_not_over"
        await go_out(c, [a, b, c])
        live = await get_replay(server, code)
        assert live.status_code == 200, live.text
        got = live.json()

        assert got["code"] == code and got["hand"] == 1 and got["seats"] == ["A", "B", "C"]
        assert got["dealt"] == POSITION["hands"] and got["stocks_dealt"] == POSITION["stocks"]
        assert got["rules"]["play"] == 30 and got["bots"] == []
        frames = got["frames"]
        assert frames[0]["events"][0]["kind"] == "hand_dealt"
        times = [f["t"] for f in frames]
        assert times == sorted(times) and got["duration"] == times[-1]
        versions = [f["version"] for f in frames]
        assert versions == sorted(set(versions))
        # The chain undo: one frame, marked, with its event whole (B's cards back).
        (i,) = got["undos"]
        undo = [e for e in frames[i]["events"] if e["kind"] == "chain_undo"]
        assert undo[0]["player"] == "B" and undo[0]["cards_back"] == ["8C"]
        assert frames[i]["undos"] == 1 and sorted(frames[i]["hands"]["B"]) == ["3H", "8C"]
        # Every frame shows every hand; the last is the end the players saw.
        assert all(set(f["hands"]) == {"A", "B", "C"} for f in frames)
        last = frames[-1]
        assert last["hands"]["C"] == [] and got["result"]["winner"] == "C"
        seen = a.game["hand"]
        assert last["view"]["table"] == seen["table"] and last["view"]["result"] == seen["result"]
        assert sorted(last["hands"]["A"]) == sorted(a.hand or [])
        assert any(e["kind"] == "went_out" for e in last["events"])

        for bad, code_ in ((2, "no_such_hand"),):
            r = await get_replay(server, code, bad)
            assert r.status_code == 404 and r.json()["code"] == code_
        r = await get_replay(server, "ZZZZZZ")
        assert r.status_code == 404 and r.json()["code"] == "no_such_table"

        for p in (a, b, c):
            await p.close()
        await _forget(server, code)
        stored = await get_replay(server, code)
        assert stored.status_code == 200, stored.text
        assert stored.json() == got

    run(go(), timeout=30)
