"""Load benchmark: N concurrent hands of three scripted websocket clients against the real
server, beside a bare FastAPI websocket broadcast server measured in the same run.

What runs
    Each server is a separate process (``python -m server serve``; ``bench/bare_server.py``)
    pinned to CPU 0 with ``taskset``; this script (the load generator) pins itself to CPU 1
    (``os.sched_setaffinity``) and raises its open-file limit to the hard limit with
    ``resource`` (the servers inherit it). The generator pauses its own garbage collector
    during the window, so that its pauses are not counted as the server's. Both servers get the same clients: N groups of three
    websockets (a hand: one table of the game server, one room of the bare server), each client
    sending **one command per second** on a fixed schedule (open loop: a slow reply never
    delays the next command), its phase spread over the second. The commands are ones the engine
    accepts, over and over: ``stage X``, ``unstage X`` four times, then ``draw`` (X is the card
    each client drew before the measurement; the bare server just broadcasts them).
    Tables are dealt from fixed seeds (the server runs with ``MACHIAVELOX_TEST_DEALS=1``).

What is measured (during the ``--seconds`` window; setup is not measured)
    * command-to-broadcast latency: from just before the client sends a command to when the
      **last** of the three clients of its hand has received the ``update`` with the version
      the command's ``ack`` names: p50, p99 and max, in ms;
    * commands per second: acknowledged commands / window;
    * server CPU per command: the server process's utime+stime (``/proc/<pid>/stat``) over the
      window, divided by the commands acknowledged in it, in µs; also its CPU use in % of a core;
    * memory: the server's RSS (``/proc/<pid>/status`` VmRSS) before anything, after the tables
      are made (per hand) and after the sockets are open (per connection), in KiB;
    * the load generator's own CPU use (% of a core): near 100 % it, not the server, is the
      limit, and the latencies say more about it than about the server.

Modes
    ``python bench/load.py`` (``--hands 300 --seconds 20``): both servers, then the ratios
    game/bare. ``--find-max``: the largest N whose game-server p99 stays ≤ ``--p99-limit`` ms
    (default 50): N grows by ``--growth`` (1.5×) until p99 passes the limit, then bisects, at
    most ``--max-steps`` runs of ``--search-seconds`` each, N at most ``--max-hands``; a fresh
    server per run. ``--only game|bare``, ``--redis`` (start a ``redis-server`` on a free port,
    pinned to CPU 0 with the server, and use it as the store), ``--deflate`` (let the clients
    offer permessage-deflate, as browsers do; off by default), ``--gc-mode`` (the game server's
    collector policy, ``server/gctune.py``). ``BENCH_DUMP=path`` writes every latency sample
    (send time, latency, command id, each client's arrival) to ``path.game``/``path.bare``;
    ``BENCH_SERVER_LOG=path`` keeps the game server's output; ``BENCH_PROFILE=path`` runs it
    under ``cProfile`` and writes its statistics there (setup included; the figures are then
    the profiler's, not the server's).

Every wait is bounded: setup steps time out, the measurement window is ``--seconds`` plus a
drain of at most ``--drain`` seconds, and the search makes at most ``--max-steps`` runs.

Workloads (``--table``)
    ``default``: fresh deals, the cycle above. ``busy``: every table starts from
    :func:`busy_position` (27 melds) and each client plays :func:`busy_cycle` over and over:
    stage two cards, move a card from one run to another and back, place a card on a third
    run, cancel (the chain undo puts everything back), on melds of its own suit. ``both``:
    the bare server and both workloads in one run, then the ratios and issue 19's targets.
    Bytes per client per command: every ``update`` and ``ack`` byte the clients received in
    the window, divided by the commands acknowledged and by three (a command makes an update
    for each of its hand's three clients and an ack for its sender).

Figures (issue 19) on the project machine, 2 cores, 2026-12-01, 300 hands (900 clients, 900
commands/s offered), 20 s, memory store; **not quiet**: other helpers' test runs took 13–80 %
of each pinned CPU (load average 3–5), so the latencies measure the machine's other load, not
the servers (the bare server's own p99 ranged from 4.6 ms to 1,065 ms); CPU time per command
and bytes are the robust figures. Five runs before (views rebuilt whole per seat and sent
whole) and four after (one shared view per batch, changes):

=====================================  ==============  ==============  ==============
                                       bare server     before          after
=====================================  ==============  ==============  ==============
server CPU per command, default        213–339 µs      765–1,035 µs    741–873 µs
server CPU per command, busy table     —               2,691–4,013 µs  886–939 µs
busy / default CPU per command         —               2.9–4.3×        1.08–1.23×
bytes per client per command, default  128             1,748–1,759     464–470
bytes per client per command, busy     —               4,226–4,296     461–473
busy table: commands/s served          —               105–414         592–900
=====================================  ==============  ==============  ==============

Largest N with p99 ≤ 50 ms (``--find-max``, 10 s runs, one after the other at 15:03–15:09):
before 43 hands (N=50 did not), after 100 (N=112 did not): 2.3×, but both searches were
decided by the other load (34–88 % of the CPUs); in one after-run that found the server's CPU
to itself, 400 hands drew 1,147 commands/s at 94 % of its core, 820 µs per command.

Before, the busy table saturated the server at 300 hands (95 % of a core for 414 of the 900
commands a second offered); after, it costs what a fresh deal costs. What remains of a
command's CPU is mostly not the game: a profile (``BENCH_PROFILE``) puts building, diffing
and writing the views at about a tenth of the server's time, and most of the rest in the
websocket stack, asyncio (a writer task per connection) and FastAPI.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import random
import resource
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect

REPO = Path(__file__).resolve().parents[1]
#: Load generator CPU (% of its core) above which ``--find-max`` stops: "generator-bound".
GENERATOR_BOUND = 85
CLK_TCK = os.sysconf("SC_CLK_TCK")
SERVER_CPU = 0
LOADGEN_CPU = 1

# ---------------------------------------------------------------------------- the process side


def raise_nofile() -> tuple[int, int]:
    """Raise the soft open-file limit to the hard one; the new ``(soft, hard)``."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY:
        hard = 1 << 20
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)


