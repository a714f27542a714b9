"""Issue 16: a classic table's clocks and durability on a real uvicorn (and a real Redis).

A player who closes the socket on their turn leaves the hand by the absence clock (C31, a short
``absence`` timer) and the others play on; the pause between hands ends when everyone is ready
or when it runs out (``pause`` timer); a classic table is rebuilt from its Redis log by another
server process (the joker's chosen face, ``as``, and the dedup cache included) and played on.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from serverhelpers import LiveServer, Player, run, seated, updates_with

from server import seating
from server.settings import Settings

THREE: dict[str, Any] = {
    "players": ["A", "B", "C"],
    "table": [["3H", "4H", "5H", "6H"], ["5C", "JK=6C", "7C"]],
    "hands": {"A": ["6C", "KC", "9D"], "B": ["4D", "2C"], "C": ["8S", "QD"]},
    "stock": ["9H", "2H", "3S", "4S"],
}
#: A goes out with one lay (C22): the hand ends at once.
OUT: dict[str, Any] = {
    "players": ["A", "B"],
    "hands": {"A": ["7H", "8H", "9H"], "B": ["KC", "QD"]},
    "stock": ["2S", "3S"],
}


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    with LiveServer(Settings(test_deals=True, resume_wait=0.2, secret="classic-clocks")) as s:
        yield s


def test_a_player_who_closes_the_tab_on_their_turn_stalls_nobody(server: LiveServer) -> None:
    async def go() -> None:
        a, b, c = await seated(server, ["A", "B", "C"], variant="classic", players=3,
                               position=THREE, timers={"absence": 0.6})
        assert a.game is not None and a.game["turn"]["player"] == "A"
        await a.ok("free", card="6C", meld=2)  # a change on the table, then A is gone
        await a.close()
        away = await b.next(updates_with("disconnected"), timeout=5)
        assert [e["player"] for e in away["events"] if e["kind"] == "disconnected"] == ["A"]
        left = await b.next(updates_with("absent_left"), timeout=5)
        game = left["game"]
        assert game["turn"]["player"] == "B", "A's turn did not end by the absence clock"
        assert {m["id"]: m["cards"] for m in game["table"]} == {
            1: ["3H", "4H", "5H", "6H"], 2: ["5C", "JK=6C", "7C"]}  # A's turn undone (C31)
        a_seat = next(p for p in game["players"] if p["name"] == "A")
        assert not a_seat["in_hand"] and not a_seat["connected"]
        await b.ok("draw")
        await c.ok("draw")
        after = await b.next(updates_with("turn_started"), timeout=5)
        assert after["game"]["turn"]["player"] == "B", "the turn went to the seat that left"
    run(go())


def test_the_pause_ends_when_all_are_ready_or_when_it_runs_out(server: LiveServer) -> None:
    async def go() -> None:
        a, b = await seated(server, ["A", "B"], "long", variant="classic", players=2,
                            position=OUT)
        await a.ok("lay", cards=["7H", "8H", "9H"])
        out = await a.ok("end")
        await b.at_version(out["version"])
        assert b.game is not None
        assert b.game["result"]["winner"] == "A" and b.game["match"]["over"] is False
        pause_until = b.game["match"]["pause_until"]
        assert pause_until == pytest.approx(b.game["t"] + 60.0)  # C31: 60 s by default
        async with a.http() as http:
            summary = (await http.get(f"/api/tables/{a.code}")).json()
        assert summary["phase"] == "pause"
        refused = await a.command("draw")
        assert refused["type"] == "refused"
        await a.ok("ready")
        ready = await b.next(updates_with("ready"))
        assert not any(e["kind"] == "hand_started" for e in ready["events"])
        await b.ok("ready")
        dealt = await a.next(updates_with("hand_started"))
        started = next(e for e in dealt["events"] if e["kind"] == "hand_started")
        assert started["hand"] == 2 and dealt["game"]["match"]["hand"] == 2
        assert len(dealt["game"]["hand"]) == 13  # dealt from the seed, C21

        # The same pause with a short timer and nobody ready: the next hand comes by itself.
        c, d = await seated(server, ["C", "D"], "long", variant="classic", players=2,
                            position=OUT, timers={"pause": 0.5})
        await c.ok("lay", cards=["7H", "8H", "9H"])
        await c.ok("end")
        dealt = await d.next(updates_with("hand_started"), timeout=5)
        assert dealt["game"]["match"]["hand"] == 2
    run(go())


def redis_settings(redis_url: str, prefix: str) -> Settings:
    return Settings(secret="classic-durable", test_deals=True, resume_wait=0,
                    redis_url=redis_url, redis_prefix=prefix, lease_seconds=1.0,
                    store_timeout=5.0)


def test_a_classic_table_is_rebuilt_from_its_redis_log_by_another_process(
        redis_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Server one owns the table and crashes; server two rebuilds it when A and B come back.
    C never does: the grace after the take-over tells the match C is away, and C's turn
    ends by the absence clock (C31) instead of waiting for C forever."""
    prefix = f"cls{uuid.uuid4().hex[:8]}:"
    with LiveServer(redis_settings(redis_url, prefix)) as one, \
            LiveServer(redis_settings(redis_url, prefix)) as two:
        async def go() -> None:
            a, b, c = await seated(one, ["A", "B", "C"], variant="classic", players=3,
                                   position=THREE, timers={"absence": 0.5})
            monkeypatch.setattr(seating, "CONNECT_GRACE", 0.3)  # after the deal's grace
            code = a.code or ""
            await a.ok("free", card="6C", meld=2)
            # Not C8's default face (2H): a journal without "as" would rebuild another table.
            await a.ok("move", card="JK", meld="loose", to=1, **{"as": "7H"})
            await a.ok("end")
            drew = await b.command("draw", id="b-draw")
            assert drew["type"] == "ack"
            await a.at_version(drew["version"])
            before = a.game
            assert before is not None
            assert before["table"][0]["cards"] == ["3H", "4H", "5H", "6H", "JK=7H"]

            async def die() -> None:  # the owner stops renewing and writing: a crash
                registry = one.app.state.registry
                registry.keeper._task.cancel()
                await registry.get(code).stop()

            await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(die(), one.loop))
            for p in (a, b, c):
                await p.close()
            await asyncio.sleep(1.5)  # the lease (1 s) runs out
            moved = []
            for p in (a, b):
                q = Player(two, p.name)
                q.token, q.seat = p.token, p.seat
                await q.connect(code, last_version=p.version)
                moved.append(q)
            a2, b2 = moved
            snap = await a2.next(lambda f: f["type"] == "snapshot", timeout=10)
            game = snap["game"]
            assert snap["table"]["variant"] == "classic" and snap["table"]["size"] == 3
            assert game["table"] == before["table"]  # the joker kept the face it was given
            assert game["hand"] == before["hand"] and game["turn"]["player"] == "C"
            again = await b2.command("draw", id="b-draw")  # its ack was journalled
            assert again == drew
            left = await a2.next(updates_with("absent_left"), timeout=5)
            assert [e["player"] for e in left["events"] if e["kind"] == "absent_left"] == ["C"]
            assert left["game"]["turn"]["player"] == "A"
            await a2.ok("draw")
        run(go(), timeout=40)
