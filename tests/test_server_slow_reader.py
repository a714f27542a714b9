"""A client that stops reading is dropped and never slows the others (bounded outbound queues).

C's socket is a raw TCP socket with a small receive buffer that completes the websocket
handshake and then never reads again (it asks for resyncs now and then). A plays quickly (stage, unstage, ...) while B and a
spectator read normally. The server must cut C once its queue is full, tell the game (C is
disconnected, R18), keep answering A promptly throughout, and let C back in with a snapshot.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import os
import socket
import statistics
import time
from collections.abc import Iterator

import pytest
from serverhelpers import LiveServer, Player, run, seated

from server.settings import Settings

POSITION = {
    "table": [["4C", "5C", "6C"], ["9H", "10H", "JH"]],
    "hands": {"A": ["7C", "9D", "KD"], "B": ["8C", "3H"], "C": ["2S", "QD"]},
    "stocks": {"A": ["KH"], "B": ["KS"], "C": ["QS"]},
    "drew": ["A", "B", "C"],
}
QUEUE = 16
MAX_COMMANDS = 4000
MAX_SECONDS = 30.0
#: Every this many of A's commands the stalled C asks for a resync from version 0 (it still
#: never reads): updates are small changes now, and the kernel's socket buffers would take
#: thousands before C's queue fills; each resync's replay and snapshot fill it sooner.
RESYNC_EVERY = 25


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    settings = Settings(test_deals=True, resume_wait=0.2, outbound_queue=QUEUE, secret="test",
                        message_rate=100000, message_burst=100000)
    with LiveServer(settings) as s:
        yield s


def stalled_socket(port: int, path: str) -> socket.socket:
    """A websocket client that does the opening handshake and then never reads."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.settimeout(5)
    s.connect(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    s.sendall((f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
               f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
               "Sec-WebSocket-Version: 13\r\n\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = s.recv(1)
        assert chunk, "closed during the handshake"
        head += chunk
    assert head.startswith(b"HTTP/1.1 101"), head
    return s


def send_text(s: socket.socket, text: str) -> None:
    """One masked websocket text frame (a client's), written raw."""
    payload = text.encode()
    assert len(payload) < 126
    mask = os.urandom(4)
    s.sendall(bytes([0x81, 0x80 | len(payload)]) + mask
              + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))


def read_until_cut(s: socket.socket, timeout: float = 10.0) -> None:
    """Read ``s`` until the peer resets or closes it; fail if it stays open ``timeout`` s."""
    deadline = time.monotonic() + timeout
    s.settimeout(1.0)
    while time.monotonic() < deadline:
        try:
            if not s.recv(1 << 16):
                return
        except ConnectionResetError:
            return
        except TimeoutError:
            continue
    raise AssertionError("the dropped connection was left open by the server")


def test_a_client_that_stops_reading_is_dropped_without_slowing_the_others(
        server: LiveServer) -> None:
    async def go() -> None:
        a, b, c = await seated(server, ["A", "B", "C"], position=POSITION)
        watcher = Player(server, "Watcher")
        await watcher.connect(a.code)
        await c.close()
        await a.next(lambda f: f["type"] == "update" and any(
            e["kind"] == "disconnected" for e in f["events"]))
        slow = stalled_socket(server.port, f"/ws/{a.code}?token={c.token}")
        await a.next(lambda f: f["type"] == "update" and any(
            e["kind"] == "reconnected" and e["player"] == "C" for e in f["events"]))

        seen = len(a.frames)

        def c_dropped() -> bool:
            nonlocal seen
            new, seen = a.frames[seen:], len(a.frames)
            return any(e["kind"] == "disconnected" and e["player"] == "C"
                       for f in new if f["type"] == "update" for e in f["events"])

        latencies: list[float] = []
        started = time.monotonic()
        dropped_after = None
        for i in range(MAX_COMMANDS):
            t = time.monotonic()
            await a.ok("stage" if i % 2 == 0 else "unstage", card="9D")
            latencies.append(time.monotonic() - t)
            if i % RESYNC_EVERY == 0:
                with contextlib.suppress(OSError):  # cut already
                    send_text(slow, '{"type": "resume", "last_version": 0}')
            if c_dropped():
                dropped_after = i + 1
                break
            assert time.monotonic() - started < MAX_SECONDS, "C was never dropped"
        assert dropped_after is not None, "C was never dropped"
        elapsed = time.monotonic() - started
        # The server cut the stalled socket itself (a TCP reset, not a close handshake that
        # would wait behind the unsent frames): reading what it had sent ends in a reset or
        # an end of stream, soon.
        await asyncio.get_running_loop().run_in_executor(None, read_until_cut, slow)
        slow.close()

        # The others kept up: B and the spectator saw every version, and A was never held up.
        head = await server.atable_call(a.code, lambda t: t.events.head)
        for p in (a, b, watcher):
            await p.at_version(head)
        p95 = statistics.quantiles(latencies, n=20)[-1] if len(latencies) >= 20 else max(latencies)
        print(f"\nslow reader dropped after {dropped_after} commands in {elapsed:.2f} s; "
              f"A's ack latency median {statistics.median(latencies) * 1000:.1f} ms, "
              f"p95 {p95 * 1000:.1f} ms, max {max(latencies) * 1000:.1f} ms"
              f" (command {latencies.index(max(latencies)) + 1})")
        assert p95 < 0.1 and max(latencies) < 1.0
        live = await server.atable_call(a.code, lambda t: [s.live for s in t.seats])
        assert live == [1, 1, 0]  # C has no live connection left

        # C comes back: same seat, a snapshot (resync), and the game sees it again.
        welcome = await c.connect()
        assert welcome["seat"] == "C"
        snap = await c.next(lambda f: f["type"] == "snapshot")
        assert snap["version"] >= head and sorted(snap["game"]["hand"]["hand"]) == ["2S", "QD"]
        await c.next(lambda f: f["type"] == "update" and any(
            e["kind"] == "reconnected" for e in f["events"]))
        assert (await c.command("draw"))["type"] == "ack"
        for p in (a, b, c, watcher):
            await p.close()
    run(go(), timeout=60)
