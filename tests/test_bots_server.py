"""Bots against a real server: websocket bots with a scripted client, bot seats run by the
server, hints, and ``machiavelox demo`` in a subprocess. Every wait is bounded."""

from __future__ import annotations

import asyncio
import json
import os
import queue
import re
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from serverhelpers import LiveServer, Player, run, seated, updates_with

from bots.brain import Brain
from bots.client import BotPlayer, join_table, new_session, websocket_connector
from bots.pace import Pace
from bots.plans import ADVICE
from server.bots import HINT_REFUSALS, bot_seats
from server.settings import Settings

ROOT = Path(__file__).resolve().parents[1]
TIMERS = {"play": 10, "hold": 3, "inactivity": 3, "freeze": 20, "absence": 30, "tiebreak": 5}

# The creator (A) is scripted; B is a casual bot, which cannot go out; C is a shark, which can,
# but only by taking 4C out of the run (and calls Stop! to do it alone).
POSITION = {
    "table": [["4C", "5C", "6C", "7C"], ["9H", "10H", "JH"]],
    "hands": {"A": ["2S"], "B": ["KD", "KH", "2C"], "C": ["4D", "4H"]},
    "stocks": {"A": ["3D"], "B": ["QC"], "C": []},
    "drew": ["A", "B", "C"], "laid": ["A", "B", "C"],
}


@pytest.fixture(scope="module")
def server() -> Any:
    with LiveServer(Settings(test_deals=True, secret="bots-tests")) as srv:
        yield srv


async def wait_result(p: Player, timeout: float = 20.0) -> dict[str, Any]:
    frame = await p.next(lambda f: f["type"] == "update" and f["game"] is not None
                         and f["game"]["hand"] is not None
                         and f["game"]["hand"]["result"] is not None, timeout)
    result: dict[str, Any] = frame["game"]["hand"]["result"]
    return result


def test_two_websocket_bots_and_a_scripted_client_play_a_hand_to_its_end(server: LiveServer) -> None:
    async def scenario() -> None:
        ada = await Player(server, "Ada").login()
        code = await ada.create("single", position=POSITION, timers=TIMERS)
        tokens, bots = [], []
        for level in ("casual", "shark"):
            token = await new_session(server.url, f"{level} bot")
            await join_table(server.url, token, code)
            tokens.append(token)
            bots.append(BotPlayer(Brain(level, step_time=0.1), reaction=0.05, name=level,
                                  max_seconds=30))
        await ada.connect(code)
        # The scripted player draws its one card before the bots start (the shark may call
        # Stop! at once, which freezes everyone else), then watches.
        drew = await ada.command("draw")
        assert drew["type"] == "ack", drew
        tasks = [asyncio.ensure_future(b.run(websocket_connector(server.url, code, t)))
                 for b, t in zip(bots, tokens)]
        result = await wait_result(ada)
        reports = await asyncio.wait_for(asyncio.gather(*tasks), 15)
        casual, shark = reports
        assert result["end"] == "out" and result["winner"] == shark.seat, result
        assert ada.events("stop") and ada.events("went_out")
        for r in reports:
            assert r.over and r.reason == "game over", r
            assert r.game is not None and r.game["phase"] == "over"
        # The shark stopped the game, rearranged (stage, move, place) and went out, refused
        # nothing; the bots saw only their own hands.
        assert shark.refused == 0 and shark.stats.get("ack:stop") == 1
        assert shark.stats.get("ack:move") == 1 and shark.stats.get("ack:place") == 2
        assert casual.game is not None and casual.game["hand"]["you"] == casual.seat

    run(scenario(), 45)


def test_a_bot_whose_socket_drops_resumes_and_plays_on(server: LiveServer) -> None:
    async def scenario() -> None:
        ada = await Player(server, "Ada").login()
        code = await ada.create("single", position=POSITION, timers=TIMERS)
        tokens = []
        for name in ("Bob", "Shark"):
            token = await new_session(server.url, name)
            await join_table(server.url, token, code)
            tokens.append(token)
        shark = BotPlayer(Brain("shark", step_time=0.5), reaction=0.4, name="shark",
                          max_seconds=30)
        await ada.connect(code)
        task = asyncio.ensure_future(shark.run(websocket_connector(server.url, code, tokens[1])))
        await ada.next(updates_with("stop"), 10)

        def cut(t: Any) -> int:
            conns = [c for c in t.conns.values() if c.seat == "Shark"]
            for c in conns:
                c.drop("test")
            return len(conns)

        assert await server.atable_call(code, cut) == 1
        result = await wait_result(ada)
        report = await asyncio.wait_for(task, 15)
        assert result["winner"] == "Shark" and result["end"] == "out"
        assert report.reconnects >= 1 and report.over
        # Connected within CONNECT_GRACE of the deal (no notice), then back after the cut:
        # one reconnection in the game.
        assert [e["player"] for e in ada.events("reconnected")].count("Shark") == 1

    run(scenario(), 45)