#: Decided once at import, before this process pins itself to LOADGEN_CPU (after which its
#: own affinity has one CPU and would say otherwise).
PINNING = len(os.sched_getaffinity(0)) >= 2 and shutil.which("taskset") is not None


def pinning() -> bool:
    """True when there are two CPUs to pin the server and the load generator apart."""
    return PINNING


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process, in seconds."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def cpu_busy(cpu: int) -> float:
    """Seconds CPU ``cpu`` has run processes (user, nice, system) or had time stolen by the
    hypervisor (steal) since boot, from /proc/stat. Interrupts and softirqs (where loopback
    networking is counted) are left out: they are this benchmark's own traffic."""
    with open("/proc/stat") as f:
        for line in f:
            if line.startswith(f"cpu{cpu} "):
                v = [int(x) for x in line.split()[1:]]
                return (v[0] + v[1] + v[2] + v[7]) / CLK_TCK
    return 0.0


def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


class Proc:
    """A server subprocess pinned to CPU 0 (when there are two CPUs)."""

    def __init__(self, argv: list[str], env: dict[str, str] | None = None,
                 log: Path | None = None) -> None:
        prefix = ["taskset", "-c", str(SERVER_CPU)] if pinning() else []
        self.log = open(log or os.devnull, "w")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(prefix + argv, cwd=REPO, env={**os.environ, **(env or {})},
                                     stdout=self.log, stderr=subprocess.STDOUT)
        self.pid = self.proc.pid  # taskset execs the command: same pid

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self.log.close()


def wait_http(url: str, proc: Proc, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.proc.returncode}")
        try:
            if httpx.get(url + "/healthz", timeout=1, trust_env=False).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.05)
    raise RuntimeError(f"server at {url} did not answer within {timeout} s")


def start_game_server(port: int, redis_url: str | None, gc_mode: str | None = None) -> Proc:
    env = {"MACHIAVELOX_TEST_DEALS": "1", "MACHIAVELOX_SECRET": "bench",
           "MACHIAVELOX_LOG_LEVEL": "WARNING", "MACHIAVELOX_MAX_TABLES": "100000",
           # Three players sit at every table: they create (and wait at) many at once.
           "MACHIAVELOX_MAX_WAITING_TABLES_PER_PLAYER": "100000",
           # Every simulated player comes from 127.0.0.1 (server.limits): lift the per-address
           # and per-session limits; commands per seat stay at the default (1 a second here).
           "MACHIAVELOX_SESSIONS_PER_IP_PER_MINUTE": "1000000",
           "MACHIAVELOX_TABLES_PER_SESSION": "100000", "MACHIAVELOX_TABLES_PER_IP": "1000000",
           "MACHIAVELOX_SOCKETS_PER_IP": "1000000",
           "MACHIAVELOX_SOCKETS_PER_IP_PER_MINUTE": "1000000"}
    if gc_mode:
        env["MACHIAVELOX_GC_MODE"] = gc_mode
    for key in ("MACHIAVELOX_LOG_LEVEL", "MACHIAVELOX_GC_FULL_SECONDS",
                "MACHIAVELOX_GC_FREEZE_SECONDS"):
        if key in os.environ:  # the caller's choice wins
            env[key] = os.environ[key]
    if redis_url:
        env["MACHIAVELOX_REDIS_URL"] = redis_url
    else:
        env["MACHIAVELOX_REDIS_URL"] = ""
    profile = ["-m", "cProfile", "-o", os.environ["BENCH_PROFILE"]] if os.environ.get(
        "BENCH_PROFILE") else []
    return Proc([sys.executable, *profile, "-m", "server", "serve", "--port", str(port)], env,
                log=Path(os.environ.get("BENCH_SERVER_LOG", os.devnull)))


