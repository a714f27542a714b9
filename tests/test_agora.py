"""The agora (§13, R22) through a real uvicorn and real websockets, on the memory store and on a
real Redis: three queued players are matched, play their hand to the end, and the ranking and
their histories show it. Also: joining twice, leaving, a socket closing, bad tokens, and a
store that answers late (every batch is stored before any socket sees it)."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import Iterator, Sequence
from typing import Any

import httpx
import pytest
from serverhelpers import NO_PROXY, LiveServer, Player, run
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from server.settings import Settings
from server.store import JitterStore, MemoryStore
from server.store.base import EventDicts

#: A's single add of 7C to meld 1 empties A's hand and stock: A goes out (§12) at once.
POSITION = {
    "table": [["4C", "5C", "6C"]],
    "hands": {"A": ["7C"], "B": ["8C", "3H"], "C": ["KD"]},
    "stocks": {"A": [], "B": ["KS"], "C": []},
    "drew": ["A", "B", "C"],
    "laid": ["A", "B", "C"],
}
#: R20: 50 - 0 in stock + 3 cards in the opponents' hands + 10 for the empty stock.
WINNER_POINTS = 63


class AgoraClient:
    """One player's socket to ``/ws/agora``, its frames collected by a reader task."""

    def __init__(self, player: Player) -> None:
        self.player = player
        self.ws: ClientConnection | None = None
        self.frames: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.closed = asyncio.Event()
        self._reader: asyncio.Task[None] | None = None

    async def open(self, token: str | None = None) -> AgoraClient:
        tok = token if token is not None else self.player.token
        url = f"{self.player.server.ws_url}/ws/agora" + (f"?token={tok}" if tok else "")
        self.ws = await connect(url, **NO_PROXY, open_timeout=5, close_timeout=2)
        self._reader = asyncio.get_running_loop().create_task(self._read())
        return self

    async def _read(self) -> None:
        assert self.ws is not None
        try:
            async for raw in self.ws:
                self.frames.put_nowait(json.loads(raw))
        except ConnectionClosed:
            pass
        finally:
            self.closed.set()

    async def send(self, msg: dict[str, Any]) -> None:
        assert self.ws is not None
        await self.ws.send(json.dumps(msg))

    async def next(self, kind: str, timeout: float = 5.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"{self.player.name}: no {kind} frame within {timeout} s")
            try:
                frame = await asyncio.wait_for(self.frames.get(), left)
            except TimeoutError:
                continue
            if frame["type"] == kind:
                return frame

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
        if self._reader is not None:
            await asyncio.wait_for(self._reader, 5)


def settings_for(kind: str, redis_url: str | None) -> Settings:
    extra: dict[str, Any] = {}
    if kind == "redis":
        extra = {"redis_url": redis_url, "redis_prefix": f"agora{uuid.uuid4().hex[:8]}:"}
    return Settings(secret="test", test_deals=True, resume_wait=0, **extra)


@pytest.fixture(params=["memory", "redis"], scope="module")
def server(request: pytest.FixtureRequest) -> Iterator[LiveServer]:
    url = request.getfixturevalue("redis_url") if request.param == "redis" else None
    with LiveServer(settings_for(request.param, url)) as s:
        yield s


async def queue_three(server: LiveServer, names: Sequence[str],
                      position: dict[str, Any] | None = POSITION
                      ) -> tuple[list[Player], list[AgoraClient], list[dict[str, Any]]]:
    """Log in ``names``, queue them in order (the first with the stacked deal); their
    ``matched`` frames."""
    players = [await Player(server, n).register() for n in names]
    clients = [await AgoraClient(p).open() for p in players]
    for i, c in enumerate(clients):
        await c.send({"type": "join", **({"position": position} if i == 0 and position else {})})
        if i < 2:
            queued = await c.next("queued")
            assert queued["position"] == i + 1
    matched = [await c.next("matched") for c in clients]
    return players, clients, matched


async def get(server: LiveServer, path: str, token: str | None = None) -> Any:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx.AsyncClient(base_url=server.url, trust_env=False, timeout=10) as c:
        r = await c.get(path, headers=headers)
        assert r.status_code == 200, r.text
        return r.json()


