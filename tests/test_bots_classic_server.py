"""Classic bots on a real server (issue 16): bot seats the server runs in process and a bot over
a real websocket play a classic hand to its end; a hint at a classic table is the shark's turn
as steps the server accepts, and is refused off turn. Every wait is bounded."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
from serverhelpers import LiveServer, Player, run

from bots.classic_brain import ClassicBrain
from bots.client import BotPlayer, websocket_connector
from bots.pace import Pace
from server.settings import Settings


@pytest.fixture(scope="module")
def server() -> Any:
    with LiveServer(Settings(test_deals=True, secret="classic-bots-tests")) as srv:
        yield srv


async def add_bots(p: Player, code: str, **body: Any) -> list[str]:
    async with p.http() as c:
        r = await c.post(f"/api/tables/{code}/bots", json=body)
        assert r.status_code == 200, r.text
        seats: list[str] = r.json()["bots"]
        return seats


def server_bots(server: LiveServer, code: str) -> dict[str, BotPlayer]:
    bots: dict[str, BotPlayer] = server.app.state.bots.players
    return {k.split("/", 1)[1]: b for k, b in bots.items() if k.startswith(code + "/")}


def test_a_bot_filled_classic_table_plays_a_hand_to_its_end(server: LiveServer) -> None:
    async def scenario() -> None:
        ada = await Player(server, "Ada").login()
        code = await ada.create("single", variant="classic", players=4, seed=11,
                                options={"hand": 7},
                                bots={"level": "shark", "count": 2, "pace": "none",
                                      "reaction": 0})
        seated = await add_bots(ada, code, level="casual", count=1, pace="none", reaction=0)
        assert len(seated) == 1
        inside = server_bots(server, code)
        assert len(inside) == 3 and all(isinstance(b.brain, ClassicBrain) for b in inside.values())
        # Ada's own seat: a casual bot over a real websocket, as a script would run it.
        assert ada.token is not None
        mine = BotPlayer(ClassicBrain("casual", seed=3), pace=Pace("none"), name="ada")
        report = await asyncio.wait_for(
            mine.run(websocket_connector(server.url, code, ada.token)), 60)
        assert report.over and report.reason == "game over", report
        game = report.game
        assert game is not None and game["result"] is not None
        assert game["result"]["end"] in ("out", "dead", "stock_out"), game["result"]
        assert game["match"]["over"] is True
        assert report.refused == 0 and report.commands > 0
        assert report.stats.get("ack:end", 0) + report.stats.get("ack:draw", 0) > 0
        for seat, bot in inside.items():
            assert bot.report.refused == 0, (seat, bot.brain.stats)
        async with ada.http() as c:
            summary = (await c.get(f"/api/tables/{code}")).json()
        assert summary["variant"] == "classic" and summary["size"] == 4

    run(scenario(), 90)


# B (Bob) plays first and draws; then A (Ada), who goes out only by taking 7H from the run
# 7H 8H 9H 10H for 7C 7D, and QC onto the queens.
POSITION = {
    "table": [["7H", "8H", "9H", "10H"], ["QS", "QH", "QD"]],
    "hands": {"A": ["7C", "7D", "QC"], "B": ["2C", "9D", "KD"]},
    "stock": ["3S", "4S", "5S"],
    "turn": "B",
}


def test_a_hint_at_a_classic_table_is_the_sharks_turn(server: LiveServer) -> None:
    async def scenario() -> None:
        ada = await Player(server, "Ada").login()
        code = await ada.create("single", variant="classic", players=2, position=POSITION)
        bob = await Player(server, "Bob").login()
        await bob.join(code)
        await ada.connect(code)
        await bob.connect(code)
        await ada.next(lambda f: f["type"] in ("snapshot", "update") and f["game"] is not None
                       and f["game"]["turn"] is not None, 10)
        await ada.send({"type": "hint", "id": "h1"})
        off = await ada.next(lambda f: f.get("id") == "h1", 10)
        assert off["type"] == "refused" and off["code"] == "hint_not_your_turn", off
        assert off["message"] == "Hints come on your turn: it is not your turn now."
        await bob.ok("draw")
        await ada.next(lambda f: f["type"] == "update" and f["game"]["turn"] is not None
                       and f["game"]["turn"]["player"] == ada.seat, 15)
        await ada.send({"type": "hint", "id": "h2"})
        hint = await ada.next(lambda f: f.get("id") == "h2", 10)
        assert hint["type"] == "hint", hint
        assert sorted(hint["cards"]) == ["7C", "7D", "QC"]
        assert hint["moved"] == 1 and 1 in hint["melds"]
        assert hint["advice"] == {"code": "go_out", "cards": hint["cards"]}
        assert hint["steps"][-1] == {"do": "end"}
        bound: dict[str, int] = {}
        for step in hint["steps"]:
            cmd = {k: (bound.get(v, v) if k in ("meld", "to") else v)
                   for k, v in step.items() if k != "creates"}
            reply = await ada.ok(cmd.pop("do"), **cmd)
            if "creates" in step:
                bound[step["creates"]] = reply["made"]["meld"]
        await ada.at_version(reply["version"], 10)
        assert ada.game is not None and ada.game["result"] is not None
        assert ada.game["result"]["winner"] == ada.seat and ada.game["result"]["end"] == "out"

    run(scenario(), 60)


def test_bots_at_a_classic_table_need_a_free_seat(server: LiveServer) -> None:
    async def scenario() -> None:
        ada = await Player(server, "Ada").login()
        async with ada.http() as c:
            r = await c.post("/api/tables", json={"mode": "single", "variant": "classic",
                                                  "players": 2,
                                                  "bots": {"level": "shark", "count": 2}})
        assert r.status_code == 422, r.text
        code = await ada.create("single", variant="classic_dutch", players=3)
        async with httpx.AsyncClient(base_url=server.url,
                                     headers={"Authorization": f"Bearer {ada.token}"},
                                     trust_env=False) as c:
            r = await c.post(f"/api/tables/{code}/bots", json={"level": "shark", "count": 3})
        assert r.status_code == 409, r.text

    run(scenario(), 30)


def test_a_classic_bot_at_the_human_pace_thinks_then_steps(server: LiveServer) -> None:
    """Pace human (scaled 10x down): a person's reaction before the turn's first command, then a
    person's step time between the commands of the turn (bots.pace), over a real websocket."""
    scale = 10.0
    position = {**POSITION, "turn": "A"}

    async def scenario() -> None:
        ada = await Player(server, "Ada").login()
        code = await ada.create("single", variant="classic", players=2, position=position,
                                bots={"level": "casual", "count": 1, "pace": "none",
                                      "reaction": 0})
        sent: list[tuple[float, str]] = []
        first_view: list[float] = []

        def watch(t: float, game: dict[str, Any] | None, cmd: dict[str, Any] | None) -> None:
            if cmd is not None:
                sent.append((t, cmd["do"]))
            elif game is not None and not first_view:
                first_view.append(t)

        pace = Pace("human", "shark", seed=1, scale=scale)
        brain = ClassicBrain("shark", step_time=pace.step_time(), budget=1.0)
        bot = BotPlayer(brain, pace=pace, name="ada", watch=watch)
        assert ada.token is not None
        report = await asyncio.wait_for(
            bot.run(websocket_connector(server.url, code, ada.token)), 30)
        assert report.over and report.refused == 0, report
        assert [do for _, do in sent] == ["move", "add", "add", "add", "end"]
        assert sent[0][0] - first_view[0] >= 1.5 / scale  # shark's reaction: 1.5-5 s
        gaps = [b[0] - a[0] for a, b in zip(sent, sent[1:])]
        assert min(gaps) >= 0.6 / scale, gaps  # a step: 0.6-1.4 s
        assert report.game is not None and report.game["result"]["winner"] == "Ada"

    run(scenario(), 40)
