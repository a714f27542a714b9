"""Play again over a real server and real websockets (issue 17, point 5).

Ada plays with a server bot and Bob; the stacked hand ends at once (Bob goes out). Ada asks
to play again: one new table, the bot seated again, Ada seated; Bob's socket on the old table
hears it; asking again gives the same table; Bob declines (everyone hears it, and a socket
opened later sees it in the table's summary), then accepts: seated, the new game is dealt.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from serverhelpers import LiveServer, Player, run

from server.settings import Settings

# A (Ada), B (the bot: slow, it never gets to play), C (Bob, who goes out with a Stop!).
POSITION = {
    "table": [["4C", "5C", "6C"], ["9H", "10H", "JH"]],
    "hands": {"A": ["7C", "2S", "QD"], "B": ["8C", "3H"], "C": ["10C", "JC", "QC"]},
    "stocks": {"A": ["KH"], "B": ["KS"], "C": []},
    "drew": ["A", "B", "C"], "laid": ["A", "B", "C"],
}


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    with LiveServer(Settings(test_deals=True, resume_wait=0, secret="again-tests")) as s:
        yield s


async def post(p: Player, path: str) -> httpx.Response:
    async with p.http() as http:
        return await http.post(path)


def agains(p: Player) -> list[dict[str, Any]]:
    return [f for f in p.frames if f["type"] == "again"]


def test_play_again_makes_one_table_with_the_same_bots(server: LiveServer) -> None:
    async def go() -> None:
        ada, bob = await Player(server, "Ada").login(), await Player(server, "Bob").login()
        code = await ada.create("single", position=POSITION, timers={"play": 30},
                                bots={"level": "casual", "count": 1, "reaction": 5})
        await ada.connect(code)
        await bob.join(code)
        await bob.connect(code)
        await bob.next(lambda f: f["type"] == "snapshot")

        early = await post(ada, f"/api/tables/{code}/again")
        assert early.status_code == 409 and early.json()["code"] == "game_not_over"
        r = await post(bob, f"/api/tables/{code}/again/decline")
        assert r.status_code == 409 and r.json()["code"] == "game_not_over"

        await bob.ok("stop")
        for card in ("10C", "JC", "QC"):
            await bob.ok("stage", card=card)
        last = await bob.ok("lay", cards=["10C", "JC", "QC"])
        await ada.at_version(last["version"])
        assert ada.game["phase"] == "over"

        r = await post(bob, f"/api/tables/{code}/again/decline")
        assert r.status_code == 409 and r.json()["code"] == "no_again"
        watcher = await Player(server, "Watcher").login()
        r = await post(watcher, f"/api/tables/{code}/again")
        assert r.status_code == 403 and r.json()["code"] == "not_seated"

        first = await post(ada, f"/api/tables/{code}/again")
        assert first.status_code == 201, first.text
        new = first.json()["code"]
        assert new != code and first.json() == {"code": new, "url": f"/t/{new}"}
        heard = await bob.next(lambda f: f["type"] == "again")
        assert heard == {"type": "again", "code": new, "by": "Ada", "declined": []}
        await ada.next(lambda f: f["type"] == "again")
        again = await post(ada, f"/api/tables/{code}/again")
        assert again.status_code == 201 and again.json()["code"] == new  # idempotent

        summary = server.table_call(new, lambda t: t.summary())
        assert summary.seats == ["Ada", "Casual bot"] and summary.bots == ["Casual bot"]
        assert summary.phase == "waiting"
        assert server.table_call(new, lambda t: (t.options.rules, t.mode)) == \
            server.table_call(code, lambda t: (t.options.rules, t.mode))
        assert server.table_call(new, lambda t: t.options.seed) != \
            server.table_call(code, lambda t: t.options.seed)

        declined = await post(bob, f"/api/tables/{code}/again/decline")
        assert declined.status_code == 204
        seen = await ada.next(lambda f: f["type"] == "again" and f["declined"])
        assert seen == {"type": "again", "code": new, "by": "Ada", "declined": ["Bob"]}
        late = await Player(server, "Late").login()
        await late.connect(code)
        snap = await late.next(lambda f: f["type"] == "snapshot")
        assert snap["table"]["again"] == seen

        accepted = await post(bob, f"/api/tables/{code}/again")
        assert accepted.status_code == 201 and accepted.json()["code"] == new
        back = await ada.next(lambda f: f["type"] == "again" and not f["declined"])
        assert back["code"] == new
        summary = server.table_call(new, lambda t: t.summary())
        assert summary.seats == ["Ada", "Casual bot", "Bob"] and summary.phase == "hand"
        # Seated at the new table (the requester, or one who accepted): no declining any more.
        for p in (ada, bob):
            r = await post(p, f"/api/tables/{code}/again/decline")
            assert r.status_code == 409 and r.json()["code"] == "again_accepted", r.text
        assert server.table_call(code, lambda t: t.again)["declined"] == []
        assert len([f for f in agains(ada) if f["code"] == new]) == 3
        # Only one new table was made for the old one, whoever asked and how often.
        ada_id = server.table_call(code, lambda t: t.seats[0].player_id)
        assert sorted(t.code for t in list(server.app.state.registry.tables.values())
                      if t.creator_id == ada_id) == sorted([code, new])

        server.table_call(code, lambda t: setattr(t, "agora", True))  # as the agora's are
        r = await post(ada, f"/api/tables/{code}/again")
        assert r.status_code == 409 and r.json()["code"] == "agora_table"
        for p in (ada, bob, late):
            await p.close()

    run(go(), timeout=30)
