"""Solver benchmark (issue 7): solve time on generated positions.

    python bench/solver.py [--positions 200] [--seed 1] [--budget 0.1] [--rules machiavelox]
                           [--hand-jokers 0]

Each position is drawn from a seeded generator: a target of 10–40 melds is
built on the table from two packs (random runs of 3–7 cards and sets of 3–4,
each made only of cards still in the deck; two packs hold at most 34 melds of
three cards, and the hand needs its cards too, so large targets stop at what
fits), then 5–20 cards from what is left go in the hand. Each position is
solved once with the given budget; the script prints how many melds and hand
cards the positions really had, the p50/p99/max wall time of
:func:`solver.solve` and the process CPU time it took (the two differ
when other work shares the machine), the share proved optimal within the
budget, and how often the solver needed to move table cards. Bounded: every solve stops at
its budget, so the run takes about positions × budget at worst.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import cards as C
from engine.melds import is_valid
from engine.rules import RuleSet, find_rules
from solver import solve


def _candidate(rng: random.Random, deck: dict[tuple[int, int], list[int]], rules: RuleSet
               ) -> list[int] | None:
    """A random meld made of cards still in the deck, or None."""
    if rng.random() < 0.35:
        rank = rng.randint(1, 13)
        suits = [s for s in range(4) if deck.get((rank, s))]
        if len(suits) < 3:
            return None
        chosen = rng.sample(suits, rng.choice([3, 3, 4]) if len(suits) == 4 else 3)
        return [deck[(rank, s)][-1] for s in chosen]
    suit = rng.randrange(4)
    n = rng.choice([3, 3, 3, 4, 4, 5, 6, 7])
    start = rng.randint(1, 13)
    ranks = [(start - 1 + i) % 13 + 1 for i in range(n)]
    if any(not deck.get((r, suit)) for r in ranks):
        return None
    meld = [deck[(r, suit)][-1] for r in ranks]
    return meld if is_valid(meld, rules) else None


def position(seed: int, rules: RuleSet, jokers: int = 0) -> tuple[list[list[int]], list[int], int]:
    """(table, hand, target meld count) for one seed; ``jokers`` of the hand
    cards are jokers (rule sets that have them)."""
    rng = random.Random(seed)
    cards = C.full_deck(rules.packs, 0)
    rng.shuffle(cards)
    cards = cards[rules.removed_cards:]
    hand_size = rng.randint(5, 20)
    target = rng.randint(10, 40)
    deck: dict[tuple[int, int], list[int]] = {}
    for c in cards:
        deck.setdefault(C.face_of(c), []).append(c)
    room = len(cards) - hand_size
    table: list[list[int]] = []
    used = 0
    misses = 0
    while len(table) < target and misses < 400:
        meld = _candidate(rng, deck, rules)
        if meld is None or used + len(meld) > room:
            misses += 1
            continue
        for c in meld:
            deck[C.face_of(c)].remove(c)
        used += len(meld)
        table.append(meld)
    rest = [c for cs in deck.values() for c in cs]
    rng.shuffle(rest)
    jokers = min(jokers, rules.jokers, hand_size)
    hand = rest[:hand_size - jokers] + [C.JOKER_BASE + j for j in range(jokers)]
    return table, sorted(hand), target


def quiet_first_solve(rules: RuleSet) -> None:
    """Warm up (templates, HiGHS) with standard output pointed away (see bots.banner)."""
    from bots.banner import quiet_first_solve as quiet

    quiet(rules)


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, max(0, math.ceil(q * len(s)) - 1))]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--budget", type=float, default=0.1, help="seconds per solve")
    ap.add_argument("--rules", default="machiavelox")
    ap.add_argument("--hand-jokers", type=int, default=0,
                    help="jokers among the hand cards (classic rule sets)")
    args = ap.parse_args(argv)
    rules = find_rules(args.rules)
    quiet_first_solve(rules)
    times: list[float] = []
    cpus: list[float] = []
    optimal = moved_any = placed_total = 0
    melds_seen: list[int] = []
    hands_seen: list[int] = []
    worst_seed = -1
    for k in range(args.positions):
        seed = args.seed * 1_000_003 + k
        table, hand, _ = position(seed, rules, args.hand_jokers)
        melds_seen.append(len(table))
        hands_seen.append(len(hand))
        t, cpu = time.perf_counter(), time.process_time()
        sol = solve(table, hand, rules, budget=args.budget)
        dt = time.perf_counter() - t
        cpus.append(time.process_time() - cpu)
        if not times or dt > max(times):
            worst_seed = seed
        times.append(dt)
        optimal += sol.optimal
        moved_any += sol.moved > 0
        placed_total += len(sol.placed)
    n = len(times)
    jk = f", {args.hand_jokers} jokers in hand" if args.hand_jokers else ""
    print(f"solver benchmark: {n} positions, rules {rules.name}{jk}, "
          f"budget {args.budget * 1000:.0f} ms, seed {args.seed}")
    print(f"  table melds {min(melds_seen)}-{max(melds_seen)} "
          f"(mean {statistics.mean(melds_seen):.1f}); hand cards {min(hands_seen)}-{max(hands_seen)}")
    print(f"  solve time: p50 {pct(times, 0.50) * 1000:.1f} ms, p99 {pct(times, 0.99) * 1000:.1f} ms, "
          f"max {max(times) * 1000:.1f} ms (seed {worst_seed})")
    print(f"  CPU time of the process: p50 {pct(cpus, 0.50) * 1000:.1f} ms, "
          f"p99 {pct(cpus, 0.99) * 1000:.1f} ms, max {max(cpus) * 1000:.1f} ms "
          f"(wall above CPU = waiting for a busy machine)")
    print(f"  proved optimal within budget: {optimal}/{n} ({100 * optimal / n:.1f}%)")
    print(f"  needed table moves: {moved_any}/{n}; hand cards put down: {placed_total} "
          f"({placed_total / n:.2f} per position)")
    print(f"  target p99 <= 100 ms: {'met' if pct(times, 0.99) <= 0.1 else 'NOT met'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
