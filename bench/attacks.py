"""Issue 12's attacks, rerun against a real ``python -m server serve`` process, in memory and on
a real ``redis-server``; prints what each attack got. Every loop is bounded in count and time.

1. lone-surrogate and 2**70 ids from a tokenless socket and from a seat: a seated player's
   command latency meanwhile, the errors, and a draw resent under a good id applied once;
2. sessions from one address, tables from one session (with bots: dealt at once);
3. 40 sockets of one seat (commands accepted per second, replaced sockets), 300 tokenless
   sockets from one address;
4. a 100 MiB body (the answer, and the server's RSS before and after);
5. a flood while the server process is stopped 20 ms every 100 ms (SIGSTOP/SIGCONT);
6. (Redis) Redis frozen with SIGSTOP mid-hand: command latency, endpoints, /readyz, /healthz;
7. SIGTERM with bots playing and a socket open (Redis: also frozen);
8. 404, 405, 422 bodies.

(9, an engine exception mid-command, needs a fault injected inside the process:
``tests/test_hardening_faults.py``.)

``python bench/attacks.py`` (needs ``redis-server`` on PATH for the Redis run).
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

ROOT = Path(__file__).resolve().parents[1]
SURROGATE = '{"type": "command", "id": "\\ud800", "do": "draw"}'


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Serve:
    def __init__(self, redis_url: str | None, prefix: str = "attacks:") -> None:
        self.port = free_port()
        self.url, self.ws = f"http://127.0.0.1:{self.port}", f"ws://127.0.0.1:{self.port}"
        env = {**os.environ, "MACHIAVELOX_SECRET": "attacks", "MACHIAVELOX_TEST_DEALS": "1",
               "MACHIAVELOX_LOG_LEVEL": "ERROR", "MACHIAVELOX_RESUME_WAIT": "0",
               "MACHIAVELOX_REDIS_URL": redis_url or "", "MACHIAVELOX_REDIS_PREFIX": prefix}
        self.proc = subprocess.Popen([sys.executable, "-m", "server", "serve", "--port",
                                      str(self.port)], cwd=ROOT, env=env,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(400):
            try:
                if httpx.get(self.url + "/healthz", trust_env=False, timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.05)
        raise RuntimeError("server did not start")

    def rss_mib(self) -> float:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return float("nan")

    def stop(self) -> float:
        t0 = time.monotonic()
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)
            return float("inf")
        return time.monotonic() - t0


def http(srv: Serve, ip: str = "", token: str | None = None) -> httpx.AsyncClient:
    headers = {"X-Forwarded-For": ip} if ip else {}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    return httpx.AsyncClient(base_url=srv.url, headers=headers, trust_env=False, timeout=10)


async def session(srv: Serve, name: str) -> str:
    async with http(srv) as c:
        r = await c.post("/api/session", json={"name": name})
        r.raise_for_status()
        return str(r.json()["token"])


class Seat:
    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.frames: list[dict[str, Any]] = []
        self.task = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        try:
            async for raw in self.ws:
                self.frames.append(json.loads(raw))
        except ConnectionClosed:
            pass

    async def reply(self, cid: Any, timeout: float = 10.0) -> tuple[float, dict[str, Any]]:
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < timeout:
            for f in self.frames:
                if f.get("id") == cid and f["type"] in ("ack", "refused", "error"):
                    self.frames.remove(f)
                    return time.perf_counter() - t0, f
            await asyncio.sleep(0.002)
        return timeout, {"type": "none"}

    async def command(self, cid: Any, do: str, **fields: Any) -> tuple[float, dict[str, Any]]:
        await self.ws.send(json.dumps({"type": "command", "id": cid, "do": do, **fields}))
        return await self.reply(cid)

    def hand(self) -> list[str]:
        for f in reversed(self.frames):
            if f.get("game") and f["game"].get("hand"):
                return list(f["game"]["hand"]["hand"] or [])
        return []


async def table(srv: Serve) -> tuple[str, list[str], list[Seat]]:
    tokens = [await session(srv, n) for n in "ABC"]
    async with http(srv, token=tokens[0]) as c:
        code = (await c.post("/api/tables", json={"mode": "long", "seed": 7})).json()["code"]
    for t in tokens[1:]:
        async with http(srv, token=t) as c:
            await c.post(f"/api/tables/{code}/join")
    seats = [Seat(await connect(f"{srv.ws}/ws/{code}?token={t}", proxy=None)) for t in tokens]
    await asyncio.sleep(0.3)
    return code, tokens, seats


async def attack_1(srv: Serve) -> str:
    code, _, seats = await table(srv)
    a, _, c = seats
    async with connect(f"{srv.ws}/ws/{code}", proxy=None) as spy:
        for _ in range(40):
            await spy.send(SURROGATE)
        await spy.send('{"type": "hint", "id": "\\ud800"}')
        await spy.send('{"type": "command", "id": ' + str(2**70) + ', "do": "draw"}')
        took, r = await a.command("x1", "draw")
        await c.ws.send(SURROGATE)
        _, err = await c.reply(None, 2)
        before = len(c.hand())
        _, r1 = await c.command("d1", "draw")
        _, r2 = await c.command("d1", "draw")
        await asyncio.sleep(0.1)
        after = len(c.hand())
    for s in seats:
        await s.ws.close()
    return (f"seated command after 42 bad frames: {r['type']} in {took * 1000:.0f} ms; seat's "
            f"surrogate: {err.get('type')} {err.get('code')}; draw d1 twice: {r1['type']}, "
            f"{r2['type']}, hand {before} -> {after}")


async def attack_2(srv: Serve) -> str:
    """On a server of its own: its sessions use up the address's minute."""
    async with http(srv) as c:
        token = (await c.post("/api/session", json={"name": "Bot fan"})).json()["token"]
    codes = []
    for i in range(32):
        async with http(srv, ip=f"10.0.0.{i % 1}") as c:
            codes.append((await c.post("/api/session", json={"name": "Eve"})).status_code)
    made = []
    async with http(srv, token=token) as c:
        for _ in range(12):
            r = await c.post("/api/tables", json={"mode": "single",
                                                   "bots": {"count": 2, "reaction": 5}})
            made.append(r.status_code if r.status_code == 200 else f"{r.status_code} "
                        f"{r.json()['code']}")
    ok = codes.count(200)
    return (f"32 sessions from one address: {ok} made, then {codes[-1]} "
            f"too_many_sessions; 12 two-bot tables from one token: "
            f"{made.count(200)} made, then {made[-1]}")


