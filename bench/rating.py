"""Does the agora's rating find the better players? (issue 18, ``server/rating.py``)

What runs
    A simulation, no server: ``--players`` (60) players with a hidden skill each (drawn from a
    normal distribution, seeded) play ``--hands`` (10,000) three-player hands. Some play more
    than others (``--activity``: weights ``exp(N(0, 1))``, independent of skill; 0: all alike).
    Each hand's three come from the agora's own grouping (``server.matching.choose_group``)
    over a pool of ``--pool`` (12) idle players drawn by activity, each having waited a random
    0–30 s; the same hands are then played again, same seed, grouped first come first (as the
    agora matched before issue 18). Its
    finishing order is drawn by a Plackett–Luce model on the hidden skills (first place with
    probability proportional to ``exp(skill)``, then second among the other two): the first is
    ``won`` and scores 50 + 5–25 (R20's cards), the second ``lost`` (0), the third ``lost``
    (0) or, one time in five, ``left``/``eliminated`` (−15). The results go through
    ``server.rating.hand_ranks`` and ``server.rating.rate`` (OpenSkill), as a counted agora
    hand does.

What it prints
    After 1,000, 5,000 and 10,000 hands (``--at``): Kendall's tau (tau-b) between the hidden
    skill and, side by side in the same run, (a) the conservative rating ``mu − 3·sigma`` that
    orders the ranking now, (b) ``mu`` alone, and (c) the baseline: the sum of points that
    ordered the ranking before (R22 as it was), for both groupings. 1 is the hidden order
    exactly; 0 no relation. Then the mean skill spread inside a group (max − min) for both
    groupings (how much closer the grouping makes matches), and the wall time.

Bounds
    ``--hands`` at most 100,000; pure Python, one process; about 5 s of CPU for the defaults.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from server.matching import Waiting, choose_group  # noqa: E402
from server.rating import Rating, hand_ranks, initial, rate  # noqa: E402


def kendall_tau(xs: list[float], ys: list[float]) -> float:
    """Kendall's tau-b of two equally long lists (ties counted as neither)."""
    concordant = discordant = ties_x = ties_y = 0
    n = len(xs)
    for i in range(n):
        for j in range(i + 1, n):
            dx, dy = xs[i] - xs[j], ys[i] - ys[j]
            if dx == 0 and dy == 0:
                continue
            if dx == 0:
                ties_x += 1
            elif dy == 0:
                ties_y += 1
            elif (dx > 0) == (dy > 0):
                concordant += 1
            else:
                discordant += 1
    denom = math.sqrt((concordant + discordant + ties_x) * (concordant + discordant + ties_y))
    return (concordant - discordant) / denom if denom else 0.0


def finishing_order(rng: random.Random, skills: list[float]) -> list[int]:
    """Indices into ``skills``, best place first, drawn by Plackett–Luce on exp(skill)."""
    left = list(range(len(skills)))
    order = []
    while left:
        weights = [math.exp(skills[i]) for i in left]
        pick = rng.choices(left, weights)[0]
        order.append(pick)
        left.remove(pick)
    return order


def simulate(args: argparse.Namespace, checkpoints: list[int], grouped: bool
             ) -> tuple[dict[int, tuple[float, float, float]], float]:
    """One run: per checkpoint (tau of mu − 3·sigma, of mu, of points), and the mean skill
    spread in a group. ``grouped``: the agora's grouping; else first come first (FIFO, as
    the agora matched before issue 18)."""
    rng = random.Random(args.seed)
    ids = [f"p{i:03d}" for i in range(args.players)]
    skill = {p: rng.gauss(0.0, 1.0) for p in ids}
    # How often each plays (independent of skill): weights exp(N(0, activity)).
    active = {p: math.exp(rng.gauss(0.0, args.activity)) for p in ids}
    ratings: dict[str, Rating] = {p: initial() for p in ids}
    points = dict.fromkeys(ids, 0)
    last: dict[str, str] = {}
    spread = 0.0
    rows: dict[int, tuple[float, float, float]] = {}
    now = 0.0
    for hand in range(1, args.hands + 1):
        now += 1.0
        # A weighted sample without replacement (keys u^(1/w), Efraimidis–Spirakis).
        pool = sorted(ids, key=lambda p: rng.random() ** (1.0 / active[p]))[-args.pool:]
        waiting = [Waiting(p, ratings[p].mu, now - rng.uniform(0, 30), last.get(p))
                   for p in pool]
        waiting.sort(key=lambda w: w.since)  # queue order: first come first
        group = (choose_group(waiting, now) if grouped else None) or \
            [w.player_id for w in waiting[:3]]
        sk = [skill[p] for p in group]
        spread += max(sk) - min(sk)
        order = finishing_order(rng, sk)
        results = ["lost"] * 3
        pts = [0, 0, 0]
        results[order[0]] = "won"
        pts[order[0]] = 50 + rng.randint(5, 25)
        if rng.random() < 0.2:
            results[order[2]] = rng.choice(["left", "eliminated"])
            pts[order[2]] = -15
        after = rate([ratings[p] for p in group], hand_ranks(results))
        key = ",".join(sorted(group))
        for p, r, x in zip(group, after, pts):
            ratings[p] = r
            points[p] += x
            last[p] = key
        if hand in checkpoints:
            hidden = [skill[p] for p in ids]
            rows[hand] = (kendall_tau(hidden, [ratings[p].conservative for p in ids]),
                          kendall_tau(hidden, [ratings[p].mu for p in ids]),
                          kendall_tau(hidden, [float(points[p]) for p in ids]))
    return rows, spread / args.hands


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--players", type=int, default=60)
    ap.add_argument("--hands", type=int, default=10_000)
    ap.add_argument("--pool", type=int, default=12, help="idle players the grouping sees")
    ap.add_argument("--at", type=str, default="1000,5000,10000")
    ap.add_argument("--seed", type=int, default=18)
    ap.add_argument("--activity", type=float, default=1.0,
                    help="spread of how often players play: weights exp(N(0, this)); 0: all alike")
    args = ap.parse_args()
    if not 3 <= args.players <= 10_000 or not 1 <= args.hands <= 100_000:
        ap.error("--players 3..10000, --hands 1..100000")
    checkpoints = sorted({int(x) for x in args.at.split(",") if x})
    started = time.perf_counter()
    new, spread_new = simulate(args, checkpoints, grouped=True)
    old, spread_old = simulate(args, checkpoints, grouped=False)
    elapsed = time.perf_counter() - started
    print(f"{args.players} players of hidden skill N(0, 1), activity spread {args.activity}, "
          f"{args.hands} hands, pool {args.pool}, seed {args.seed}; Kendall tau with the "
          "hidden skill:")
    print(f"{'':>7}  {'rating grouping (new)':^30}  {'first come first (before)':^20}")
    print(f"{'hands':>7}  {'mu-3sigma':>9}  {'mu':>7}  {'points':>8}  {'mu-3sigma':>9}  "
          f"{'points (baseline)':>17}")
    for hand in checkpoints:
        if hand in new:
            c, m, p = new[hand]
            oc, _, op = old[hand]
            print(f"{hand:>7}  {c:>9.3f}  {m:>7.3f}  {p:>8.3f}  {oc:>9.3f}  {op:>17.3f}")
    print(f"mean skill spread in a group (max - min): rating grouping {spread_new:.3f}, "
          f"first come first {spread_old:.3f}")
    print(f"2 x {args.hands} hands in {elapsed:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
