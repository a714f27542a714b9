"""Issue 16, a tester's findings at classic tables (real uvicorn, real websockets): refusals
that must speak of the table as it is.

* A ``hint`` before the deal or from a spectator of a four-seat classic table is refused with
  the server's sentence for that table ("waiting for four players", "only the four seated
  players"), as its commands are, not with the three-seat sentence of a Machiavelox table.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from serverhelpers import LiveServer, Player, run

from server.settings import Settings


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    with LiveServer(Settings(test_deals=True, secret="classic-abuse")) as s:
        yield s


def test_hint_refusals_name_the_seats_of_a_classic_table(server: LiveServer) -> None:
    async def go() -> None:
        ann, spec = [await Player(server, n).login() for n in ("Ann", "Spec")]
        code = await ann.create("single", variant="classic", players=4)
        await ann.connect(code)
        await ann.send({"type": "hint", "id": "h1"})
        hint = await ann.next(lambda f: f.get("id") == "h1")
        command = await ann.command("draw")
        assert hint["type"] == command["type"] == "refused"
        assert hint["code"] == command["code"] == "not_started"
        assert hint["message"] == command["message"]
        assert "four players" in hint["message"], hint

        await spec.connect(code)  # not seated: a spectator
        await spec.send({"type": "hint", "id": "h2"})
        hint = await spec.next(lambda f: f.get("id") == "h2")
        command = await spec.command("draw")
        assert hint["code"] == command["code"] == "not_seated"
        assert hint["message"] == command["message"]
        assert "four seated players" in hint["message"], hint
    run(go())
