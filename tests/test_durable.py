"""Issue 13, in process on a real redis-server: a table rebuilt from its Redis log is the live
table, event for event (random deals played by bots over websockets), and a take-over by
another server resumes the game at the owner's last confirmed time: ownerless time is not
game time (docs/rules.md 14.2, R23)."""

from __future__ import annotations

import asyncio
import secrets
import uuid
from typing import Any

import pytest
from serverhelpers import LiveServer, Player, run, seated

from bots.brain import Brain
from bots.client import BotPlayer, websocket_connector
from server.durable import restore
from server.frames import view_for
from server.journal import stored_event
from server.settings import Settings
from server.tables import Table

TIMERS = {"play": 1.5, "hold": 1.0, "inactivity": 3.0, "absence": 2.0, "freeze": 1.5,
          "tiebreak": 2.0, "pause": 0.5}


def settings(redis_url: str, prefix: str, **extra: Any) -> Settings:
    return Settings(secret="durable-test", test_deals=True, resume_wait=0, redis_url=redis_url,
                    redis_prefix=prefix, lease_seconds=1.0, commands_per_second=200,
                    store_timeout=5.0, **extra)  # a loaded machine must not read as Redis down


async def compare_rebuilt(server: LiveServer, code: str) -> int:
    """Load the table from Redis, rebuild it and compare it with the live one: every batch of
    events and every seat's snapshot. The version compared."""
    async def look() -> tuple[list[list[dict[str, Any]]], list[list[dict[str, Any]]],
                              dict[str | None, Any], dict[str | None, Any], int] | None:
        registry = server.app.state.registry
        live: Table = registry.get(code)
        record = await server.app.state.store.table_load(code)
        if live.events.head != record.entries[-1][0] or live._unsaved:
            return None  # the live table moved on meanwhile: look again
        rebuilt = restore(record, live.settings, None, None)
        head = live.events.head

        def batches(t: Table) -> list[list[dict[str, Any]]]:
            return [[stored_event(h, e) for h, e in b] for b in (t.events.since(0) or [])]

        def views(t: Table) -> dict[str | None, Any]:
            return {seat: view_for(t.game, seat)
                    for seat in [*(s.name for s in t.seats), None]}

        return batches(live), batches(rebuilt), views(live), views(rebuilt), head

    for _ in range(50):
        got = await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(look(), server.loop))
        if got is not None:
            live_b, rebuilt_b, live_v, rebuilt_v, head = got
            assert len(live_b) == head and rebuilt_b == live_b
            assert rebuilt_v == live_v
            return head
        await asyncio.sleep(0.05)
    raise AssertionError("the live table never held still")


@pytest.mark.parametrize("game", range(2))
def test_a_table_rebuilt_from_its_log_is_the_live_table_event_for_event(
        redis_url: str, game: int) -> None:
    seed = secrets.randbits(40)  # a random deal each run, named in any failure
    with LiveServer(settings(redis_url, f"dur{uuid.uuid4().hex[:8]}:")) as server:
        async def go() -> None:
            players = [await Player(server, n).login() for n in ("Ada", "Bea", "Cy")]
            code = await players[0].create("long", seed=seed, timers=TIMERS)
            for p in players[1:]:
                await p.join(code)
            bots = [BotPlayer(Brain("shark" if i == game % 3 else "casual", step_time=0.1,
                                    start_grace=1.0), reaction=0.05, name=p.name, seed=seed + i,
                              max_seconds=2.5)
                    for i, p in enumerate(players)]
            await asyncio.gather(*(b.run(websocket_connector(server.url, code, p.token or ""))
                                   for b, p in zip(bots, players)))
            assert sum(b.report.commands for b in bots) >= 10
            head = await compare_rebuilt(server, code)
            assert head > 10, f"seed {seed}: only {head} versions"
        run(go(), timeout=40)


def test_a_take_over_resumes_at_the_owners_last_time(redis_url: str) -> None:
    """Server A owns a table where Ada holds a card (hold clock 1 s); A stops renewing and
    writing (as if it died). Three seconds later B takes the table over: the hold is still
    there, and the game's time is A's last one, not three seconds on."""
    prefix = f"own{uuid.uuid4().hex[:8]}:"
    position = {"table": [["4C", "5C", "6C", "7C"]], "hands": {"A": ["9D"], "B": ["3H"],
                "C": ["2S"]}, "stocks": {"A": ["KH"], "B": ["KS"], "C": ["QS"]},
                "drew": ["A", "B", "C"]}
    with LiveServer(settings(redis_url, prefix)) as a_server, \
            LiveServer(settings(redis_url, prefix)) as b_server:
        async def go() -> None:
            a, b, c = await seated(a_server, ["A", "B", "C"], position=position,
                                   timers={"hold": 1.0})
            code = a.code or ""
            await a.ok("stage", card="9D")  # declared: now a card of the table may be held
            await a.ok("take", card="7C", meld=1)

            async def die() -> float:
                registry = a_server.app.state.registry
                registry.keeper._task.cancel()  # no renewal any more
                table = registry.get(code)
                now = float(table._now())
                await table.stop()  # no write any more (no release: a crash)
                return now

            died_at = await asyncio.wrap_future(
                asyncio.run_coroutine_threadsafe(die(), a_server.loop))
            for p in (a, b, c):
                await p.close()
            await asyncio.sleep(3.0)  # the lease (1 s) and the hold (1 s) run out in wall time
            a2 = Player(b_server, "A")
            a2.token = a.token
            await a2.connect(code)
            snap = await a2.next(lambda f: f["type"] == "snapshot", timeout=10)
            now, deadline, held = await b_server.atable_call(code, lambda t: (
                t._now(), t.game.next_deadline() if t.game else None,
                list(t.game.hand.holds) if t.game else []))
            assert held, "the hold ran out while nobody owned the table"
            assert deadline is not None and deadline > now
            assert died_at - 1.5 <= now <= died_at + 1.0, (died_at, now)
            assert snap["game"] is not None
            await a2.close()
        run(go(), timeout=40)


