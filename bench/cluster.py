"""Durable tables on several processes (issue 13): what they cost, and how fast a table fails
over. Prints figures; not a test.

Each run starts a real redis-server (append-only file), ``--procs`` real ``machiavelox serve``
processes on it and HAProxy with ``deploy/haproxy.cfg`` in front (all on 127.0.0.1), then:

1. **Cost per command**, with 1 and with 2 server processes: ``--tables`` tables of three
   websocket clients (through the proxy) each sending one command (a stage or an unstage, both
   journalled) every ``--interval`` seconds for ``--seconds``; CPU seconds per acknowledged
   command summed over the server processes, and beside it the proxy's and Redis's, Redis
   operations per command (``INFO commandstats``), and the ack latency (p50, p99).
2. **appendfsync**: the 1-process run again with ``appendfsync everysec``: the difference is
   what ``always`` costs per command (Redis CPU, latency).
3. **Failover** (2 processes): ``--kills`` times, the owner of a table being played is killed
   (SIGKILL); the time from the kill to the first command acknowledged on a socket opened
   after it, i.e. by the new owner (median, max), then the process is started again.

    python bench/cluster.py                  # defaults: 30 tables, 20 s, 20 kills
    python bench/cluster.py --tables 10 --seconds 5 --kills 3   # quick look
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import redis
from websockets.asyncio.client import connect

REPO = Path(__file__).resolve().parent.parent
CLK = os.sysconf("SC_CLK_TCK")
POSITION = {"table": [["4C", "5C", "6C"]],
            "hands": {"A": ["9D", "KD"], "B": ["3H", "4H"], "C": ["2S", "3S"]},
            "stocks": {"A": ["KH"], "B": ["KS"], "C": ["QS"]}, "drew": ["A", "B", "C"]}
CARDS = {0: "9D", 1: "3H", 2: "2S"}
ENV = {"MACHIAVELOX_SECRET": "bench-cluster", "MACHIAVELOX_TEST_DEALS": "1",
       "MACHIAVELOX_LEASE_SECONDS": "2", "MACHIAVELOX_RESUME_WAIT": "0",
       "MACHIAVELOX_LOG_LEVEL": "WARNING", "MACHIAVELOX_TRUSTED_PROXIES": "127.0.0.1",
       "MACHIAVELOX_SESSIONS_PER_IP_PER_MINUTE": "100000", "MACHIAVELOX_TABLES_PER_IP": "100000",
       "MACHIAVELOX_TABLES_PER_SESSION": "100000", "MACHIAVELOX_SOCKETS_PER_IP": "100000",
       "MACHIAVELOX_SOCKETS_PER_IP_PER_MINUTE": "100000",
       "MACHIAVELOX_MAX_WAITING_TABLES_PER_PLAYER": "100000",
       "MACHIAVELOX_ABSENCE": "3600", "MACHIAVELOX_INACTIVITY": "3600",
       "MACHIAVELOX_PLAY": "3600", "MACHIAVELOX_MAX_TABLES": "100000"}
NO_PROXY: dict[str, Any] = {"proxy": None}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def cpu(pid: int) -> float:
    """CPU seconds (user + system) a process has used."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK


