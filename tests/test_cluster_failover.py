"""Issue 13: hands survive their process. Three real server processes on a real redis-server
(append-only, fsync always) behind real HAProxy (``deploy/haproxy.cfg``). Tables are played
by websocket clients through the proxy (``bots.client.BotPlayer`` over ``WebSocketLink``,
which reconnect by themselves) and by the server's own bot seats; then the owner is killed
(SIGKILL), paused past its lease (SIGSTOP) or Redis itself is killed and restarted. Each
time: every command a client saw acknowledged is in the table's log under the version its ack
named, the log holds no command nobody sent, none twice, and play resumes within 30 s."""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import time
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from clusterhelpers import Cluster, cluster, restart_dead
from serverhelpers import NO_PROXY

from bots.brain import Brain
from bots.client import BotPlayer, Link, websocket_connector

pytestmark = pytest.mark.slow

RESUME_BOUND = 30.0
# The whole of one test: above the sum of its waits (30 s to start, then up to three resume
# bounds), so that a slow machine fails on the wait that was slow, with its sentence.
TEST_BOUND = 30.0 + 3 * RESUME_BOUND + 20.0
__all__ = ["cluster"]  # the shared fixture


@dataclass
class Seen:
    """What one client sent and saw acknowledged: command id -> version."""

    sent: set[str] = field(default_factory=set)
    acked: dict[str, int] = field(default_factory=dict)
    acked_at: list[float] = field(default_factory=list)


class RecordingLink:
    """A link that notes the commands sent and the acks received."""

    def __init__(self, inner: Link, seen: Seen) -> None:
        self.inner = inner
        self.seen = seen

    async def send(self, text: str) -> None:
        msg = json.loads(text)
        if msg.get("type") == "command":
            self.seen.sent.add(str(msg["id"]))
        await self.inner.send(text)

    async def recv(self) -> str:
        text = await self.inner.recv()
        msg = json.loads(text)
        if msg.get("type") == "ack":
            self.seen.acked[str(msg["id"])] = int(msg["version"])
            self.seen.acked_at.append(time.monotonic())
        return text

    async def close(self) -> None:
        await self.inner.close()


def _post(c: Cluster, path: str, token: str | None = None, body: Any = None) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    for _ in range(50):  # a table moving between processes answers 503 for a moment
        r = httpx.post(c.url + path, json=body or {}, headers=headers, trust_env=False,
                       timeout=10)
        if r.status_code != 503:
            break
        time.sleep(0.2)
    assert r.status_code == 200, r.text
    return dict(r.json())


def session(c: Cluster, name: str) -> str:
    return str(_post(c, "/api/session", body={"name": name})["token"])


def account(c: Cluster, name: str, password: str = "correct horse battery") -> str:
    """A session token of the account ``name`` (registered, or logged in to when an earlier
    test of the shared cluster registered it)."""
    r = httpx.post(c.url + "/api/accounts", json={"name": name, "password": password},
                   trust_env=False, timeout=10)
    if r.status_code == 409:
        r = httpx.post(c.url + "/api/login", json={"name": name, "password": password},
                       trust_env=False, timeout=10)
    assert r.status_code == 200, r.text
    return str(r.json()["token"])


def human_table(c: Cluster, seed: int) -> tuple[str, list[str]]:
    tokens = [session(c, n) for n in ("Ada", "Bea", "Cy")]
    code = str(_post(c, "/api/tables", tokens[0], {"mode": "long", "seed": seed})["code"])
    for t in tokens[1:]:
        _post(c, f"/api/tables/{code}/join", t)
    return code, tokens


def bot_table(c: Cluster) -> tuple[str, str]:
    token = session(c, "Dee")
    code = str(_post(c, "/api/tables", token, {"mode": "long", "seed": 7,
                                                 "bots": {"count": 2, "reaction": 0.15}})["code"])
    return code, token


class Players:
    """BotPlayers as websocket clients through the proxy, each recording what it saw."""

    def __init__(self, c: Cluster) -> None:
        self.c = c
        self.seen: dict[str, Seen] = {}
        self.tasks: list[asyncio.Task[Any]] = []

    def start(self, code: str, tokens: list[str], level: str = "casual") -> None:
        for i, token in enumerate(tokens):
            seen = self.seen.setdefault(f"{code}/{i}", Seen())
            base = websocket_connector(self.c.url, code, token)

            async def connect(base: Any = base, seen: Seen = seen) -> Link:
                return RecordingLink(await base(), seen)

            bot = BotPlayer(Brain(level, step_time=0.2, start_grace=2.0), reaction=0.15,
                            name=f"client{i}", seed=i, max_seconds=120)
            self.tasks.append(asyncio.get_running_loop().create_task(bot.run(connect)))

    def acked(self, code: str) -> dict[str, int]:
        out: dict[str, int] = {}
        for key, seen in self.seen.items():
            if key.startswith(code + "/"):
                out.update(seen.acked)
        return out

    def sent(self, code: str) -> set[str]:
        return set().union(*(s.sent for k, s in self.seen.items() if k.startswith(code + "/")))

    def last_ack(self, code: str) -> float:
        return max((t for k, s in self.seen.items() if k.startswith(code + "/")
                    for t in s.acked_at), default=0.0)

    async def stop(self) -> None:
        for t in self.tasks:
            t.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)


