"""The storage contract (``server.store.base``), run the same against the memory store and a
real ``redis-server`` (the ``new_store`` fixture in ``conftest.py`` runs each test twice)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from conftest import StoreFactory, run_async

from server.settings import Settings
from server.store import (
    FinishedGame,
    HandScore,
    MemoryStore,
    QueueEntry,
    Store,
    StoreConflict,
    make_store,
)


def ev(kind: str, seq: int, **data: Any) -> dict[str, Any]:
    return {"seq": seq, "t": seq / 10, "kind": kind, "player": data.pop("player", None),
            "hand": 1, **data}


def hand(store_points: dict[str, int], winner: str | None = None) -> list[HandScore]:
    """Scores for players named by their ids (``name`` = id upper-cased)."""
    return [HandScore(p, p.upper(), pts, "won" if p == winner else "lost")
            for p, pts in store_points.items()]


def go(new_store: StoreFactory, body: Any) -> None:
    async def main() -> None:
        async with new_store() as store:
            await body(store)
    run_async(main())


class TestEventLog:
    def test_batches_come_back_in_order_after_a_version(self, new_store: StoreFactory) -> None:
        async def body(store: Store) -> None:
            await store.append("T1", 1, [ev("hand_dealt", 1, totals={"A": 0})])
            await store.append_batches("T1", [(2, [ev("drew", 2, player="A", card="KH")]),
                                              (3, [ev("staged", 3), ev("laid", 4, cards=["4C"])])])
            everything = await store.read_after("T1")
            assert [b.version for b in everything] == [1, 2, 3]
            assert everything[1].events == [ev("drew", 2, player="A", card="KH")]
            assert [b.version for b in await store.read_after("T1", 1)] == [2, 3]
            assert [b.version for b in await store.read_after("T1", 2, limit=1)] == [3]
            assert await store.read_after("T1", 3) == []
            assert await store.log_head("T1") == 3
        go(new_store, body)

    def test_an_unknown_log_is_empty(self, new_store: StoreFactory) -> None:
        async def body(store: Store) -> None:
            assert await store.read_after("nope") == []
            assert await store.log_head("nope") == 0
        go(new_store, body)

    def test_events_keep_their_json_shape(self, new_store: StoreFactory) -> None:
        async def body(store: Store) -> None:
            events = [ev("chain_undo", 7, player="Zoë", cause_player="Ada", cards_back=["8C"],
                         nested={"a": [1, None, 2.5, True]}, note=None)]
            await store.append("T", 5, events)
            (batch,) = await store.read_after("T", 0)
            assert batch.version == 5 and batch.events == events
        go(new_store, body)

    def test_versions_must_rise(self, new_store: StoreFactory) -> None:
        async def body(store: Store) -> None:
            await store.append("T", 1, [ev("a", 1)])
            await store.append("T", 4, [ev("b", 2)])  # gaps are allowed
            for bad in (4, 3):
                with pytest.raises(StoreConflict):
                    await store.append("T", bad, [ev("c", 3)])
            assert [b.version for b in await store.read_after("T")] == [1, 4]
            with pytest.raises(StoreConflict):
                await store.append_batches("U", [(2, []), (2, [])])
        go(new_store, body)

    def test_hundreds_of_tables_append_at_once(self, new_store: StoreFactory) -> None:
        """Every table's task awaits its own append: 300 at once must all land (the Redis
        store waits for a pooled connection instead of failing)."""
        async def body(store: Store) -> None:
            await asyncio.gather(*(store.append(f"T{i}", 1, [ev("a", 1)]) for i in range(300)))
            heads = await asyncio.gather(*(store.log_head(f"T{i}") for i in range(300)))
            assert heads == [1] * 300
        go(new_store, body)

    def test_logs_are_separate(self, new_store: StoreFactory) -> None:
        async def body(store: Store) -> None:
            await store.append("A", 1, [ev("a", 1)])
            await store.append("B", 1, [ev("b", 1)])
            assert (await store.read_after("A"))[0].events[0]["kind"] == "a"
            assert (await store.read_after("B"))[0].events[0]["kind"] == "b"
        go(new_store, body)


def finished(log_id: str, at: float, **kw: Any) -> FinishedGame:
    base: dict[str, Any] = {
        "log_id": log_id, "code": log_id[:6], "mode": "single", "players": ["A", "B", "C"],
        "player_ids": ["a", "b", "c"], "scores": {"A": 55, "B": 0, "C": -15}, "winner": "A",
        "end": "out", "head": 40, "finished_at": at, "agora": True}
    base.update(kw)
    return FinishedGame(**base)


class TestFinishedGames:
    def test_listed_newest_first_with_their_records(self, new_store: StoreFactory) -> None:
        async def body(store: Store) -> None:
            await store.finish_game(finished("OLD", 100.0))
            await store.finish_game(finished("NEW", 300.0, winner=None, end="draw"))
            await store.finish_game(finished("MID", 200.0))
            assert [r.log_id for r in await store.finished()] == ["NEW", "MID", "OLD"]
            assert [r.log_id for r in await store.finished(limit=2)] == ["NEW", "MID"]
            assert await store.finished_game("NEW") == finished("NEW", 300.0, winner=None,
                                                                 end="draw")
            assert await store.finished_game("NONE") is None
        go(new_store, body)

    def test_finishing_again_replaces(self, new_store: StoreFactory) -> None:
        async def body(store: Store) -> None:
            await store.finish_game(finished("G", 1.0))
            await store.finish_game(finished("G", 2.0, head=41))
            (rec,) = await store.finished()
            assert rec.head == 41 and rec.finished_at == 2.0
        go(new_store, body)


class TestRanking:
    """R22: each agora hand's points are added to a public ranking."""

    def test_points_add_up_and_order_the_ranking(self, new_store: StoreFactory) -> None:
        async def body(store: Store) -> None:
            assert await store.add_hand_points("h1", hand({"a": 55, "b": 0, "c": -15}, "a"), 10.0)
            assert await store.add_hand_points("h2", hand({"a": -15, "b": 60, "d": 0}, "b"), 20.0)
            top = await store.top()
            assert [(e.rank, e.player_id, e.points, e.hands) for e in top] == [
                (1, "b", 60, 2), (2, "a", 40, 2), (3, "d", 0, 1), (4, "c", -15, 1)]
            assert top[0].name == "B"
            assert await store.ranked_players() == 4
        go(new_store, body)

    def test_a_hand_counts_once(self, new_store: StoreFactory) -> None:
        async def body(store: Store) -> None:
            assert await store.add_hand_points("h1", hand({"a": 55, "b": 0, "c": 0}, "a"), 1.0)
            assert not await store.add_hand_points("h1", hand({"a": 55, "b": 0, "c": 0}, "a"), 1.0)
            entry = await store.rank_of("a")
            assert entry is not None and entry.points == 55 and entry.hands == 1
            assert len(await store.history("a")) == 1
        go(new_store, body)

    def test_ties_share_a_rank_on_every_page(self, new_store: StoreFactory) -> None:
        async def body(store: Store) -> None:
            await store.add_hand_points("h1", hand({"a": 10, "b": 10, "c": 5}), 1.0)
            await store.add_hand_points("h2", hand({"d": 10, "e": 3, "f": 3}), 2.0)
            top = await store.top()
            # Ties are listed by player id, descending (Redis ZREVRANGE order).
            assert [(e.rank, e.player_id) for e in top] == [
                (1, "d"), (1, "b"), (1, "a"), (4, "c"), (5, "f"), (5, "e")]
            page = await store.top(n=2, offset=2)
            assert [(e.rank, e.player_id) for e in page] == [(1, "a"), (4, "c")]
            page = await store.top(n=5, offset=5)
            assert [(e.rank, e.player_id) for e in page] == [(5, "e")]
            assert await store.top(n=3, offset=6) == []
            assert await store.top(n=0) == []
            ranks = {p: (await store.rank_of(p)) for p in "abcdef"}
            assert {p: r.rank for p, r in ranks.items() if r} == {
                "a": 1, "b": 1, "d": 1, "c": 4, "e": 5, "f": 5}
        go(new_store, body)

    def test_a_player_without_counted_hands_has_no_rank(self, new_store: StoreFactory) -> None:
        async def body(store: Store) -> None:
            assert await store.rank_of("ghost") is None
            assert await store.top() == []
            assert await store.ranked_players() == 0
        go(new_store, body)

    def test_the_last_name_used_is_shown(self, new_store: StoreFactory) -> None:
        async def body(store: Store) -> None:
            await store.add_hand_points("h1", [HandScore("p", "Ada", 5, "won")], 1.0)
            await store.add_hand_points("h2", [HandScore("p", "Ada L.", 5, "won")], 2.0)
            entry = await store.rank_of("p")
            assert entry is not None and entry.name == "Ada L." and entry.points == 10
        go(new_store, body)


