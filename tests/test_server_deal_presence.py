"""The deal says nothing about a seat that is still opening its socket (issue 17, point 6).

Three real websocket clients on a real server join as people do (create or join over HTTP,
then open the table's socket): the first two must see no "lost the connection / is away / is
back" about the third at the deal. A seat that never opens a socket is still told away (R18),
``CONNECT_GRACE`` seconds after the deal.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from serverhelpers import LiveServer, Player, run

from server import seating as table_module
from server.settings import Settings

PRESENCE = {"disconnected", "absence_started", "reconnected"}


@pytest.fixture(scope="module")
def server() -> Any:
    with LiveServer(Settings(secret="presence-tests")) as srv:
        yield srv


def _presence(p: Player) -> list[tuple[str, str]]:
    return [(e["kind"], e["player"]) for f in p.frames if f["type"] == "update"
            for e in f["events"] if e["kind"] in PRESENCE]


def test_no_presence_notice_about_anyone_at_the_deal(server: LiveServer) -> None:
    async def go() -> None:
        ada, bob, cy = [await Player(server, n).login() for n in ("Ada", "Bob", "Cy")]
        code = await ada.create("single")
        await ada.connect(code)
        await bob.join(code)
        await bob.connect(code)
        await cy.join(code)  # the deal: Cy has no socket yet
        await cy.connect(code)
        await cy.next(lambda f: f["type"] == "snapshot")
        head = await server.atable_call(code, lambda t: t.events.head)
        for p in (ada, bob, cy):
            await p.at_version(head)
        await asyncio.sleep(0.3)  # anything late would arrive now
        assert await server.atable_call(code, lambda t: t.game is not None
                                        and all(s.connected for s in t.game.seats.values()))
        for p in (ada, bob, cy):
            assert _presence(p) == [], (p.name, _presence(p))
        assert any(e["kind"] == "hand_dealt" for f in ada.frames if f["type"] == "update"
                   for e in f["events"])

    run(go())


def test_a_seat_that_never_connects_is_away_after_the_grace(
        server: LiveServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(table_module, "CONNECT_GRACE", 0.4)

    async def go() -> None:
        ada, bob, cy = [await Player(server, n).login() for n in ("Ada", "Bob", "Cy")]
        code = await ada.create("single")
        await ada.connect(code)
        await bob.join(code)
        await bob.connect(code)
        await cy.join(code)  # and never opens a socket
        gone = await ada.next(lambda f: f["type"] == "update" and any(
            e["kind"] == "disconnected" for e in f["events"]), 5)
        assert [e["player"] for e in gone["events"] if e["kind"] == "disconnected"] == ["Cy"]
        assert ("absence_started", "Cy") in _presence(ada)
        assert all(name == "Cy" for _, name in _presence(ada) + _presence(bob))

    run(go())
