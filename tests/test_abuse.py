"""Abuse (issue 5): oversized frames and floods are cut off with close code 1008, on table
sockets and agora sockets, through a real uvicorn; a client within the limits is never cut."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator

import httpx
import pytest
from serverhelpers import NO_PROXY, LiveServer, Player, run
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from server.errors import CLOSE_POLICY_VIOLATION
from server.settings import Settings

assert CLOSE_POLICY_VIOLATION == 1008

SETTINGS = Settings(secret="test", resume_wait=0, max_message_bytes=1024, max_frame_bytes=4096,
                    message_rate=100, message_burst=10, flood_seconds=0.3)


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    with LiveServer(SETTINGS) as s:
        yield s


async def table_player(server: LiveServer, name: str) -> Player:
    p = await Player(server, name).login()
    await p.create()
    await p.connect()
    await p.next(lambda f: f["type"] == "snapshot")
    return p


def cut_off_count(server: LiveServer, reason: str) -> float:
    text = httpx.get(f"{server.url}/metrics", trust_env=False).text
    line = next(x for x in text.splitlines()
                if x.startswith(f'machiavelox_cut_off_total{{reason="{reason}"}}'))
    return float(line.split()[-1])


class TestOversizedFrames:
    def test_a_frame_over_the_limit_closes_the_socket_with_1008(self, server: LiveServer) -> None:
        before = cut_off_count(server, "too_large")

        async def go() -> None:
            p = await table_player(server, "Big")
            await p.send("x" * 5000)
            await asyncio.wait_for(p.closed.wait(), 5)
            assert p.ws is not None and p.ws.close_code == CLOSE_POLICY_VIOLATION
            assert p.ws.close_reason == "too_large"
        run(go())
        assert cut_off_count(server, "too_large") == before + 1

    def test_a_message_under_the_frame_limit_only_gets_an_error(self, server: LiveServer) -> None:
        async def go() -> None:
            p = await table_player(server, "Mid")
            await p.send("x" * 2000)  # over max_message_bytes, under max_frame_bytes
            err = await p.next(lambda f: f["type"] == "error")
            assert err["code"] == "too_large"
            await p.send({"type": "ping"})
            assert (await p.next(lambda f: f["type"] == "pong"))["type"] == "pong"
            await p.close()
        run(go())

    def test_the_agora_cuts_big_frames_too(self, server: LiveServer) -> None:
        async def go() -> None:
            p = await Player(server, "BigAgora").login()
            async with connect(f"{server.ws_url}/ws/agora?token={p.token}", **NO_PROXY) as ws:
                await ws.send(b"\x00" * 5000)
                with pytest.raises(ConnectionClosed) as info:
                    await asyncio.wait_for(ws.recv(), 5)
                assert info.value.rcvd is not None and info.value.rcvd.code == 1008
        run(go())


class TestFloods:
    def test_a_sustained_flood_is_cut_off_with_1008(self, server: LiveServer) -> None:
        before = cut_off_count(server, "flood")

        async def go() -> None:
            p = await table_player(server, "Flood")
            loop = asyncio.get_running_loop()
            start = loop.time()
            sent = 0
            # Bounded: at most 2000 pings or 5 s, whichever comes first.
            while not p.closed.is_set() and sent < 2000 and loop.time() - start < 5:
                try:
                    await p.send({"type": "ping"})
                except ConnectionClosed:
                    break
                sent += 1
                if sent % 50 == 0:
                    await asyncio.sleep(0)
            await asyncio.wait_for(p.closed.wait(), 5)
            assert p.ws is not None and p.ws.close_code == CLOSE_POLICY_VIOLATION
            assert p.ws.close_reason == "flood"
            pongs = sum(1 for f in p.frames if f["type"] == "pong")
            # It was read at the rate limit until cut: 10 at once, 100 a second, for ~0.3 s.
            assert 10 <= pongs <= 120, pongs
        run(go())
        assert cut_off_count(server, "flood") == before + 1

    def test_a_client_within_the_rate_is_never_cut(self, server: LiveServer) -> None:
        async def go() -> None:
            p = await table_player(server, "Calm")
            for _ in range(60):  # 60 pings at ~70 a second for about a second: under 100/s
                await p.send({"type": "ping"})
                await asyncio.sleep(1 / 70)
            for _ in range(60):
                await p.next(lambda f: f["type"] == "pong")
            assert not p.closed.is_set()
            await p.close()
        run(go())

    def test_a_short_burst_is_only_slowed(self, server: LiveServer) -> None:
        async def go() -> None:
            p = await table_player(server, "Burst")
            for _ in range(25):  # 10 at once, 15 more at 100/s: 0.15 s < flood_seconds
                await p.send({"type": "ping"})
            for _ in range(25):
                await p.next(lambda f: f["type"] == "pong")
            assert not p.closed.is_set()
            await p.close()
        run(go())

    def test_the_agora_cuts_floods_too(self, server: LiveServer) -> None:
        async def go() -> None:
            p = await Player(server, "FloodAgora").login()
            async with connect(f"{server.ws_url}/ws/agora?token={p.token}", **NO_PROXY) as ws:
                code = None
                for _ in range(2000):
                    try:
                        await ws.send(json.dumps({"type": "ping"}))
                    except ConnectionClosed as e:
                        code = e.rcvd.code if e.rcvd else None
                        break
                    await asyncio.sleep(0)
                if code is None:
                    with pytest.raises(ConnectionClosed) as info:
                        while True:
                            await asyncio.wait_for(ws.recv(), 5)
                    code = info.value.rcvd.code if info.value.rcvd else None
                assert code == 1008
        run(go())