async def attack_3(srv: Serve) -> str:
    code, tokens, seats = await table(srv)
    extra = []
    for _ in range(40):
        try:
            extra.append(Seat(await connect(f"{srv.ws}/ws/{code}?token={tokens[0]}", proxy=None)))
        except InvalidHandshake:
            break
    await asyncio.sleep(0.5)
    live = [s for s in [seats[0], *extra] if s.ws.close_code is None]
    replaced = sum(1 for s in [seats[0], *extra] if s.ws.close_code == 4409)
    acks = 0
    t0 = time.monotonic()
    n = 0
    while time.monotonic() - t0 < 2.0:
        for s in live:
            n += 1
            await s.ws.send(json.dumps({"type": "command", "id": f"f{n}", "do": "stage",
                                        "card": "ZZ"}))
        await asyncio.sleep(0.005)
    await asyncio.sleep(0.5)
    fast = sum(1 for s in live for f in s.frames if f.get("code") == "too_fast")
    acks = sum(1 for s in live for f in s.frames if f["type"] == "refused"
               and f.get("code") != "too_fast")
    for s in [*seats, *extra]:
        await s.ws.close()
    opened = refused = closed = 0
    socks = []
    for _ in range(300):
        try:
            ws = await connect(f"{srv.ws}/ws/{code}", proxy=None)
            socks.append(ws)
            opened += 1
        except InvalidHandshake:
            refused += 1
    await asyncio.sleep(0.5)
    closed = sum(1 for ws in socks if ws.close_code == 4429)
    for ws in socks:
        await ws.close()
    return (f"41 sockets of one seat: {len(live)} left open, {replaced} replaced (4409); "
            f"{n} commands over 2 s: {acks} reached the engine ({acks / 2:.0f}/s), {fast} "
            f"too_fast; 300 tokenless sockets: {opened - closed} kept, {closed} closed 4429, "
            f"{refused} handshakes refused")


async def attack_4(srv: Serve) -> str:
    before = srv.rss_mib()
    body = b"x" * (100 << 20)
    async with http(srv) as c:
        t0 = time.perf_counter()
        try:
            r = await c.post("/api/session", content=body,
                             headers={"content-type": "application/json"})
            got = f"{r.status_code} {r.json()['code']}"
        except httpx.HTTPError as e:
            got = f"closed ({type(e).__name__})"
        took = time.perf_counter() - t0
    return (f"100 MiB body: {got} in {took:.2f} s; RSS {before:.0f} -> {srv.rss_mib():.0f} MiB")


async def attack_5(srv: Serve) -> str:
    async with http(srv) as c:
        token = (await c.post("/api/session", json={"name": "F"})).json()["token"]
    async with http(srv, token=token) as c:
        code = (await c.post("/api/tables", json={"mode": "single"})).json()["code"]
    stop = threading.Event()

    def pauses() -> None:
        while not stop.is_set():
            time.sleep(0.08)
            os.kill(srv.proc.pid, signal.SIGSTOP)
            time.sleep(0.02)
            os.kill(srv.proc.pid, signal.SIGCONT)
    t = threading.Thread(target=pauses, daemon=True)
    t.start()
    t0 = time.monotonic()
    reason = "not cut"
    try:
        async with connect(f"{srv.ws}/ws/{code}?token={token}", proxy=None) as ws:
            async def drain() -> None:
                try:
                    async for _ in ws:
                        pass
                except ConnectionClosed:
                    pass
            reader = asyncio.get_running_loop().create_task(drain())
            try:
                while time.monotonic() - t0 < 15:
                    await ws.send('{"type": "ping"}')
                    await asyncio.sleep(0)
            except ConnectionClosed:
                pass
            await asyncio.wait({reader}, timeout=5)
            reason = f"{ws.close_code} {ws.close_reason}"
    finally:
        stop.set()
        t.join()
        os.kill(srv.proc.pid, signal.SIGCONT)
    return f"flood with the server stopped 20 ms every 100 ms: {reason} after {time.monotonic() - t0:.1f} s"


