"""Fair matching in the agora (issue 18): the grouping (``server/matching.py``, pure, the
time passed in) and, through a real uvicorn on the memory store and a real Redis, one player
never taking two seats, a second live agora game refused (``already_playing``), the waiting
time sent, and widening with a clock passed to the agora."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import StoreFactory, run_async
from serverhelpers import LiveServer, Player, register, run
from test_agora import POSITION, AgoraClient, settings_for

from server.matching import (
    ANYONE_AFTER,
    BASE_WINDOW,
    WIDEN_PER_SECOND,
    Waiting,
    choose_group,
    window,
)
from server.settings import Settings
from server.store import AgoraState, HandScore, Store


def w(pid: str, mu: float, since: float = 0.0, last: str | None = None) -> Waiting:
    return Waiting(pid, mu, since, last)


class TestGrouping:
    def test_close_ratings_first_then_the_window_widens_with_waiting(self) -> None:
        # Two pairs far apart: at first nobody may meet across the gap.
        queue = [w("a", 20.0), w("b", 35.0), w("c", 21.0), w("d", 36.0)]
        assert choose_group(queue, now=0.0) is None
        # The windows grow with waiting (2 + 0.5 a second: 11.5 at 19 s, the gap is 14)...
        assert window(ANYONE_AFTER - 1) < 14.0
        assert choose_group(queue, now=ANYONE_AFTER - 1) is None
        # ... and at ANYONE_AFTER seconds anyone meets anyone.
        group = choose_group(queue, now=ANYONE_AFTER)
        assert group is not None and group[0] == "a"  # the first in the queue is served first
        assert group[1] == "c"  # then the closest

    def test_the_closest_three_are_grouped_before_the_first_come(self) -> None:
        queue = [w("a", 40.0), w("b", 25.0), w("c", 25.5), w("d", 24.0)]
        # a is alone at 40: b, c, d meet (b, the oldest who can, first).
        assert choose_group(queue, now=1.0) == ["b", "c", "d"]

    def test_window(self) -> None:
        assert window(0.0) == BASE_WINDOW
        assert window(4.0) == BASE_WINDOW + 4 * WIDEN_PER_SECOND
        assert window(ANYONE_AFTER) == float("inf")

    def test_not_the_same_three_twice_in_a_row_when_others_wait(self) -> None:
        last = "a,b,c"
        queue = [w("a", 25.0, last=last), w("b", 25.0, last=last), w("c", 25.0, last=last),
                 w("d", 25.0)]
        group = choose_group(queue, now=0.0)
        assert group is not None and set(group) != {"a", "b", "c"} and "d" in group
        # Only the three of them wait: they may play again.
        assert sorted(choose_group(queue[:3], now=0.0) or []) == ["a", "b", "c"]

    def test_a_repeat_waits_for_the_window_to_reach_someone_else(self) -> None:
        last = "a,b,c"
        queue = [w("a", 25.0, last=last), w("b", 25.0, last=last), w("c", 25.0, last=last),
                 w("d", 45.0)]
        assert choose_group(queue, now=1.0) is None
        group = choose_group(queue, now=ANYONE_AFTER)
        assert group is not None and "d" in group

    def test_fewer_than_three_wait(self) -> None:
        assert choose_group([w("a", 25.0), w("b", 25.0)], now=100.0) is None


@pytest.fixture(params=["memory", "redis"], scope="module")
def server(request: pytest.FixtureRequest) -> Iterator[LiveServer]:
    url = request.getfixturevalue("redis_url") if request.param == "redis" else None
    with LiveServer(settings_for(request.param, url)) as s:
        yield s


async def drain(*clients: AgoraClient) -> None:
    for c in clients:
        while not c.frames.empty():
            c.frames.get_nowait()


class TestLive:
    def test_one_player_with_several_sockets_takes_one_seat(self, server: LiveServer) -> None:
        """One account logged in three times (three sessions, three agora sockets) and one
        other player: never a group; a third player makes one, with three different players."""
        async def go() -> None:
            me = await Player(server, "Solo").register()
            tokens = [me.token]
            async with me.http() as http:
                for _ in range(2):
                    tokens.append(await register(http, "Solo"))  # the name is taken: logs in
            assert len(set(tokens)) == 3
            mine = [await AgoraClient(me).open(token=tok) for tok in tokens]
            for c in mine:
                await c.send({"type": "join"})
            other = await Player(server, "Other").register()
            oc = await AgoraClient(other).open()
            await oc.send({"type": "join"})
            queued = await oc.next("queued")
            assert (queued["position"], queued["waiting"]) == (2, 2)
            third = await Player(server, "Third").register()
            tc = await AgoraClient(third).open()
            await tc.send({"type": "join"})
            matched = await tc.next("matched")
            assert len(set(matched["players"])) == 3
            table = server.table(matched["code"])
            assert len({s.player_id for s in table.seats}) == 3
            assert [f["code"] for f in [await c.next("matched") for c in mine]] == \
                [matched["code"]] * 3  # every socket of the player hears of it
            for c in [*mine, oc, tc]:
                await c.close()
        run(go())

    def test_a_second_live_agora_game_is_refused(self, server: LiveServer) -> None:
        async def go() -> None:
            players = [await Player(server, n).register() for n in ("Ann", "Ben", "Col")]
            clients = [await AgoraClient(p).open() for p in players]
            for c in clients:
                await c.send({"type": "join"})
            matched = [await c.next("matched") for c in clients]
            code = matched[0]["code"]
            # Ann joins again while her game is live (from another socket too): refused.
            again = await AgoraClient(players[0]).open()
            for c in (clients[0], again):
                await c.send({"type": "join"})
                err = await c.next("error")
                assert err["code"] == "already_playing" and code in err["message"]
            status = await server_waiting(server)
            assert status == 0  # nobody was queued
            await again.close()
            for c in clients:
                await c.close()
        run(go())

    def test_after_the_hand_is_counted_the_player_may_queue_again(self, server: LiveServer
                                                                  ) -> None:
        async def go() -> None:
            players = [await Player(server, n).register() for n in ("Dee", "Eve", "Fay")]
            clients, matched = await queue_stacked(players)  # Dee is A of the stacked deal
            for p in players:
                await p.connect(matched[0]["code"])
            await players[0].ok("add", card="7C", meld=1)  # Dee goes out: the hand ends
            for _ in range(100):
                await clients[0].send({"type": "join"})
                frame = await clients[0].frames.get()
                while frame["type"] not in ("queued", "error"):
                    frame = await asyncio.wait_for(clients[0].frames.get(), 5)
                if frame["type"] == "queued":
                    break
                assert frame["code"] == "already_playing"
                await asyncio.sleep(0.05)  # the hand is being counted
            else:
                raise AssertionError("never allowed to queue again")
            for p in players:
                await p.close()
            for c in clients:
                await c.close()
        run(go())

    def test_the_waiting_time_is_sent(self, server: LiveServer) -> None:
        async def go() -> None:
            p = await Player(server, "Gus").register()
            c = await AgoraClient(p).open()
            await c.send({"type": "join"})
            first = await c.next("queued")
            assert first["waited"] == 0.0
            q = await Player(server, "Hal").register()
            d = await AgoraClient(q).open()
            await asyncio.sleep(0.3)
            await d.send({"type": "join"})
            later = await c.next("queued")  # the queue changed: told again, with the time
            assert (later["waiting"], later["position"]) == (2, 1), later
            assert 0.2 <= later["waited"] < 60, later
            await c.close()
            await d.close()
        run(go())


async def server_waiting(server: LiveServer) -> int:
    import httpx

    async with httpx.AsyncClient(base_url=server.url, trust_env=False, timeout=10) as c:
        r = await c.get("/api/agora")
        return int(r.json()["waiting"])


def test_widening_with_the_agoras_clock() -> None:
    """Three players far apart in rating wait; nothing happens until the agora's clock (passed
    in) says they have waited ``ANYONE_AFTER`` seconds: then the next tick matches them."""
    with LiveServer(Settings(secret="test", resume_wait=0)) as server:
        now = [1000.0]
        agora: Any = server.app.state.agora
        agora.clock = lambda: now[0]

        async def go() -> None:
            players = [await Player(server, n).register() for n in ("Lo", "Mid", "Hi")]
            ids = [await player_id(server, p) for p in players]
            store = server.app.state.store
            # Ratings far apart: Lo lost, Hi won many hands against strangers.
            for i in range(6):
                await store.add_hand_points(f"seed{i}", [
                    HandScore(ids[2], "Hi", 50, "won"), HandScore(f"x{i}", "X", 0, "lost"),
                    HandScore(ids[0], "Lo", -15, "left")], 1.0)
            clients = [await AgoraClient(p).open() for p in players]
            for c in clients:
                await c.send({"type": "join"})
                await c.next("queued")
            await asyncio.sleep(1.2)  # a tick: still too far apart
            assert all(f["type"] != "matched" for c in clients for f in list(c.frames._queue))  # type: ignore[attr-defined]
            now[0] += ANYONE_AFTER
            matched = [await c.next("matched", timeout=5) for c in clients]
            assert len({m["code"] for m in matched}) == 1
            for c in clients:
                await c.close()
        run(go())


def test_a_matched_player_who_never_comes_has_left_and_is_last() -> None:
    """13.5: a matched player who opens no socket within ``agora_no_show`` seconds of the deal
    has left the hand (−15): the other two play on, and the rating counts the no-show last."""
    settings = settings_for("memory", None).model_copy(update={"agora_no_show": 1.0})
    with LiveServer(settings) as server:
        async def go() -> None:
            players = [await Player(server, n).register() for n in ("Ida", "Jo", "Kit")]
            clients, matched = await queue_stacked(players)  # Ida is A of the stacked deal
            code = matched[0]["code"]
            for p in players[:2]:  # Kit never opens the table
                await p.connect(code)
            table = server.table(code)
            for _ in range(100):
                if table.game is not None and table.game.hand is not None and table.game.hand.players["Kit"].status == "left":
                    break
                await asyncio.sleep(0.05)
            else:
                raise AssertionError("the no-show never left the hand")
            assert table.game.hand.players["Jo"].status == "active"  # the others play on
            await players[0].ok("add", card="7C", meld=1)  # Ida goes out: the hand ends
            ids = [await player_id(server, p) for p in players]
            for _ in range(100):
                async with players[2].http() as c:
                    hands = (await c.get(f"/api/players/{ids[2]}/history")).json()["hands"]
                if hands:
                    break
                await asyncio.sleep(0.05)
            assert (hands[0]["points"], hands[0]["result"]) == (-15, "left")
            async with players[0].http() as c:
                rows = (await c.get("/api/ranking")).json()["ranking"]
            order = [r["player_id"] for r in rows]
            assert order.index(ids[0]) < order.index(ids[1]) < order.index(ids[2])
            for p in players[:2]:
                await p.close()
            for c in clients:
                await c.close()
        run(go())


async def queue_stacked(players: list[Player]) -> tuple[list[AgoraClient], list[dict[str, Any]]]:
    """The three ``players`` queue in order, the first with the stacked ``POSITION`` (so she is
    its A): their agora clients and the ``matched`` frame each received."""
    clients = [await AgoraClient(p).open() for p in players]
    for i, c in enumerate(clients):
        await c.send({"type": "join", "position": POSITION} if i == 0 else {"type": "join"})
        if i < 2:
            await c.next("queued")  # in this order: the first queued is the first seat
    return clients, [await c.next("matched") for c in clients]


async def player_id(server: LiveServer, p: Player) -> str:
    async with p.http() as c:
        r = await c.get("/api/players/me/history")
        return str(r.json()["player_id"])


class TestStoreQueue:
    """The store's side of the matching, on both stores: a group is taken at once or not at
    all, the waiting start is kept on joining again, and the taken are marked as seating."""

    def test_take_exactly_these_or_nobody(self, new_store: StoreFactory) -> None:
        async def body(store: Store) -> None:
            for i, p in enumerate("abcd"):
                assert await store.queue_join(p, p.upper(), since=100.0 + i)
            assert not await store.queue_join("a", "A2", since=999.0)  # the start is kept
            assert [(e.player_id, e.since) for e in await store.queue_members()] == [
                ("a", 100.0), ("b", 101.0), ("c", 102.0), ("d", 103.0)]
            assert await store.queue_take(["d", "b", "z"]) is None  # z is not queued
            assert len(await store.queue_members()) == 4  # nobody was taken
            taken = await store.queue_take(["d", "b", "a"])
            assert [(e.player_id, e.name, e.since) for e in taken or []] == [
                ("d", "D", 103.0), ("b", "B", 101.0), ("a", "A2", 100.0)]
            assert [e.player_id for e in await store.queue_members()] == ["c"]
            state = await store.agora_state(["a", "b", "c", "d"])
            assert [state[p].live for p in "abcd"] == ["*", "*", None, "*"]
            await store.agora_seated(["d", "b", "a"], "TBL123", {"a": '{"type": "matched"}'})
            state = await store.agora_state(["a", "d"])
            assert state["a"].live == "TBL123" and state["a"].last == "a,b,d"
            assert state["a"].matched == '{"type": "matched"}' and state["d"].matched is None
            await store.agora_seated(["a"], None)
            assert (await store.agora_state(["a"]))["a"] == AgoraState(None, "a,b,d", None)
            # Counting the hand of TBL123 ends the live game, matched message and all.
            await store.agora_seated(["c"], "TBL123", {"c": "text\nwith a newline"})
            assert (await store.agora_state(["c"]))["c"].matched == "text\nwith a newline"
            await store.add_hand_points("h", [HandScore("c", "C", 0, "lost"),
                                              HandScore("d", "D", 9, "won")], 1.0, code="TBL123")
            state = await store.agora_state(["c", "d"])
            assert state["c"].live is None and state["c"].matched is None and state["d"].live is None
        run_async(_with(new_store, body))


async def _with(new_store: StoreFactory, body: Any) -> None:
    async with new_store() as store:
        await body(store)


def test_across_two_processes_one_seat_and_no_second_game(redis_url: str) -> None:
    """Two server processes (two apps) on one Redis: one account's sessions queued on both
    take one seat; once matched, joining again on the other process is refused."""
    settings = settings_for("redis", redis_url)
    with LiveServer(settings) as one, LiveServer(settings) as two:
        async def go() -> None:
            me = await Player(one, "Twin").register()
            async with me.http() as http:
                other_token = await register(http, "Twin")  # a second session, same account
            here = await AgoraClient(me).open()
            there = await AgoraClient(Player(two, "Twin")).open(token=other_token)
            for c in (here, there):
                await c.send({"type": "join"})
                await c.next("queued")
            mates = [await Player(two, n).register() for n in ("Uma", "Vic")]
            mc = [await AgoraClient(p).open() for p in mates]
            for c in mc:
                await c.send({"type": "join"})
            matched = [await c.next("matched", timeout=8) for c in mc]
            assert len(set(matched[0]["players"])) == 3
            for c in (here, there):  # both of Twin's sockets hear of it, on either process
                assert (await c.next("matched", timeout=8))["code"] == matched[0]["code"]
            await there.send({"type": "join"})
            assert (await there.next("error"))["code"] == "already_playing"
            await here.send({"type": "join"})
            assert (await here.next("error"))["code"] == "already_playing"
            for c in (here, there, *mc):
                await c.close()
        run(go())
