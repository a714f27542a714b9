"""Solver benchmark (issues 7, 15): solve time and quality on generated positions.

    python bench/solver.py [--positions 200] [--seed 1] [--budget 0.1] [--rules machiavelox]
                           [--hand-jokers N] [--table-jokers N] [--baseline REV]
                           [--reference SECONDS]

Each position is drawn from a seeded generator: a target of 10–40 melds is
built on the table from the rules' packs (random runs of 3–7 cards and sets of
3–4, each made only of cards still in the deck; large targets stop at what
fits), jokers are put in table melds (in place of a real card, which goes back
to the deck, or as a set's fourth card, the meld staying valid), then 5–20 cards
from what is left go in the hand, jokers among them. With jokers in the rules
the defaults are two in hand and two on the table (``--rules classic``: four in
play); Machiavelox has none.

Each position is solved with the given budget; ``--baseline REV`` solves it too
with the ``solver`` package of git revision REV (side by side in one run, e.g.
``5b31265``, the solver before issue 15), and ``--reference SECONDS`` once more
with a long budget, printing the share of the reference's hand cards the
budgeted solve put down (issue 15's floor: 95 %). The script prints the p50/p99/
max wall time of each solver and the process CPU time it took (the two differ
when other work shares the machine), the share proved optimal (and the share
whose most cards down is proved), and how often table cards moved. Bounded:
every solve stops at its budget (plus a few ms), so the run takes about
positions × (budget × solvers + reference) at worst; the first line says so.
"""

from __future__ import annotations

import argparse
import importlib
import math
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import cards as C
from engine.melds import is_valid
from engine.rules import RuleSet, find_rules
from solver import solve, templates

BEFORE_CLASSIC = "5b31265"  # the last commit before issue 15's classic solver


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


def _put_jokers(rng: random.Random, table: list[list[int]], jokers: list[int],
                rules: RuleSet) -> list[int]:
    """Put ``jokers`` on the table, each in place of a real card of a meld (or beside
    a three-card meld, as its fourth card) so the meld stays valid; the real cards
    taken out come back (they may go in the hand). Returns them."""
    back: list[int] = []
    for j in jokers:
        for _ in range(50):
            k = rng.randrange(len(table)) if table else -1
            if k < 0:
                break
            meld = table[k]
            if rng.random() < 0.7:
                i = rng.randrange(len(meld))
                new = meld[:i] + [j] + meld[i + 1:]
                if is_valid(new, rules):
                    back.append(meld[i])
                    table[k] = new
                    break
            elif is_valid(meld + [j], rules):
                table[k] = meld + [j]
                break
    return back


def position(seed: int, rules: RuleSet, jokers: int = 0, table_jokers: int = 0
             ) -> tuple[list[list[int]], list[int], int]:
    """(table, hand, target meld count) for one seed; ``jokers`` of the hand
    cards are jokers and ``table_jokers`` more are in table melds (rule sets that
    have them; at most ``rules.jokers`` in all)."""
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
    jokers = min(jokers, rules.jokers, hand_size)
    on_table = [C.JOKER_BASE + jokers + j for j in range(min(table_jokers, rules.jokers - jokers))]
    back = _put_jokers(rng, table, on_table, rules)
    rest = [c for cs in deck.values() for c in cs] + back
    rng.shuffle(rest)
    hand = rest[:hand_size - jokers] + [C.JOKER_BASE + j for j in range(jokers)]
    return table, sorted(hand), target


def quiet_first_solve(rules: RuleSet) -> None:
    """Warm up (templates, HiGHS) with standard output pointed away (see bots.banner).
    The templates first: building them (0.1–0.2 s for classic) would use up the warm-up
    solve's budget before it makes a HiGHS object."""
    from bots.banner import quiet_first_solve as quiet

    templates(rules)
    quiet(rules)


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, max(0, math.ceil(q * len(s)) - 1))]


def load_baseline(rev: str) -> Any:
    """The ``solver`` package as it was at git revision ``rev``, imported under the name
    ``solver_baseline`` from a temporary directory (it uses today's ``engine``)."""
    root = Path(__file__).resolve().parents[1]
    names = subprocess.run(["git", "ls-tree", "--name-only", f"{rev}:solver"], cwd=root,
                           check=True, capture_output=True, text=True).stdout.split()
    pkg = Path(tempfile.mkdtemp(prefix="solver-baseline-")) / "solver_baseline"
    pkg.mkdir()
    for name in names:
        if name.endswith(".py"):
            text = subprocess.run(["git", "show", f"{rev}:solver/{name}"], cwd=root, check=True,
                                  capture_output=True).stdout
            (pkg / name).write_bytes(text)
    sys.path.insert(0, str(pkg.parent))
    return importlib.import_module("solver_baseline")


def baseline_rules(rules: RuleSet) -> RuleSet:
    """The rules as the baseline reads them: before issue 15 a joker cap per meld was
    an int (no cap = the jokers in the deck)."""
    if rules.most_jokers_per_meld is None:
        return replace(rules, most_jokers_per_meld=rules.jokers)
    return rules