async def wait_for(pred: Any, timeout: float, what: str) -> float:
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        if pred():
            return time.monotonic() - t0
        await asyncio.sleep(0.1)
    raise AssertionError(f"{what}: not within {timeout} s")


def check_log(c: Cluster, code: str, players: Players) -> list[tuple[int, list[dict[str, Any]]]]:
    """Every acked command is in the log at its version; nothing unsent; nothing twice."""
    log = c.journal(code)
    by_id: dict[str, int] = {}
    for version, entries in log:
        for e in entries:
            if "id" in e and not str(e["c"]["p"]).startswith("Casual bot"):  # ours only
                key = str(e["id"])
                assert key not in by_id, f"command {key} applied twice"
                by_id[key] = version
    acked = players.acked(code)
    assert acked, "no command was acknowledged"
    for cid, version in acked.items():
        assert by_id.get(cid) == version, f"acked {cid} at v{version}, log: {by_id.get(cid)}"
    unsent = set(by_id) - players.sent(code)
    assert not unsent, f"the log holds commands nobody sent: {sorted(unsent)[:5]}"
    return log


def bot_entries(log: list[tuple[int, list[dict[str, Any]]]], after: int) -> int:
    """Commands with a client id by the server's bot seats (named "Casual bot...") after
    version ``after``."""
    return sum(1 for v, es in log if v > after for e in es
               if "id" in e and str(e["c"]["p"]).startswith("Casual bot"))


def test_kill_9_of_an_owner_mid_hand_costs_seconds_not_the_hand(cluster: Cluster) -> None:
    c = cluster.ready()
    code, tokens = human_table(c, seed=101)
    bots_code, bots_token = bot_table(c)

    async def go() -> None:
        players = Players(c)
        players.start(code, tokens)
        players.start(bots_code, [bots_token])
        try:
            await wait_for(lambda: len(players.acked(code)) >= 8
                           and len(players.acked(bots_code)) >= 3, 30, "play")
            owner = c.node_of(code)
            assert owner is not None
            victims = {owner.pid: owner}
            bots_owner = c.node_of(bots_code)
            if bots_owner is not None:
                victims[bots_owner.pid] = bots_owner
            head_before = max(v for v, _ in c.journal(bots_code))
            killed_at = time.monotonic()
            for node in victims.values():
                node.signal(signal.SIGKILL)
            before = len(players.acked(code))
            took = await wait_for(lambda: players.last_ack(code) > killed_at
                                  and len(players.acked(code)) > before + 2, RESUME_BOUND,
                                  "play resumed after the kill")
            await wait_for(lambda: bot_entries(c.journal(bots_code), head_before) >= 2,
                           RESUME_BOUND, "the bot seats play again")
            print(f"kill -9: play resumed {took:.1f} s after")
        finally:
            await players.stop()
        check_log(c, code, players)
        check_log(c, bots_code, players)
        new_owner = c.node_of(code)
        assert new_owner is not None and new_owner.pid not in victims

    try:
        asyncio.run(asyncio.wait_for(go(), TEST_BOUND))
    finally:
        restart_dead(c)


def test_an_owner_paused_past_its_lease_never_writes_again(cluster: Cluster) -> None:
    c = cluster.ready()
    code, tokens = human_table(c, seed=202)

    async def go() -> None:
        players = Players(c)
        players.start(code, tokens)
        try:
            await wait_for(lambda: len(players.acked(code)) >= 8, 30, "play")
            owner = c.node_of(code)
            assert owner is not None
            r = c.redis.client()
            epoch = int(r.hget(f"mvx:tbl:{code}", "epoch") or 0)
            owner.signal(signal.SIGSTOP)
            stopped_at = time.monotonic()
            try:
                before = len(players.acked(code))
                await wait_for(lambda: int(r.hget(f"mvx:tbl:{code}", "epoch") or 0) > epoch,
                               RESUME_BOUND, "another process took the table over")
                await wait_for(lambda: players.last_ack(code) > stopped_at
                               and len(players.acked(code)) > before + 3, RESUME_BOUND,
                               "play resumed after the pause")
            finally:
                owner.signal(signal.SIGCONT)
            # Resumed: it finds out and stops the table before it writes anything (its
            # sockets and timers all fire at once now); give it the time to try.
            await asyncio.sleep(2.0)
        finally:
            await players.stop()
        log = check_log(c, code, players)
        # Fencing: in log order the writers' epochs never go back, and nothing in the log
        # was written under the paused owner's epoch after the take-over.
        raw = c.redis.client().xrange(f"mvx:log:{json.loads(r.hget(f'mvx:tbl:{code}', 'meta'))['log_id']}")
        epochs = [int(f["o"]) for _, f in raw]
        assert epochs == sorted(epochs), "an old owner wrote after a new one"
        assert max(epochs) > epoch
        assert len(raw) >= len(log)  # the table plays on (its clocks) after the check

    asyncio.run(asyncio.wait_for(go(), TEST_BOUND))


