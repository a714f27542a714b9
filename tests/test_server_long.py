"""Long games through the server (§13, R21): the pause between hands, ready, leaving the game,
and absence counted across the pause."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from serverhelpers import LiveServer, Player, run, seated, updates_with

from server.settings import Settings

# A goes out at once with a lay: 50 - 1 in stock + 2 in the others' hands = 51, short of 150.
POSITION = {
    "hands": {"A": ["7C", "8C", "9C"], "B": ["2S"], "C": ["3S"]},
    "stocks": {"A": ["KH"], "B": ["KS"], "C": ["QS"]},
    "drew": ["A"],
}


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    with LiveServer(Settings(test_deals=True, resume_wait=0.2, secret="test")) as s:
        yield s


async def first_hand_won_by_a(server: LiveServer, **timers: float) -> list[Player]:
    players = await seated(server, ["A", "B", "C"], mode="long", position=POSITION,
                           timers=timers)
    a = players[0]
    for card in ("7C", "8C", "9C"):
        await a.ok("stage", card=card)
    ack = await a.ok("lay", cards=["7C", "8C", "9C"])
    for p in players:
        await p.at_version(ack["version"])
        assert p.game["phase"] == "pause" and p.game["totals"] == {"A": 51, "B": 0, "C": 0}
        assert p.game["history"][0]["winner"] == "A"
    return players


def test_all_ready_ends_the_pause_and_deals_the_next_hand(server: LiveServer) -> None:
    async def go() -> None:
        a, b, c = await first_hand_won_by_a(server, pause=30)
        assert a.game["pause_until"] == pytest.approx(a.game["game_t"] + 30, abs=0.1)
        await a.ok("ready")
        await b.ok("ready")
        assert (await b.command("draw"))["code"] == "not_in_hand"
        last = await c.ok("ready")
        for p in (a, b, c):
            await p.at_version(last["version"])
            game = p.game
            assert game["phase"] == "hand" and game["hand_no"] == 2
            assert [q["stock_count"] for q in game["hand"]["players"]] == [34, 34, 34]
            assert game["hand"]["hand"] == [] and game["hand"]["you"] == p.seat
            assert p.events("hand_dealt")[-1]["hand"] == 2
            assert [e["player"] for e in p.events("ready")] == ["A", "B", "C"]
        drew = await b.ok("draw")
        await b.at_version(drew["version"])
        assert len(b.hand) == 1
        for p in (a, b, c):
            await p.close()
    run(go())


def test_the_pause_ends_by_itself(server: LiveServer) -> None:
    async def go() -> None:
        a, b, c = await first_hand_won_by_a(server, pause=0.3)
        dealt = await c.next(lambda f: f["type"] == "update" and f["game"]["hand_no"] == 2,
                             timeout=5)
        assert dealt["game"]["phase"] == "hand"
        assert dealt["events"][0]["kind"] == "hand_dealt"
        for p in (a, b, c):
            await p.close()
    run(go())


def test_leaving_the_game_in_the_pause_ends_it(server: LiveServer) -> None:
    async def go() -> None:
        a, b, c = await first_hand_won_by_a(server, pause=30)
        last = await b.ok("leave_game")
        await a.at_version(last["version"])
        assert a.game["phase"] == "over"
        assert a.game["result"] == {"winner": "A", "long_draw": False,
                                    "totals": {"A": 51, "B": 0, "C": 0}, "reason": "left"}
        for p in (a, b, c):
            await p.close()
    run(go())


def test_a_seat_absent_through_the_pause_has_left_the_game(server: LiveServer) -> None:
    async def go() -> None:
        a, b, c = await first_hand_won_by_a(server, pause=1.0, absence=0.3)
        await c.close()
        over = await a.next(updates_with("game_ended"), timeout=5)
        left = [e for e in over["events"] if e["kind"] == "left_game"]
        assert [(e["player"], e["reason"]) for e in left] == [("C", "absence")]
        assert over["game"]["result"]["winner"] == "A"
        for p in (a, b):
            await p.close()
    run(go())