def start_bare_server(port: int) -> Proc:
    return Proc([sys.executable, str(REPO / "bench" / "bare_server.py"), "--port", str(port)])


def start_redis(port: int) -> Proc:
    binary = shutil.which("redis-server")
    if binary is None:
        raise SystemExit("--redis needs redis-server (apt-get install redis-server)")
    proc = Proc([binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                 "--appendonly", "no"])
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.5) as s:
            s.sendall(b"PING\r\n")
            if s.recv(16).startswith(b"+PONG"):
                return proc
        time.sleep(0.05)
    proc.stop()
    raise RuntimeError("redis-server did not answer")


# ---------------------------------------------------------------------------- the clients


def frame_kind(text: str) -> str:
    i = text.find('"type"')
    j = text.find('"', i + 6)
    return text[j + 1:text.find('"', j + 1)]


def frame_version(text: str) -> int:
    """The ``version`` of a frame, without parsing the whole JSON (game views are large)."""
    i = text.find('"version":') + 10
    while text[i] == " ":
        i += 1
    j = i
    while text[j].isdigit():
        j += 1
    return int(text[i:j])


@dataclass
class HandStats:
    """The three clients of one hand share this: when each update version reached each."""

    arrivals: dict[int, list[float]] = field(default_factory=lambda: defaultdict(list))


RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
#: The suit each seat plays with on the busy table (seat index 0, 1, 2).
BUSY_SUITS = "SHD"


def busy_position() -> dict[str, Any]:
    """The busy table (``--table busy``): 27 melds, and for each seat s (suit ``BUSY_SUITS[s]``)
    the melds 4s+2 (4–7), 4s+3 (8–10) and 4s+4 (J–K) of its suit, and 10 and A of it in hand.

    Melds 1–16 are the runs A–3, 4–7, 8–10, J–K of each suit (first pack), 17–24 the sets
    2–9 of spades, hearts and diamonds, 25–27 the runs A–3, 4–6, 7–9 of clubs (second pack)."""
    table: list[list[str]] = []
    for suit in "SHDC":
        table += [[r + suit for r in RANKS[a:b]] for a, b in ((0, 3), (3, 7), (7, 10), (10, 13))]
    table += [[r + "S", r + "H", r + "D"] for r in RANKS[1:9]]
    table += [[r + "C" for r in RANKS[a:b]] for a, b in ((0, 3), (3, 6), (6, 9))]
    players = ["A", "B", "C"]
    hands = {p: ["10" + s, "A" + s, "J" + s, "Q" + s] for p, s in zip(players, BUSY_SUITS)}
    stocks = {p: ["K" + s] for p, s in zip(players, BUSY_SUITS)}
    return {"table": table, "hands": hands, "stocks": stocks, "drew": players, "laid": players}


def busy_cycle(seat: int) -> list[dict[str, Any]]:
    """One declared play on the busy table that ends where it began: stage the 10 and the A,
    move the 7 from the 4–7 run to the 8–10 run and back, place the 10 on the J–K run, cancel
    (the chain undo puts every card back)."""
    s = BUSY_SUITS[seat]
    m1, m2, m3 = 4 * seat + 2, 4 * seat + 3, 4 * seat + 4
    return [{"do": "stage", "card": "10" + s}, {"do": "stage", "card": "A" + s},
            {"do": "move", "card": "7" + s, "meld": m1, "to": m2},
            {"do": "move", "card": "7" + s, "meld": m2, "to": m1},
            {"do": "place", "card": "10" + s, "meld": m3}, {"do": "cancel"}]