def test_redis_killed_and_restarted_mid_hand_loses_nothing_acknowledged(cluster: Cluster) -> None:
    c = cluster.ready()
    code, tokens = human_table(c, seed=303)

    async def go() -> None:
        players = Players(c)
        players.start(code, tokens)
        try:
            await wait_for(lambda: len(players.acked(code)) >= 8, 30, "play")
            c.redis.kill()
            await asyncio.sleep(1.0)
            c.redis.start()
            back = time.monotonic()
            before = len(players.acked(code))
            await wait_for(lambda: players.last_ack(code) > back
                           and len(players.acked(code)) > before + 3, RESUME_BOUND,
                           "play resumed after Redis came back")
        finally:
            await players.stop()
        check_log(c, code, players)

    asyncio.run(asyncio.wait_for(go(), TEST_BOUND))


def waiting(url: str) -> int | None:
    """How many wait in the agora queue, by ``url``'s process; None for a 429 or a 503 (a store
    call over its bound while the cluster loses a process: the caller asks again)."""
    r = httpx.get(url + "/api/agora", trust_env=False, timeout=5)
    if r.status_code in (429, 503):
        return None
    assert r.status_code == 200, r.text
    return int(r.json()["waiting"])


def test_the_agora_matches_players_waiting_on_three_processes(cluster: Cluster) -> None:
    """One queue in Redis: players on three processes are matched together, each told their
    position by their own process, and the entry of a player whose process died drops out."""
    from websockets.asyncio.client import connect

    c = cluster.ready()
    tokens = [account(c, n) for n in ("Eve", "Fay", "Gus", "Hal")]  # the agora needs accounts

    # Bounds for a busy machine (load average about 16, issue 25): a tick is 1 s and a queue
    # entry's lease 5 s, so these wait many times what a quiet run needs; a miss says which.
    async def frame(ws: Any, kind: str, timeout: float = 30) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        try:
            while time.monotonic() < deadline:
                msg = json.loads(await asyncio.wait_for(ws.recv(), deadline - time.monotonic()))
                if msg.get("type") == kind:
                    return dict(msg)
        except TimeoutError:
            pass
        raise AssertionError(f"no {kind} frame within {timeout} s")

    async def go() -> None:
        socks = []
        for i, token in enumerate(tokens):
            node = c.nodes[i % 3]
            socks.append(await connect(f"ws://127.0.0.1:{node.port}/ws/agora?token={token}",
                                       open_timeout=30, **NO_PROXY))
        try:
            await socks[0].send(json.dumps({"type": "join"}))
            assert (await frame(socks[0], "queued"))["position"] == 1
            await socks[1].send(json.dumps({"type": "join"}))
            second = await frame(socks[1], "queued")
            assert second.pop("waited") >= 0  # seconds in the queue (issue 18)
            assert second == {"type": "queued", "position": 2, "waiting": 2}
            # The first player, on another process, hears that two wait now (its tick).
            assert (await frame(socks[0], "queued"))["waiting"] == 2
            await socks[2].send(json.dumps({"type": "join"}))
            matched = [await frame(ws, "matched") for ws in socks[:3]]
            assert len({m["code"] for m in matched}) == 1
            assert sorted(m["seat"] for m in matched) == ["Eve", "Fay", "Gus"]
            # A player waiting on a process that dies drops out of the queue within seconds.
            await socks[3].send(json.dumps({"type": "join"}))
            await frame(socks[3], "queued")
            assert await asyncio.to_thread(waiting, c.nodes[1].url) == 1
            c.nodes[0].signal(signal.SIGKILL)  # Hal's socket is on nodes[0] (index 3 % 3)
            t0 = time.monotonic()
            while await asyncio.to_thread(waiting, c.nodes[1].url) != 0:
                assert time.monotonic() - t0 < 20, "a dead process's player stays queued (lease 5 s)"
                await asyncio.sleep(0.2)
        finally:
            for ws in socks:
                with contextlib.suppress(Exception):
                    await ws.close()

    try:
        asyncio.run(asyncio.wait_for(go(), 150))
    finally:
        restart_dead(c)
