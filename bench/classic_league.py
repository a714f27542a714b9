"""Classic bot league: classic hands of bots against a real server, win shares per level
(issue 16).

What runs
    A real server process (``python -m server serve`` on a free 127.0.0.1 port, started by
    ``bench/league.py``'s ``start_server``, its rate limits lifted for bots without a delay).
    This process plays every seat: for each hand, 2–6 bots (``bots.client.BotPlayer`` with a
    ``bots.classic_brain.ClassicBrain``) get a session over HTTP, the first creates a classic
    single-hand table (``variant``: the three presets in turn, ``players``: the hand's seat
    count; Dutch has 2–5 seats with two packs, so its six-seat hands take ``packs: 3``), the
    others join, and all play it to its end over real websockets, at no delay (pace none, no
    reaction). ``--concurrency`` hands run at once. Seat levels alternate around the table,
    starting with shark and casual in turn from hand to hand, so the two levels hold the same
    number of seats over the run and each sits first as often.

What it prints
    Hands ended and stuck, wall time, hands per minute; how hands ended (out, dead,
    stock_out); per level: seats, hands won, the win rate per seat with its 95 % Wilson interval,
    commands sent and refused, and the refusals by code; the sharks' share of the hands won by a
    level with its interval (each level holds half the seats: above 50 % means the shark is
    stronger); the same per preset and per seat count; bots that had any command refused.

Bounds
    A hand is **stuck** when none of its bots sees a new view for ``--stall`` seconds (default
    30) or it has not ended within ``--hand-timeout`` wall seconds (default 600): it is
    cancelled and reported with its last view. No new hand starts after ``--max-minutes``.
    Exit status 1 when a hand was stuck.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import league  # noqa: E402  (bench/league.py: the server, Wilson intervals)

from bots.classic_brain import ClassicBrain  # noqa: E402
from bots.client import BotPlayer, create_table, join_table, new_session, websocket_connector  # noqa: E402
from bots.pace import Pace  # noqa: E402

PRESETS = ("classic", "classic_italian", "classic_dutch")
LEVELS = ("shark", "casual")


@dataclass
class HandResult:
    number: int
    preset: str
    lineup: tuple[str, ...]
    end: str = ""
    winner_level: str | None = None
    seconds: float = 0.0
    stuck: bool = False
    error: str = ""
    commands: Counter[str] = field(default_factory=Counter)
    refused: Counter[str] = field(default_factory=Counter)
    codes: Counter[str] = field(default_factory=Counter)
    #: (level, seat, commands refused) for each bot with any refused.
    refusing: list[tuple[str, str, int]] = field(default_factory=list)
    turns: int = 0


def lineup_of(number: int, seed: int) -> tuple[str, tuple[str, ...]]:
    """Hand ``number``'s preset and seat levels (module documentation)."""
    rng = random.Random(seed * 100_003 + number)
    preset = PRESETS[number % len(PRESETS)]
    seats = rng.randint(2, 6)
    first = number // len(PRESETS) % 2
    return preset, tuple(LEVELS[(first + j) % 2] for j in range(seats))


class Progress:
    """The last time (event loop seconds) any bot of a hand saw a new view."""

    def __init__(self) -> None:
        self.last = asyncio.get_running_loop().time()
        self.version: Any = None

    def __call__(self, t: float, game: dict[str, Any] | None, cmd: dict[str, Any] | None) -> None:
        if cmd is None and game is not None and game.get("version") != self.version:
            self.version = game.get("version")
            self.last = t


def describe(view: dict[str, Any] | None) -> str:
    if not view:
        return "no view"
    players = ", ".join(f"{p['name']} {p['hand_count']} cards"
                        f"{'' if p['connected'] else ' (away)'}" for p in view["players"])
    return (f"t {view.get('t')}, turn {view.get('turn')}, stock {view.get('stock')}, passes "
            f"{view.get('passes')}, melds {len(view.get('table') or [])}, {players}")