class TestMatchAndPlay:
    def test_three_queued_players_are_matched_play_and_are_ranked(self, server: LiveServer) -> None:
        async def go() -> None:
            tag = uuid.uuid4().hex[:4]
            names = [f"Ada{tag}", f"Bob{tag}", f"Cy{tag}"]
            players, clients, matched = await queue_three(server, names)
            code = matched[0]["code"]
            assert {m["code"] for m in matched} == {code}
            assert [m["seat"] for m in matched] == names == matched[0]["players"]
            summary = await get(server, f"/api/tables/{code}")
            assert summary["mode"] == "single" and summary["phase"] == "hand"
            for p in players:
                await p.connect(code)
            ada = players[0]
            assert ada.hand == ["7C"]
            ack = await ada.ok("add", card="7C", meld=1)
            for p in players:
                await p.at_version(ack["version"])
                assert p.events("game_ended")

            # R22: the hand's points are in the public ranking, and in each history.
            async def ranked() -> dict[str, Any]:
                for _ in range(100):
                    body = await get(server, "/api/ranking?limit=500")
                    rows = {r["name"]: r for r in body["ranking"] if r["name"] in names}
                    if len(rows) == 3:
                        return rows
                    await asyncio.sleep(0.02)
                raise AssertionError("the ranking never showed the hand")
            rows = await ranked()
            assert rows[names[0]]["points"] == WINNER_POINTS and rows[names[0]]["hands"] == 1
            assert rows[names[1]]["points"] == 0 and rows[names[2]]["points"] == 0
            hist = await get(server, "/api/players/me/history", ada.token)
            (hand,) = hist["hands"]
            assert hand["points"] == WINNER_POINTS and hand["result"] == "won"
            assert hand["code"] == code and hand["players"] == names
            assert hand["date"].endswith("+00:00")
            assert hist["rank"]["points"] == WINNER_POINTS
            bob_id = rows[names[1]]["player_id"]
            bob = await get(server, f"/api/players/{bob_id}/history")
            assert [h["result"] for h in bob["hands"]] == ["lost"]
            async with httpx.AsyncClient(base_url=server.url, trust_env=False, timeout=10) as c:
                r = await c.get("/api/players/g:nobody-ever/history")
            assert (r.status_code, r.json()["code"]) == (404, "no_such_player")

            # The finished hand's log is kept and readable, without private fields.
            hands = (await get(server, "/api/hands?limit=500"))["hands"]
            (record,) = [h for h in hands if h["code"] == code]
            assert record["agora"] and record["winner"] == names[0] and record["end"] == "out"
            log = await get(server, f"/api/hands/{record['log_id']}")
            versions = [b["version"] for b in log["batches"]]
            assert versions == sorted(versions) and versions[-1] == record["head"]
            kinds = [e["kind"] for b in log["batches"] for e in b["events"]]
            assert "went_out" in kinds and kinds[-1] == "game_ended"
            assert all("private" not in e for b in log["batches"] for e in b["events"])
            for p in players:
                await p.close()
            for c in clients:
                await c.close()
        run(go())

    def test_an_unknown_finished_hand_is_404(self, server: LiveServer) -> None:
        r = httpx.get(f"{server.url}/api/hands/NOPE-0000", trust_env=False)
        assert r.status_code == 404 and r.json()["code"] == "no_such_hand"


class TestQueue:
    def test_joining_twice_keeps_the_place_and_leave_leaves(self, server: LiveServer) -> None:
        async def go() -> None:
            p = await Player(server, "Twice").register()
            c = await AgoraClient(p).open()
            await c.send({"type": "join"})
            assert (await c.next("queued"))["position"] == 1
            await c.send({"type": "join"})
            assert (await c.next("queued"))["position"] == 1
            assert (await get(server, "/api/agora"))["waiting"] == 1
            await c.send({"type": "leave"})
            await c.next("left")
            assert (await get(server, "/api/agora"))["waiting"] == 0
            await c.send({"type": "ping"})
            await c.next("pong")
            await c.close()
        run(go())

    def test_a_closed_socket_leaves_the_queue(self, server: LiveServer) -> None:
        async def go() -> None:
            ps = [await Player(server, n).register() for n in ("Stay", "Goes", "Late")]
            stay, goes, late = [await AgoraClient(p).open() for p in ps]
            await stay.send({"type": "join"})
            await stay.next("queued")
            await goes.send({"type": "join"})
            assert (await goes.next("queued"))["position"] == 2
            await goes.close()
            # Stay hears the queue shrink; Late joins second and nobody is matched.
            for _ in range(50):
                if (await get(server, "/api/agora"))["waiting"] == 1:
                    break
                await asyncio.sleep(0.02)
            await late.send({"type": "join"})
            assert (await late.next("queued"))["position"] == 2
            assert (await get(server, "/api/agora"))["waiting"] == 2
            with pytest.raises(AssertionError):
                await stay.next("matched", timeout=0.3)
            for c in (stay, late):
                await c.close()
            for _ in range(50):
                if (await get(server, "/api/agora"))["waiting"] == 0:
                    break
                await asyncio.sleep(0.02)
            assert (await get(server, "/api/agora"))["waiting"] == 0
        run(go())

    def test_a_token_is_needed_and_test_deals_are_checked(self, server: LiveServer) -> None:
        async def go() -> None:
            p = await Player(server, "NoTok").register()
            c = await AgoraClient(p).open(token="")
            await asyncio.wait_for(c.closed.wait(), 5)
            assert c.ws is not None and c.ws.close_code == 4401
            c = await AgoraClient(p).open()
            await c.send({"type": "join", "position": {"players": ["A"]}})
            assert (await c.next("error"))["code"] == "bad_field"
            await c.send({"type": "dance"})
            assert (await c.next("error"))["code"] == "unknown_type"
            assert (await get(server, "/api/agora"))["waiting"] == 0
            await c.close()
        run(go())


