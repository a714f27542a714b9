"""The agora's skill rating (R22 as changed by issue 18, ``server/rating.py``).

Ours: the mapping from a hand's results to places. The library's: the numbers, so the expected
ratings below come from calling OpenSkill's Plackett–Luce model directly with the places we
expect. Both stores (memory and a real ``redis-server``) keep the ratings with the points in
one atomic step per hand, counted once, and rank by ``mu − 3·sigma``."""

from __future__ import annotations

import asyncio
import uuid

import pytest
from conftest import StoreFactory, run_async
from openskill.models import PlackettLuce

from server.rating import PROVISIONAL_GAMES, hand_ranks, no_show_ranks
from server.store import HandScore, Store
from server.store.redis_store import RedisStore

LIB = PlackettLuce()


class TestPlaces:
    """A hand's result → places: the winner first, 0s tied, −15s (left, eliminated) tied
    last; a draw ties the tied players (R19, R20)."""

    @pytest.mark.parametrize(("results", "places"), [
        (["won", "lost", "left"], [1, 2, 3]),
        (["lost", "won", "eliminated"], [2, 1, 3]),
        (["won", "lost", "lost"], [1, 2, 2]),
        (["won", "eliminated", "left"], [1, 2, 2]),
        (["left", "left", "won"], [2, 2, 1]),
        (["draw", "draw", "lost"], [1, 1, 2]),
        (["draw", "eliminated", "draw"], [1, 2, 1]),
        (["draw", "draw", "draw"], [1, 1, 1]),
        (["left", "left", "left"], [1, 1, 1]),  # all departed: no winner, all tied
    ])
    def test_results_to_places(self, results: list[str], places: list[int]) -> None:
        assert hand_ranks(results) == places

    def test_an_unknown_result_is_refused(self) -> None:
        with pytest.raises(ValueError, match="unknown hand result 'fled'"):
            hand_ranks(["won", "fled", "lost"])

    def test_a_no_show_is_last_and_the_others_tie(self) -> None:
        assert no_show_ranks([True, False, True]) == [1, 2, 1]


def scores(*rows: tuple[str, int, str]) -> list[HandScore]:
    return [HandScore(pid, pid.upper(), pts, result) for pid, pts, result in rows]


def go(new_store: StoreFactory, body: object) -> None:
    async def main() -> None:
        async with new_store() as store:
            await body(store)  # type: ignore[operator]
    run_async(main())