class Client:
    """One scripted player: a websocket, a reader task, a schedule of commands.

    The default workload cycles ``stage X``, ``unstage X`` four times, then ``draw``; the busy
    one (:func:`busy_cycle`) moves and places cards on a table of 27 melds."""

    CYCLE = ("stage", "unstage") * 4 + ("draw",)

    def __init__(self, name: str, hand: HandStats, cycle: list[dict[str, Any]] | None = None
                 ) -> None:
        self.name = name
        self.hand = hand
        self.cycle = cycle
        self.bytes = 0  # update and ack frames received while recording, in bytes (UTF-8)
        self.snapshot = ""
        self.ws: ClientConnection | None = None
        self.sent: dict[str, float] = {}
        self.acked: dict[str, int] = {}
        self.refused: dict[str, str] = {}
        self.card = "XX"
        self.own: list[str] | None = None  # this seat's hand, followed during the setup
        self._waiting: dict[str, asyncio.Future[str]] = {}
        self._reader: asyncio.Task[None] | None = None
        self.recording = False
        self.closed_code: int | None = None

    async def open(self, url: str, deflate: bool) -> None:
        self.ws = await connect(url, proxy=None, open_timeout=30, close_timeout=2,
                                max_size=2**24, ping_interval=None,
                                compression="deflate" if deflate else None)
        self._reader = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        assert self.ws is not None
        clock = time.perf_counter  # uvloop's loop.time() only has millisecond resolution
        try:
            async for raw in self.ws:
                now = clock()
                text = raw if isinstance(raw, str) else raw.decode()
                kind = frame_kind(text)
                if kind == "update":
                    if self.recording:
                        self.hand.arrivals[frame_version(text)].append(now)
                        self.bytes += len(raw) if isinstance(raw, bytes) else len(raw.encode())
                    else:  # setup: follow the own hand (a whole view, or "mine" in changes)
                        frame = json.loads(text)
                        if frame.get("game") and frame["game"].get("hand"):
                            self.own = frame["game"]["hand"]["hand"]
                        elif "hand" in frame.get("mine", {}):
                            self.own = frame["mine"]["hand"]
                elif kind in ("ack", "refused"):
                    if self.recording:
                        self.bytes += len(raw) if isinstance(raw, bytes) else len(raw.encode())
                    msg = json.loads(text)
                    cid = str(msg["id"])
                    if kind == "ack":
                        self.acked[cid] = int(msg["version"])
                    else:
                        self.refused[cid] = msg["code"]
                    fut = self._waiting.pop(cid, None)
                    if fut is not None and not fut.done():
                        fut.set_result(text)
                elif kind in ("welcome", "snapshot"):
                    if kind == "snapshot":
                        self.snapshot = text
                    fut = self._waiting.pop(kind, None)
                    if fut is not None and not fut.done():
                        fut.set_result(text)
        except Exception:  # noqa: BLE001, S110 - a closed socket ends the reader
            pass
        finally:
            if self.ws is not None and self.ws.close_code is not None:
                self.closed_code = self.ws.close_code

    async def expect(self, key: str, send: dict[str, Any] | None = None,
                     timeout: float = 30.0) -> str:
        fut: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self._waiting[key] = fut
        if send is not None:
            assert self.ws is not None
            await self.ws.send(json.dumps(send))
        return await asyncio.wait_for(fut, timeout)

    async def first_draw(self, game: bool) -> None:
        """Draw once before the measurement (default workload): the card staged and unstaged
        afterwards, read from the update the draw made (a whole view, or the changes with
        the seat's own hand under ``mine``, followed by the reader)."""
        if self.cycle is not None:
            return
        await self.expect(f"{self.name}-setup", {"type": "command", "id": f"{self.name}-setup",
                                                 "do": "draw"})
        if game and self.own:
            self.card = self.own[0]

    async def run(self, start: float, seconds: float, phase: float) -> None:
        assert self.ws is not None
        loop = asyncio.get_running_loop()
        k = 0
        while True:
            t = start + phase + k
            if t >= start + seconds:
                return
            delay = t - loop.time()
            if delay > 0:
                await asyncio.sleep(delay)
            cid = f"{self.name}-{k}"
            msg: dict[str, Any]
            if self.cycle is not None:
                msg = {"type": "command", "id": cid, **self.cycle[k % len(self.cycle)]}
            else:
                do = self.CYCLE[k % len(self.CYCLE)]
                msg = {"type": "command", "id": cid, "do": do}
                if do != "draw":
                    msg["card"] = self.card
            self.sent[cid] = time.perf_counter()
            try:
                await self.ws.send(json.dumps(msg))
            except Exception:  # noqa: BLE001 - the socket is gone: count what was sent
                return
            k += 1

    async def close(self) -> None:
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.ws.close(), 3)
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(BaseException):
                await self._reader


async def gather_bounded(coros: list[Any], limit: int) -> list[Any]:
    sem = asyncio.Semaphore(limit)

    async def one(c: Any) -> Any:
        async with sem:
            return await c
    return await asyncio.gather(*(one(c) for c in coros))


# ---------------------------------------------------------------------------- one run


@dataclass
class Result:
    server: str
    hands: int
    clients: int
    seconds: float
    workload: str = "default"
    sent: int = 0
    acked: int = 0
    refused: int = 0
    incomplete: int = 0
    p50_ms: float = 0.0
    p99_ms: float = 0.0
    max_ms: float = 0.0
    commands_per_s: float = 0.0
    cpu_us_per_command: float = 0.0
    server_cpu_pct: float = 0.0
    loadgen_cpu_pct: float = 0.0
    other_cpu0_pct: float = 0.0
    other_cpu1_pct: float = 0.0
    rss_base_kib: int = 0
    rss_per_hand_kib: float = 0.0
    rss_per_connection_kib: float = 0.0
    bytes_per_client_command: float = 0.0
    setup_s: float = 0.0
    notes: list[str] = field(default_factory=list)


