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

At a human pace (``--pace human``)
    Each bot waits a person's times by level (``bots.pace``: casual reacts in 3–8 s, shark in
    1.5–5 s, thinking before a play, draws at least a few seconds apart), and the server runs
    the real clocks (play 40 s, inactivity 120 s, freeze 180 s, ...). A hand then lasts
    minutes, so ``--time-scale K`` (default 10) divides every clock of the server and every
    delay of the bots by the same K; the figures are given back in game time (wall seconds
    times K), and the output says so. What does not shrink: round trips and the solver's
    thinking (0.1 s a decision weighs K times as much in game time), so a scaled run is, if
    anything, slower for the bots than a real one. ``--time-scale 1`` runs in real time.
    Printed per level besides the win rates: commands and draws a minute, hand length, and the
    share of seats in which the bot sat on one or two cards for over 60 s (game time) sending
    nothing while it could play (not frozen by another's Stop!), all of it and the part with
    cards still in its stock (where it could at least have drawn). Target: under 5 % of hands.

Bounds
    Every hand must end within ``--hand-timeout`` seconds of wall time (else it counts as stuck
    and the run fails); no new hand starts after ``--max-minutes``; setup steps time out.
    Exit status 1 when a hand was stuck or the stronger level did not win significantly more.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import math
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bots.brain import Brain, position
from bots.client import (
    BotPlayer,
    create_table,
    join_table,
    new_session,
    websocket_connector,
)
from bots.pace import PACES, Pace

LINEUPS = [
    ("shark", "casual", "casual"), ("casual", "shark", "casual"), ("casual", "casual", "shark"),
    ("casual", "shark", "shark"), ("shark", "casual", "shark"), ("shark", "shark", "casual"),
]
CLOCKS = {"play": 10, "hold": 3, "inactivity": 3, "freeze": 20, "absence": 30, "tiebreak": 5,
          "pause": 2}
#: The real clocks (§5, §6, §7, §9, §10.2, §11, §13), for the human pace (divided by K).
REAL_CLOCKS = {"play": 40, "hold": 10, "inactivity": 120, "freeze": 180, "absence": 90,
               "tiebreak": 120, "pause": 60}
#: Game seconds on one or two cards without a command that count as sitting on them.
SIT_LIMIT = 60.0


class SitWatch:
    """Measures one bot from outside (``BotPlayer.watch``): its commands and draws, and its
    longest stretch on one or two cards (hand and staging area) without sending anything while
    it could act (in the hand, not frozen by another's Stop!, in a tie-break only as one of its
    players), in wall seconds; ``longest_stocked``: the same, counted only in stretches that
    began with cards in its stock."""

    def __init__(self) -> None:
        self.commands = 0
        self.draws = 0
        self.since: float | None = None
        self.stocked = False
        self.longest = 0.0
        self.longest_stocked = 0.0
        self.last = 0.0

    def _close(self, t: float) -> None:
        if self.since is not None:
            self.longest = max(self.longest, t - self.since)
            if self.stocked:
                self.longest_stocked = max(self.longest_stocked, t - self.since)
        self.since = None

    def _small(self, game: dict[str, Any] | None) -> tuple[bool, bool]:
        hv = (game or {}).get("hand")
        if not hv or (game or {}).get("phase") != "hand":
            return False, False
        pos = position(hv)
        if pos is None or (pos.freeze_caller is not None and pos.freeze_caller != pos.me):
            return False, False
        return 1 <= len(pos.hand) + len(pos.staging) <= 2 and not pos.tiebreak, pos.stock > 0

    def __call__(self, t: float, game: dict[str, Any] | None, cmd: dict[str, Any] | None) -> None:
        self.last = t
        if cmd is not None:
            self.commands += 1
            self.draws += cmd.get("do") == "draw"
            self._close(t)
        small, stocked = self._small(game)
        if not small:
            self._close(t)
        elif self.since is None:
            self.since, self.stocked = t, stocked

    def finish(self) -> None:
        self._close(self.last)


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


@contextlib.contextmanager
def served(port: int, clocks: dict[str, float], prefix: str) -> Iterator[tuple[str, str]]:
    """A real server process on 127.0.0.1:``port`` (:func:`start_server`), its log in a temporary
    file named from ``prefix``: yields ``(base URL, log path)``; on the way out the process gets
    SIGTERM, and SIGKILL when it has not gone within 10 s."""
    with tempfile.NamedTemporaryFile("w+b", prefix=prefix, suffix=".log", delete=False) as log:
        proc = start_server(port, clocks, log)
        try:
            yield f"http://127.0.0.1:{port}", log.name
        finally:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()


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
    #: Game seconds from the deal to the result (the hand's own clock, times the time scale).
    game_seconds: float = 0.0
    draws: Counter[str] = field(default_factory=Counter)
    #: Per seat: (level, longest sit, longest sit with cards in stock), in game seconds.
    sits: list[tuple[str, float, float]] = field(default_factory=list)
    decisions: int = 0
    decide_seconds: float = 0.0  # wall seconds, thinking thread's queue included


async def play_hand(base: str, number: int, lineup: tuple[str, ...], executor: ThreadPoolExecutor,
                    hand_timeout: float, budget: float, pace: str = "none",
                    scale: float = 1.0, reaction: float = 0.0) -> HandResult:
    res = HandResult(number, lineup)
    t0 = time.monotonic()
    tokens = [await new_session(base, f"{lvl} {number}") for lvl in lineup]
    made = await create_table(base, tokens[0], "single")
    code = made["code"]
    seats = [made["seat"]]
    for tok in tokens[1:]:
        seats.append((await join_table(base, tok, code))["seat"])
    res.seats = seats
    watches = [SitWatch() for _ in lineup]
    players = []
    for i, (lvl, seat) in enumerate(zip(lineup, seats)):
        tempo = Pace(pace, lvl, seed=number * 3 + i, scale=scale, reaction=reaction / scale)
        step_time = tempo.step_time() if tempo.human or reaction else 0.02
        players.append(BotPlayer(Brain(lvl, budget=budget, step_time=step_time), reaction=0.0,
                                 name=seat, executor=executor, max_seconds=hand_timeout + 5,
                                 seed=number * 3 + i, pace=tempo, watch=watches[i]))
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
    for w, lvl in zip(watches, lineup):
        w.finish()
        res.draws[lvl] += w.draws
        res.sits.append((lvl, w.longest * scale, w.longest_stocked * scale))
    for p, lvl in zip(players, lineup):
        res.decisions += p.report.decisions
        res.decide_seconds += p.report.decide_seconds
        res.commands[lvl] += p.report.commands
        res.refused[lvl] += p.report.refused
        for k, v in p.brain.stats.items():
            res.stats[f"{lvl}:{k}"] += v
    view = next((p.game for p in players if p.game is not None), None)
    hand = view.get("hand") if view else None
    result = hand.get("result") if hand else None
    if result is not None:
        res.game_seconds = float((hand or {}).get("t") or 0.0) * scale
        res.end = result["end"]
        res.winner_level = level_of.get(result["winner"]) if result["winner"] else None
    elif not res.stuck:
        res.stuck = True
        res.error = res.error or "no result in the last view"
    if res.stuck and hand:
        res.error += "; last view: " + describe(hand)
    return res


def describe(hv: dict[str, Any]) -> str:
    """A stuck hand's last view in one line: its clock, each player's cards and stock, plays."""
    players = ", ".join(f"{p['name']} {p['status']} hand {p['hand_count']} stock "
                        f"{p['stock_count']} staged {len(p['staging'])} play {p['open_play']}"
                        for p in hv.get("players", []))
    clocks = hv.get("clocks") or {}
    return (f"t {hv.get('t')}, {players}; plays {len(hv.get('plays') or [])}, melds "
            f"{len(hv.get('table') or [])}, inactivity {clocks.get('inactivity')}, freeze "
            f"{clocks.get('freeze')}, tiebreak {clocks.get('tiebreak')}")


R = TypeVar("R")


async def hands_at_once(args: argparse.Namespace, thread_name: str,
                        play: Callable[[int, ThreadPoolExecutor], Awaitable[R]],
                        failed: Callable[[int, str], R], describe: Callable[[int, R], str],
                        every: int) -> list[R]:
    """``args.hands`` hands, ``args.concurrency`` at once, until ``args.max_minutes``: hand ``i``
    is ``play(i, executor)`` (the bots' thinking threads, ``args.threads``), bounded by
    ``args.hand_timeout`` + 30 s; one that raises or runs over is ``failed(i, repr(error))``.
    A stuck result (``.stuck``), or with ``args.verbose`` every one, is printed as
    ``describe(i, result)``; otherwise a line every ``every`` hands. The results, in the order
    the hands ended."""
    executor = ThreadPoolExecutor(max_workers=args.threads, thread_name_prefix=thread_name)
    results: list[R] = []
    stop_at = time.monotonic() + args.max_minutes * 60
    queue: asyncio.Queue[int] = asyncio.Queue()
    for i in range(args.hands):
        queue.put_nowait(i)

    async def worker() -> None:
        while not queue.empty() and time.monotonic() < stop_at:
            i = queue.get_nowait()
            try:
                r = await asyncio.wait_for(play(i, executor), args.hand_timeout + 30)
            except Exception as e:  # noqa: BLE001 - a stuck or failed hand is reported
                r = failed(i, repr(e))
            results.append(r)
            if args.verbose or getattr(r, "stuck", False):
                print(describe(i, r), flush=True)
            elif len(results) % every == 0:
                print(f"... {len(results)} hands", flush=True)

    await asyncio.gather(*(worker() for _ in range(args.concurrency)))
    executor.shutdown(wait=False)
    return results


async def league(args: argparse.Namespace, base: str) -> list[HandResult]:
    def lineup_of(i: int) -> tuple[str, ...]:
        return tuple(LINEUPS[(i + args.seed) % len(LINEUPS)])

    def describe(i: int, r: HandResult) -> str:
        return (f"hand {i:3d} {'/'.join(r.lineup):20s} {r.end or '-':9s} winner "
                f"{r.winner_level or '-':7s} {r.seconds:5.1f} s "
                f"({r.game_seconds:.0f} game s) {r.error}")

    return await hands_at_once(
        args, "league-brain",
        lambda i, executor: play_hand(base, i, lineup_of(i), executor, args.hand_timeout,
                                      args.budget, args.pace, args.time_scale, args.reaction),
        lambda i, error: HandResult(i, lineup_of(i), stuck=True, error=error), describe, 20)


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
    scaled = (f"TIME-SCALED x{args.time_scale:g} (every server clock and bot delay divided by "
              f"{args.time_scale:g}; game times below are wall times x{args.time_scale:g})")
    pace = ("no reaction delay" if real_time_off(args) else
            f"pace none with a {args.reaction:g} s reaction, {scaled}" if args.pace == "none"
            else f"human pace, {scaled}")
    print(f"\nBot league: {n} hands ({len(stuck)} stuck) in {wall:.0f} s wall = "
          f"{n / wall * 60:.1f} hands/min; {args.concurrency} hands at once, {pace}, "
          f"solver budget {args.budget * 1000:.0f} ms, clocks {clocks_of(args)}")
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
    pace_report(results, args.time_scale)
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
    # Both levels hold the same number of seats (the line-ups rotate): of the hands someone
    # won, the share the sharks won, with its 95 % interval, against an even 50 %.
    decided = wins["shark"] + wins["casual"]
    share_lo, share_hi = wilson(wins["shark"], decided)
    print(f"shark share of the {decided} wins: {wins['shark'] / max(1, decided):.3f} "
          f"[{share_lo:.3f}, {share_hi:.3f}] -> "
          f"{'above 50 %' if share_lo > 0.5 else 'NOT above 50 %'}")
    significant = significant and share_lo > 0.5
    for r in stuck[:10]:
        print(f"stuck: hand {r.number} {r.lineup}: {r.error}")
    return 0 if significant and not stuck else 1


def pace_report(results: list[HandResult], scale: float) -> None:
    """Per level: commands and draws a minute of game time, and the share of seats that sat
    on one or two cards for over :data:`SIT_LIMIT` game seconds; then hand lengths."""
    done = [r for r in results if not r.stuck and r.game_seconds > 0]
    lengths = sorted(r.game_seconds for r in done)
    if lengths:
        print(f"hand length (game time): median {lengths[len(lengths) // 2]:.0f} s, "
              f"p90 {lengths[int(len(lengths) * 0.9)]:.0f} s, min {lengths[0]:.0f} s, "
              f"max {lengths[-1]:.0f} s")
    print(f"{'level':8s} {'commands/min':>13s} {'draws/min':>10s} "
          f"{'sat >60 s on <=2 cards':>23s} {'... with stock left':>20s}")
    for lvl in ("shark", "casual"):
        minutes = sum(r.game_seconds * r.lineup.count(lvl) for r in done) / 60
        cmds = sum(r.commands[lvl] for r in done)
        draws = sum(r.draws[lvl] for r in done)
        sits = [(a, b) for r in done for (lv, a, b) in r.sits if lv == lvl]
        sat = sum(1 for a, _ in sits if a > SIT_LIMIT)
        sat_stock = sum(1 for _, b in sits if b > SIT_LIMIT)
        n = max(1, len(sits))
        print(f"{lvl:8s} {cmds / max(minutes, 1e-9):13.1f} {draws / max(minutes, 1e-9):10.1f} "
              f"{sat:8d}/{len(sits)} = {sat / n:5.1%} {sat_stock:8d}/{len(sits)} = "
              f"{sat_stock / n:5.1%}")
    decisions = sum(r.decisions for r in results)
    latency = sum(r.decide_seconds for r in results) / max(1, decisions)
    print(f"a decision took {latency * 1000:.0f} ms wall on average, queue for the one solver "
          f"thread included ({decisions} decisions): that is {latency * scale:.1f} s of game "
          f"time added to the bots' own delays")
    hands_sat = sum(1 for r in done if any(a > SIT_LIMIT for _, a, _ in r.sits))
    print(f"hands in which a bot sat >60 s on <=2 cards: {hands_sat}/{len(done)} = "
          f"{hands_sat / max(1, len(done)):.1%} (target under 5 %)")


def real_time_off(args: argparse.Namespace) -> bool:
    """No delay at all: the shortened clocks, no time scale."""
    return args.pace == "none" and not args.reaction


def clocks_of(args: argparse.Namespace) -> dict[str, float]:
    """The server's clocks: shortened at pace none, the real ones divided by the time scale at
    the human pace."""
    if real_time_off(args):
        return dict(CLOCKS)
    return {k: round(v / args.time_scale, 3) for k, v in REAL_CLOCKS.items()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hands", type=int, default=200)
    ap.add_argument("--concurrency", type=int, default=4, help="hands played at once")
    ap.add_argument("--threads", type=int, default=1, help="solver threads of this process")
    ap.add_argument("--budget", type=float, default=0.1, help="solver seconds per decision")
    ap.add_argument("--hand-timeout", type=float, default=None,
                    help="wall seconds a hand may take (default 150; at the human pace 3600 "
                         "game seconds, divided by the time scale)")
    ap.add_argument("--pace", choices=PACES, default="none",
                    help="none: no delay (default); human: a person's times by level")
    ap.add_argument("--reaction", type=float, default=0.0,
                    help="at pace none, seconds between a bot's commands (default 0; above 0 "
                         "the real clocks run, divided by the time scale: a baseline for the "
                         "human pace, e.g. 0.8, the bots' old fixed pace)")
    ap.add_argument("--time-scale", type=float, default=None,
                    help="at the human pace, divide every clock and delay by this (default 10)")
    ap.add_argument("--max-minutes", type=float, default=12.0, help="no new hand after this")
    ap.add_argument("--seed", type=int, default=0, help="first line-up")
    ap.add_argument("--port", type=int, default=0, help="server port (0: a free one)")
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args(argv)
    if args.reaction < 0 or (args.reaction and args.pace == "human"):
        ap.error("--reaction: at least 0, and only with --pace none")
    if args.time_scale is None:
        args.time_scale = 1.0 if real_time_off(args) else 10.0
    if real_time_off(args) and args.time_scale != 1.0:
        ap.error("--time-scale goes with --pace human or a --reaction")
    if not args.time_scale > 0:
        ap.error("--time-scale must be above 0")
    if args.hand_timeout is None:
        args.hand_timeout = 150.0 if real_time_off(args) else 3600.0 / args.time_scale
    quiet_solver_banner()
    port = args.port or free_port()
    with served(port, clocks_of(args), "league-server-") as (base, log_path):
        t0 = time.monotonic()
        results = asyncio.run(league(args, base))
    print(f"server log: {log_path} ({os.path.getsize(log_path)} bytes)")
    return report(results, time.monotonic() - t0, args)


if __name__ == "__main__":
    sys.exit(main())