def test_server_bot_seats_fill_a_friendly_table(server: LiveServer) -> None:
    async def scenario() -> None:
        ada = await Player(server, "Ada").login()
        async with ada.http() as c:
            r = await c.post("/api/tables", json={
                "mode": "single", "position": POSITION, "timers": TIMERS,
                "bots": {"level": "casual", "count": 1, "reaction": 0.05}})
            assert r.status_code == 200, r.text
            body = r.json()
            code = body["code"]
            assert body["bots"] == ["Casual bot"] and body["seat"] == "Ada"
            stranger = await Player(server, "Zed").login()
            async with stranger.http() as z:
                r = await z.post(f"/api/tables/{code}/bots", json={"level": "shark"})
                assert r.status_code == 403 and r.json()["code"] == "not_seated"
            r = await c.post(f"/api/tables/{code}/bots", json={"level": "shark", "count": 2})
            assert r.status_code == 409 and r.json()["code"] == "table_full"
            r = await c.post(f"/api/tables/{code}/bots", json={"level": "expert"})
            assert r.status_code == 422
            r = await c.post(f"/api/tables/{code}/bots",
                             json={"level": "shark", "count": 1, "reaction": 0.05})
            assert r.status_code == 200, r.text
            assert r.json()["bots"] == ["Shark bot"]
            assert r.json()["seats"] == ["Ada", "Casual bot", "Shark bot"]
        ada.code = code
        await ada.connect(code)
        result = await wait_result(ada)
        assert result["winner"] == "Shark bot" and result["end"] == "out"
        # The bots leave when the game is over.
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            players = await server.atable_call(code, lambda t: dict(bot_seats(server.app).players))
            if not any(k.startswith(code) for k in players):
                break
            await asyncio.sleep(0.1)
        else:
            raise AssertionError("the bots did not leave")
        async with ada.http() as c:
            r = await c.post(f"/api/tables/{code}/bots", json={"level": "casual"})
            assert r.status_code == 409

    run(scenario(), 45)


def test_hint_returns_a_legal_suggestion(server: LiveServer) -> None:
    async def scenario() -> None:
        position = dict(POSITION, hands={"A": ["4D", "4H", "KD"], "B": ["2S"], "C": ["3S"]},
                        stocks={"A": ["QS"], "B": [], "C": []})
        ada, bob, _cy = await seated(server, ["Ada", "Bob", "Cy"], position=position,
                                    timers=TIMERS)
        await ada.send({"type": "hint", "id": "h1"})
        hint = await ada.next(lambda f: f.get("id") == "h1")
        assert hint["type"] == "hint", hint
        assert hint["cards"] == ["4D", "4H"] and hint["melds"] == [1] and hint["moved"] == 1
        assert hint["version"] == ada.version
        # Carried out as it says, every step is accepted and the table ends valid.
        made: dict[str, int] = {}
        for step in hint["steps"]:
            fields = {k: made.get(v, v) if k in ("meld", "to") else v
                      for k, v in step.items() if k not in ("do", "creates")}
            reply = await ada.command(step["do"], **fields)
            assert reply["type"] == "ack", (step, reply)
            if "creates" in step:
                made[step["creates"]] = ada.events("moved")[-1]["to"]
        table = ada.game["hand"]["table"]
        assert all(m["valid"] for m in table)
        assert sorted(sorted(m["cards"]) for m in table) == [
            ["10H", "9H", "JH"], ["4C", "4D", "4H"], ["5C", "6C", "7C"]]
        # Nothing to put down now: draw.
        await ada.send({"type": "hint", "id": "h2"})
        hint = await ada.next(lambda f: f.get("id") == "h2")
        assert hint["steps"] == [{"do": "draw"}] and hint["cards"] == []
        # A spectator, a table still filling, an agora table: refused.
        watcher = await Player(server, "Wat").login()
        await watcher.connect(ada.code)
        await watcher.send({"type": "hint", "id": "w1"})
        assert (await watcher.next(lambda f: f.get("id") == "w1"))["code"] == "not_seated"
        solo = await Player(server, "Solo").login()
        await solo.connect(await solo.create("single"))
        await solo.send({"type": "hint", "id": 7})
        assert (await solo.next(lambda f: f.get("id") == 7))["code"] == "not_started"

        def make_agora(t: Any) -> None:
            t.agora = True

        await server.atable_call(ada.code, make_agora)
        await bob.send({"type": "hint", "id": "b1"})
        refused = await bob.next(lambda f: f.get("id") == "b1")
        assert refused["type"] == "refused" and refused["code"] == "no_hints"
        assert refused["message"] == HINT_REFUSALS["no_hints"]
        await bob.send({"type": "hint"})
        assert (await bob.next(lambda f: f["type"] == "error"))["code"] == "bad_field"

    run(scenario(), 30)


