"""Fuzz benchmark (issue 12): a seated player's command latency while attackers fuzz the same
table, against a real ``python -m server serve`` process (memory, or ``--redis URL``).

What runs
    One table of three, dealt from a fixed seed. ``--sockets`` attacker sockets on that table
    (half spectators without a token, half the seat ``C``, which is also seated) send, as fast
    as the server reads them, frames drawn at random from the fuzzer's families: lone
    surrogates in ids and cards, integers past 2**53 and 4300 digits, NaN and 1e999, nesting
    thousands deep, control characters, binary frames, plain garbage. The server's own limits
    stay at their defaults (50 messages a second per bucket, 2 sockets per seat, 120 sockets a
    minute per address...), except the open sockets and sessions per address, which the
    generator (all on 127.0.0.1) would fill. Player ``A`` sends one command every ``--every``
    seconds (stage, unstage, draw, ...).

What is measured (during ``--seconds``; setup is not measured)
    the latency of each of ``A``'s commands, from just before it is sent to its ``ack`` or
    ``refused``: p50, p99 and max in ms, and how many got no answer (must be 0); the server's
    own command-to-broadcast p99 (``machiavelox_command_seconds``, every seat's commands, as
    the upper bound of its histogram bucket), to tell the server's share; the frames the
    attackers sent, and how many of their sockets the server closed (floods are cut off, 1008;
    a seat's third socket replaces its oldest, 4409).

``python bench/fuzz.py`` (``--seconds 20 --sockets 8 --every 0.05``). Target: p99 ≤ 100 ms.

Figures on the project machine (2 cores, loaded, 2026-12-01; ``bench/README.md``): 8 attacker
sockets, A's p99 68-90 ms in memory, 85 ms on Redis; 2 sockets, 58 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import random
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def garbage(rng: random.Random) -> str | bytes:
    """One fuzzed frame."""
    odd_ids: list[Any] = ["\ud800", "\udfff", "x" * 65, "", "\x00", 2**70, -(2**60), 1.5, True,
                          None, [1], {"a": 1}, "\u202e"]
    kind = rng.randrange(8)
    if kind == 0:
        return json.dumps({"type": "command", "id": rng.choice(odd_ids),
                           "do": rng.choice(["draw", "stage", "lay", "nope", 3])})
    if kind == 1:
        return json.dumps({"type": "command", "id": f"g{rng.random()}", "do": "stage",
                           "card": rng.choice(["\ud800", "7C\x00", "x" * 9, 7, None])})
    if kind == 2:
        n = rng.randrange(100, 6000)
        return "[" * n + "]" * n
    if kind == 3:
        return '{"type": "command", "id": 1' + "0" * rng.randrange(10, 5000) + ', "do": "draw"}'
    if kind == 4:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 200)))
    if kind == 5:
        return json.dumps({"type": "hint", "id": rng.choice(odd_ids)})
    if kind == 6:
        return json.dumps({"type": "resume", "last_version": rng.choice([2**60, -1, "x", 1e300])})
    return "".join(chr(rng.randrange(1, 0x3000)) for _ in range(rng.randrange(1, 100)))


async def attacker(url: str, rng: random.Random, stop: float, stats: dict[str, int]) -> None:
    while time.monotonic() < stop:
        try:
            async with connect(url, max_size=2**22, proxy=None) as ws:
                async def drain() -> None:
                    async for _ in ws:
                        pass
                reader = asyncio.get_running_loop().create_task(drain())
                try:
                    while time.monotonic() < stop:
                        await ws.send(garbage(rng))
                        stats["frames"] += 1
                        if stats["frames"] % 20 == 0:
                            await asyncio.sleep(0)
                finally:
                    reader.cancel()
        except ConnectionClosed:
            stats["closed"] += 1
        except InvalidHandshake:  # refused before the handshake (sockets per minute): again
            stats["refused"] += 1
            await asyncio.sleep(0.01)
        except OSError:
            await asyncio.sleep(0.1)


def histogram_p99(text: str, name: str) -> float:
    """The upper bound (ms) of the bucket holding the 99th percentile of a Prometheus
    histogram in ``text`` (the server's own command-to-broadcast latency, every command)."""
    buckets: list[tuple[float, float]] = []
    for line in text.splitlines():
        if line.startswith(name + "_bucket{"):
            le = line.split('le="')[1].split('"')[0]
            buckets.append((float("inf") if le == "+Inf" else float(le), float(line.split()[-1])))
    if not buckets or buckets[-1][1] == 0:
        return float("nan")
    total = buckets[-1][1]
    return next(le for le, n in buckets if n >= 0.99 * total) * 1000


def attack_process(urls: list[str], seed: float, seconds: float, out: Any) -> None:
    """The attackers' process: one task per socket until ``seconds`` have passed."""
    async def main() -> dict[str, int]:
        rng = random.Random(seed)
        stats = {"frames": 0, "closed": 0, "refused": 0}
        stop = time.monotonic() + seconds
        await asyncio.gather(*(attacker(u, random.Random(rng.random()), stop, stats)
                               for u in urls))
        return stats
    out.put(asyncio.run(main()))


def start_server(port: int, redis: str | None) -> subprocess.Popen[bytes]:
    env = {**os.environ, "MACHIAVELOX_SECRET": "fuzz", "MACHIAVELOX_TEST_DEALS": "1",
           "MACHIAVELOX_LOG_LEVEL": "ERROR", "MACHIAVELOX_RESUME_WAIT": "0",
           # The generator and its players all come from 127.0.0.1; every other limit stays
           # at its default (sockets opened per address per minute included).
           "MACHIAVELOX_SESSIONS_PER_IP_PER_MINUTE": "100000",
           "MACHIAVELOX_SOCKETS_PER_IP": "100000",
           "MACHIAVELOX_REDIS_URL": redis or ""}
    return subprocess.Popen([sys.executable, "-m", "server", "serve", "--port", str(port)],
                            cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


async def run(args: argparse.Namespace, port: int) -> dict[str, Any]:
    base, ws_base = f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}"
    async with httpx.AsyncClient(base_url=base, trust_env=False, timeout=10) as c:
        for _ in range(400):
            try:
                if (await c.get("/healthz")).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            await asyncio.sleep(0.05)
        tokens = [(await c.post("/api/session", json={"name": n})).json()["token"]
                  for n in "ABC"]
        r = await c.post("/api/tables", json={"mode": "long", "seed": 20261201},
                         headers={"Authorization": f"Bearer {tokens[0]}"})
        code = r.json()["code"]
        for t in tokens[1:]:
            await c.post(f"/api/tables/{code}/join", headers={"Authorization": f"Bearer {t}"})
    rng = random.Random(args.seed)
    stats: dict[str, int] = {"frames": 0, "closed": 0}
    latencies: list[float] = []
    unanswered = 0
    async with connect(f"{ws_base}/ws/{code}?token={tokens[0]}", proxy=None) as a, \
            connect(f"{ws_base}/ws/{code}?token={tokens[1]}", proxy=None) as b:
        pending: dict[str, float] = {}
        hand: list[str] = []

        async def read() -> None:
            nonlocal hand
            async for raw in a:
                f = json.loads(raw)
                if f.get("game") and f["game"].get("hand"):
                    hand = list(f["game"]["hand"]["hand"] or [])
                if f["type"] in ("ack", "refused", "error") and f.get("id") in pending:
                    latencies.append(time.perf_counter() - pending.pop(f["id"]))

        async def drain_b() -> None:
            async for _ in b:
                pass
        readers = [asyncio.get_running_loop().create_task(x()) for x in (read, drain_b)]
        await asyncio.sleep(0.5)
        stop = time.monotonic() + args.seconds
        urls = [f"{ws_base}/ws/{code}" if i % 2 == 0 else
                f"{ws_base}/ws/{code}?token={tokens[2]}" for i in range(args.sockets)]
        # The attackers run in a process of their own, so that making garbage never
        # delays A's reads in this one (the server's latency is what is measured).
        ctx = multiprocessing.get_context("spawn")
        out = ctx.Queue()
        attackers = ctx.Process(target=attack_process,
                                args=(urls, rng.random(), args.seconds, out))
        attackers.start()
        n = 0
        while time.monotonic() < stop:
            n += 1
            card = hand[0] if hand else None
            do = ["stage", "unstage", "draw"][n % 3] if card else "draw"
            cmd: dict[str, Any] = {"type": "command", "id": f"a{n}", "do": do}
            if do != "draw":
                cmd["card"] = card
            pending[cmd["id"]] = time.perf_counter()
            await a.send(json.dumps(cmd))
            await asyncio.sleep(args.every)
        await asyncio.sleep(2.0)  # the last replies
        unanswered = len(pending)
        async with httpx.AsyncClient(base_url=base, trust_env=False, timeout=10) as c:
            server_side = histogram_p99((await c.get("/metrics")).text,
                                        "machiavelox_command_seconds")
        attackers.join(15)
        if not out.empty():
            stats = out.get()
        for t in readers:
            t.cancel()
    ms = sorted(x * 1000 for x in latencies)
    p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))] if ms else float("nan")
    return {"commands": len(ms), "unanswered": unanswered, "p50_ms": statistics.median(ms),
            "p99_ms": p99, "max_ms": ms[-1], "server_p99_ms_at_most": server_side, "attacker_frames": stats["frames"],
            "attacker_sockets_closed": stats["closed"],
            "attacker_handshakes_refused": stats["refused"], "sockets": args.sockets,
            "store": "redis" if args.redis else "memory"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--sockets", type=int, default=8)
    ap.add_argument("--every", type=float, default=0.05, help="seconds between A's commands")
    ap.add_argument("--redis", help="redis://... to run the server on Redis")
    ap.add_argument("--seed", type=int, default=12)
    args = ap.parse_args()
    port = free_port()
    proc = start_server(port, args.redis)
    try:
        out = asyncio.run(run(args, port))
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(10)
    for k, v in out.items():
        print(f"{k:24} {v:.2f}" if isinstance(v, float) else f"{k:24} {v}")


if __name__ == "__main__":
    main()