async def attack_6(srv: Serve, redis: subprocess.Popen[bytes]) -> str:
    code, _, seats = await table(srv)
    a = seats[0]
    await a.command("r0", "draw")
    card = a.hand()[0]
    os.kill(redis.pid, signal.SIGSTOP)
    lat = []
    for i in range(10):
        took, _ = await a.command(f"r{i + 1}", "unstage" if i % 2 == 0 else "stage", card=card)
        lat.append(took)
    answers = []
    async with http(srv, token=None) as c:
        for path in ("/api/ranking", "/api/agora", "/api/hands", "/readyz", "/healthz"):
            t0 = time.perf_counter()
            r = await c.get(path)
            body = r.json()
            answers.append(f"{path} {r.status_code} {body.get('code', body.get('status'))} "
                           f"{(time.perf_counter() - t0) * 1000:.0f} ms")
    os.kill(redis.pid, signal.SIGCONT)
    await asyncio.sleep(3)
    async with http(srv) as c:
        ready = (await c.get("/readyz")).status_code
    for s in seats:
        await s.ws.close()
    return (f"Redis frozen: 10 commands, first {lat[0] * 1000:.0f} ms, worst of the rest "
            f"{max(lat[1:]) * 1000:.0f} ms; " + "; ".join(answers) +
            f"; after SIGCONT /readyz {ready}")


async def attack_8(srv: Serve) -> str:
    out = []
    async with http(srv) as c:
        for method, path, kw in (("GET", "/nope", {}), ("DELETE", "/api/session", {}),
                                 ("POST", "/api/session", {"content": b"{bad"}),
                                 ("GET", "/api/ranking?offset=" + "9" * 30, {})):
            r = await c.request(method, path, **kw)
            out.append(f"{r.status_code} {sorted(r.json())} {r.json().get('code')}")
    return "; ".join(out)


async def busy(srv: Serve) -> ClientConnection:
    token = await session(srv, "Ada")
    async with http(srv, token=token) as c:
        r = await c.post("/api/tables", json={"mode": "long", "bots": {"count": 2,
                                                                       "reaction": 0.05}})
        code = r.json()["code"]
    ws = await connect(f"{srv.ws}/ws/{code}?token={token}", proxy=None, ping_interval=None)
    await asyncio.sleep(0.5)
    return ws  # left open: the server has to close it


def run_store(redis_url: str | None, redis: subprocess.Popen[bytes] | None) -> None:
    """Each attack on a server process of its own (each uses up some of the limits of the
    address they all come from), with its own Redis prefix."""
    kind = "redis" if redis_url else "memory"
    attacks: list[tuple[int, Any]] = [(1, attack_1), (2, attack_2), (3, attack_3),
                                      (4, attack_4), (5, attack_5), (8, attack_8)]
    if redis is not None:
        attacks.insert(5, (6, lambda srv: attack_6(srv, redis)))
    for n, fn in attacks:
        srv = Serve(redis_url, prefix=f"attacks{n}:{time.time_ns()}:")
        try:
            print(f"[{kind}] {n}. {asyncio.run(fn(srv))}", flush=True)
        finally:
            srv.stop()
    srv = Serve(redis_url, prefix=f"attacks7:{time.time_ns()}:")
    loop = asyncio.new_event_loop()
    ws = loop.run_until_complete(busy(srv))
    if redis is not None:
        os.kill(redis.pid, signal.SIGSTOP)
    took = srv.stop()
    if redis is not None:
        os.kill(redis.pid, signal.SIGCONT)
    loop.run_until_complete(ws.close())
    loop.close()
    print(f"[{kind}] 7. SIGTERM with two bots playing and a socket open"
          f"{' (Redis frozen)' if redis else ''}: exited in {took:.2f} s", flush=True)


def main() -> None:
    run_store(None, None)
    binary = shutil.which("redis-server")
    if binary is None:
        print("redis-server not found: the Redis run is skipped")
        return
    port = free_port()
    redis = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                              "--appendonly", "no"], stdout=subprocess.DEVNULL)
    time.sleep(0.5)
    try:
        run_store(f"redis://127.0.0.1:{port}/0", redis)
    finally:
        os.kill(redis.pid, signal.SIGCONT)
        redis.terminate()
        redis.wait(5)


if __name__ == "__main__":
    main()