def wait_http(url: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if httpx.get(url, trust_env=False, timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise SystemExit(f"{url} did not answer")


class Cluster:
    def __init__(self, procs: int, fsync: str) -> None:
        self.dir = tempfile.mkdtemp(prefix="mvx-bench-")
        self.rport = free_port()
        self.redis = subprocess.Popen(
            ["redis-server", "--port", str(self.rport), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "yes", "--appendfsync", fsync, "--dir", self.dir,
             "--maxmemory-policy", "noeviction"], stdout=subprocess.DEVNULL)
        time.sleep(0.3)
        self.env = {**os.environ, **ENV, "MACHIAVELOX_REPLICAS": str(procs),
                    "MACHIAVELOX_REDIS_URL": f"redis://127.0.0.1:{self.rport}/0"}
        self.ports = [free_port() for _ in range(procs)]
        self.servers: list[subprocess.Popen[bytes]] = [self._serve(p) for p in self.ports]
        for p in self.ports:
            wait_http(f"http://127.0.0.1:{p}/readyz")
        self.pport = free_port()
        dead = free_port()
        henv = {**os.environ, "MVX_LISTEN": f"127.0.0.1:{self.pport}"}
        for i in range(3):
            henv[f"MVX_SERVER{i + 1}"] = f"127.0.0.1:{self.ports[i] if i < procs else dead}"
        self.proxy = subprocess.Popen(["haproxy", "-f", str(REPO / "deploy" / "haproxy.cfg"),
                                       "-db"], env=henv, stdout=subprocess.DEVNULL,
                                      stderr=subprocess.DEVNULL)
        self.url = f"http://127.0.0.1:{self.pport}"
        wait_http(self.url + "/readyz")

    def _serve(self, port: int) -> subprocess.Popen[bytes]:
        return subprocess.Popen([sys.executable, "-m", "server", "serve", "--port", str(port)],
                                cwd=REPO, env=self.env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)

    def r(self) -> redis.Redis:
        return redis.Redis(port=self.rport, decode_responses=True)

    def redis_calls(self) -> int:
        stats = self.r().info("commandstats")
        return sum(int(v["calls"]) for k, v in stats.items() if not k.endswith("info"))

    def cpus(self) -> dict[str, float]:
        return {"servers": sum(cpu(p.pid) for p in self.servers), "proxy": cpu(self.proxy.pid),
                "redis": cpu(self.redis.pid)}

    def owner_index(self, code: str) -> int | None:
        owner = self.r().get(f"mvx:tbl:{code}:lease")
        if owner is None:
            return None
        pid = int(owner.split(":")[1])
        return next((i for i, p in enumerate(self.servers) if p.pid == pid), None)

    def restart(self, i: int) -> None:
        self.servers[i] = self._serve(self.ports[i])
        wait_http(f"http://127.0.0.1:{self.ports[i]}/readyz")

    def close(self) -> None:
        for p in [*self.servers, self.proxy, self.redis]:
            p.kill()
            p.wait(5)
        shutil.rmtree(self.dir, ignore_errors=True)


def post(url: str, path: str, token: str | None = None, body: Any = None) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    for _ in range(50):
        r = httpx.post(url + path, json=body or {}, headers=headers, trust_env=False, timeout=10)
        if r.status_code != 503:
            break
        time.sleep(0.2)
    r.raise_for_status()
    return dict(r.json())


def make_tables(url: str, n: int) -> list[tuple[str, list[str]]]:
    out = []
    for _ in range(n):
        tokens = [post(url, "/api/session", body={"name": nm})["token"] for nm in "ABC"]
        code = post(url, "/api/tables", tokens[0], {"mode": "single", "position": POSITION})["code"]
        for t in tokens[1:]:
            post(url, f"/api/tables/{code}/join", t)
        out.append((code, tokens))
    return out


class Client:
    """One seat: a stage or unstage of its card every ``interval`` s, the same id again after
    a reconnection until it is answered; acks timed."""

    def __init__(self, ws_url: str, code: str, token: str, seat: int, interval: float) -> None:
        self.url = f"{ws_url}/ws/{code}?token={token}"
        self.card = CARDS[seat]
        self.interval = interval
        self.acks: list[tuple[float, float]] = []  # (when, latency)
        self.after: list[float] = []  # when, for acks on a socket opened after ``mark``
        self.mark = float("inf")
        self.opened = 0.0
        self.n = 0
        self.staged = False
        self.pending: tuple[str, dict[str, Any], float] | None = None

    async def run(self, until: float) -> None:
        loop = asyncio.get_running_loop()
        while loop.time() < until:
            try:
                async with connect(self.url, open_timeout=5, **NO_PROXY) as ws:
                    self.opened = time.monotonic()
                    await ws.send(json.dumps({"type": "resume", "last_version": None}))
                    await self._play(ws, until)
            except Exception:  # noqa: BLE001 - the server died: reconnect
                await asyncio.sleep(0.2)

    async def _play(self, ws: Any, until: float) -> None:
        loop = asyncio.get_running_loop()
        while loop.time() < until:
            if self.pending is None:
                self.n += 1
                msg = {"type": "command", "id": f"c{self.n}",
                       "do": "unstage" if self.staged else "stage", "card": self.card}
                self.pending = (msg["id"], msg, time.monotonic())
            cid, msg, sent = self.pending
            await ws.send(json.dumps(msg))
            while True:
                reply = json.loads(await asyncio.wait_for(ws.recv(), 10))
                if reply.get("id") == cid and reply["type"] in ("ack", "refused"):
                    break
            now = time.monotonic()
            if reply["type"] == "ack":
                self.acks.append((now, now - sent))
                if self.opened > self.mark:
                    self.after.append(now)
                self.staged = not self.staged
            elif reply.get("code") in ("card_not_in_hand", "card_not_staged"):
                self.staged = not self.staged
            self.pending = None
            await asyncio.sleep(max(0.0, self.interval - (time.monotonic() - sent)))


async def play(c: Cluster, tables: list[tuple[str, list[str]]], seconds: float,
               interval: float) -> list[Client]:
    ws_url = "ws" + c.url[4:]
    clients = [Client(ws_url, code, tok, i, interval) for code, toks in tables
               for i, tok in enumerate(toks)]
    until = asyncio.get_running_loop().time() + seconds
    await asyncio.gather(*(cl.run(until) for cl in clients))
    return clients


def cost_run(procs: int, fsync: str, args: argparse.Namespace) -> dict[str, float]:
    c = Cluster(procs, fsync)
    try:
        tables = make_tables(c.url, args.tables)
        asyncio.run(play(c, tables, 2.0, args.interval))  # warm up: tables settle on owners
        cpu0, calls0 = c.cpus(), c.redis_calls()
        clients = asyncio.run(play(c, tables, args.seconds, args.interval))
        cpu1, calls1 = c.cpus(), c.redis_calls()
        acks = [lat for cl in clients for _, lat in cl.acks]
        n = max(1, len(acks))
        lat = sorted(acks)
        out = {f"{k}_ms_per_cmd": (cpu1[k] - cpu0[k]) * 1000 / n for k in cpu0}
        out.update(commands=len(acks), redis_ops_per_cmd=(calls1 - calls0) / n,
                   p50_ms=lat[len(lat) // 2] * 1000 if lat else 0.0,
                   p99_ms=lat[int(len(lat) * 0.99)] * 1000 if lat else 0.0)
        return out
    finally:
        c.close()


def failover_run(args: argparse.Namespace) -> list[float]:
    c = Cluster(2, "always")
    times: list[float] = []
    try:
        for _ in range(args.kills):
            tables = make_tables(c.url, 1)
            code = tables[0][0]

            async def one(code: str = code, tokens: list[str] = tables[0][1]) -> float | None:
                ws_url = "ws" + c.url[4:]
                clients = [Client(ws_url, code, tok, i, 0.1) for i, tok in enumerate(tokens)]
                until = asyncio.get_running_loop().time() + 40
                tasks = [asyncio.ensure_future(cl.run(until)) for cl in clients]
                try:
                    for _ in range(300):  # 15 s at most
                        if all(cl.acks for cl in clients):
                            break
                        await asyncio.sleep(0.05)
                    owner = c.owner_index(code)
                    if owner is None:
                        return None
                    killed = time.monotonic()
                    for cl in clients:
                        cl.mark = killed  # count acks on sockets opened after the kill only
                    c.servers[owner].send_signal(signal.SIGKILL)
                    while time.monotonic() - killed < 30:
                        after = [w for cl in clients for w in cl.after]
                        if after:
                            took = min(after) - killed
                            c.servers[owner].wait(5)
                            await asyncio.to_thread(c.restart, owner)
                            return took
                        await asyncio.sleep(0.02)
                    return None
                finally:
                    for t in tasks:
                        t.cancel()
                    await asyncio.gather(*tasks, return_exceptions=True)

            took = asyncio.run(one())
            if took is None:
                print("  a failover took more than 30 s (or no owner): counted as 30 s")
                took = 30.0
                for i, p in enumerate(c.servers):
                    if p.poll() is not None:
                        c.restart(i)
            times.append(took)
            print(f"  kill {len(times)}: first ack after {took:.2f} s")
    finally:
        c.close()
    return times


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tables", type=int, default=30)
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--interval", type=float, default=0.5, help="seconds between a seat's commands")
    ap.add_argument("--kills", type=int, default=20)
    args = ap.parse_args()
    for tool in ("redis-server", "haproxy"):
        if shutil.which(tool) is None:
            raise SystemExit(f"{tool} is not installed (bash scripts/test.sh installs it)")
    runs = {"1 process, appendfsync always": cost_run(1, "always", args),
            "2 processes, appendfsync always": cost_run(2, "always", args),
            "1 process, appendfsync everysec": cost_run(1, "everysec", args)}
    print(f"{args.tables} tables x 3 clients, a command every {args.interval} s per seat, "
          f"{args.seconds} s; CPU ms per acknowledged command:")
    for name, r in runs.items():
        print(f"  {name:34s} servers {r['servers_ms_per_cmd']:.3f}  proxy "
              f"{r['proxy_ms_per_cmd']:.3f}  redis {r['redis_ms_per_cmd']:.3f}  redis ops "
              f"{r['redis_ops_per_cmd']:.2f}  ack p50 {r['p50_ms']:.1f} ms p99 "
              f"{r['p99_ms']:.1f} ms  ({r['commands']:.0f} commands)")
    one, two = runs["1 process, appendfsync always"], runs["2 processes, appendfsync always"]
    ratio = two["servers_ms_per_cmd"] / max(1e-9, one["servers_ms_per_cmd"])
    print(f"  2 processes / 1 process, server CPU per command: {ratio:.2f} (target <= 1.10)")
    ev = runs["1 process, appendfsync everysec"]
    print(f"  appendfsync always costs per command: redis CPU "
          f"{one['redis_ms_per_cmd'] - ev['redis_ms_per_cmd']:+.3f} ms, ack p50 "
          f"{one['p50_ms'] - ev['p50_ms']:+.1f} ms")
    if args.kills:
        times = failover_run(args)
        print(f"failover over {len(times)} kills (kill -9 to the first acknowledged command): "
              f"median {statistics.median(times):.2f} s, max {max(times):.2f} s "
              f"(target median <= 5 s)")


if __name__ == "__main__":
    main()
