"""Issue 12, attack 7: SIGTERM ends a real ``machiavelox serve`` process within 5 s, in memory
and on a Redis frozen by SIGSTOP (appends in flight), with bot seats playing, open hands and a
player's socket connected. Also, on a real process: the client address is the
peer's (a forged ``X-Forwarded-For`` changes nothing unless the peer is a trusted proxy)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import threading
import time
from types import SimpleNamespace

import httpx
import pytest
from conftest import RedisServer
from serverhelpers import NO_PROXY, Player, run
from test_agora_restart import ServeProcess
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed


def busy_server(proc: ServeProcess) -> threading.Thread:
    """Two tables with two quick bots each (hands being played, the bots thinking and every
    batch appended to the store), one table waiting, and a player's socket left open (by a
    thread that reads it until the server closes it: its return)."""
    live = SimpleNamespace(url=proc.url, ws_url=proc.ws_url)

    async def go() -> tuple[str, str]:
        p = await Player(live, "Ada").login()  # type: ignore[arg-type]
        code = ""
        for _ in range(2):
            async with p.http() as c:
                r = await c.post("/api/tables", json={"mode": "long",
                                                       "bots": {"count": 2, "reaction": 0.05}})
                assert r.status_code == 200, r.text
                code = r.json()["code"]
        await p.create()
        return code, p.token or ""
    code, token = run(go())

    async def hold() -> None:
        async with connect(f"{proc.ws_url}/ws/{code}?token={token}", open_timeout=5,
                           **NO_PROXY) as ws:
            with contextlib.suppress(ConnectionClosed, TimeoutError):
                while True:
                    await asyncio.wait_for(ws.recv(), 10)

    holder = threading.Thread(target=lambda: asyncio.run(hold()), daemon=True)
    holder.start()
    time.sleep(0.5)  # the socket is open, the bots play
    return holder


def sigterm_and_time(proc: ServeProcess) -> float:
    t0 = time.monotonic()
    proc.proc.send_signal(signal.SIGTERM)
    try:
        proc.proc.wait(10)
    except Exception:  # noqa: BLE001 - it hangs: the test fails below, and it is killed
        proc.proc.kill()
        proc.proc.wait(5)
        return 99.0
    return time.monotonic() - t0


ENV = {"MACHIAVELOX_SECRET": "shutdown-test", "MACHIAVELOX_RESUME_WAIT": "0",
       "MACHIAVELOX_LOG_LEVEL": "WARNING", "MACHIAVELOX_REDIS_URL": ""}


@pytest.mark.parametrize("store", ["memory", "redis frozen"])
def test_sigterm_exits_within_5_s(store: str, request: pytest.FixtureRequest) -> None:
    env = dict(ENV)
    redis: RedisServer | None = None
    if store != "memory":
        redis = request.getfixturevalue("own_redis")
        env["MACHIAVELOX_REDIS_URL"] = redis.url
    if store == "memory":  # one session by busy_server, then two that forge their address
        env["MACHIAVELOX_SESSIONS_PER_IP_PER_MINUTE"] = "2"
    proc = ServeProcess(env)
    try:
        proc.wait_ready()
        holder = busy_server(proc)
        if store == "memory":
            codes = [httpx.post(proc.url + "/api/session", json={"name": "Eve"},
                                headers={"X-Forwarded-For": f"10.9.0.{i}"},
                                trust_env=False).status_code for i in range(2)]
            assert codes == [200, 429]  # all from 127.0.0.1, whatever they claim
        if store == "redis frozen":
            assert redis is not None and redis.proc is not None
            os.kill(redis.proc.pid, signal.SIGSTOP)
            time.sleep(0.3)  # appends are now waiting on it
        took = sigterm_and_time(proc)
        holder.join(5)
        assert took < 5.0, f"{store}: {took:.1f} s"
    finally:
        proc.stop()


def test_forwarded_headers_are_read_only_from_trusted_proxies() -> None:
    """uvicorn's options as ``machiavelox serve`` passes them (the process test above checks
    that a forged X-Forwarded-For changes nothing by default)."""
    from server.cli import uvicorn_options
    from server.settings import Settings

    plain = uvicorn_options(Settings(secret="x"))
    assert plain["proxy_headers"] is False and "forwarded_allow_ips" not in plain
    behind = uvicorn_options(Settings(secret="x", trusted_proxies="10.0.0.5"))
    assert behind["proxy_headers"] is True and behind["forwarded_allow_ips"] == "10.0.0.5"
    assert plain["timeout_graceful_shutdown"] == 2.0