class TestHistory:
    def test_a_players_hands_newest_first(self, new_store: StoreFactory) -> None:
        async def body(store: Store) -> None:
            await store.add_hand_points("h1", hand({"a": 55, "b": 0, "c": -15}, "a"), 100.0,
                                        code="AAAAAA")
            await store.add_hand_points("h2", hand({"a": 0, "b": 60, "c": 0}, "b"), 200.0,
                                        code="BBBBBB")
            hist = await store.history("a")
            assert [(h.hand_id, h.at, h.points, h.result, h.code) for h in hist] == [
                ("h2", 200.0, 0, "lost", "BBBBBB"), ("h1", 100.0, 55, "won", "AAAAAA")]
            assert hist[0].players == ["A", "B", "C"]
            assert [h.hand_id for h in await store.history("a", limit=1)] == ["h2"]
            assert await store.history("nobody") == []
        go(new_store, body)

    def test_old_hands_are_dropped_past_the_limit(self, new_store: StoreFactory) -> None:
        async def body(store: Store) -> None:
            store._history_max = 3  # type: ignore[attr-defined]  # both stores read it
            for i in range(5):
                await store.add_hand_points(f"h{i}", [HandScore("a", "A", 1, "won")], float(i))
            assert [h.hand_id for h in await store.history("a")] == ["h4", "h3", "h2"]
            entry = await store.rank_of("a")
            assert entry is not None and entry.points == 5 and entry.hands == 5
        go(new_store, body)


