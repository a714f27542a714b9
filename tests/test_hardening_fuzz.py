"""Issue 12: a Hypothesis fuzzer over the websocket protocol, against a real uvicorn on both
stores. Frames with lone surrogates, huge and odd numbers, deep nesting, control characters,
binary frames and plain garbage come from a spectator and from a seated player; meanwhile
another seated player's every command is answered exactly once, and every card of the deal
stays counted (``enginehelpers.check_cards`` on the true game)."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Coroutine, Iterator
from typing import Any, TypeVar

import pytest
from enginehelpers import check_cards
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from serverhelpers import NO_PROXY, LiveServer, Player, seated
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from server.settings import Settings

T = TypeVar("T")

SURROGATES = st.sampled_from(["\ud800", "\udfff", "a\ud83d", "\udc00x"])
ODD_NUMBERS = st.one_of(
    st.integers(min_value=-(2**80), max_value=2**80), st.just(2**53 + 1), st.just(-(2**53) - 1),
    st.floats(allow_nan=True, allow_infinity=True), st.booleans(), st.none())
ODD_STRINGS = st.one_of(SURROGATES, st.text(max_size=80), st.just(""), st.just("x" * 65),
                        st.sampled_from(["\x00", "\n", "\u200b", "\u202e", "7C\x00"]))
ANY_VALUE = st.one_of(ODD_NUMBERS, ODD_STRINGS, st.lists(ODD_STRINGS, max_size=5),
                      st.dictionaries(ODD_STRINGS, ODD_NUMBERS, max_size=3))
DO = st.sampled_from(["draw", "stage", "unstage", "lay", "add", "take", "drop", "move", "place",
                      "end", "cancel", "stop", "give_up", "ready", "disconnect", "nope"])


@st.composite
def message(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(["command", "hint", "resume", "ping", "other", None]))
    msg: dict[str, Any] = {} if kind is None else {"type": kind}
    if kind in ("command", "hint", "other"):
        msg["id"] = draw(st.one_of(ODD_STRINGS, ODD_NUMBERS))
    if kind == "command":
        msg["do"] = draw(st.one_of(DO, ANY_VALUE))
        for f in draw(st.sets(st.sampled_from(["card", "cards", "meld", "to"]))):
            msg[f] = draw(ANY_VALUE)
    if kind == "resume":
        msg["last_version"] = draw(ODD_NUMBERS)
    return msg


def deep(n: int) -> str:
    return "[" * n + "]" * n


FRAME = st.one_of(
    message().map(lambda m: json.dumps(m)),  # ensure_ascii: lone surrogates as \\udXXX escapes
    st.integers(1, 6000).map(deep),
    st.integers(1, 3000).map(lambda n: '{"a":' * n + "1" + "}" * n),
    st.binary(max_size=200),
    st.text(max_size=200),
    st.just('{"type": "command", "id": 1' + "0" * 5000 + ', "do": "draw"}'),
    st.just('{"type": "command", "id": 1e999, "do": "draw"}'),
)


class Loop:
    """One event loop in a thread for the whole module, so that players and sockets outlive a
    Hypothesis example (each example only sends frames)."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def run(self, coro: Coroutine[Any, Any, T], timeout: float = 30.0) -> T:
        return asyncio.run_coroutine_threadsafe(asyncio.wait_for(coro, timeout),
                                                self.loop).result(timeout + 5)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)
        self.loop.close()