async def play_hand(base: str, number: int, preset: str, lineup: tuple[str, ...],
                    executor: ThreadPoolExecutor, args: argparse.Namespace) -> HandResult:
    res = HandResult(number, preset, lineup)
    t0 = time.monotonic()
    names = [f"{lvl}-{number}-{j}" for j, lvl in enumerate(lineup)]
    tokens = [await new_session(base, n) for n in names]
    options: dict[str, Any] = {"packs": 3} if preset == "classic_dutch" and len(lineup) == 6 else {}
    made = await create_table(base, tokens[0], "single", variant=preset, players=len(lineup),
                              options=options)
    code = made["code"]
    seats = [made["seat"]] + [(await join_table(base, tok, code))["seat"] for tok in tokens[1:]]
    progress = Progress()
    players = [BotPlayer(ClassicBrain(lvl, budget=args.budget, step_time=0.02,
                                      seed=number * 7 + j),
                         reaction=0.0, name=seat, executor=executor,
                         max_seconds=args.hand_timeout + 5, pace=Pace("none"), watch=progress)
               for j, (lvl, seat) in enumerate(zip(lineup, seats))]
    tasks = [asyncio.ensure_future(p.run(websocket_connector(base, code, tok)))
             for p, tok in zip(players, tokens)]
    loop = asyncio.get_running_loop()
    deadline = loop.time() + args.hand_timeout
    pending: set[asyncio.Future[Any]] = set(tasks)
    while pending:
        _, pending = await asyncio.wait(pending, timeout=1.0)
        now = loop.time()
        if not pending:
            break
        if now - progress.last > args.stall:
            res.stuck, res.error = True, f"no new view for {args.stall:.0f} s"
            break
        if now > deadline:
            res.stuck, res.error = True, f"not over after {args.hand_timeout:.0f} s"
            break
    for t in pending:
        t.cancel()
    res.seconds = time.monotonic() - t0
    level_of = dict(zip(seats, lineup))
    for p, lvl, seat in zip(players, lineup, seats):
        res.commands[lvl] += p.report.commands
        res.refused[lvl] += p.report.refused
        res.turns += p.brain.stats.get("plans", 0)
        for k, v in p.brain.stats.items():
            if k.startswith("refused:"):
                res.codes[f"{lvl} {k[len('refused:'):]}"] += v
        if p.report.refused:
            res.refusing.append((lvl, seat, p.report.refused))
    view = next((p.game for p in players if p.game is not None and p.game.get("result")),
                next((p.game for p in players if p.game is not None), None))
    result = (view or {}).get("result")
    if result is not None:
        res.end = result["end"]
        res.winner_level = level_of.get(result["winner"]) if result["winner"] else None
    elif not res.stuck:
        res.stuck, res.error = True, "no result in the last view"
    if res.stuck:
        res.error += "; last view: " + describe(view)
    return res


async def run_league(args: argparse.Namespace, base: str) -> list[HandResult]:
    def failed(i: int, error: str) -> HandResult:
        preset, lineup = lineup_of(i, args.seed)
        return HandResult(i, preset, lineup, stuck=True, error=error)

    def describe(i: int, r: HandResult) -> str:
        return (f"hand {i:3d} {r.preset:15s} {'/'.join(r.lineup):40s} {r.end or '-':9s} "
                f"winner {r.winner_level or '-':7s} {r.seconds:5.1f} s {r.error}")

    return await league.hands_at_once(
        args, "classic-brain",
        lambda i, executor: play_hand(base, i, *lineup_of(i, args.seed), executor, args),
        failed, describe, 25)


def _levels(results: list[HandResult]) -> tuple[Counter[str], Counter[str]]:
    seats: Counter[str] = Counter()
    wins: Counter[str] = Counter()
    for r in results:
        if r.stuck:
            continue
        seats.update(r.lineup)
        if r.winner_level:
            wins[r.winner_level] += 1
    return seats, wins


def _share(wins: Counter[str]) -> str:
    decided = wins["shark"] + wins["casual"]
    lo, hi = league.wilson(wins["shark"], decided)
    return (f"shark share of {decided} wins {wins['shark'] / max(1, decided):.3f} "
            f"[{lo:.3f}, {hi:.3f}]")