class TestQueue:
    """Agora matchmaking: FIFO, idempotent join, groups of three taken at once."""

    def test_groups_of_three_first_come_first(self, new_store: StoreFactory) -> None:
        async def body(store: Store) -> None:
            for p in "abcde":
                assert await store.queue_join(p, p.upper())
            assert await store.queue_pop(3) == [QueueEntry("a", "A"), QueueEntry("b", "B"),
                                                QueueEntry("c", "C")]
            assert await store.queue_pop(3) is None  # two wait: nobody is taken
            assert await store.queue_members() == [QueueEntry("d", "D"), QueueEntry("e", "E")]
        go(new_store, body)

    def test_joining_twice_keeps_the_place(self, new_store: StoreFactory) -> None:
        async def body(store: Store) -> None:
            await store.queue_join("a", "Ada")
            await store.queue_join("b", "Bea")
            assert not await store.queue_join("a", "Ada L.")
            assert await store.queue_members() == [QueueEntry("a", "Ada L."), QueueEntry("b", "Bea")]
            assert await store.queue_position("a") == 1
            assert await store.queue_position("b") == 2
            assert await store.queue_position("z") is None
        go(new_store, body)

    def test_leaving_and_coming_back_goes_to_the_end(self, new_store: StoreFactory) -> None:
        async def body(store: Store) -> None:
            for p in "abc":
                await store.queue_join(p, p)
            assert await store.queue_leave("a")
            assert not await store.queue_leave("a")
            assert await store.queue_pop(3) is None
            await store.queue_join("a", "a")
            assert [e.player_id for e in await store.queue_pop(3) or []] == ["b", "c", "a"]
            assert await store.queue_members() == []
        go(new_store, body)

    def test_clear_empties_the_queue(self, new_store: StoreFactory) -> None:
        async def body(store: Store) -> None:
            for p in "abcd":
                await store.queue_join(p, p)
            await store.queue_clear()
            assert await store.queue_members() == []
            assert await store.queue_join("a", "a")
            assert await store.queue_position("a") == 1
        go(new_store, body)

    def test_concurrent_pops_never_share_a_player(self, new_store: StoreFactory) -> None:
        async def body(store: Store) -> None:
            await asyncio.gather(*(store.queue_join(f"p{i:02}", f"P{i}") for i in range(10)))
            groups = await asyncio.gather(*(store.queue_pop(3) for _ in range(6)))
            taken = [g for g in groups if g is not None]
            assert len(taken) == 3
            ids = [e.player_id for g in taken for e in g]
            assert len(set(ids)) == 9
            assert len(await store.queue_members()) == 1
        go(new_store, body)