def test_the_sweeper_takes_over_an_unowned_table_with_bot_seats(redis_url: str) -> None:
    """Server A, owner of a table with two bot seats, stops renewing and writing (as if it
    died). With nobody to reconnect, B's sweeper takes the table over and runs its bots."""
    prefix = f"adopt{uuid.uuid4().hex[:8]}:"
    with LiveServer(settings(redis_url, prefix)) as a_server, \
            LiveServer(settings(redis_url, prefix)) as b_server:
        async def go() -> None:
            ada = await Player(a_server, "Ada").login()
            async with ada.http() as c:
                r = await c.post("/api/tables", json={"mode": "long", "seed": 5,
                                                      "bots": {"count": 2, "reaction": 0.05}})
                assert r.status_code == 200, r.text
                code = r.json()["code"]

            async def die() -> None:
                registry = a_server.app.state.registry
                registry.keeper._task.cancel()
                registry._adopter.cancel()
                await a_server.app.state.bots.close()
                await registry.get(code).stop()

            await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(die(), a_server.loop))
            await asyncio.sleep(1.3)  # the lease runs out
            b_registry = b_server.app.state.registry
            await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(
                b_registry.adopt_orphans(), b_server.loop))
            assert code in b_registry.tables, "the sweeper left the table unowned"
            bots = b_server.app.state.bots
            assert sorted(k for k in bots.players if k.startswith(code)) == [
                f"{code}/Casual bot", f"{code}/Casual bot 2"]
        run(go(), timeout=30)


def test_the_lease_scripts_fence_an_old_owner_and_let_one_owner_in(redis_url: str) -> None:
    """The scripts on a real Redis: an append or renewal under an old epoch is refused and
    writes nothing; a held lease cannot be taken; an expired one can, raising the epoch."""
    from redis.asyncio import Redis

    from server.store import Fenced
    from server.store.redis_store import RedisStore

    prefix = f"fence{uuid.uuid4().hex[:8]}:"

    async def go() -> None:
        store = RedisStore.from_url(redis_url, prefix=prefix)
        raw = Redis.from_url(redis_url, decode_responses=True)
        try:
            meta = {"log_id": "QQQQQQ-1", "seats": []}
            e1 = await store.table_create("QQQQQQ", "old", meta, ttl=0.3)
            assert e1 == 1
            assert await store.table_create("QQQQQQ", "other", meta, ttl=5) == 0  # code taken
            assert await store.table_acquire("QQQQQQ", "new", 5) == 0  # held by "old"
            await store.table_append("QQQQQQ", e1, "QQQQQQ-1", None, 1.0, [(1, [], [])])
            await asyncio.sleep(0.4)  # "old" paused past its lease
            e2 = await store.table_acquire("QQQQQQ", "new", 5)
            assert e2 == e1 + 1
            with pytest.raises(Fenced):
                await store.table_append("QQQQQQ", e1, "QQQQQQ-1", None, 2.0,
                                         [(2, [], [{"t": 2.0}])])
            assert await store.table_renew("old", 5, [("QQQQQQ", e1, 2.0)]) == [0]
            await store.table_append("QQQQQQ", e2, "QQQQQQ-1", None, 1.5, [(2, [], [])])
            entries = await raw.xrange(f"{prefix}log:QQQQQQ-1")
            assert [(sid, f["o"]) for sid, f in entries] == [("1-1", "1"), ("2-1", "2")]
            record = await store.table_load("QQQQQQ")
            assert record is not None and record.epoch == e2 and record.owner == "new"
            assert record.game_time == 1.5
        finally:
            await raw.aclose()
            await store.close()
    run(go(), timeout=20)


def test_the_shared_queue_pops_disjoint_groups_and_drops_stale_entries(redis_url: str) -> None:
    """Two processes' stores on one Redis pop at once: two groups, nobody twice, nobody lost;
    a player whose liveness was not renewed is dropped before any pop."""
    from server.store.redis_store import RedisStore

    prefix = f"queue{uuid.uuid4().hex[:8]}:"

    async def go() -> None:
        one = RedisStore.from_url(redis_url, prefix=prefix)
        two = RedisStore.from_url(redis_url, prefix=prefix)
        try:
            for i in range(7):
                await one.queue_join(f"p{i}", f"P{i}", alive=0.2 if i == 3 else 10)
            await asyncio.sleep(0.3)  # p3's process stopped renewing it
            await one.queue_touch(["p0", "p1"], alive=10)
            groups = await asyncio.gather(one.queue_pop(3), two.queue_pop(3))
            ids = [e.player_id for g in groups for e in (g or [])]
            assert sorted(ids) == ["p0", "p1", "p2", "p4", "p5", "p6"] and len(set(ids)) == 6
            assert await one.queue_members() == [] and await two.queue_pop(3) is None
        finally:
            await one.close()
            await two.close()
    run(go(), timeout=20)