def percentile(sorted_values: list[float], q: float) -> float:
    if not sorted_values:
        return float("nan")
    i = min(len(sorted_values) - 1, max(0, round(q * (len(sorted_values) - 1))))
    return sorted_values[i]


async def make_tables(base: str, hands: int, workload: str = "default"
                      ) -> tuple[list[str], list[str]]:
    """Three players (reused at every table: a player may sit at many) and ``hands`` tables
    dealt from seeds 1..N (the busy workload: from :func:`busy_position`); returns (tokens,
    codes)."""
    limits = httpx.Limits(max_connections=32, max_keepalive_connections=32)
    async with httpx.AsyncClient(base_url=base, trust_env=False, timeout=30, limits=limits) as c:
        tokens = []
        for name in ("P1", "P2", "P3"):
            r = await c.post("/api/session", json={"name": name})
            r.raise_for_status()
            tokens.append(r.json()["token"])

        async def table(i: int) -> str:
            h = [{"Authorization": f"Bearer {t}"} for t in tokens]
            body: dict[str, Any] = {"mode": "single", "seed": 1000 + i}
            if workload == "busy":
                body["position"] = busy_position()
            r = await c.post("/api/tables", json=body, headers=h[0])
            r.raise_for_status()
            code = str(r.json()["code"])
            for hh in h[1:]:
                r = await c.post(f"/api/tables/{code}/join", headers=hh)
                r.raise_for_status()
            return code

        codes = await gather_bounded([table(i) for i in range(hands)], 32)
    return tokens, codes


