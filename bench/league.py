"""Bot league: complete hands of bots against a real server, win rates per level (issue 7).

What runs
    A real server process (``python -m server serve`` on a free 127.0.0.1 port) with shortened
    clocks from ``MACHIAVELOX_*`` (``--clocks``: play 10 s, hold 3 s, inactivity 3 s, freeze
    20 s, absence 30 s, tie-break 5 s, pause 2 s) and its per-socket message rate raised
    (``MACHIAVELOX_MESSAGE_RATE``/``_BURST``): bots without a reaction delay send far more than
    the 50 messages a second a person's socket is allowed, and would be cut off as a flood.
    This process plays every seat: for each hand three bots (``bots.client.BotPlayer``) get a
    session over HTTP, one creates a single-game table, the others join, and all three play it
    to its end over websockets, with no reaction delay. ``--concurrency`` hands run at once.
    Seat levels rotate over the six line-ups with both levels (2+1 and 1+2, each level in every
    seat position), so each level sits in each seat equally often.

What it prints
    Hands played, wall time, hands per minute; per level: seats played, hands won, the win rate
    per seat with its 95 % Wilson interval, refusals per command; how hands ended; hand
    durations; and whether the stronger level (shark) wins significantly more often than the
    other (its Wilson interval above the other's, and a two-proportion z-test).

Bounds
    Every hand must end within ``--hand-timeout`` seconds of wall time (else it counts as stuck
    and the run fails); no new hand starts after ``--max-minutes``; setup steps time out.
    Exit status 1 when a hand was stuck or the stronger level did not win significantly more.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bots.brain import Brain
from bots.client import (
    BotPlayer,
    create_table,
    join_table,
    new_session,
    websocket_connector,
)

LINEUPS = [
    ("shark", "casual", "casual"), ("casual", "shark", "casual"), ("casual", "casual", "shark"),
    ("casual", "shark", "shark"), ("shark", "casual", "shark"), ("shark", "shark", "casual"),
]
CLOCKS = {"play": 10, "hold": 3, "inactivity": 3, "freeze": 20, "absence": 30, "tiebreak": 5,
          "pause": 2}


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of k successes in n trials."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return max(0.0, c - h), min(1.0, c + h)


def two_proportion_p(k1: int, n1: int, k2: int, n2: int) -> float:
    """Two-sided p-value of the pooled two-proportion z-test."""
    if not n1 or not n2:
        return 1.0
    p = (k1 + k2) / (n1 + n2)
    se = math.sqrt(p * (1 - p) * (1 / n1 + 1 / n2))
    if se == 0:
        return 1.0
    z = (k1 / n1 - k2 / n2) / se
    return math.erfc(abs(z) / math.sqrt(2))


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def quiet_solver_banner() -> None:
    """HiGHS prints a banner to stdout the first time a solver is made: swallow it."""
    from bots.banner import quiet_first_solve

    quiet_first_solve()


def start_server(port: int, clocks: dict[str, float], log: Any) -> subprocess.Popen[bytes]:
    env = dict(os.environ)
    env.update({f"MACHIAVELOX_{k.upper()}": str(v) for k, v in clocks.items()})
    env.update({"MACHIAVELOX_SECRET": "league", "MACHIAVELOX_LOG_LEVEL": "WARNING",
                "MACHIAVELOX_MESSAGE_RATE": "5000", "MACHIAVELOX_MESSAGE_BURST": "5000",
                "MACHIAVELOX_MAX_TABLES": "10000",
                # Every bot comes from 127.0.0.1, and bots without a reaction delay send far
                # more than a person (server.limits): lift those limits for the league.
                "MACHIAVELOX_SESSIONS_PER_IP_PER_MINUTE": "1000000",
                "MACHIAVELOX_TABLES_PER_IP": "1000000", "MACHIAVELOX_SOCKETS_PER_IP": "1000000",
                "MACHIAVELOX_SOCKETS_PER_IP_PER_MINUTE": "1000000",
                "MACHIAVELOX_COMMANDS_PER_SECOND": "100000"})
    env.pop("MACHIAVELOX_REDIS_URL", None)
    proc = subprocess.Popen([sys.executable, "-m", "server", "serve", "--host", "127.0.0.1",
                             "--port", str(port)], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=log)
    deadline = time.monotonic() + 30
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}")
        try:
            with opener.open(f"http://127.0.0.1:{port}/healthz", timeout=1) as r:
                if r.status == 200:
                    return proc
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError("server did not start within 30 s")


@dataclass
class HandResult:
    number: int
    lineup: tuple[str, ...]
    seats: list[str] = field(default_factory=list)
    winner_level: str | None = None
    end: str = ""
    seconds: float = 0.0
    stuck: bool = False
    error: str = ""
    commands: Counter[str] = field(default_factory=Counter)
    refused: Counter[str] = field(default_factory=Counter)
    stats: Counter[str] = field(default_factory=Counter)


async def play_hand(base: str, number: int, lineup: tuple[str, ...], executor: ThreadPoolExecutor,
                    hand_timeout: float, budget: float) -> HandResult:
    res = HandResult(number, lineup)
    t0 = time.monotonic()
    tokens = [await new_session(base, f"{lvl} {number}") for lvl in lineup]
    made = await create_table(base, tokens[0], "single")
    code = made["code"]
    seats = [made["seat"]]
    for tok in tokens[1:]:
        seats.append((await join_table(base, tok, code))["seat"])
    res.seats = seats
    players = [BotPlayer(Brain(lvl, budget=budget, step_time=0.02), reaction=0.0, name=seat,
                         executor=executor, max_seconds=hand_timeout + 5, seed=number * 3 + i)
               for i, (lvl, seat) in enumerate(zip(lineup, seats))]
    tasks = [asyncio.ensure_future(p.run(websocket_connector(base, code, tok)))
             for p, tok in zip(players, tokens)]
    done, pending = await asyncio.wait(tasks, timeout=hand_timeout)
    res.seconds = time.monotonic() - t0
    for t in pending:
        t.cancel()
    if pending:
        res.stuck = True
        res.error = f"not over after {hand_timeout:.0f} s"
    for t in done:
        if t.exception() is not None:
            res.error = repr(t.exception())
    level_of = dict(zip(seats, lineup))
    for p, lvl in zip(players, lineup):
        res.commands[lvl] += p.report.commands
        res.refused[lvl] += p.report.refused
        for k, v in p.brain.stats.items():
            res.stats[f"{lvl}:{k}"] += v
    view = next((p.game for p in players if p.game is not None), None)
    hand = view.get("hand") if view else None
    result = hand.get("result") if hand else None
    if result is not None:
        res.end = result["end"]
        res.winner_level = level_of.get(result["winner"]) if result["winner"] else None
    elif not res.stuck:
        res.stuck = True
        res.error = res.error or "no result in the last view"
    return res


async def league(args: argparse.Namespace, base: str) -> list[HandResult]:
    executor = ThreadPoolExecutor(max_workers=args.threads, thread_name_prefix="league-brain")
    results: list[HandResult] = []
    stop_at = time.monotonic() + args.max_minutes * 60
    queue: asyncio.Queue[int] = asyncio.Queue()
    for i in range(args.hands):
        queue.put_nowait(i)

    async def worker() -> None:
        while not queue.empty() and time.monotonic() < stop_at:
            i = queue.get_nowait()
            lineup = LINEUPS[(i + args.seed) % len(LINEUPS)]
            try:
                r = await asyncio.wait_for(
                    play_hand(base, i, lineup, executor, args.hand_timeout, args.budget),
                    args.hand_timeout + 30)
            except Exception as e:  # noqa: BLE001 - a stuck or failed hand is reported
                r = HandResult(i, lineup, stuck=True, error=repr(e))
            results.append(r)
            if args.verbose or r.stuck:
                print(f"hand {i:3d} {'/'.join(lineup):20s} {r.end or '-':9s} winner "
                      f"{r.winner_level or '-':7s} {r.seconds:5.1f} s {r.error}", flush=True)
            elif len(results) % 20 == 0:
                print(f"... {len(results)} hands", flush=True)

    await asyncio.gather(*(worker() for _ in range(args.concurrency)))
    executor.shutdown(wait=False)
    return results


def report(results: list[HandResult], wall: float, args: argparse.Namespace) -> int:
    n = len(results)
    seats: Counter[str] = Counter()
    wins: Counter[str] = Counter()
    cmds: Counter[str] = Counter()
    refused: Counter[str] = Counter()
    stats: Counter[str] = Counter()
    for r in results:
        for lvl in r.lineup:
            seats[lvl] += 1
        if r.winner_level:
            wins[r.winner_level] += 1
        cmds.update(r.commands)
        refused.update(r.refused)
        stats.update(r.stats)
    stuck = [r for r in results if r.stuck]
    durations = sorted(r.seconds for r in results if not r.stuck)
    print(f"\nBot league: {n} hands ({len(stuck)} stuck) in {wall:.0f} s wall = "
          f"{n / wall * 60:.1f} hands/min; {args.concurrency} hands at once, no reaction delay, "
          f"solver budget {args.budget * 1000:.0f} ms, clocks {CLOCKS}")
    if durations:
        print(f"hand wall time: median {durations[len(durations) // 2]:.1f} s, "
              f"max {durations[-1]:.1f} s (bound {args.hand_timeout:.0f} s)")
    print("ends: " + ", ".join(f"{k} {v}" for k, v in Counter(r.end or "stuck" for r in results).most_common()))
    print(f"{'level':8s} {'seats':>6s} {'wins':>5s} {'win rate':>9s} {'95% Wilson CI':>17s} "
          f"{'commands':>9s} {'refused':>8s}")
    for lvl in ("shark", "casual"):
        lo, hi = wilson(wins[lvl], seats[lvl])
        rate = wins[lvl] / seats[lvl] if seats[lvl] else 0.0
        print(f"{lvl:8s} {seats[lvl]:6d} {wins[lvl]:5d} {rate:9.3f}   [{lo:.3f}, {hi:.3f}] "
              f"{cmds[lvl]:9d} {refused[lvl]:8d}")
    print("no winner: " + str(sum(1 for r in results if not r.winner_level and not r.stuck)))
    if args.verbose:
        print("brain stats: " + ", ".join(f"{k}={v}" for k, v in sorted(stats.items())))
    s_lo, _ = wilson(wins["shark"], seats["shark"])
    _, c_hi = wilson(wins["casual"], seats["casual"])
    p = two_proportion_p(wins["shark"], seats["shark"], wins["casual"], seats["casual"])
    better = wins["shark"] / max(1, seats["shark"]) > wins["casual"] / max(1, seats["casual"])
    significant = better and p < 0.05
    print(f"shark vs casual: two-proportion z-test p = {p:.2g}; Wilson intervals "
          f"{'do not overlap' if s_lo > c_hi else 'overlap'} -> "
          f"{'shark wins significantly more often' if significant else 'NOT significant'}")
    for r in stuck[:10]:
        print(f"stuck: hand {r.number} {r.lineup}: {r.error}")
    return 0 if significant and not stuck else 1


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hands", type=int, default=200)
    ap.add_argument("--concurrency", type=int, default=4, help="hands played at once")
    ap.add_argument("--threads", type=int, default=1, help="solver threads of this process")
    ap.add_argument("--budget", type=float, default=0.1, help="solver seconds per decision")
    ap.add_argument("--hand-timeout", type=float, default=150.0, help="wall seconds a hand may take")
    ap.add_argument("--max-minutes", type=float, default=12.0, help="no new hand after this")
    ap.add_argument("--seed", type=int, default=0, help="first line-up")
    ap.add_argument("--port", type=int, default=0, help="server port (0: a free one)")
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args(argv)
    quiet_solver_banner()
    port = args.port or free_port()
    with tempfile.NamedTemporaryFile("w+b", prefix="league-server-", suffix=".log",
                                     delete=False) as log:
        proc = start_server(port, CLOCKS, log)
        base = f"http://127.0.0.1:{port}"
        t0 = time.monotonic()
        try:
            results = asyncio.run(league(args, base))
        finally:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
    size = os.path.getsize(log.name)
    print(f"server log: {log.name} ({size} bytes)")
    return report(results, time.monotonic() - t0, args)


if __name__ == "__main__":
    sys.exit(main())