class Rig:
    """A table of three (a seeded deal), a spectator socket and the counters of the run."""

    def __init__(self, server: LiveServer) -> None:
        self.server = server
        self.players: list[Player] = []
        self.spy: ClientConnection | None = None
        self.sent = 0
        self.answered: dict[str, int] = {}

    async def start(self) -> None:
        self.players = await seated(self.server, ["A", "B", "C"], seed=20261201)
        await self.spy_socket()

    async def spy_socket(self) -> ClientConnection:
        if self.spy is None or self.spy.close_code is not None:
            if self.spy is not None:
                await self.spy.close()
            self.spy = await connect(f"{self.server.ws_url}/ws/{self.players[0].code}",
                                     max_size=2**22, **NO_PROXY)
            asyncio.get_running_loop().create_task(self._drain(self.spy))
        return self.spy

    @staticmethod
    async def _drain(ws: ClientConnection) -> None:
        try:
            async for _ in ws:
                pass
        except ConnectionClosed:
            pass

    async def example(self, frames: list[str | bytes], attacker_seated: bool) -> None:
        a, b, c = self.players
        spy = await self.spy_socket()
        ids: list[str] = []
        for i, frame in enumerate(frames):
            try:
                if attacker_seated and i % 2 == 0 and c.ws is not None:
                    await c.ws.send(frame)
                else:
                    await spy.send(frame)
            except ConnectionClosed:
                spy = await self.spy_socket()
            if i % 4 == 0:
                ids.append(await self.honest_command(a))
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 5
        while not all(self.replied(a, cid) for cid in ids):
            assert loop.time() < deadline, f"unanswered: {ids}, last: {a.frames[-3:]}"
            await asyncio.sleep(0.005)
        for p in (a, b, c):
            p.drain()

    @staticmethod
    def replied(a: Player, cid: str) -> bool:
        return any(f.get("id") == cid and f["type"] in ("ack", "refused", "error")
                   for f in reversed(a.frames))

    async def honest_command(self, a: Player) -> str:
        """Send one of A's commands without waiting (its reply is checked at the end)."""
        hand = a.hand or []
        do, fields = [("draw", {}), ("stage", {"card": hand[0]} if hand else {}),
                      ("unstage", {"card": hand[0]} if hand else {})][self.sent % 3]
        if do != "draw" and not hand:
            do, fields = "draw", {}
        self.sent += 1
        cid = f"honest-{self.sent}"
        await a.send({"type": "command", "id": cid, "do": do, **fields})
        return cid

    def finish(self) -> None:
        a = self.players[0]
        replies = [f for f in a.frames if f["type"] in ("ack", "refused", "error")
                   and str(f.get("id", "")).startswith("honest-")]
        counts: dict[str, int] = {}
        for f in replies:
            counts[f["id"]] = counts.get(f["id"], 0) + 1
        assert self.sent > 0
        assert counts == {f"honest-{n}": 1 for n in range(1, self.sent + 1)}, counts


@pytest.fixture(scope="module")
def loop() -> Iterator[Loop]:
    lp = Loop()
    yield lp
    lp.close()


@pytest.fixture(params=["memory", "redis"])
def rig(request: pytest.FixtureRequest, loop: Loop) -> Iterator[Rig]:
    extra: dict[str, Any] = {}
    if request.param == "redis":
        extra["redis_url"] = request.getfixturevalue("redis_url")
    settings = Settings(secret="fuzz", test_deals=True, resume_wait=0, message_burst=1000,
                        message_rate=1000, **extra)
    with LiveServer(settings) as server:
        r = Rig(server)
        loop.run(r.start())
        yield r
        for p in r.players:
            loop.run(p.close())
        if r.spy is not None:
            loop.run(r.spy.close())


@settings(max_examples=80, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(frames=st.lists(FRAME, min_size=1, max_size=16), attacker_seated=st.booleans())
def test_fuzzed_frames_never_stall_a_table_nor_lose_a_card(
        rig: Rig, loop: Loop, frames: list[str | bytes], attacker_seated: bool) -> None:
    loop.run(rig.example(frames, attacker_seated))
    code = rig.players[0].code or ""

    def cards(t: Any) -> int:
        assert t.game is not None and t.game.hand is not None
        check_cards(t.game.hand)
        return len(t.failures)
    assert rig.server.table_call(code, cards) == 0  # and the engine never failed
    rig.finish()