async def run_load(kind: str, base: str, pid: int, hands: int, seconds: float, drain: float,
                   deflate: bool, workload: str = "default") -> Result:
    res = Result(kind, hands, 3 * hands, seconds, workload)
    loop = asyncio.get_running_loop()
    ws_base = base.replace("http://", "ws://")
    t_setup = time.monotonic()
    await asyncio.sleep(0.5)
    res.rss_base_kib = rss_kib(pid)
    stats = [HandStats() for _ in range(hands)]
    clients = [[Client(f"h{h}s{s}", stats[h], busy_cycle(s) if workload == "busy" else None)
                for s in range(3)] for h in range(hands)]
    if kind == "game":
        tokens, codes = await make_tables(base, hands, workload)
        urls = [[f"{ws_base}/ws/{code}?token={tokens[s]}&last_version=0" for s in range(3)]
                for code in codes]
    else:
        urls = [[f"{ws_base}/ws/room{h}" for _ in range(3)] for h in range(hands)]
    await asyncio.sleep(0.3)
    rss_tables = rss_kib(pid)
    flat = [(c, urls[h][s]) for h in range(hands) for s, c in enumerate(clients[h])]

    async def open_one(c: Client, url: str) -> None:
        await c.open(url, deflate)  # the reader runs from the next await: nothing is missed
        await c.expect("snapshot" if kind == "game" else "welcome", timeout=30)

    await gather_bounded([open_one(c, u) for c, u in flat], 64)
    await gather_bounded([c.first_draw(kind == "game") for c, _ in flat], 64)
    await asyncio.sleep(0.5)
    rss_conns = rss_kib(pid)
    res.setup_s = time.monotonic() - t_setup
    res.rss_per_hand_kib = (rss_tables - res.rss_base_kib) / hands if kind == "game" else 0.0
    res.rss_per_connection_kib = (rss_conns - rss_tables) / (3 * hands)

    # The measurement window. The load generator's own collector is paused for it (its
    # pauses would be counted as server latency); nothing it allocates meanwhile is cyclic.
    for c, _ in flat:
        c.recording = True
    gc.collect()
    gc.freeze()
    gc.disable()
    rng = random.Random(7)
    start = loop.time() + 0.2
    cpu0, gen0, t0 = cpu_seconds(pid), time.process_time(), time.monotonic()
    busy0, lg_busy0 = cpu_busy(SERVER_CPU), cpu_busy(LOADGEN_CPU)
    runners = [loop.create_task(c.run(start, seconds, rng.random())) for c, _ in flat]
    await asyncio.gather(*runners)
    deadline = loop.time() + drain
    while loop.time() < deadline:
        if all(len(c.acked) + len(c.refused) >= len(c.sent) for c, _ in flat):
            break
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.05)
    cpu1, gen1, t1 = cpu_seconds(pid), time.process_time(), time.monotonic()
    busy1, lg_busy1 = cpu_busy(SERVER_CPU), cpu_busy(LOADGEN_CPU)
    gc.enable()
    gc.unfreeze()

    latencies: list[float] = []
    dump: list[tuple[float, float, str]] = []
    for c, _ in flat:
        res.sent += len(c.sent)
        res.refused += len(c.refused)
        for cid, t_sent in c.sent.items():
            version = c.acked.get(cid)
            if version is None:
                continue
            res.acked += 1
            got = c.hand.arrivals.get(version, [])
            if len(got) < 3:
                res.incomplete += 1
                continue
            latencies.append(max(got) - t_sent)
            if os.environ.get("BENCH_DUMP"):
                dump.append((t_sent, max(got) - t_sent,
                             cid + " " + " ".join(f"{(g - t_sent) * 1e3:.1f}" for g in got)))
    latencies.sort()
    if dump:
        dump.sort()
        Path(os.environ["BENCH_DUMP"] + f".{kind}").write_text(  # noqa: ASYNC240 (after timing)
            "\n".join(f"{t - dump[0][0]:.3f} {lat * 1e3:.2f} {cid}" for t, lat, cid in dump))
    res.p50_ms = percentile(latencies, 0.50) * 1e3
    res.p99_ms = percentile(latencies, 0.99) * 1e3
    res.max_ms = (latencies[-1] if latencies else float("nan")) * 1e3
    res.commands_per_s = res.acked / seconds
    # Per client per command: what the three clients of a hand receive for one command (an
    # update each, the ack to its sender), divided by three.
    res.bytes_per_client_command = sum(c.bytes for c, _ in flat) / max(1, res.acked) / 3
    res.cpu_us_per_command = (cpu1 - cpu0) / max(1, res.acked) * 1e6
    res.server_cpu_pct = (cpu1 - cpu0) / (t1 - t0) * 100
    res.loadgen_cpu_pct = (gen1 - gen0) / (t1 - t0) * 100
    res.other_cpu0_pct = max(0.0, (busy1 - busy0) - (cpu1 - cpu0)) / (t1 - t0) * 100
    res.other_cpu1_pct = max(0.0, (lg_busy1 - lg_busy0) - (gen1 - gen0)) / (t1 - t0) * 100
    if res.other_cpu1_pct > 10:
        res.notes.append(f"other processes used {res.other_cpu1_pct:.0f} % of the load "
                         "generator's CPU during the window: latencies include waiting for it")
    if res.other_cpu0_pct > 10:
        res.notes.append(f"other processes used {res.other_cpu0_pct:.0f} % of the server's CPU "
                         "during the window: the latencies are not the server's alone")
    if res.refused:
        res.notes.append(f"refused: {sorted({v for c, _ in flat for v in c.refused.values()})}")
    closed = [c.closed_code for c, _ in flat if c.closed_code is not None]
    if closed:
        res.notes.append(f"{len(closed)} sockets closed by the server: codes {sorted(set(closed))}")
    if res.loadgen_cpu_pct > 85:
        res.notes.append("the load generator was near a full core: latencies include its delay")
    await gather_bounded([c.close() for c, _ in flat], 256)
    return res


def run_server(kind: str, hands: int, seconds: float, drain: float, deflate: bool,
               redis: bool, gc_mode: str | None = None, workload: str = "default") -> Result:
    """Start a fresh server of ``kind``, load it, stop it."""
    port = free_port()
    redis_proc = None
    redis_url = None
    if kind == "game" and redis:
        rport = free_port()
        redis_proc = start_redis(rport)
        redis_url = f"redis://127.0.0.1:{rport}/0"
    proc = (start_game_server(port, redis_url, gc_mode) if kind == "game"
            else start_bare_server(port))
    load_before = os.getloadavg()[0]
    try:
        base = f"http://127.0.0.1:{port}"
        wait_http(base, proc)
        with asyncio.Runner(loop_factory=loop_factory()) as runner:
            res = runner.run(run_load(kind, base, proc.pid, hands, seconds, drain, deflate,
                                      workload))
        if redis_proc is not None:
            res.notes.append("store: redis (redis-server pinned to the server's CPU)")
        if gc_mode and kind == "game":
            res.notes.append(f"server gc_mode: {gc_mode}")
        res.notes.append(f"1-min load average before/after: {load_before:.2f} / "
                         f"{os.getloadavg()[0]:.2f} (2 CPUs; this run itself adds about 1)")
        return res
    finally:
        proc.stop()
        if redis_proc is not None:
            redis_proc.stop()


def loop_factory() -> Any:
    try:
        import uvloop
    except ImportError:  # pragma: no cover
        return None
    return uvloop.new_event_loop


# ---------------------------------------------------------------------------- printing