class TestTables:
    def test_records_are_kept_replaced_and_forgotten(self, new_store: StoreFactory) -> None:
        async def body(store: Store) -> None:
            assert await store.get_table("K7QX2M") is None
            await store.put_table("K7QX2M", {"mode": "single", "seats": ["A"]})
            await store.put_table("K7QX2M", {"mode": "single", "seats": ["A", "B"]})
            assert await store.get_table("K7QX2M") == {"mode": "single", "seats": ["A", "B"]}
            await store.delete_table("K7QX2M")
            await store.delete_table("K7QX2M")
            assert await store.get_table("K7QX2M") is None
            assert await store.ping()
        go(new_store, body)


async def _wipe(store: Any) -> None:
    keys = [k async for k in store.r.scan_iter(match=store.prefix + "*")]
    if keys:
        await store.r.delete(*keys)


def test_redis_keeps_everything_for_the_next_client(redis_url: str) -> None:
    """A new process (here: a new client) on the same Redis finds the ranking and the logs."""
    from server.store.redis_store import RedisStore

    async def main() -> None:
        first = RedisStore.from_url(redis_url, prefix="persist:")
        await _wipe(first)
        await first.append("G1", 1, [ev("hand_dealt", 1)])
        await first.add_hand_points("G1", hand({"a": 55, "b": 0, "c": -15}, "a"), 5.0)
        await first.finish_game(finished("G1", 5.0))
        await first.close()
        second = RedisStore.from_url(redis_url, prefix="persist:")
        try:
            assert [e.player_id for e in await second.top()] == ["a", "b", "c"]
            assert [b.version for b in await second.read_after("G1")] == [1]
            assert [r.log_id for r in await second.finished()] == ["G1"]
        finally:
            await _wipe(second)
            await second.close()
    run_async(main())


def test_make_store_picks_redis_when_a_url_is_set(monkeypatch: pytest.MonkeyPatch) -> None:
    from server.store.redis_store import RedisStore

    monkeypatch.delenv("MACHIAVELOX_REDIS_URL", raising=False)
    assert isinstance(make_store(Settings(secret="x")), MemoryStore)
    monkeypatch.setenv("MACHIAVELOX_REDIS_URL", "redis://127.0.0.1:1/0")
    store = make_store(Settings(secret="x"))
    assert isinstance(store, RedisStore)  # connects lazily: nothing is listening there
    run_async(store.close())


class TestRetention:
    def test_the_memory_store_keeps_at_most_max_logs(self) -> None:
        async def main() -> None:
            store = MemoryStore(max_logs=2)
            for log in ("A", "B", "C"):
                await store.append(log, 1, [ev("a", 1)])
            await store.finish_game(finished("C", 1.0))
            assert await store.read_after("A") == []  # the oldest went
            assert [b.version for b in await store.read_after("C")] == [1]
            await store.append("D", 1, [ev("a", 1)])
            await store.append("E", 1, [ev("a", 1)])
            assert await store.finished_game("C") is None  # gone with its log
        run_async(main())

    def test_the_memory_store_keeps_at_most_max_logs_table_records(self) -> None:
        """A finished table's replay source (``server.replay.keep_record``) is one record per
        table: a long-running memory server must not keep them all."""
        async def main() -> None:
            store = MemoryStore(max_logs=2)
            for code in ("A", "B", "C"):
                await store.put_table(code, {"code": code})
            assert await store.get_table("A") is None  # the oldest went
            assert await store.get_table("C") == {"code": "C"}
            await store.put_table("B", {"code": "B", "again": True})  # kept again: newest
            await store.put_table("D", {"code": "D"})
            assert await store.get_table("C") is None
            assert await store.get_table("B") == {"code": "B", "again": True}
        run_async(main())

    def test_redis_expires_unfinished_logs_and_keeps_finished_ones(self, redis_url: str) -> None:
        from server.store.redis_store import RedisStore

        async def main() -> None:
            store = RedisStore.from_url(redis_url, prefix="ttl:")
            try:
                await store.append("G", 1, [ev("a", 1)])
                assert 0 < await store.r.ttl("ttl:log:G") <= store.unfinished_ttl
                await store.finish_game(finished("G", 1.0))
                assert await store.r.ttl("ttl:log:G") == -1  # kept for good
            finally:
                await _wipe(store)
                await store.close()
        run_async(main())
