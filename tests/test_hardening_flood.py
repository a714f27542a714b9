"""Issue 12, attack 5: the flood cut-off holds under load. It measures the share of a window a
socket was held back by its throttle, so a pause of the event loop no longer resets it."""

from __future__ import annotations

import asyncio
import time

from serverhelpers import LiveServer, Player, run
from websockets.exceptions import ConnectionClosed

from server.abuse import FloodGuard
from server.settings import Settings


class FakeClock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def feed(guard: FloodGuard, clock: FakeClock, until: float, gap: float, waited: float,
         pause_every: float = 0.0, pause: float = 0.0) -> float | None:
    """Messages every ``gap`` s, each held ``waited`` s, with a loop pause of ``pause`` s every
    ``pause_every`` s (the message after it waits nothing); the time the guard fired, or None."""
    next_pause = pause_every or None
    while clock.t < until:
        w = waited
        clock.t += gap
        if next_pause is not None and clock.t >= next_pause:
            clock.t += pause
            next_pause += pause_every
            w = 0.0
        if guard.flooding(w):
            return clock.t
    return None


class TestFloodWindow:
    def test_a_flood_is_cut_off_after_one_window(self) -> None:
        clock = FakeClock()
        fired = feed(FloodGuard(5.0, clock=clock), clock, 20, gap=0.02, waited=0.018)
        assert fired is not None and 5.0 <= fired < 5.1

    def test_loop_pauses_of_20_ms_no_longer_reset_it(self) -> None:
        clock = FakeClock()
        fired = feed(FloodGuard(5.0, clock=clock), clock, 20, gap=0.02, waited=0.018,
                     pause_every=0.5, pause=0.02)
        assert fired is not None and fired < 5.5

    def test_a_client_at_its_rate_waits_now_and_then_and_is_never_cut(self) -> None:
        clock = FakeClock()
        guard = FloodGuard(5.0, clock=clock)
        for i in range(3000):  # one message in three held a little (jitter around the rate)
            clock.t += 0.02
            assert not guard.flooding(0.002 if i % 3 == 0 else 0.0)

    def test_a_burst_then_quiet_is_only_slowed(self) -> None:
        clock = FakeClock()
        guard = FloodGuard(5.0, clock=clock)
        for _ in range(100):  # 2 s held back, then one message a second
            clock.t += 0.02
            assert not guard.flooding(0.02)
        for _ in range(10):
            clock.t += 1.0
            assert not guard.flooding(0.0)


def test_a_flood_against_a_server_whose_loop_pauses_is_still_cut_off() -> None:
    """A real socket flooding a real uvicorn whose event loop stalls 20 ms every 100 ms."""
    settings = Settings(secret="test", resume_wait=0, message_rate=100, message_burst=10,
                        flood_seconds=1.0)
    with LiveServer(settings) as server:
        stop = False

        async def stall() -> None:
            while not stop:
                await asyncio.sleep(0.08)
                time.sleep(0.02)  # noqa: ASYNC251 - block the loop, as a GC pause or a slow step does

        stalling = asyncio.run_coroutine_threadsafe(stall(), server.loop)

        async def go() -> float:
            p = await Player(server, "Flood").login()
            await p.create()
            await p.connect()
            loop = asyncio.get_running_loop()
            start = loop.time()
            sent = 0
            while not p.closed.is_set() and sent < 3000 and loop.time() - start < 6:
                try:
                    await p.send({"type": "ping"})
                except ConnectionClosed:
                    break
                sent += 1
                if sent % 20 == 0:
                    await asyncio.sleep(0.001)
            await asyncio.wait_for(p.closed.wait(), 5)
            assert p.ws is not None and p.ws.close_code == 1008 and p.ws.close_reason == "flood"
            return loop.time() - start
        try:
            took = run(go(), timeout=20)
        finally:
            stop = True
            stalling.result(5)
        assert took < 4.0, took
