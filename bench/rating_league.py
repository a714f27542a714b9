"""Bot league, rated: are sharks rated above casuals? (issue 18, ``server/rating.py``)

What runs
    ``bench/league.py``'s set-up: a real server process on a free 127.0.0.1 port with short
    clocks and lifted rate limits, and complete single hands played over websockets by bots
    with no reaction delay (``bots.client.BotPlayer``), ``--concurrency`` at once, line-ups
    rotating over ``league.LINEUPS`` (2+1 and 1+2 of each level, every seat position). Six
    rated identities, three sharks and three casuals, take the seats by level in turn. Each
    finished hand's result (winner, score reasons, as the last view shows it) becomes the
    seats' results (``won``, ``draw``, ``lost``, ``eliminated``, ``left``: ``server.journal.
    hand_result``) and is rated by ``server.rating`` exactly as a counted agora hand is.

What it prints
    Hands played and stuck, wall time; per identity: level, rated hands, wins, ``mu``,
    ``sigma`` and the conservative rating ``mu − 3·sigma``; the mean conservative rating per
    level; and whether every shark is rated above every casual (by ``mu − 3·sigma``, and by
    ``mu``). Exit status 1 when a hand was stuck or a casual is rated above a shark by ``mu``.

Bounds
    ``--hands`` (200) at most 2,000; every hand within ``--hand-timeout`` seconds of wall time;
    no new hand after ``--max-minutes``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import league  # noqa: E402  (bench/league.py: the server and the bots)

from bots.brain import Brain  # noqa: E402
from bots.client import BotPlayer, create_table, join_table, new_session, websocket_connector  # noqa: E402
from server.journal import hand_result  # noqa: E402
from server.rating import Rating, hand_ranks, initial, rate  # noqa: E402

IDENTITIES = {"shark": ["shark-1", "shark-2", "shark-3"], "casual": ["casual-1", "casual-2", "casual-3"]}


async def play(base: str, number: int, lineup: tuple[str, ...], executor: ThreadPoolExecutor,
               timeout: float, budget: float) -> list[str] | None:
    """One hand; the seats' results in seat order, or None when it did not end."""
    tokens = [await new_session(base, f"{lvl} {number}") for lvl in lineup]
    made = await create_table(base, tokens[0], "single")
    code = made["code"]
    seats = [made["seat"]] + [(await join_table(base, tok, code))["seat"] for tok in tokens[1:]]
    players = [BotPlayer(Brain(lvl, budget=budget, step_time=0.02), reaction=0.0, name=seat,
                         executor=executor, max_seconds=timeout + 5, seed=number * 3 + i)
               for i, (lvl, seat) in enumerate(zip(lineup, seats))]
    tasks = [asyncio.ensure_future(p.run(websocket_connector(base, code, tok)))
             for p, tok in zip(players, tokens)]
    _, pending = await asyncio.wait(tasks, timeout=timeout)
    for t in pending:
        t.cancel()
    view = next((p.game for p in players if p.game is not None), None)
    hand = view.get("hand") if view else None
    result = hand.get("result") if hand else None
    if pending or result is None:
        return None
    reasons = result.get("reasons") or {}
    return [hand_result(seat, result.get("winner"), reasons) for seat in seats]


async def run(args: argparse.Namespace, base: str) -> tuple[dict[str, Rating], dict[str, int], int]:
    executor = ThreadPoolExecutor(max_workers=args.threads, thread_name_prefix="rated-brain")
    ratings = {p: initial() for ids in IDENTITIES.values() for p in ids}
    wins = dict.fromkeys(ratings, 0)
    turn = {"shark": 0, "casual": 0}
    stuck = 0
    stop_at = time.monotonic() + args.max_minutes * 60
    queue: asyncio.Queue[int] = asyncio.Queue()
    for i in range(args.hands):
        queue.put_nowait(i)
    done = 0

    async def worker() -> None:
        nonlocal stuck, done
        while not queue.empty() and time.monotonic() < stop_at:
            i = queue.get_nowait()
            lineup = league.LINEUPS[i % len(league.LINEUPS)]
            who = []
            for lvl in lineup:  # the next identity of that level
                who.append(IDENTITIES[lvl][turn[lvl] % 3])
                turn[lvl] += 1
            try:
                results = await asyncio.wait_for(
                    play(base, i, lineup, executor, args.hand_timeout, args.budget),
                    args.hand_timeout + 30)
            except Exception as e:  # noqa: BLE001 - a failed hand is reported
                print(f"hand {i}: {e!r}", flush=True)
                results = None
            if results is None:
                stuck += 1
                continue
            after = rate([ratings[p] for p in who], hand_ranks(results))
            for p, r, res in zip(who, after, results):
                ratings[p] = r
                wins[p] += res == "won"
            done += 1
            if done % 20 == 0:
                print(f"... {done} hands", flush=True)

    await asyncio.gather(*(worker() for _ in range(args.concurrency)))
    executor.shutdown(wait=False)
    return ratings, wins, stuck


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hands", type=int, default=200)
    ap.add_argument("--concurrency", type=int, default=4)
    ap.add_argument("--threads", type=int, default=1, help="solver threads of this process")
    ap.add_argument("--budget", type=float, default=0.1, help="solver seconds per decision")
    ap.add_argument("--hand-timeout", type=float, default=150.0)
    ap.add_argument("--max-minutes", type=float, default=15.0)
    args = ap.parse_args()
    if not 1 <= args.hands <= 2000:
        ap.error("--hands 1..2000")
    league.quiet_solver_banner()
    port = league.free_port()
    t0 = time.monotonic()
    with league.served(port, league.CLOCKS, "rated-league-") as (base, log_path):
        ratings, wins, stuck = asyncio.run(run(args, base))
    wall = time.monotonic() - t0
    played = sum(r.games for r in ratings.values()) // 3
    print(f"\nRated bot league: {played} hands rated, {stuck} stuck, {wall:.0f} s wall "
          f"(server log {log_path}, {os.path.getsize(log_path)} bytes)")
    print(f"{'identity':10s} {'hands':>6s} {'wins':>5s} {'mu':>7s} {'sigma':>6s} {'mu-3sigma':>9s}")
    for p in sorted(ratings, key=lambda p: ratings[p].conservative, reverse=True):
        r = ratings[p]
        print(f"{p:10s} {r.games:6d} {wins[p]:5d} {r.mu:7.2f} {r.sigma:6.2f} {r.conservative:9.2f}")
    for lvl, ids in IDENTITIES.items():
        mean = sum(ratings[p].conservative for p in ids) / len(ids)
        print(f"mean mu-3sigma {lvl}: {mean:.2f}")
    sharks_c = min(ratings[p].conservative for p in IDENTITIES["shark"])
    casual_c = max(ratings[p].conservative for p in IDENTITIES["casual"])
    sharks_mu = min(ratings[p].mu for p in IDENTITIES["shark"])
    casual_mu = max(ratings[p].mu for p in IDENTITIES["casual"])
    print(f"every shark above every casual: by mu-3sigma {'yes' if sharks_c > casual_c else 'NO'}, "
          f"by mu {'yes' if sharks_mu > casual_mu else 'NO'}")
    return 0 if stuck == 0 and sharks_mu > casual_mu else 1


if __name__ == "__main__":
    raise SystemExit(main())
