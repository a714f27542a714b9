"""Issue 12, attacks 1 and 9: a failure inside a table never stalls it and never leaves it half
changed. An engine exception in the middle of a command is refused ``internal_error`` and the
game is rebuilt from its journal without it (every view exactly as before); any other failing
inbox item is counted, its connection dropped, and the next item served at once."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from serverhelpers import NO_PROXY, LiveServer, run, seated
from websockets.asyncio.client import connect

from server.frames import view_for
from server.inbox import Resync
from server.settings import Settings
from server.tables import Table

POSITION = {
    "table": [["4C", "5C", "6C"]],
    "hands": {"A": ["7C", "9D", "KD"], "B": ["8C", "3H"], "C": ["2S"]},
    "stocks": {"A": ["KH", "2D", "3D"], "B": ["KS"], "C": ["QS"]},
    "drew": ["A", "B", "C"],
}
SEATS = ("A", "B", "C", None)


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    with LiveServer(Settings(test_deals=True, resume_wait=0, secret="test")) as s:
        yield s


def without_clock(view: Any) -> Any:
    """A view without its "now" fields (the rebuilt game's clock stands at its last journalled
    call; the next tick brings it to now)."""
    if isinstance(view, dict):
        return {k: without_clock(v) for k, v in view.items() if k not in ("t", "game_t")}
    if isinstance(view, list):
        return [without_clock(v) for v in view]
    return view


def views(t: Table) -> dict[str | None, Any]:
    return {seat: without_clock(view_for(t.game, seat)) for seat in SEATS}


def inject_fault(t: Table) -> None:
    """The next command is carried out by the engine, which then raises before returning: the
    game is left as the exception left it, with its events queued."""
    assert t.game is not None
    real = t.game.apply

    def faulty(cmd: Any, now: float) -> None:
        real(cmd, now)
        raise RuntimeError("injected engine fault")

    t.game.apply = faulty  # type: ignore[method-assign]


def metric(server: LiveServer, prefix: str) -> float:
    text = httpx.get(f"{server.url}/metrics", trust_env=False).text
    return sum(float(x.split()[-1]) for x in text.splitlines() if x.startswith(prefix))


class TestEngineFault:
    def test_a_fault_mid_command_is_internal_error_and_every_view_is_as_before(
            self, server: LiveServer) -> None:
        async def go() -> None:
            a, b, c = await seated(server, ["A", "B", "C"], position=POSITION)
            code = a.code or ""
            await a.ok("stage", card="KD")
            await b.ok("stage", card="3H")
            head, before = await server.atable_call(code, lambda t: (t.events.head, views(t)))
            for p in (a, b, c):
                await p.at_version(head)
                p.drain()
            journal = await server.atable_call(code, lambda t: len(t.journal))
            await server.atable_call(code, inject_fault)
            reply = await a.command("unstage", card="KD")
            assert reply["type"] == "refused" and reply["code"] == "internal_error", reply
            after = await server.atable_call(code, views)
            assert after == before
            assert await server.atable_call(code, lambda t: (t.events.head, len(t.journal))) == (
                head, journal)
            await asyncio.sleep(0.05)
            for p in (a, b, c):  # nothing of the failed call was sent to anyone
                assert not [f for f in p.drain() if f["type"] == "update"], p.name
            # The same id again gets the same answer (not applied again); the game goes on.
            assert (await a.command("unstage", id=reply["id"], card="KD")) == reply
            ok = await a.ok("unstage", card="KD")
            await b.at_version(ok["version"])
            assert ok["version"] == head + 1
        run(go())


    def test_a_fault_in_a_clock_or_a_connection_event_is_undone_too(
            self, server: LiveServer) -> None:
        async def go() -> None:
            a, b, c = await seated(server, ["A", "B", "C"], position=POSITION)
            code = a.code or ""
            before = await server.atable_call(code, views)

            def break_tick(t: Table) -> None:
                assert t.game is not None
                real = t.game.tick

                def faulty(now: float) -> None:
                    real(now)
                    raise RuntimeError("injected engine fault")
                t.game.tick = faulty  # type: ignore[method-assign]
            await server.atable_call(code, break_tick)
            await server.atable_call(code, lambda t: t._tick())
            assert await server.atable_call(code, views) == before
            await server.atable_call(code, inject_fault)
            await c.close()  # the disconnect fails in the engine: undone, the table goes on
            for _ in range(100):
                if await server.atable_call(code, lambda t: t.seats[2].live) == 0:
                    break
                await asyncio.sleep(0.02)
            assert (await a.command("draw"))["type"] == "ack"
        run(go())


class TestFailingItems:
    def test_a_failing_item_drops_its_connection_and_the_table_serves_the_next_at_once(
            self, server: LiveServer) -> None:
        async def go() -> None:
            a, b, c = await seated(server, ["A", "B", "C"], position=POSITION)
            code = a.code or ""
            before = metric(server, "machiavelox_step_failures_total")

            def break_resync(t: Table) -> None:
                real = t._handle

                def handle(item: Any) -> None:
                    if isinstance(item, Resync):
                        raise RuntimeError("injected server fault")
                    real(item)
                t._handle = handle  # type: ignore[method-assign]
            await server.atable_call(code, break_resync)
            spies = [await connect(f"{server.ws_url}/ws/{code}", **NO_PROXY) for _ in range(20)]
            try:
                for ws in spies:
                    await ws.recv()  # welcome
                for ws in spies:
                    await ws.send('{"type": "resume", "last_version": 0}')
                t0 = time.perf_counter()
                assert (await a.command("draw", timeout=3))["type"] == "ack"
                assert time.perf_counter() - t0 < 0.5
            finally:
                for ws in spies:
                    await ws.close()
            await asyncio.sleep(0.1)
            assert metric(server, "machiavelox_step_failures_total") >= before + 20
            assert await server.atable_call(code, lambda t: sum(
                1 for conn in t.conns.values() if conn.seat is None)) == 0
        run(go())