def test_demo_starts_a_server_and_prints_a_link_to_a_free_seat() -> None:
    env = dict(os.environ, MACHIAVELOX_LOG_LEVEL="WARNING", PYTHONUNBUFFERED="1")
    env.pop("MACHIAVELOX_REDIS_URL", None)
    proc = subprocess.Popen([sys.executable, "-m", "server", "demo", "--port", "0"], cwd=ROOT,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines: queue.Queue[str] = queue.Queue()

    def pump() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put(line)

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    try:
        url = None
        out = []
        deadline = time.monotonic() + 30
        while url is None and time.monotonic() < deadline:
            try:
                line = lines.get(timeout=0.5)
            except queue.Empty:
                assert proc.poll() is None, "".join(out)
                continue
            out.append(line)
            m = re.search(r"(http://127\.0\.0\.1:\d+)/t/([A-Z0-9]+)", line)
            if m:
                url, code = m.group(0), m.group(2)
                base = m.group(1)
        assert url is not None, "no link printed: " + "".join(out)
        with httpx.Client(trust_env=False, timeout=10) as c:
            page = c.get(url)
            assert page.status_code == 200 and "<html" in page.text.lower()
            summary = c.get(f"{base}/api/tables/{code}").json()
            assert summary["phase"] == "waiting" and summary["mode"] == "single"
            assert summary["seats"] == ["Casual bot", "Casual bot 2"]
            assert summary["online"] == summary["seats"]
            # The newcomer takes the free seat as the page does: a session, then join.
            token = c.post(f"{base}/api/session", json={"name": "Newcomer"}).json()["token"]
            seat = c.post(f"{base}/api/tables/{code}/join",
                          headers={"Authorization": f"Bearer {token}"}).json()["seat"]
            assert seat == "Newcomer"
            assert c.get(f"{base}/api/tables/{code}").json()["phase"] == "hand"
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
        reader.join(10)  # the pipe is at its end once the process has gone
        assert proc.stdout is not None
        proc.stdout.close()


def test_bot_and_hint_codes_have_words_and_docs() -> None:
    protocol = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
    i18n = "".join((ROOT / "web" / "lang" / f"{lang}.js").read_text(encoding="utf-8")
                   for lang in ("en", "it", "nl"))
    for code in [*HINT_REFUSALS, "no_bots"]:
        assert f"`{code}`" in protocol, code
    for code in HINT_REFUSALS:
        assert len(re.findall(rf'"ref\.{code}":', i18n)) == 3, code  # en, it, nl
    for code in ADVICE:  # the hint's advice: documented, and a sentence with its cards
        assert f"`{code}`" in protocol, code
        assert len(re.findall(rf'"hint\.advice\.{code}": "[^"]*\{{cards\}}', i18n)) == 3, code
    assert json.loads(json.dumps(HINT_REFUSALS))


def test_hint_advice_over_the_server(server: LiveServer) -> None:
    async def scenario() -> None:
        # Ada has drawn but laid nothing: 9S fits the spade run; 5H 5D stay for her own meld.
        table = [["6H", "7H", "8H"], ["10S", "JS", "QS"]]
        position = {"table": table, "hands": {"A": ["5H", "5D", "9S"], "B": ["2S"], "C": ["3S"]},
                    "stocks": {"A": ["5S", "2D"], "B": [], "C": []}, "drew": ["A", "B", "C"],
                    "laid": ["B", "C"]}
        ada, _bob, _cy = await seated(server, ["Ada", "Bob", "Cy"], position=position,
                                      timers=TIMERS)

        async def hint(hid: str) -> dict[str, Any]:
            await ada.send({"type": "hint", "id": hid})
            frame: dict[str, Any] = await ada.next(lambda f: f.get("id") == hid)
            assert frame["type"] == "hint", frame
            return frame

        h = await hint("a1")
        assert h["advice"] == {"code": "hold_back", "cards": ["5D", "5H"]}, h
        assert h["steps"] == [{"do": "add", "card": "9S", "meld": 2}]
        assert (await ada.command("add", card="9S", meld=2))["type"] == "ack"
        h = await hint("a2")  # nothing else to put down: draw, and keep the pair
        assert h["steps"] == [{"do": "draw"}] and h["advice"]["code"] == "hold_back", h
        assert (await ada.command("draw"))["type"] == "ack"  # 5S: the meld is there
        h = await hint("a3")
        assert h["advice"]["code"] == "go_out", h  # laying it empties the hand: out
        assert sorted(h["cards"]) == ["5D", "5H", "5S"] and h["steps"][-1]["do"] == "lay"
        for step in h["steps"]:
            fields = {k: v for k, v in step.items() if k not in ("do", "creates")}
            reply = await ada.command(step["do"], **fields)
            assert reply["type"] == "ack", step
        await ada.at_version(reply["version"])
        result = ada.game["hand"]["result"]
        assert result["end"] == "out" and result["winner"] == "Ada", result

    run(scenario(), 30)


def test_the_bots_endpoint_takes_a_pace(server: LiveServer) -> None:
    async def scenario() -> None:
        ada = await Player(server, "Ada").login()
        async with ada.http() as c:
            code = (await c.post("/api/tables", json={"mode": "long"})).json()["code"]
            r = await c.post(f"/api/tables/{code}/bots",
                             json={"level": "casual", "pace": "human", "reaction": 0.5})
            assert r.status_code == 422 and r.json()["code"] == "bad_field", r.text
            r = await c.post(f"/api/tables/{code}/bots", json={"level": "casual", "pace": "slow"})
            assert r.status_code == 422
            assert (await c.post(f"/api/tables/{code}/bots", json={"level": "casual"})).is_success
            assert (await c.post(f"/api/tables/{code}/bots",
                                 json={"level": "shark", "pace": "none"})).is_success

        def paces(t: Any) -> list[tuple[str, float | None]]:
            return sorted(t.bot_levels.values())

        # What the browser sends (no pace, no reaction) seats a bot at the human pace (kept as
        # a reaction of None, so a take-over restarts it so); "none" gets the 0.8 s reaction.
        assert await server.atable_call(code, paces) == [("casual", None), ("shark", 0.8)]
        players = bot_seats(server.app).players
        bots = {k.split("/")[1]: b for k, b in players.items() if k.startswith(code)}
        assert bots["Casual bot"].pace.human and bots["Casual bot"].pace.level == "casual"
        assert not bots["Shark bot"].pace.human and bots["Shark bot"].pace.reaction == 0.8

    run(scenario(), 30)


def test_a_bot_at_a_human_pace_never_draws_in_bursts(server: LiveServer) -> None:
    """A casual bot with nothing to play, its pace's times divided by 20: it reacts no sooner
    than 3 s / 20 and its draws are at least 6 s / 20 apart (at pace none: milliseconds)."""
    scale = 20.0
    position = {"table": [["4C", "5C", "6C", "7C"]],
                "hands": {"A": ["2S"], "B": ["KD"], "C": ["3S"]},
                "stocks": {"A": [], "B": ["9H", "2D", "QS", "8D", "JH", "3H", "10D", "AS"],
                           "C": []},
                "drew": ["A", "B", "C"], "laid": ["A", "B", "C"]}

    async def scenario() -> None:
        ada = await Player(server, "Ada").login()
        code = await ada.create("single", position=position, timers=dict(TIMERS, inactivity=30))
        cy = await Player(server, "Cy").login()
        token = await new_session(server.url, "Bob")
        await join_table(server.url, token, code)
        await cy.join(code)
        sent: list[tuple[float, str]] = []
        views: list[float] = []

        def watch(t: float, game: Any, cmd: Any) -> None:
            if cmd is None:
                views.append(t)
            else:
                sent.append((t, cmd["do"]))

        pace = Pace("human", "casual", seed=9, scale=scale)
        bob = BotPlayer(Brain("casual", step_time=pace.step_time()), name="Bob", pace=pace,
                        max_seconds=20, watch=watch)
        await ada.connect(code)
        await cy.connect(code)
        task = asyncio.ensure_future(bob.run(websocket_connector(server.url, code, token)))
        await asyncio.sleep(4.0)
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        draws = [t for t, do in sent if do == "draw"]
        assert len(draws) >= 3, sent
        assert sent[0][0] - views[0] >= 3.0 / scale - 0.01, (sent, views[:3])
        gaps = [b - a for a, b in zip(draws, draws[1:])]
        assert min(gaps) >= 6.0 / scale - 0.01, gaps
        assert max(gaps) <= (8.0 + 14.0 + 1.0) / scale + 0.5, gaps  # and it does draw

    run(scenario(), 30)