class TestStoredRatings:
    def test_one_hand_rates_as_the_library_does_for_our_places(self, new_store: StoreFactory
                                                               ) -> None:
        async def body(store: Store) -> None:
            assert await store.add_hand_points(
                "h1", scores(("a", 63, "won"), ("b", 0, "lost"), ("c", -15, "left")), 1.0)
            a, b, c = (LIB.rating() for _ in range(3))
            expected = LIB.rate([[a], [b], [c]], ranks=[1, 2, 3])
            got = await store.ratings(["a", "b", "c", "nobody"])
            assert set(got) == {"a", "b", "c"}
            for pid, (team,) in zip("abc", expected):
                assert got[pid].mu == pytest.approx(team.mu, abs=1e-9)
                assert got[pid].sigma == pytest.approx(team.sigma, abs=1e-9)
                assert got[pid].games == 1
            hist = await store.history("c")
            assert hist[0].mu == pytest.approx(expected[2][0].mu)
        go(new_store, body)

    def test_a_draw_and_a_second_hand_follow_the_library(self, new_store: StoreFactory) -> None:
        async def body(store: Store) -> None:
            await store.add_hand_points(
                "h1", scores(("a", 40, "draw"), ("b", 40, "draw"), ("c", -15, "eliminated")), 1.0)
            await store.add_hand_points(
                "h2", scores(("c", 0, "lost"), ("d", 55, "won"), ("a", 0, "lost")), 2.0)
            r = {p: LIB.rating() for p in "abcd"}
            (ra,), (rb,), (rc,) = LIB.rate([[r["a"]], [r["b"]], [r["c"]]], ranks=[1, 1, 2])
            r.update(a=ra, b=rb, c=rc)
            (rc,), (rd,), (ra,) = LIB.rate([[r["c"]], [r["d"]], [r["a"]]], ranks=[2, 1, 2])
            r.update(a=ra, c=rc, d=rd)
            got = await store.ratings(list("abcd"))
            for p in "abcd":
                assert (got[p].mu, got[p].sigma) == (pytest.approx(r[p].mu),
                                                     pytest.approx(r[p].sigma)), p
            assert [got[p].games for p in "abcd"] == [2, 1, 2, 1]
        go(new_store, body)

    def test_a_hand_is_rated_once(self, new_store: StoreFactory) -> None:
        async def body(store: Store) -> None:
            hand = scores(("a", 63, "won"), ("b", 0, "lost"), ("c", 0, "lost"))
            assert await store.add_hand_points("h1", hand, 1.0)
            once = await store.ratings(["a"])
            assert not await store.add_hand_points("h1", hand, 1.0)
            assert await store.ratings(["a"]) == once
            assert once["a"].games == 1
        go(new_store, body)

    def test_the_ranking_orders_by_conservative_rating(self, new_store: StoreFactory) -> None:
        """Points, ``mu`` and the conservative rating disagree here: ``x`` won one big hand,
        ``y`` won many small ones, ``m`` won a third of a dozen (a lower ``mu`` than ``x``,
        a smaller ``sigma``); the ranking follows ``mu − 3·sigma`` (computed here with the
        library)."""
        async def body(store: Store) -> None:
            hands = [("h0", scores(("x", 90, "won"), ("p", 0, "lost"), ("q", -15, "left")))]
            for i in range(1, 8):
                hands.append((f"h{i}", scores(("y", 12, "won"), (f"f{i}", 0, "lost"),
                                              (f"g{i}", 0, "lost"))))
            for i in range(12):
                hands.append((f"m{i}", scores(("w", 50, "won"), ("m", 0, "lost"), (f"k{i}", 0, "lost"))
                              if i % 3 else scores((f"k{i}", 0, "lost"), ("m", 10, "won"),
                                                   (f"j{i}", -15, "left"))))
            lib = {}
            for hid, hand in hands:
                assert await store.add_hand_points(hid, hand, 1.0)
                before = [[lib.get(s.player_id) or LIB.rating()] for s in hand]
                after = LIB.rate(before, ranks=hand_ranks([s.result for s in hand]))
                lib.update({s.player_id: t[0] for s, t in zip(hand, after)})
            expected = sorted(lib, key=lambda p: (lib[p].mu - 3 * lib[p].sigma, p), reverse=True)
            assert expected.index("m") < expected.index("x") and lib["m"].mu < lib["x"].mu
            top = await store.rating_top(n=100)
            assert [e.player_id for e in top] == expected
            y = next(e for e in top if e.player_id == "y")
            assert y.points == 84 and y.hands == 7 and y.rating.games == 7 and y.rating.provisional
            assert y.rank == expected.index("y") + 1
            by_points = [e.player_id for e in await store.top(n=100)]
            assert by_points[:2] == ["w", "x"]  # the legacy order is still there, and differs
            assert await store.rated_players() == len(lib)
            x = await store.rating_of("x")
            assert x is not None and x.rank == expected.index("x") + 1 and x.points == 90
            page = await store.rating_top(n=2, offset=1)
            assert [e.player_id for e in page] == expected[1:3]
            assert [e.rank for e in page] == [2, 3]
            assert await store.rating_of("nobody") is None
        go(new_store, body)

    def test_provisional_until_enough_games(self, new_store: StoreFactory) -> None:
        async def body(store: Store) -> None:
            for i in range(PROVISIONAL_GAMES):
                await store.add_hand_points(f"h{i}", scores(("a", 5, "won"), ("b", 0, "lost"),
                                                            ("c", 0, "lost")), float(i))
                entry = await store.rating_of("a")
                assert entry is not None
                assert entry.rating.provisional == (i + 1 < PROVISIONAL_GAMES)
        go(new_store, body)

    def test_counting_clears_the_live_game_of_that_table_only(self, new_store: StoreFactory
                                                              ) -> None:
        async def body(store: Store) -> None:
            await store.agora_seated(["a", "b", "c"], "TABLE1")
            await store.agora_seated(["d"], "TABLE2")
            await store.add_hand_points("h1", scores(("a", 5, "won"), ("b", 0, "lost"),
                                                     ("d", 0, "lost")), 1.0, code="TABLE1")
            state = await store.agora_state(["a", "b", "c", "d"])
            assert [state[p].live for p in "abcd"] == [None, None, "TABLE1", "TABLE2"]
            assert state["a"].last == "a,b,c"
        go(new_store, body)


def test_two_processes_rating_the_same_players_at_once_lose_no_update(redis_url: str) -> None:
    """Two stores on one Redis (two server processes) count overlapping hands at the same
    time: the compare-and-set makes each update see the one before, so ``games`` adds up and
    the result is one of the two serial orders."""
    prefix = f"cas{uuid.uuid4().hex[:8]}:"

    async def main() -> None:
        one, two = RedisStore.from_url(redis_url, prefix), RedisStore.from_url(redis_url, prefix)
        try:
            hands = [(f"h{i}", scores(("a", 5, "won" if i % 2 else "lost"),
                                      ("b", 0, "lost" if i % 2 else "won"), (f"z{i}", 0, "lost")))
                     for i in range(20)]
            await asyncio.gather(*(s.add_hand_points(h, sc, 1.0)
                                   for (h, sc), s in zip(hands, [one, two] * 10)))
            got = await one.ratings(["a", "b"])
            assert got["a"].games == 20 and got["b"].games == 20
            # A hand counted by the other process is refused (a take-over finishing it again).
            assert not await one.add_hand_points(*hands[1], 1.0)
            assert not await two.add_hand_points(*hands[0], 1.0)
        finally:
            await one.close()
            await two.close()
    run_async(main())
