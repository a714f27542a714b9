"""Issue 16: classic tables on a real uvicorn, played by real websocket clients.

Creating (variant, players, options, mode; impossible rules refused with the engine's code and
sentence, nothing made), the invitation's summary before anyone sits, four seats dealt from a
stacked classic position and played (a refused End turn saying why, a freed joker placed
again with ``as``, a rearrangement, draw and pass), commands of the other variant refused,
a spectator, a reconnection resumed from ``last_version``, and hidden information: no frame any
seat or the spectator receives holds another seat's hand or the stock.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from serverhelpers import LiveServer, Player, run, seated

from engine.commands import CLASSIC_SPECS
from server.settings import Settings

#: Four seats; every face of a hand or the stock appears once in the whole position, so that
#: seeing one in a frame can only mean seeing that card.
POSITION: dict[str, Any] = {
    "players": ["A", "B", "C", "D"],
    "table": [["3H", "4H", "5H", "6H"], ["5C", "JK=6C", "7C"]],
    "hands": {"A": ["6S", "6D", "6C", "KC", "9C", "9D"], "B": ["4D", "2C"],
              "C": ["8S", "QD"], "D": ["10S", "JD"]},
    "stock": ["9H", "2H", "3S", "4S", "5S", "7D"],
}
NAMES = ["Ann", "Bob", "Cy", "Di"]


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    with LiveServer(Settings(test_deals=True, resume_wait=0.2, secret="classic-test")) as s:
        yield s


def melds(game: dict[str, Any]) -> dict[int, list[str]]:
    return {m["id"]: m["cards"] for m in game["table"]}


def strings(obj: Any) -> Iterator[str]:
    """Every string inside a frame (keys and values)."""
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield k
            yield from strings(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from strings(v)


def test_creating_refuses_impossible_rules_and_the_invitation_shows_the_rules(
        server: LiveServer) -> None:
    async def go() -> None:
        ann = await Player(server, "Ann").login()
        registry = server.app.state.registry
        async with ann.http() as c:
            before = len(registry.tables)
            r = await c.post("/api/tables", json={"variant": "classic_dutch", "players": 6})
            assert r.status_code == 422
            assert r.json() == {"code": "too_many_players", "message": "6 players is too many "
                                "for classic_dutch with 2 packs: at most 5 (6 need 3 packs)."}
            r = await c.post("/api/tables", json={"variant": "classic", "options": {"jokers": 5}})
            assert r.status_code == 422 and r.json()["code"] == "bad_option"
            assert "jokers" in r.json()["message"]
            r = await c.post("/api/tables", json={"variant": "classic", "mode": "long",
                                                  "options": {"match": "single"}})
            assert r.status_code == 422 and r.json()["code"] == "bad_option"
            r = await c.post("/api/tables", json={"variant": "classic", "players": 3,
                                                  "bots": {"count": 3}})
            assert r.status_code == 422 and r.json()["code"] == "bad_field"
            r = await c.post("/api/tables", json={"players": 4})  # Machiavelox seats three
            assert r.status_code == 422 and r.json()["code"] == "bad_field"
            assert len(registry.tables) == before, "a refused table was made"

            r = await c.post("/api/tables", json={"variant": "classic_dutch", "players": 6,
                                                  "mode": "long", "options": {"packs": 3}})
            assert r.status_code == 200, r.text
            code = r.json()["code"]
            invitation = (await c.get(f"/api/tables/{code}")).json()
            assert invitation["variant"] == "classic_dutch" and invitation["size"] == 6
            assert invitation["phase"] == "waiting" and invitation["seats"] == ["Ann"]
            rules = invitation["rules"]
            assert rules["preset"] == "classic_dutch" and rules["packs"] == 3
            assert rules["match"] == "threshold" and rules["clock"] == 120.0  # C2's Dutch
            assert rules["scoring"] == "penalty" and rules["freed_joker"] == "keep"

            r = await c.post("/api/tables", json={"variant": "classic_italian", "players": 2})
            single = (await c.get(f"/api/tables/{r.json()['code']}")).json()
            assert single["rules"]["match"] == "single" and single["mode"] == "single"

            r = await c.post("/api/tables", json={})
            plain = (await c.get(f"/api/tables/{r.json()['code']}")).json()
            assert (plain["variant"], plain["size"], plain["rules"]) == ("machiavelox", 3, {})

            # The limit on tables waiting for players counts classic tables the same (5).
            made = 3
            while True:
                r = await c.post("/api/tables", json={"variant": "classic"})
                if r.status_code != 200:
                    break
                made += 1
                assert made <= 5, "past the waiting-tables limit"
            assert (r.status_code, r.json()["code"], made) == (429, "too_many_waiting_tables", 5)
    run(go())


def test_a_four_seat_table_fills_deals_and_refuses_a_fifth(server: LiveServer) -> None:
    async def go() -> None:
        players = [await Player(server, n).login() for n in ["P", "Q", "R", "S", "T"]]
        code = await players[0].create("single", variant="classic", players=4)
        for p in players[1:3]:
            await p.join(code)
        async with players[0].http() as c:
            waiting = (await c.get(f"/api/tables/{code}")).json()
            assert waiting["phase"] == "waiting" and len(waiting["seats"]) == 3
            await players[3].join(code)
            dealt = (await c.get(f"/api/tables/{code}")).json()
            assert dealt["phase"] == "hand" and dealt["seats"] == ["P", "Q", "R", "S"]
        async with players[4].http() as c:
            r = await c.post(f"/api/tables/{code}/join")
            assert r.status_code == 409
            assert r.json() == {"code": "table_full",
                                "message": "The four seats of this table are taken."}
        async with players[0].http() as c:
            r = await c.get(f"/api/tables/{code}/hands/1/replay")
            assert r.status_code == 409 and r.json()["code"] == "hand_not_over"
        await players[0].connect(code)
        snap = await players[0].next(lambda f: f["type"] == "snapshot")
        game = snap["game"]
        assert game["you"] == "P" and len(game["hand"]) == 13  # a real deal, C21
        assert [p["hand_count"] for p in game["players"]] == [13, 13, 13, 13]
        assert game["stock"] == 2 * 52 + 4 - 4 * 13
        await players[0].close()
    run(go())


async def four_at_the_table(server: LiveServer) -> tuple[list[Player], Player]:
    players = await seated(server, NAMES, variant="classic", players=4, position=POSITION)
    watcher = await Player(server, "Watcher").login()
    await watcher.connect(players[0].code)
    snap = await watcher.next(lambda f: f["type"] == "snapshot")
    assert snap["game"]["you"] is None and snap["game"]["hand"] is None
    assert snap["table"]["variant"] == "classic" and snap["table"]["size"] == 4
    return players, watcher


def test_four_players_play_refusals_say_why_and_nobody_sees_a_hidden_card(
        server: LiveServer) -> None:
    async def go() -> None:
        (ann, bob, cy, di), watcher = await four_at_the_table(server)
        assert ann.game is not None and ann.game["hand"] == POSITION["hands"]["A"]
        assert bob.game is not None and bob.game["hand"] == POSITION["hands"]["B"]

        # Ann's turn: an invalid meld is refused at End turn, saying why; reset gives it back.
        made = await ann.ok("lay", cards=["9C", "9D"])
        assert made["made"] == {"meld": 3}
        refused = await ann.command("end")
        assert (refused["type"], refused["code"]) == ("refused", "invalid_meld")
        assert refused["message"] == "Those cards do not form a valid run or set."
        await ann.ok("reset")
        # A joker freed by its real card must go down again this turn (C11): End says so.
        await ann.ok("free", card="6C", meld=2)
        refused = await ann.command("end")
        assert refused["code"] == "loose_joker"
        assert refused["message"] == "A freed joker must go back down this turn."
        # The rearrangement: a six leaves its run and joins two sixes from the hand; the
        # loose joker goes to the run's top as the six of hearts.
        await ann.ok("move", card="6H", meld=1, to="new")
        await ann.ok("add", card="6S", meld=3)
        await ann.ok("add", card="6D", meld=3)
        wrong = await ann.command("move", card="JK", meld="loose", to=1, **{"from": 2})
        assert (wrong["type"], wrong["code"]) == ("refused", "bad_field")
        await ann.ok("move", card="JK", meld="loose", to=1, **{"as": "6H"})
        ended = await ann.ok("end")
        for p in (ann, bob, cy, di, watcher):
            await p.at_version(ended["version"])
            assert p.game is not None
            assert melds(p.game) == {1: ["3H", "4H", "5H", "JK=6H"], 2: ["5C", "6C", "7C"],
                                     3: ["6S", "6H", "6D"]}
            assert p.game["turn"]["player"] == "Bob"
        assert ann.hand == ["KC", "9C", "9D"]

        # Bob: a Machiavelox command is refused; then Bob draws (only Bob sees the card).
        refused = await bob.command("stage", card="4D")
        assert (refused["type"], refused["code"]) == ("refused", "unknown_command")
        assert "classic table" in refused["message"]
        refused = await bob.command("add", card="4D", meld=1, **{"as": "4H"})
        assert refused["code"] == "bad_field"
        drew = await bob.ok("draw")
        for p in (ann, cy, di, watcher):
            await p.at_version(drew["version"])
        assert bob.game is not None and bob.game["hand"] == ["4D", "2C", "9H"]
        bob_drew = [e for e in bob.events("drew") if e["player"] == "Bob"]
        assert bob_drew and bob_drew[-1]["card"] == "9H" and bob_drew[-1]["hand"] == 1
        for p in (ann, cy, di, watcher):
            seen = [e for e in p.events("drew") if e["player"] == "Bob"]
            assert seen and "card" not in seen[-1]

        # Cy: pass is refused while the stock holds cards (C15); Cy draws.
        refused = await cy.command("pass")
        assert refused["code"] == "stock_not_empty"
        await cy.ok("draw")

        # Di drops on the turn and comes back with the last version seen: the missed events
        # come again, then a snapshot; Di plays on.
        last = di.version
        await di.close()
        await di.connect(di.code, last_version=last)
        snap = await di.next(lambda f: f["type"] == "snapshot")
        assert snap["game"]["you"] == "Di" and snap["game"]["turn"]["player"] == "Di"
        assert snap["game"]["hand"] == ["10S", "JD"]
        reset = await di.command("reset", id="again-1")
        assert reset["type"] == "ack"
        repeated = await di.command("reset", id="again-1")
        assert repeated == reset  # a repeated id: the same reply, applied once
        await di.ok("draw")
        await ann.at_version(di.version)

        # Hidden information, over every frame: a seat sees its own cards only; the
        # spectator none; nobody the stock.
        drawn = {"Bob": {"9H"}, "Cy": {"2H"}, "Di": {"3S"}}
        laid = {"6S", "6D", "6C", "9C", "9D"}  # Ann's cards that went on the table
        hands = {name: set(POSITION["hands"][key]) for name, key in zip(NAMES, "ABCD")}
        stock = set(POSITION["stock"])
        secret_of = {}
        for name in NAMES:
            others = set().union(*(h for n, h in hands.items() if n != name))
            secret_of[name] = (others | stock) - laid - drawn.get(name, set())
        secret_of["Watcher"] = (set().union(*hands.values()) | stock) - laid
        for p in (ann, bob, cy, di, watcher):
            assert p.frames, p.name
            for frame in p.frames:
                leaked = set(strings(frame)) & secret_of[p.name]
                assert not leaked, f"{p.name} saw {leaked} in {json.dumps(frame)[:300]}"
        # The frames were real views: every seat saw its own hand.
        assert any("KC" in set(strings(f)) for f in ann.frames)
    run(go(), timeout=40)


def test_a_classic_command_is_refused_at_a_machiavelox_table(server: LiveServer) -> None:
    async def go() -> None:
        a, _, _ = await seated(server, ["A", "B", "C"])
        refused = await a.command("pass")
        assert (refused["type"], refused["code"]) == ("refused", "unknown_command")
        assert "classic" in refused["message"]
        refused = await a.command("move", card="5C", meld="loose", to="new")
        assert (refused["type"], refused["code"]) == ("refused", "bad_field")
        error = await a.command("free", card="5C")  # free needs a meld: malformed
        assert (error["type"], error["code"]) == ("error", "bad_field")
        await a.ok("draw")  # the table plays on
    run(go())


def test_the_protocol_and_errors_docs_name_the_classic_fields_commands_and_codes() -> None:
    docs = Path(__file__).resolve().parents[1] / "docs"
    protocol = (docs / "protocol.md").read_text(encoding="utf-8")
    errors = (docs / "errors.md").read_text(encoding="utf-8")
    for word in ("variant", "size", "rules", "options", "players", "as", "from", '"loose"',
                 *(n for n, spec in CLASSIC_SPECS.items() if spec.by_client)):
        assert f"`{word}`" in protocol, word
    for code in ("unknown_command", "too_many_players", "bad_option"):
        assert f"`{code}`" in protocol and f"`{code}`" in errors, code


def test_a_finished_classic_game_is_recorded_friendly_and_played_again(
        server: LiveServer) -> None:
    out = {"players": ["A", "B"], "hands": {"A": ["7H", "8H", "9H"], "B": ["KC", "QD"]},
           "stock": ["2S", "3S"]}

    async def go() -> None:
        a, b = await seated(server, ["Ada", "Bo"], variant="classic_italian", players=2,
                            position=out, options={"first_turn_out": True})
        await a.ok("lay", cards=["7H", "8H", "9H"])
        ended = await a.ok("end")
        await b.at_version(ended["version"])
        assert b.game is not None and b.game["match"]["over"] and b.game["match"]["winner"] == "Ada"
        code = a.code

        async def record() -> Any:
            games = await server.app.state.store.finished(50)
            return next((g for g in games if g.code == code), None)

        got = None
        for _ in range(50):  # the record is written just after the last frame
            got = await asyncio.wrap_future(
                asyncio.run_coroutine_threadsafe(record(), server.loop))
            if got is not None:
                break
            await asyncio.sleep(0.05)
        assert got is not None, "no FinishedGame for the classic table"
        assert got.agora is False and got.winner == "Ada" and got.end == "out"
        assert got.scores == {"Ada": 20, "Bo": 0}  # C26: the winner scores Bo's 20
        assert got.extra["variant"] == "classic_italian"
        assert got.extra["options"]["max_jokers"] == 1
        async with a.http() as c:
            r = await c.post(f"/api/tables/{code}/again")
            assert r.status_code == 201, r.text
            new = (await c.get(f"/api/tables/{r.json()['code']}")).json()
        assert (new["variant"], new["size"], new["seats"]) == ("classic_italian", 2, ["Ada"])
        assert new["rules"]["first_turn_out"] is True
    run(go())