ROWS = [
    ("hands / clients", lambda r: f"{r.hands} / {r.clients}"),
    ("commands sent / acked / refused", lambda r: f"{r.sent} / {r.acked} / {r.refused}"),
    ("latency p50 (ms)", lambda r: f"{r.p50_ms:.2f}"),
    ("latency p99 (ms)", lambda r: f"{r.p99_ms:.2f}"),
    ("latency max (ms)", lambda r: f"{r.max_ms:.2f}"),
    ("commands / s", lambda r: f"{r.commands_per_s:.0f}"),
    ("server CPU per command (µs)", lambda r: f"{r.cpu_us_per_command:.0f}"),
    ("server CPU (% of a core)", lambda r: f"{r.server_cpu_pct:.0f}"),
    ("load generator CPU (% of a core)", lambda r: f"{r.loadgen_cpu_pct:.0f}"),
    ("others on the server's CPU (%)", lambda r: f"{r.other_cpu0_pct:.0f}"),
    ("others on the generator's CPU (%)", lambda r: f"{r.other_cpu1_pct:.0f}"),
    ("server RSS at start (MiB)", lambda r: f"{r.rss_base_kib / 1024:.1f}"),
    ("RSS per hand, tables only (KiB)", lambda r: f"{r.rss_per_hand_kib:.1f}"),
    ("RSS per connection (KiB)", lambda r: f"{r.rss_per_connection_kib:.1f}"),
    ("bytes per client per command", lambda r: f"{r.bytes_per_client_command:.0f}"),
    ("updates missing at a client", lambda r: f"{r.incomplete}"),
    ("setup (s, not measured)", lambda r: f"{r.setup_s:.1f}"),
]


def print_results(results: list[Result]) -> None:
    width = max(len(k) for k, _ in ROWS)
    print(f"{'':{width}}  " + "  ".join(
        f"{r.server + (' ' + r.workload if r.workload != 'default' else ''):>12}"
        for r in results))
    for name, fmt in ROWS:
        print(f"{name:{width}}  " + "  ".join(f"{fmt(r):>12}" for r in results))
    for r in results:
        for note in r.notes:
            print(f"note ({r.server}): {note}")


def _ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}×" if b else "n/a"


def print_ratios(game: Result, bare: Result, busy: Result | None = None) -> None:
    """Ratios and the issue-19 targets: on the default workload CPU per command ≤ 1.5× and
    p99 ≤ 2× the bare server's, ≤ 400 bytes per client per command; on the busy table CPU
    per command ≤ 1.3× the default workload's and ≤ 600 bytes."""
    def yes(ok: bool) -> str:
        return "yes" if ok else "no"
    print("ratios game / bare:")
    print(f"  latency p50 {_ratio(game.p50_ms, bare.p50_ms)}, p99 {_ratio(game.p99_ms, bare.p99_ms)},"
          f" max {_ratio(game.max_ms, bare.max_ms)}")
    print(f"  CPU per command {_ratio(game.cpu_us_per_command, bare.cpu_us_per_command)}"
          f", RSS per connection "
          f"{_ratio(game.rss_per_connection_kib, bare.rss_per_connection_kib)}")
    print(f"  targets (default workload): CPU ≤ 1.5× bare: "
          f"{yes(game.cpu_us_per_command <= 1.5 * bare.cpu_us_per_command)}; p99 ≤ 2× bare: "
          f"{yes(game.p99_ms <= 2 * bare.p99_ms)} ({game.p99_ms:.2f} vs {bare.p99_ms:.2f} ms); "
          f"bytes ≤ 400: {yes(game.bytes_per_client_command <= 400)} "
          f"({game.bytes_per_client_command:.0f})")
    if busy is not None:
        print(f"  busy table / default: CPU per command "
              f"{_ratio(busy.cpu_us_per_command, game.cpu_us_per_command)} (target ≤ 1.3×: "
              f"{yes(busy.cpu_us_per_command <= 1.3 * game.cpu_us_per_command)}), p99 "
              f"{_ratio(busy.p99_ms, game.p99_ms)}; busy bytes ≤ 600: "
              f"{yes(busy.bytes_per_client_command <= 600)} "
              f"({busy.bytes_per_client_command:.0f})")


