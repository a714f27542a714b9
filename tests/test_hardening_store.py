"""Issue 12, attack 6: a Redis frozen (SIGSTOP) or killed in the middle of a hand, under a real
uvicorn. Nothing waits for it (one call waits at most ``store_timeout``, then the store fails
fast); since issue 13 a table's commands are refused ``store_unavailable`` meanwhile (nothing
is acknowledged that is not stored, and game time stops), every endpoint that needs it answers 503 ``store_unavailable``,
the agora socket gets an ``error`` frame, ``/readyz`` says so while ``/healthz`` stays 200, and
once Redis answers again the table plays on and stores its commands."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from typing import Any

import httpx
import pytest
from conftest import RedisServer
from serverhelpers import LiveServer, Player, run, seated
from test_agora import AgoraClient

from server.settings import Settings

POSITION = {
    "table": [["4C", "5C", "6C"]],
    "hands": {"A": ["7C", "9D", "KD", "QH"], "B": ["8C", "3H"], "C": ["2S"]},
    "stocks": {"A": ["KH", "2D", "3D"], "B": ["KS"], "C": ["QS"]},
    "drew": ["A", "B", "C"],
}
TIMEOUT = 0.5  # store_timeout of this test's server




async def timed(coro: Any) -> tuple[float, Any]:
    t0 = time.perf_counter()
    result = await coro
    return time.perf_counter() - t0, result


async def status(server: LiveServer, method: str, path: str, token: str | None = None,
                 **kw: Any) -> tuple[int, dict[str, Any]]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx.AsyncClient(base_url=server.url, trust_env=False, timeout=10) as c:
        r = await c.request(method, path, headers=headers, **kw)
        return r.status_code, r.json()


async def assert_needs_store(server: LiveServer, token: str) -> None:
    """Every endpoint that needs the store: 503 store_unavailable, quickly; never a 500."""
    for method, path, kw in (("GET", "/api/ranking", {}), ("GET", "/api/agora", {}),
                             ("GET", "/api/hands", {}), ("GET", "/api/hands/NOPE-1", {}),
                             ("GET", "/api/players/me/history", {}),
                             ("POST", "/api/tables", {"json": {"mode": "single"}})):
        took, (code, body) = await timed(status(server, method, path, token, **kw))
        assert code == 503 and body["code"] == "store_unavailable", (path, code, body)
        assert body["message"] and took < TIMEOUT + 0.5, (path, took)
    code, body = await status(server, "GET", "/readyz")
    assert code == 503 and body["code"] == "store_unavailable" and not body["store_answers"]
    assert (await status(server, "GET", "/healthz"))[0] == 200


async def play_through_outage(server: LiveServer, redis: RedisServer, how: str) -> None:
    a, b, c = await seated(server, ["A", "B", "C"], position=POSITION)
    code = a.code or ""
    await a.ok("stage", card="QH")
    # An account's agora socket, opened while the store answers (the agora needs an account,
    # and a session is checked in the store when a socket opens).
    agora = await AgoraClient(await Player(server, "Agoran").register()).open()
    await agora.send({"type": "ping"})
    await agora.next("pong")  # admitted: its session was found live
    assert redis.proc is not None
    os.kill(redis.proc.pid, signal.SIGSTOP if how == "stop" else signal.SIGKILL)
    head = await server.atable_call(code, lambda t: t.events.head)
    # The first append meets the frozen store: it waits store_timeout at most, once; the
    # command is undone in memory and answered only once the store says whether it has it
    # (a write that timed out may land later; issue 13: nothing is acknowledged unstored).
    await a.send({"type": "command", "id": "first", "do": "unstage", "card": "QH"})
    await asyncio.sleep(TIMEOUT + 0.3)
    # Then every command is refused at once (game time stops): nothing changes, nothing waits.
    worst = 0.0
    for i in range(10):
        p, card = (a, "QH") if i % 2 == 0 else (b, "3H")
        took, reply = await timed(p.command("stage" if i % 4 < 2 else "unstage", card=card))
        assert reply["type"] == "refused" and reply["code"] == "store_unavailable", reply
        worst = max(worst, took)
    assert worst < TIMEOUT, worst
    assert await server.atable_call(code, lambda t: (t.events.head, t.time.stopped)) == (head,
                                                                                        True)
    await assert_needs_store(server, a.token or "")
    # The agora socket is told: an error frame, not silence (and is not cut off: the session
    # check that cannot reach the store leaves open sockets open).
    await agora.send({"type": "join"})
    frame = await asyncio.wait_for(agora.frames.get(), 5)
    while frame["type"] != "error":
        frame = await asyncio.wait_for(agora.frames.get(), 5)
    assert frame["code"] == "store_unavailable" and frame["message"]
    await agora.close()
    if how == "stop":
        os.kill(redis.proc.pid, signal.SIGCONT)
        # Once the store answers, the first command is answered from what it holds (the
        # frozen Redis carried the write out when it woke up: an ack), game time runs again
        # and commands are carried out, stored.
        first = await a.next(lambda f: f.get("id") == "first", timeout=10)
        assert first["type"] == "ack", first
        reply: dict[str, Any] = {}
        deadline = time.monotonic() + 10  # the store's probe backs off up to 2 s
        while time.monotonic() < deadline:
            reply = await a.command("stage", card="QH")  # the first unstaged it
            if reply["type"] == "ack":
                break
            await asyncio.sleep(0.1)
        assert reply["type"] == "ack", reply
        head, log_id = await server.atable_call(code, lambda t: (t.events.head, t.log_id))
        stored = asyncio.run_coroutine_threadsafe(server.app.state.store.log_head(log_id),
                                                  server.loop)
        assert await asyncio.wrap_future(stored) == head
        code_, body = await status(server, "GET", "/readyz")
        assert code_ == 200 and body["status"] == "ready", body
        assert (await status(server, "GET", "/api/ranking"))[0] == 200
    for p in (a, b, c):
        await p.close()


@pytest.mark.parametrize("how", ["stop", "kill"])
def test_a_redis_frozen_or_killed_mid_hand_stalls_nothing(own_redis: RedisServer,
                                                            how: str) -> None:
    settings = Settings(secret="test", test_deals=True, resume_wait=0, redis_url=own_redis.url,
                        store_timeout=TIMEOUT)
    with LiveServer(settings) as server:
        run(play_through_outage(server, own_redis, how), timeout=40)


def test_readyz_is_ready_on_a_store_that_answers(redis_url: str) -> None:
    with LiveServer(Settings(secret="test", redis_url=redis_url)) as server:
        async def go() -> None:
            code, body = await status(server, "GET", "/readyz")
            assert code == 200 and body == {"status": "ready", "store": "redis"}
            p = await Player(server, "Ada").login()
            assert (await status(server, "GET", "/api/ranking", p.token))[0] == 200
        run(go())