class Tally:
    """Figures of one solver over the positions."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.times: list[float] = []
        self.cpus: list[float] = []
        self.placed: list[int] = []
        self.optimal = self.gain_optimal = self.moved_any = 0
        self.worst_seed = -1

    def run(self, seed: int, solve_with: Any, table: list[list[int]], hand: list[int],
            rules: RuleSet, budget: float) -> Any:
        t, cpu = time.perf_counter(), time.process_time()
        sol = solve_with(table, hand, rules, budget=budget)
        dt = time.perf_counter() - t
        self.cpus.append(time.process_time() - cpu)
        if not self.times or dt > max(self.times):
            self.worst_seed = seed
        self.times.append(dt)
        self.optimal += sol.optimal
        self.gain_optimal += getattr(sol, "gain_optimal", sol.optimal)
        self.moved_any += sol.moved > 0
        self.placed.append(len(sol.placed))
        return sol

    def report(self, budget: float) -> None:
        n = len(self.times)
        ms = 1000
        print(f"  {self.name}: solve time p50 {pct(self.times, 0.50) * ms:.1f} ms, "
              f"p99 {pct(self.times, 0.99) * ms:.1f} ms, max {max(self.times) * ms:.1f} ms "
              f"(seed {self.worst_seed})")
        print(f"    CPU time of the process: p50 {pct(self.cpus, 0.50) * ms:.1f} ms, "
              f"p99 {pct(self.cpus, 0.99) * ms:.1f} ms, max {max(self.cpus) * ms:.1f} ms "
              f"(wall above CPU = waiting for a busy machine)")
        print(f"    proved optimal within budget: {self.optimal}/{n} ({100 * self.optimal / n:.1f}%); "
              f"most cards down proved: {self.gain_optimal}/{n} "
              f"({100 * self.gain_optimal / n:.1f}%)")
        total = sum(self.placed)
        print(f"    needed table moves: {self.moved_any}/{n}; hand cards put down: {total} "
              f"({total / n:.2f} per position)")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--budget", type=float, default=0.1, help="seconds per solve")
    ap.add_argument("--rules", default="machiavelox")
    ap.add_argument("--hand-jokers", type=int, default=None,
                    help="jokers among the hand cards (default: 2 when the rules have jokers)")
    ap.add_argument("--table-jokers", type=int, default=None,
                    help="jokers in table melds (default: the rules' other jokers, at most 2)")
    ap.add_argument("--baseline", default=None, metavar="REV",
                    help="also solve each position with the solver package of git revision REV "
                         f"(e.g. {BEFORE_CLASSIC}, before issue 15's classic solver)")
    ap.add_argument("--reference", type=float, default=None, metavar="SECONDS",
                    help="also solve each position with this long budget and print the share "
                         "of its hand cards the budgeted solve put down")
    args = ap.parse_args(argv)
    rules = find_rules(args.rules)
    hand_jokers = args.hand_jokers if args.hand_jokers is not None else min(2, rules.jokers)
    table_jokers = (args.table_jokers if args.table_jokers is not None
                    else min(2, rules.jokers - hand_jokers))
    quiet_first_solve(rules)
    base = load_baseline(args.baseline) if args.baseline else None
    base_rules = baseline_rules(rules)
    if base is not None:  # warm up, HiGHS's banner pointed away as for the new solver
        sys.stdout.flush()
        saved, null = os.dup(1), os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(null, 1)
            base.solve([], [C.card_id((r, 0), 0) for r in (3, 4, 5)], base_rules)
        finally:
            os.dup2(saved, 1)
            os.close(saved)
            os.close(null)
    per_solve = args.budget * (2 if base is not None else 1) + (args.reference or 0.0)
    print(f"solver benchmark: {args.positions} positions, rules {rules.name}, "
          f"{hand_jokers} jokers in hand, {table_jokers} on the table, "
          f"budget {args.budget * 1000:.0f} ms, seed {args.seed}"
          + (f", reference {args.reference:g} s" if args.reference else "")
          + f" (at most ~{args.positions * per_solve:.0f} s)")
    new, old, ref = Tally("new"), Tally(f"baseline {args.baseline}"), Tally("reference")
    melds_seen: list[int] = []
    hands_seen: list[int] = []
    jokers_seen = 0
    for k in range(args.positions):
        seed = args.seed * 1_000_003 + k
        table, hand, _ = position(seed, rules, hand_jokers, table_jokers)
        melds_seen.append(len(table))
        hands_seen.append(len(hand))
        jokers_seen += sum(1 for m in table for c in m if C.is_joker(c))
        new.run(seed, solve, table, hand, rules, args.budget)
        if base is not None:
            old.run(seed, base.solve, table, hand, base_rules, args.budget)
        if args.reference:
            ref.run(seed, solve, table, hand, rules, args.reference)
    n = args.positions
    print(f"  table melds {min(melds_seen)}-{max(melds_seen)} "
          f"(mean {statistics.mean(melds_seen):.1f}), table jokers {jokers_seen / n:.2f} per "
          f"position; hand cards {min(hands_seen)}-{max(hands_seen)}")
    for tally in (new, old, ref):
        if tally.times:
            tally.report(args.budget)
    target = 0.12 if rules.jokers else 0.1
    print(f"  target p99 <= {target * 1000:.0f} ms: "
          f"{'met' if pct(new.times, 0.99) <= target else 'NOT met'}")
    if args.reference:
        share = sum(new.placed) / max(1, sum(ref.placed))
        worst, at = min(((a / b, k) for k, (a, b) in enumerate(zip(new.placed, ref.placed))
                         if b), default=(1.0, 0))
        print(f"  hand cards put down: {100 * share:.1f}% of the reference's "
              f"(floor 95%: {'met' if share >= 0.95 else 'NOT met'}; worst position "
              f"{100 * worst:.0f}%, seed {args.seed * 1_000_003 + at})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