def find_max(args: argparse.Namespace) -> None:
    """Largest N with p99 ≤ limit: grow, then bisect; bounded in steps and N. A run whose
    load generator used more than 85 % of its core stops the search as "generator-bound":
    beyond it the latencies measure the generator, not the server."""
    good: Result | None = None
    bound: Result | None = None
    bad: Result | None = None
    n = args.hands
    runs: list[Result] = []
    for _step in range(args.max_steps):
        res = run_server("game", n, args.search_seconds, args.drain, args.deflate, args.redis,
                         args.gc_mode, args.table)
        runs.append(res)
        ok = res.p99_ms <= args.p99_limit and res.acked >= 0.98 * res.sent
        print(f"  N={n:5d}: p99 {res.p99_ms:8.2f} ms  p50 {res.p50_ms:7.2f} ms  "
              f"{res.commands_per_s:6.0f} cmd/s  server CPU {res.server_cpu_pct:3.0f}%  "
              f"load generator CPU {res.loadgen_cpu_pct:3.0f}%  others on server/generator CPU "
              f"{res.other_cpu0_pct:3.0f}%/{res.other_cpu1_pct:3.0f}%  "
              f"{res.bytes_per_client_command:5.0f} B/client/cmd  -> {'ok' if ok else 'over'}",
              flush=True)
        if res.loadgen_cpu_pct > GENERATOR_BOUND:
            bound = res
            if ok:
                good = res if good is None or res.hands > good.hands else good
            break
        if ok:
            good = res if good is None or res.hands > good.hands else good
        else:
            bad = res if bad is None or res.hands < bad.hands else bad
        if bad is None:
            nxt = min(args.max_hands, int(n * args.growth))
            if nxt <= n:
                break
        else:
            lo = good.hands if good is not None else 0
            if bad.hands - lo <= max(10, lo // 10):
                break
            nxt = (lo + bad.hands) // 2
        n = nxt
    if bound is not None:
        held = f"p99 {bound.p99_ms:.2f} ms" + ("" if bound is good else f", over {args.p99_limit} ms")
        print(f"generator-bound: at N={bound.hands} hands ({3 * bound.hands} clients) the load "
              f"generator used {bound.loadgen_cpu_pct:.0f} % of its core (> {GENERATOR_BOUND} %; "
              f"{held}, server CPU {bound.server_cpu_pct:.0f} %): the server was not the limit")
    if good is None:
        print(f"largest N with p99 ≤ {args.p99_limit} ms: below {args.hands} (no run held)")
    else:
        limit = f"; N={bad.hands} did not" if bad else f" (the search stopped at {args.max_hands})"
        print(f"largest N with p99 ≤ {args.p99_limit} ms: {good.hands} hands "
              f"({3 * good.hands} clients){limit}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=300, help="concurrent hands (3 clients each)")
    parser.add_argument("--seconds", type=float, default=20.0, help="measurement window")
    parser.add_argument("--drain", type=float, default=5.0, help="max wait for the last replies")
    parser.add_argument("--only", choices=("game", "bare"), help="measure one server only")
    parser.add_argument("--redis", action="store_true", help="game server on a real Redis")
    parser.add_argument("--deflate", action="store_true", help="clients offer permessage-deflate")
    parser.add_argument("--find-max", action="store_true",
                        help="search the largest N with p99 ≤ --p99-limit")
    parser.add_argument("--p99-limit", type=float, default=50.0)
    parser.add_argument("--search-seconds", type=float, default=10.0)
    parser.add_argument("--max-steps", type=int, default=8)
    parser.add_argument("--max-hands", type=int, default=3000)
    parser.add_argument("--growth", type=float, default=1.5)
    parser.add_argument("--gc-mode", choices=("paced", "manual", "cpython"),
                        help="the game server's MACHIAVELOX_GC_MODE (default: its own, paced)")
    parser.add_argument("--table", choices=("default", "busy", "both"), default="default",
                        help="workload: fresh deals (stage, unstage, draw), a busy table of 27 "
                             "melds (move, place, cancel), or both in the same run")
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args()

    soft, _hard = raise_nofile()
    if pinning():
        os.sched_setaffinity(0, {LOADGEN_CPU})
        where = f"server on CPU {SERVER_CPU} (taskset), load generator on CPU {LOADGEN_CPU}"
    else:
        where = "not pinned (fewer than two CPUs, or no taskset)"
    print(f"open files: {soft}; {where}; clients offer deflate: {args.deflate}")
    if args.find_max:
        if args.table == "both":
            parser.error("--find-max runs one workload: --table default or busy")
        find_max(args)
        return
    workloads = ["default", "busy"] if args.table == "both" else [args.table]
    runs = [("bare", "default")] + [("game", w) for w in workloads]
    results: list[Result] = []
    for kind, workload in runs:
        if args.only and kind != args.only:
            continue
        print(f"{kind} ({workload}): {args.hands} hands, {args.seconds:.0f} s ...", flush=True)
        results.append(run_server(kind, args.hands, args.seconds, args.drain, args.deflate,
                                  args.redis, args.gc_mode, workload))
    print_results(results)
    bare = next((r for r in results if r.server == "bare"), None)
    games = {r.workload: r for r in results if r.server == "game"}
    if bare is not None and "default" in games:
        print_ratios(games["default"], bare, games.get("busy"))
    elif bare is not None and "busy" in games:
        print_ratios(games["busy"], bare)
    if args.json:
        args.json.write_text(json.dumps([r.__dict__ for r in results], indent=2))


if __name__ == "__main__":
    main()
