"""Login cost, and a busy table during a login storm (issue 18): password hashing must never
stall the tables.

What runs
    A real server process (``python -m server serve``, memory store, test deals on, limits
    lifted) and, in this process, the clients: one table of three guest players who each send
    a command every ``--interval`` seconds (stage a card, unstage it, over and over: the busy
    table), and ``--storm`` concurrent clients that log in again and again to accounts
    registered before (``POST /api/login``, argon2id verification).

What is measured, in one run, side by side
    * **argon2id cost**: one verification with the server's parameters (``server.accounts.
      hashing``: time_cost 2, 19 MiB, parallelism 1), in this process, ``--samples`` times:
      p50 in ms;
    * **login cost**: the round trip of one ``POST /api/login`` on an idle server (sequential):
      p50 and p99 in ms;
    * the busy table's command round trip (send → ``ack``), p50 / p99 / max in ms, and logins
      per second with their p50 / p99, in three phases of ``--seconds`` each: **idle** (the
      table alone), **storm** (the table and the login storm), and **on the loop** (the same
      storm against a second server process whose ``Hasher`` runs argon2 on the event loop: the
      design the bounded pool avoids, for reference; patched at its start by this script, no
      server option).

Every wait is bounded (setup steps time out; each phase lasts ``--seconds``; the process is
stopped at the end). Run: ``python bench/logins.py`` (``--seconds 8 --storm 8``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

PASSWORD = "correct horse battery"
POSITION = {
    "table": [["4C", "5C", "6C"]],
    "hands": {"A": ["7C", "9D", "KD", "QH"], "B": ["8C", "3H", "JD"], "C": ["2S", "9H"]},
    "stocks": {"A": ["KH", "2D", "3D"], "B": ["KS"], "C": ["QS"]},
    "drew": ["A", "B", "C"],
}
CARDS = {"A": "QH", "B": "3H", "C": "2S"}
LONG = {name: 3600.0 for name in ("play", "hold", "inactivity", "absence")}
#: A server whose password hashes run on its event loop (the reference phase).
ON_LOOP = ("import server.accounts.hashing as h\n"
           "async def _run(self, fn):\n"
           "    return fn()\n"
           "h.Hasher._run = _run\n"
           "from server.cli import main\n"
           "sys.exit(main())\n")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def pct(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def start_server(port: int, on_loop: bool) -> subprocess.Popen[bytes]:
    env = {**os.environ, "MACHIAVELOX_TEST_DEALS": "1", "MACHIAVELOX_SECRET": "bench",
           "MACHIAVELOX_LOG_LEVEL": "WARNING", "MACHIAVELOX_REDIS_URL": "",
           "MACHIAVELOX_SESSIONS_PER_IP_PER_MINUTE": "1000000",
           "MACHIAVELOX_LOGINS_PER_IP_PER_MINUTE": "1000000",
           "MACHIAVELOX_LOGINS_PER_NAME_PER_MINUTE": "1000000",
           "MACHIAVELOX_REGISTRATIONS_PER_IP_PER_HOUR": "1000000",
           "MACHIAVELOX_COMMANDS_PER_SECOND": "1000", "MACHIAVELOX_RESUME_WAIT": "0"}
    args = ["serve", "--port", str(port)]
    cmd = ([sys.executable, "-c", "import sys; sys.argv = ['machiavelox', *sys.argv[1:]]\n"
            + ON_LOOP, *args] if on_loop else [sys.executable, "-m", "server", *args])
    return subprocess.Popen(cmd, cwd=REPO, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


def wait_ready(url: str, proc: subprocess.Popen[bytes], timeout: float = 90.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}")
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(url + "/healthz", timeout=1, trust_env=False).status_code == 200:
                return
        time.sleep(0.1)
    raise RuntimeError(f"server at {url} did not start within {timeout} s")


def stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(5)


class Seat:
    """One player of the busy table: its socket, and the round trip of each command."""

    def __init__(self, ws: ClientConnection, card: str) -> None:
        self.ws = ws
        self.card = card
        self.sent: dict[str, float] = {}
        self.rtts: list[tuple[float, float]] = []  # (sent at, round trip s)
        self.n = 0

    async def read(self) -> None:
        with contextlib.suppress(Exception):
            async for raw in self.ws:
                msg = json.loads(raw)
                if msg.get("type") in ("ack", "refused") and msg.get("id") in self.sent:
                    t0 = self.sent.pop(msg["id"])
                    self.rtts.append((t0, time.perf_counter() - t0))

    async def play(self, until: float, interval: float) -> None:
        while time.perf_counter() < until:
            self.n += 1
            cid = f"c{self.n}"
            do = "stage" if self.n % 2 else "unstage"
            self.sent[cid] = time.perf_counter()
            await self.ws.send(json.dumps({"type": "command", "id": cid, "do": do,
                                           "card": self.card}))
            await asyncio.sleep(interval)


async def busy_table(http: httpx.AsyncClient, ws_url: str) -> list[Seat]:
    tokens = [(await http.post("/api/session", json={"name": n})).json()["token"]
              for n in ("A", "B", "C")]
    auth = [{"Authorization": f"Bearer {t}"} for t in tokens]
    r = await http.post("/api/tables", json={"mode": "single", "position": POSITION,
                                             "timers": LONG}, headers=auth[0])
    code = r.json()["code"]
    for h in auth[1:]:
        (await http.post(f"/api/tables/{code}/join", headers=h)).raise_for_status()
    seats = []
    for name, tok in zip(("A", "B", "C"), tokens):
        ws = await connect(f"{ws_url}/ws/{code}?token={tok}", open_timeout=20, max_size=2**22,
                           proxy=None)
        seats.append(Seat(ws, CARDS[name]))
    await asyncio.sleep(1.0)
    return seats


async def storm(http: httpx.AsyncClient, names: list[str], until: float,
                out: list[float], codes: dict[int, int]) -> None:
    i = 0
    while time.perf_counter() < until:
        name = names[i % len(names)]
        i += 1
        t0 = time.perf_counter()
        r = await http.post("/api/login", json={"name": name, "password": PASSWORD})
        codes[r.status_code] = codes.get(r.status_code, 0) + 1
        if r.status_code == 200:
            out.append(time.perf_counter() - t0)


async def phase(url: str, seats: list[Seat], seconds: float, interval: float,
                storm_clients: int, names: list[str]) -> dict[str, Any]:
    for s in seats:
        s.rtts.clear()
    start = time.perf_counter()
    until = start + seconds
    logins: list[float] = []
    codes: dict[int, int] = {}
    limits = httpx.Limits(max_connections=storm_clients + 4)
    async with httpx.AsyncClient(base_url=url, trust_env=False, timeout=30, limits=limits) as c:
        await asyncio.gather(*(s.play(until, interval) for s in seats),
                             *(storm(c, names, until, logins, codes)
                               for _ in range(storm_clients)))
    await asyncio.sleep(0.5)  # the last acks
    rtts = [rtt * 1000 for s in seats for t0, rtt in s.rtts if t0 < until]
    return {"commands": len(rtts), "p50": pct(rtts, 0.5), "p99": pct(rtts, 0.99),
            "max": max(rtts, default=float("nan")), "logins": len(logins),
            "logins_per_s": len(logins) / seconds,
            "login_p50": pct([x * 1000 for x in logins], 0.5),
            "login_p99": pct([x * 1000 for x in logins], 0.99), "codes": codes}


async def run_server(on_loop: bool, args: argparse.Namespace) -> dict[str, dict[str, Any]]:
    port = free_port()
    url, ws_url = f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}"
    proc = start_server(port, on_loop)
    try:
        await asyncio.to_thread(wait_ready, url, proc)
        names = [f"Storm{i}" for i in range(args.storm)]
        out: dict[str, dict[str, Any]] = {}
        async with httpx.AsyncClient(base_url=url, trust_env=False, timeout=30) as http:
            for n in names:
                r = await http.post("/api/accounts", json={"name": n, "password": PASSWORD})
                r.raise_for_status()
            single = []
            for i in range(args.samples):
                t0 = time.perf_counter()
                r = await http.post("/api/login", json={"name": names[i % len(names)],
                                                        "password": PASSWORD})
                r.raise_for_status()
                single.append((time.perf_counter() - t0) * 1000)
            out["login"] = {"p50": pct(single, 0.5), "p99": pct(single, 0.99)}
            seats = await busy_table(http, ws_url)
        readers = [asyncio.ensure_future(s.read()) for s in seats]
        if not on_loop:
            out["idle"] = await phase(url, seats, args.seconds, args.interval, 0, names)
        out["storm"] = await phase(url, seats, args.seconds, args.interval, args.storm, names)
        for s in seats:
            await s.ws.close()
        for r in readers:
            r.cancel()
        return out
    finally:
        stop(proc)


def argon2_cost(samples: int) -> float:
    from argon2 import PasswordHasher

    from server.accounts.hashing import MEMORY_COST_KIB, PARALLELISM, TIME_COST

    ph = PasswordHasher(time_cost=TIME_COST, memory_cost=MEMORY_COST_KIB, parallelism=PARALLELISM)
    stored = ph.hash(PASSWORD)
    times = []
    for _ in range(samples):
        t0 = time.perf_counter()
        ph.verify(stored, PASSWORD)
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def line(label: str, r: dict[str, Any]) -> str:
    text = (f"  {label:<22} table: {r['commands']:5d} commands, p50 {r['p50']:7.1f} ms, "
            f"p99 {r['p99']:7.1f} ms, max {r['max']:7.1f} ms")
    if r["logins"]:
        text += (f" | logins: {r['logins_per_s']:5.1f}/s, p50 {r['login_p50']:6.0f} ms, "
                 f"p99 {r['login_p99']:6.0f} ms, replies {r['codes']}")
    return text


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=8.0, help="seconds per phase")
    ap.add_argument("--storm", type=int, default=8, help="concurrent login clients")
    ap.add_argument("--interval", type=float, default=0.05,
                    help="seconds between two commands of one player of the busy table")
    ap.add_argument("--samples", type=int, default=20, help="sequential logins (idle cost)")
    ap.add_argument("--no-reference", action="store_true", help="skip the on-the-loop server")
    args = ap.parse_args()
    print(f"argon2id verify (time_cost 2, 19 MiB, p=1), this process: "
          f"p50 {argon2_cost(args.samples):.1f} ms over {args.samples}")
    pool = asyncio.run(run_server(False, args))
    print(f"login round trip, idle server (sequential, {args.samples}): "
          f"p50 {pool['login']['p50']:.1f} ms, p99 {pool['login']['p99']:.1f} ms")
    print(f"busy table (3 players, a command each every {args.interval * 1000:.0f} ms), "
          f"{args.seconds:.0f} s per phase, {args.storm} login clients in a storm:")
    print(line("idle", pool["idle"]))
    print(line("storm, bounded pool", pool["storm"]))
    if not args.no_reference:
        ref = asyncio.run(run_server(True, args))
        print(line("storm, on the loop", ref["storm"]))
    print(f"load average: {os.getloadavg()[0]:.1f} (2 cores; other work on the machine "
          "inflates every latency)")


if __name__ == "__main__":
    main()