def test_test_deals_are_refused_on_a_normal_server() -> None:
    with LiveServer(Settings(secret="test", resume_wait=0)) as server:
        async def go() -> None:
            p = await Player(server, "X").register()
            c = await AgoraClient(p).open()
            await c.send({"type": "join", "seed": 3})
            assert (await c.next("error"))["code"] == "test_deals_off"
            await c.close()
        run(go())


class StampingStore(JitterStore):
    """A jittery store that notes when each version of each log was stored."""

    def __init__(self) -> None:
        super().__init__(MemoryStore(), max_delay=0.004, seed=5)
        self.stored_at: dict[tuple[str, int], float] = {}

    async def append_batches(self, log_id: str, batches: Sequence[tuple[int, EventDicts]]) -> None:
        await super().append_batches(log_id, batches)
        now = time.perf_counter()
        for version, _ in batches:
            self.stored_at[(log_id, version)] = now


def test_every_batch_is_stored_before_any_socket_sees_it() -> None:
    """STYLE 14: a store that answers late, at random; frames still follow the store."""
    store = StampingStore()
    server = LiveServer(Settings(secret="test", test_deals=True, resume_wait=0))
    server.app.state.store = store
    with server:
        async def go() -> None:
            seen: dict[int, float] = {}
            players, clients, matched = await queue_three(server, ["A", "B", "C"], position={
                **POSITION, "hands": {"A": ["7C", "2S"], "B": ["8C", "3H"], "C": ["KD"]}})
            code = matched[0]["code"]
            for p in players:
                await p.connect(code)
            a, b, c = players
            for p in players:
                p.frames.clear()

            def stamp(frame: dict[str, Any]) -> bool:
                if frame["type"] == "update":
                    seen.setdefault(frame["version"], time.perf_counter())
                return False
            for _ in range(6):
                await a.ok("stage", card="2S")
                await a.ok("unstage", card="2S")
            await b.ok("stage", card="8C")
            await c.ok("stage", card="KD")
            for p in players:
                for f in list(p.frames):
                    stamp(f)
            table = server.table(code)
            assert seen and table.log_id
            for version, t_seen in seen.items():
                assert store.stored_at[(table.log_id, version)] <= t_seen, version
            stored = await server.atable_call(code, lambda t: t.events.head)
            assert max(seen) == stored
            for p in players:
                await p.close()
            for cl in clients:
                await cl.close()
        run(go())
    assert store.calls > 0


def test_a_store_that_fails_does_not_stop_the_game() -> None:
    class Broken(MemoryStore):
        async def append_batches(self, log_id: str,
                                 batches: Sequence[tuple[int, EventDicts]]) -> None:
            raise ConnectionError("store down")

    server = LiveServer(Settings(secret="test", test_deals=True, resume_wait=0))
    server.app.state.store = Broken()
    with server:
        async def go() -> None:
            players, clients, matched = await queue_three(server, ["A", "B", "C"])
            for p in players:
                await p.connect(matched[0]["code"])
            ack = await players[0].ok("add", card="7C", meld=1)
            await players[1].at_version(ack["version"])
            assert players[1].events("game_ended")
            metrics = (await get_text(server, "/metrics"))
            assert 'machiavelox_store_errors_total{op="append"}' in metrics
            for p in players:
                await p.close()
            for cl in clients:
                await cl.close()
        run(go())


async def get_text(server: LiveServer, path: str) -> str:
    async with httpx.AsyncClient(base_url=server.url, trust_env=False, timeout=10) as c:
        r = await c.get(path)
        return r.text


def test_agora_codes_are_documented() -> None:
    import typing
    from pathlib import Path

    from server.agora import AgoraErrorOut
    from server.errors import CLOSE_POLICY_VIOLATION

    doc = (Path(__file__).resolve().parents[1] / "docs" / "protocol.md").read_text("utf-8")
    agora = doc[doc.index("## Agora"):]
    codes = typing.get_args(AgoraErrorOut.model_fields["code"].annotation)
    missing = [c for c in (*codes, "no_such_hand", "queued", "matched", "left")
               if f"`{c}`" not in agora and f'"{c}"' not in agora]
    assert not missing, missing
    assert str(CLOSE_POLICY_VIOLATION) in doc