def report(results: list[HandResult], wall: float, args: argparse.Namespace) -> int:
    n = len(results)
    stuck = [r for r in results if r.stuck]
    seats, wins = _levels(results)
    cmds: Counter[str] = Counter()
    refused: Counter[str] = Counter()
    codes: Counter[str] = Counter()
    for r in results:
        cmds.update(r.commands)
        refused.update(r.refused)
        codes.update(r.codes)
    durations = sorted(r.seconds for r in results if not r.stuck)
    print(f"\nClassic bot league: {n} hands, {n - len(stuck)} ended, {len(stuck)} stuck, in "
          f"{wall:.0f} s wall = {n / wall * 60:.1f} hands/min; {args.concurrency} hands at once, "
          f"no delay, solver budget {args.budget * 1000:.0f} ms, {args.threads} solver "
          f"thread(s); stuck = no new view for {args.stall:.0f} s or over "
          f"{args.hand_timeout:.0f} s")
    if durations:
        print(f"hand wall time: median {durations[len(durations) // 2]:.1f} s, "
              f"max {durations[-1]:.1f} s; turns planned {sum(r.turns for r in results)}")
    print("ends: " + ", ".join(f"{k} {v}" for k, v in
                               Counter(r.end or "stuck" for r in results).most_common()))
    print(f"{'level':8s} {'seats':>6s} {'wins':>5s} {'win rate':>9s} {'95% Wilson CI':>17s} "
          f"{'commands':>9s} {'refused':>8s}")
    for lvl in LEVELS:
        lo, hi = league.wilson(wins[lvl], seats[lvl])
        rate = wins[lvl] / seats[lvl] if seats[lvl] else 0.0
        print(f"{lvl:8s} {seats[lvl]:6d} {wins[lvl]:5d} {rate:9.3f}   [{lo:.3f}, {hi:.3f}] "
              f"{cmds[lvl]:9d} {refused[lvl]:8d}")
    print(_share(wins) + " (each level holds half the seats: above 0.5 = the shark is stronger)")
    for preset in PRESETS:
        _, w = _levels([r for r in results if r.preset == preset])
        k = sum(1 for r in results if r.preset == preset)
        print(f"  {preset:16s} {k:4d} hands: {_share(w)}")
    for size in range(2, 7):
        group = [r for r in results if len(r.lineup) == size]
        if group:
            s, w = _levels(group)
            rates = ", ".join(f"{lvl} {w[lvl]}/{s[lvl]}" for lvl in LEVELS)
            print(f"  {size} seats {len(group):4d} hands: wins per seat {rates}")
    print("refused by code: " + (", ".join(f"{k} {v}" for k, v in codes.most_common()) or
                                 "none"))
    refusing = [x for r in results for x in r.refusing]
    bots = sum(len(r.lineup) for r in results)
    print(f"bots with any command refused: {len(refusing)} of {bots}"
          + (f"; most by one bot: {max(x[2] for x in refusing)}" if refusing else ""))
    for r in stuck[:10]:
        print(f"stuck: hand {r.number} {r.preset} {r.lineup}: {r.error}")
    return 1 if stuck else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hands", type=int, default=200)
    ap.add_argument("--concurrency", type=int, default=8, help="hands played at once")
    ap.add_argument("--threads", type=int, default=2, help="solver threads of this process")
    ap.add_argument("--budget", type=float, default=0.1, help="solver seconds per plan")
    ap.add_argument("--hand-timeout", type=float, default=600.0,
                    help="wall seconds a hand may take")
    ap.add_argument("--stall", type=float, default=30.0,
                    help="wall seconds without a new view that make a hand stuck")
    ap.add_argument("--max-minutes", type=float, default=20.0, help="no new hand after this")
    ap.add_argument("--seed", type=int, default=0, help="the seat counts' seed")
    ap.add_argument("--port", type=int, default=0, help="server port (0: a free one)")
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args(argv)
    league.quiet_solver_banner()
    port = args.port or league.free_port()
    with league.served(port, {}, "classic-league-server-") as (base, log_path):
        t0 = time.monotonic()
        results = asyncio.run(run_league(args, base))
    print(f"server log: {log_path} ({os.path.getsize(log_path)} bytes)")
    return report(results, time.monotonic() - t0, args)


if __name__ == "__main__":
    sys.exit(main())
