"""Issue 16, a tester's findings at classic tables (real uvicorn, real websockets): refusals
that must speak of the table as it is.

* A ``hint`` before the deal or from a spectator of a four-seat classic table is refused with
  the server's sentence for that table ("waiting for four players", "only the four seated
  players"), as its commands are, not with the three-seat sentence of a Machiavelox table.
* A turn clock, absence or pause of a millisecond (C1's durations) is refused ``bad_option``:
  such a table dealt and ended hands by the thousand, unattended, at full CPU and without end
  (83 hands in 5 s with ``match: target``, ``max_hands: null``). The floors are 10 s (clock,
  absence) and 5 s (pause).
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


@pytest.mark.parametrize("options", [
    {"clock": 0.001, "pause": 0.001, "match": "target", "max_hands": None},
    {"clock": 9.5}, {"absence": 1}, {"pause": 0.5},
])
def test_durations_too_short_to_play_are_refused_and_nothing_is_made(
        server: LiveServer, options: dict[str, object]) -> None:
    async def go() -> None:
        ann = await Player(server, "Ann").login()
        registry = server.app.state.registry
        async with ann.http() as c:
            before = len(registry.tables)
            r = await c.post("/api/tables", json={"variant": "classic", "mode": "long",
                                                  "options": options})
            assert r.status_code == 422, r.text
            body = r.json()
            assert body["code"] == "bad_option"
            name = next(k for k in ("clock", "absence", "pause") if k in options)
            assert f"Option '{name}' takes a number of seconds from" in body["message"]
            assert len(registry.tables) == before, "a refused table was made"
            # At the floors the table is made.
            r = await c.post("/api/tables", json={"variant": "classic", "mode": "long",
                                                  "options": {"clock": 10, "absence": 10,
                                                              "pause": 5}})
            assert r.status_code == 200, r.text
            rules = (await c.get(f"/api/tables/{r.json()['code']}")).json()["rules"]
            assert (rules["clock"], rules["absence"], rules["pause"]) == (10.0, 10.0, 5.0)
    run(go())
