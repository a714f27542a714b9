"""Command ids: a repeated id gets its first reply and is applied once, per seat and per id
exactly (``1`` and ``"1"`` are two ids), remembering the last ``replies_kept`` ids of a seat."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from serverhelpers import LiveServer, Player, run, seated

from engine import cards as C
from server.settings import Settings

KEPT = 3
POSITION = {
    "table": [["4C", "5C", "6C"]],
    "hands": {"A": ["7C", "9D", "KD"], "B": ["8C", "3H", "KS"], "C": ["2S", "QS"]},
    "stocks": {"A": ["KH", "2D", "3D"], "B": ["5H"], "C": ["QH"]},
    "drew": ["A", "B", "C"],
}


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    with LiveServer(Settings(test_deals=True, resume_wait=0.1, secret="test",
                             replies_kept=KEPT)) as s:
        yield s


async def staged(server: LiveServer, p: Player) -> list[str]:
    assert p.code is not None
    seat = p.seat
    return list(await server.atable_call(
        p.code, lambda t: C.names(t.game.hand.staging[seat])))  # type: ignore[union-attr]


async def head(server: LiveServer, p: Player) -> int:
    assert p.code is not None
    return int(await server.atable_call(p.code, lambda t: t.events.head))


async def close(players: list[Player]) -> None:
    for p in players:
        await p.close()


def test_each_seat_has_its_own_ids(server: LiveServer) -> None:
    async def go() -> None:
        a, b, c = await seated(server, ["A", "B", "C"], position=POSITION)
        reply_a = await a.command("stage", id="same", card="7C")
        reply_b = await b.command("stage", id="same", card="8C")
        assert reply_a["type"] == reply_b["type"] == "ack", (reply_a, reply_b)
        assert reply_b["version"] > reply_a["version"]
        assert await staged(server, a) == ["7C"]
        assert await staged(server, b) == ["8C"]
        await close([a, b, c])
    run(go())


def test_an_integer_id_and_the_same_digits_as_a_string_are_two_ids(server: LiveServer) -> None:
    async def go() -> None:
        a, b, c = await seated(server, ["A", "B", "C"], position=POSITION)
        first = await a.command("stage", id=1, card="7C")  # type: ignore[arg-type]
        second = await a.command("stage", id="1", card="9D")
        assert first == {"type": "ack", "id": 1, "version": first["version"], "made": {}}
        assert second["type"] == "ack" and second["id"] == "1", second
        assert second["version"] > first["version"]
        assert sorted(await staged(server, a)) == ["7C", "9D"]
        await close([a, b, c])
    run(go())


def test_the_newest_replies_are_kept_and_the_oldest_forgotten(server: LiveServer) -> None:
    async def go() -> None:
        a, b, c = await seated(server, ["A", "B", "C"], position=POSITION)
        sent = [("e1", "stage", "7C"), ("e2", "unstage", "7C"), ("e3", "stage", "7C"),
                ("e4", "stage", "9D")]
        replies: dict[str, dict[str, Any]] = {}
        for cid, do, card in sent:
            replies[cid] = await a.command(do, id=cid, card=card)
            assert replies[cid]["type"] == "ack", replies[cid]
        version = await head(server, a)
        # The last KEPT ids are answered as the first time, and nothing is applied again.
        for cid, do, card in reversed(sent[1:]):
            assert await a.command(do, id=cid, card=card) == replies[cid], cid
        assert await head(server, a) == version
        assert sorted(await staged(server, a)) == ["7C", "9D"]
        # The oldest is forgotten: the command runs again (7C is staged already: refused).
        again = await a.command("stage", id="e1", card="7C")
        assert again["type"] == "refused", again
        await close([a, b, c])
    run(go())
