"""Three real websocket clients play a scripted hand to its score through a real uvicorn.

The deal is stacked (a test-only position) and the hand goes: a draw (only the drawer sees the
card), a chain undo (§5.5) whose notice reaches the player it hit and nobody else, a declared
rearrangement (stage, move, place), a drop of B's socket in the middle of B's play and its
reconnection (the seat resumes and the missed events are replayed), then a Stop! (§9) in which
C goes out. Every player, and a spectator, sees the score.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import pytest
from serverhelpers import LiveServer, Player, run, seated, updates_with

from server.settings import Settings

POSITION = {
    "table": [["4C", "5C", "6C"], ["9H", "10H", "JH"], ["5H", "6H", "7H", "8H"]],
    "hands": {"A": ["7C", "2S", "QD"], "B": ["8C", "3H"], "C": ["5S", "5D", "10C", "JC", "QC"]},
    "stocks": {"A": ["KH", "2D"], "B": ["KS"], "C": []},
    "drew": ["A", "B", "C"],
    "laid": ["A", "B", "C"],
}


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    with LiveServer(Settings(test_deals=True, resume_wait=0.2, secret="test")) as s:
        yield s


def meld(game: dict, mid: int) -> list[str]:
    for m in game["hand"]["table"]:
        if m["id"] == mid:
            return list(m["cards"])
    return []


def staging(game: dict, seat: str) -> list[str]:
    return next(p["staging"] for p in game["hand"]["players"] if p["name"] == seat)


async def scripted_hand(server: LiveServer) -> None:
    a, b, c = await seated(server, ["A", "B", "C"], position=POSITION, timers={"play": 30})
    watcher = Player(server, "Watcher")
    await watcher.login()
    await watcher.connect(a.code)
    snap = await watcher.next(lambda f: f["type"] == "snapshot")
    assert snap["game"]["hand"]["you"] is None and snap["game"]["hand"]["hand"] is None
    everyone = [a, b, c, watcher]

    # A draws: A's update names the card, the others' do not.
    ack = await a.ok("draw")
    for p in everyone:
        await p.at_version(ack["version"])
    drew = {p.name: [e for e in p.events("drew") if e["player"] == "A"] for p in everyone}
    assert drew["A"][0]["card"] == "KH"
    assert all("card" not in drew[n][0] for n in ("B", "C", "Watcher"))
    assert Counter(a.hand) == Counter(["7C", "2S", "QD", "KH"])

    # §5.5: B's direct play needs A's 7C; A cancels; B's play falls and B is told.
    await a.ok("add", card="2S", meld=2)
    await a.ok("add", card="7C", meld=1)
    await b.ok("add", card="8C", meld=1)
    assert meld(b.game, 1) == ["4C", "5C", "6C", "7C", "8C"]
    ack = await a.ok("cancel")
    notice = await b.next(updates_with("chain_undo"))
    (undo,) = [e for e in notice["events"] if e["kind"] == "chain_undo"]
    assert undo["player"] == "B" and undo["cause_player"] == "A" and undo["cards_back"] == ["8C"]
    for p in everyone:
        await p.at_version(ack["version"])
    assert [p.name for p in everyone if p.events("chain_undo")] == ["B"]
    assert Counter(b.hand) == Counter(["8C", "3H"])
    assert meld(a.game, 1) == ["4C", "5C", "6C"]

    # A declared rearrangement: C stages two fives, moves 5H out of the run, places them.
    await c.ok("stage", card="5S")
    await c.ok("stage", card="5D")
    await c.ok("move", card="5H", meld=3, to="new")
    await c.ok("place", card="5S", meld=4)
    ack = await c.ok("place", card="5D", meld=4)
    await a.at_version(ack["version"])
    assert sorted(meld(a.game, 4)) == ["5D", "5H", "5S"]
    assert meld(a.game, 3) == ["6H", "7H", "8H"]
    ended = [e for e in a.events("play_ended") if e["player"] == "C"]
    assert ended[-1]["outcome"] == "confirmed"

    # B opens a play, then B's socket drops in the middle of it.
    ack = await b.ok("stage", card="3H")
    await b.at_version(ack["version"])
    last_seen = b.version
    await b.close()
    gone = await a.next(updates_with("disconnected"))
    assert [e["player"] for e in gone["events"] if e["kind"] == "disconnected"] == ["B"]
    refused = await a.command("take", card="4C", meld=1)
    assert refused["type"] == "refused" and refused["code"] == "not_declared"
    missed = await a.ok("add", card="7C", meld=1)  # B misses this

    # B comes back with its token: same seat, the missed events replayed, then a snapshot.
    welcome = await b.connect(last_version=last_seen)
    assert welcome["seat"] == "B"
    replay = await b.next(lambda f: f["type"] in ("update", "snapshot"))
    assert replay["type"] == "update" and replay["replay"] is True
    kinds = [e["kind"] for e in replay["events"]]
    assert kinds[:2] == ["disconnected", "absence_started"] and "added" in kinds
    assert replay["version"] >= missed["version"]
    snap = await b.next(lambda f: f["type"] == "snapshot")
    assert snap["game"]["hand"]["you"] == "B" and staging(snap["game"], "B") == ["3H"]
    assert meld(snap["game"], 1) == ["4C", "5C", "6C", "7C"]
    back = await b.next(updates_with("reconnected"))
    assert back["game"]["hand"]["players"][1]["connected"] is True
    await b.ok("unstage", card="3H")  # the play B had open goes on

    # Stop! (§9): C freezes the table, the others are refused, C lays and goes out.
    stop = await c.ok("stop")
    await b.at_version(stop["version"])
    assert b.game["hand"]["clocks"]["freeze"]["caller"] == "C"
    frozen = await b.command("draw")
    assert frozen["type"] == "refused" and frozen["code"] == "frozen"
    assert frozen["message"] == "The game is frozen by a Stop!: wait for it to end."
    for card in ("10C", "JC", "QC"):
        await c.ok("stage", card=card)
    last = await c.ok("lay", cards=["10C", "JC", "QC"])

    for p in everyone:
        await p.at_version(last["version"])
        result = p.game["result"]
        assert result["winner"] == "C" and result["reason"] == "single", p.name
        assert p.game["hand"]["result"]["scores"] == {"A": 0, "B": 0, "C": 65}
        assert p.events("went_out")[0]["during_freeze"] is True
        assert p.game["phase"] == "over"
    after = await a.command("draw")
    assert after["type"] == "refused" and after["code"] == "game_over"
    for p in everyone:
        await p.close()


def test_three_clients_play_a_scripted_hand_to_its_score(server: LiveServer) -> None:
    run(scripted_hand(server), timeout=30)
