"""Engine benchmark: time to apply one command on a busy table, and a long chain undo.

Prints figures; asserts nothing. Run: ``python bench/engine.py`` (about 20 s).

* **Busy table**: 32 melds on the table; three players each declare a king and
  move table cards back and forth for their whole 40 s (one command every
  20 ms, so each play is judged and undone whole at its 40 s, §5.3), round
  after round. Median, p99 and max of one ``apply`` (clocks due included).
* **Chain undo**: A's open play puts a 7 on eight runs ``4-5-6``; B and C
  build ``8 … A`` on each with confirmed plays that each need the card
  before (R8 meld edges); A cancels and the whole chain falls (R10): 64
  actions by 57 plays. Time of that one ``cancel``.

* **Crowded meld**: 16 and 24 open actions of two players on one run (R8's exact search):
  the time of the command whose judging must put back ten of them, and of one that no set
  mends.

Each figure is measured after padding the hand's log to 1,000 and to 10,000
actions, to show that cost follows what falls, not the log's length.
Targets on this machine: median ≤ 50 µs, p99 ≤ 500 µs, chain undo ≤ 5 ms, worst judging at
16 open actions ≤ 5 ms.

* **Classic** (C16, issue 15): a table of 30 melds, 4 of them with jokers; a turn that adds a
  king to one run, frees a joker from another with a hand card and puts the joker on the
  first, and adds a king to a third (3 of 30 melds changed). The time of ``end``'s checks
  (``engine.classic.checks.end_refusal``), beside the same checks judging all 30 melds (the
  baseline the turn's touched set saves), and of the accepted ``end`` (checks, faces settled,
  next turn). Target: checks median ≤ 100 µs. ``--classic`` runs this section alone.

``--baseline REV`` (issue 26): this script measures the ``engine`` package of git revision REV
(extracted with ``git archive`` into a temporary directory) and this checkout's, in separate
processes and interleaved (baseline, change, baseline, change, ...), ``--runs`` times each
(default 3), then prints each figure's median of the runs side by side with the change in per
cent (negative is faster). The workload is this script's in both, so REV's engine must offer
the names imported below (old names are kept as aliases for that). ``--json`` prints one run's
figures as a JSON object of ``name: microseconds`` (or counts), ``--root DIR`` imports the
engine from DIR instead of this checkout: the two options the interleaved runs use.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# --root DIR (a baseline's extracted tree) must be on the path before the engine is imported
_ROOT = sys.argv[sys.argv.index("--root") + 1] if "--root" in sys.argv[:-1] else str(REPO)
sys.path.insert(0, _ROOT)

from engine.classic.checks import end_refusal  # noqa: E402
from engine.classic.jokers import meld_ok  # noqa: E402
from engine.classic.match import ClassicMatch  # noqa: E402
from engine.classic.model import Play  # noqa: E402
from engine.errors import Refused  # noqa: E402
from engine.hand import Command, Hand  # noqa: E402
from engine.rules import CLASSIC  # noqa: E402

SUITS = "SHDC"


def busy_hand() -> Hand:
    table = []
    for _copy in range(2):
        for s in SUITS:
            for lo in (("A", "2", "3"), ("4", "5", "6"), ("7", "8", "9"), ("10", "J", "Q")):
                table.append([r + s for r in lo])
    return Hand.from_position(
        ["A", "B", "C"], table=table,
        hands={"A": ["KS", "KH"], "B": ["KD", "KC"], "C": ["KS", "KH"]},
        stocks={"A": ["KD"], "B": ["KC"]}, drew="ABC", laid="ABC")


def busy_round(hand: Hand, t0: float, step: float, samples: list[int] | None) -> float:
    """One 40 s round: each player declares a king and shuttles a 3 between
    ``A-2-3`` and ``4-5-6`` of one suit until the play times out."""
    # melds per (copy, suit): ids 1.. in the order built above
    def mid(copy: int, suit: int, group: int) -> int:
        return copy * 16 + suit * 4 + group + 1

    work = {"A": (0, 0), "B": (0, 1), "C": (1, 2)}
    t = t0
    where = {p: "low" for p in work}
    for p in work:
        hand.apply(Command(p, "stage", card=hand_card(hand, p)), t)
        t += step
    end = t0 + 40.0
    while t < end - step:
        for p, (copy, suit) in work.items():
            s = SUITS[suit]
            low, high = mid(copy, suit, 0), mid(copy, suit, 1)
            if where[p] == "low":
                cmd = Command(p, "move", card="3" + s, meld=low, to=high)
            else:
                cmd = Command(p, "move", card="3" + s, meld=high, to=low)
            t0_ns = time.perf_counter_ns()
            try:
                hand.apply(cmd, t)
                where[p] = "high" if where[p] == "low" else "low"
            except Refused:
                pass
            if samples is not None:
                samples.append(time.perf_counter_ns() - t0_ns)
            t += step
    t0_ns = time.perf_counter_ns()
    hand.tick(end + 1.0)  # the three plays time out and are undone whole
    if samples is not None:
        samples.append(time.perf_counter_ns() - t0_ns)
    hand.drain_events()
    return end + 1.0


def hand_card(hand: Hand, p: str) -> str:
    from engine.cards import name
    return name(hand.hands[p][0])


def pct(xs: list[int], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] / 1000


def bench_busy(log_len: int) -> dict[str, float]:
    hand = busy_hand()
    t = 0.0
    while len(hand.actions) < log_len:
        t = busy_round(hand, t, 0.25 if log_len - len(hand.actions) < 6000 else 0.02, None)
        hand.inactivity_deadline_ms = None  # keep the hand going: no forced draws here
    log_at_start = len(hand.actions)
    samples: list[int] = []
    for _ in range(3):
        t = busy_round(hand, t, 0.02, samples)
        hand.inactivity_deadline_ms = None
    return {"n": len(samples), "median_us": pct(samples, 0.5), "p99_us": pct(samples, 0.99),
            "max_us": max(samples) / 1000, "log": log_at_start}


def chain_hand() -> Hand:
    table: list[list[str]] = []
    a_hand: list[str] = []
    b_hand: list[str] = []
    c_hand: list[str] = []
    up = ["8", "9", "10", "J", "Q", "K", "A"]
    for _copy in range(2):
        for s in SUITS:
            table.append(["4" + s, "5" + s, "6" + s])
            a_hand.append("7" + s)
            for i, r in enumerate(up):
                (b_hand if i % 2 == 0 else c_hand).append(r + s)
    table.append(["2H", "2D", "2C"])  # A wounds this one to keep its play open
    a_hand += ["3S", "3H"]
    return Hand.from_position(["A", "B", "C"], table=table,
                              hands={"A": a_hand, "B": b_hand, "C": c_hand},
                              drew="ABC", laid="ABC")


def pad(hand: Hand, log_len: int, t: float) -> float:
    """Pad the log: A declares 3H and shuttles 6S to a new meld and back, then
    takes 3H back, so the play is undone whole (no own card down, §5.3)."""
    while len(hand.actions) < log_len:
        hand.apply(Command("A", "stage", card="3H"), t)
        for _ in range(100):
            t += 0.01
            hand.apply(Command("A", "move", card="6S", meld=1, to="new"), t)
            t += 0.01
            new = max(hand.melds)
            hand.apply(Command("A", "move", card="6S", meld=new, to=1), t)
        t += 0.01
        hand.apply(Command("A", "unstage", card="3H"), t)
        hand.inactivity_deadline_ms = None
    hand.drain_events()
    return t + 0.01


def bench_chain(log_len: int) -> dict[str, float]:
    hand = chain_hand()
    t = pad(hand, log_len, 0.0)
    hand.apply(Command("A", "add", card="3S", meld=9), t)  # wounded: A's play stays open
    t += 0.001
    for i in range(8):
        hand.apply(Command("A", "add", card="7" + SUITS[i % 4], meld=i + 1), t)
        t += 0.001
    for step, r in enumerate(["8", "9", "10", "J", "Q", "K", "A"]):
        p = "B" if step % 2 == 0 else "C"
        for i in range(8):
            hand.apply(Command(p, "add", card=r + SUITS[i % 4], meld=i + 1), t)
            t += 0.001
    before = sum(len(cs) for cs in hand.melds.values())
    t0 = time.perf_counter_ns()
    hand.apply(Command("A", "cancel"), t)
    took = (time.perf_counter_ns() - t0) / 1000
    after = sum(len(cs) for cs in hand.melds.values())
    fallen = sum(1 for p in hand.plays.values() if p.status == "fallen")
    return {"chain_us": took, "cards_back": before - after, "plays_fallen": fallen,
            "log": len(hand.actions)}


HEARTS_IN = ["6", "7", "8", "9", "10", "J", "Q", "K", "A", "2"]


def crowded_hand(n_open: int) -> tuple[Hand, float]:
    """Meld 1 is ``3H 4H 5H``; B's and C's open plays move the other ten hearts onto it from
    four-card sets, then C shuttles hearts out to a new meld and back until ``n_open`` open
    actions touch meld 1 (each is one card changing place, R6)."""
    table = [["3H", "4H", "5H"]] + [[r + s for s in SUITS] for r in HEARTS_IN]
    hand = Hand.from_position(["A", "B", "C"], table=table,
                              hands={"A": ["3H", "KS", "4D"], "B": ["QS"], "C": ["QD"]},
                              drew="ABC", laid="ABC")
    t = 0.0
    hand.apply(Command("B", "stage", card="QS"), t)
    hand.apply(Command("C", "stage", card="QD"), t)
    actions = 0
    for i, r in enumerate(HEARTS_IN):
        t += 0.01
        hand.apply(Command("B" if i % 2 == 0 else "C", "move", card=r + "H", meld=i + 2, to=1), t)
        actions += 1
    i = 0
    while actions + 2 <= n_open:
        face = HEARTS_IN[i % len(HEARTS_IN)] + "H"
        t += 0.01
        hand.apply(Command("C", "move", card=face, meld=1, to="new"), t)
        t += 0.01
        hand.apply(Command("C", "move", card=face, meld=max(hand.melds), to=1), t)
        actions += 2
        i += 1
    hand.drain_events()
    return hand, t + 0.01


def bench_crowded(n_open: int, repeat: int) -> dict[str, float]:
    """Worst judging on a crowded meld: A adds a second 3H (R3's run of 14), which only all
    ten hearts put back make valid; and A moves the 4H out, which no set mends (wounded)."""
    needed: list[int] = []
    wounded: list[int] = []
    for _ in range(repeat):
        hand, t = crowded_hand(n_open)
        opened = sum(1 for a in hand.meld_log[1] if hand.plays[a.play].status == "open")
        t0 = time.perf_counter_ns()
        hand.apply(Command("A", "add", card="3H", meld=1), t)
        needed.append(time.perf_counter_ns() - t0)
        assert hand.plays[max(hand.plays)].status == "confirmed", "the add should stand"
        hand, t = crowded_hand(n_open)
        hand.apply(Command("A", "stage", card="KS"), t)
        hand.apply(Command("A", "move", card="4H", meld=1, to="new"), t)
        t0 = time.perf_counter_ns()
        hand.apply(Command("A", "end"), t)
        wounded.append(time.perf_counter_ns() - t0)
    return {"open": opened, "needed_med": pct(needed, 0.5), "needed_max": max(needed) / 1000,
            "wounded_med": pct(wounded, 0.5), "wounded_max": max(wounded) / 1000}


def classic_turn() -> ClassicMatch:
    """30 melds (4 with a joker), then a turn changing 3 of them (see the docstring)."""
    table: list[list[str]] = []
    for _copy in range(2):
        for s in SUITS:
            for lo in (("A", "2", "3"), ("4", "5", "6"), ("7", "8", "9"), ("10", "J", "Q")):
                table.append([r + s for r in lo])
    table = table[:30]
    for i in (1, 5, 9, 13):  # 4-5-6 of each suit, first copy: the 5 is a joker
        table[i][1] = "JK=" + table[i][1]
    m = ClassicMatch.from_position(["A", "B"], CLASSIC, table=table,
                                   hands={"A": ["KS", "KH", "5S", "9C"], "B": ["JC"]},
                                   stock=["8C"])
    m.apply(Play("A", "add", card="KS", meld=4), 0)      # 10S JS QS KS
    m.apply(Play("A", "free", card="5S", meld=2), 0)     # 4S 5S 6S, the joker loose
    m.apply(Play("A", "move", card="JK", meld="loose", to=4), 0)  # 10S … KS JK
    m.apply(Play("A", "add", card="KH", meld=8), 0)      # 10H JH QH KH
    return m


def bench_classic(repeat: int) -> dict[str, float]:
    m = classic_turn()
    hand = m.hand
    assert hand is not None and len(hand.melds) == 30 and len(hand.touched) == 3
    checks: list[int] = []
    every: list[int] = []
    for _ in range(repeat):
        t0 = time.perf_counter_ns()
        code = end_refusal(hand, "A")
        checks.append(time.perf_counter_ns() - t0)
        t0 = time.perf_counter_ns()
        ok = all(meld_ok(cs, hand.faces, m.rules) for cs in hand.melds.values())
        every.append(time.perf_counter_ns() - t0)
        assert code is None and ok
    ends: list[int] = []
    for _ in range(max(repeat // 10, 50)):
        fresh = classic_turn()
        t0 = time.perf_counter_ns()
        fresh.apply(Play("A", "end"), 0)
        ends.append(time.perf_counter_ns() - t0)
    return {"checks_med": pct(checks, 0.5), "checks_p99": pct(checks, 0.99),
            "all_med": pct(every, 0.5), "end_med": pct(ends, 0.5)}


def measure(args: argparse.Namespace, say: bool) -> dict[str, float]:
    """Run the sections and return their figures by name (µs, or counts for ``*cards*``,
    ``*plays*``); print them as lines too when ``say``."""
    out = print if say else (lambda *_a, **_k: None)
    fig: dict[str, float] = {}
    if not args.classic:
        for n in (int(x) for x in args.logs.split(",")):
            b = bench_busy(n)
            out(f"busy table, log {b['log']:>6} actions: {b['n']} commands  median {b['median_us']:.1f}"
                f"  p99 {b['p99_us']:.1f}  max {b['max_us']:.1f}")
            runs = [bench_chain(n) for _ in range(args.repeat)]
            worst = max(r["chain_us"] for r in runs)
            med = statistics.median(r["chain_us"] for r in runs)
            r0 = runs[0]
            out(f"chain undo, log {r0['log']:>6} actions: {r0['cards_back']} cards back,"
                f" {r0['plays_fallen']} plays fallen  median {med:.0f}  worst {worst:.0f}")
            fig |= {f"busy {n} median": b["median_us"], f"busy {n} p99": b["p99_us"],
                    f"chain {n} median": med, f"chain {n} worst": worst,
                    f"chain {n} cards back": r0["cards_back"],
                    f"chain {n} plays fallen": r0["plays_fallen"]}
        for n in (16, 24):
            c = bench_crowded(n, args.repeat * 4)
            out(f"crowded meld, {c['open']} open actions: all ten put back  median {c['needed_med']:.0f}"
                f"  worst {c['needed_max']:.0f}; wounded  median {c['wounded_med']:.0f}"
                f"  worst {c['wounded_max']:.0f}")
            fig |= {f"crowded {n} put back median": c["needed_med"],
                    f"crowded {n} wounded median": c["wounded_med"]}
        out("targets: median <= 50, p99 <= 500, worst chain undo <= 5000,"
            " worst judging at 16 open actions <= 5000")
    c = bench_classic(2000)
    out(f"classic end checks, 3 of 30 melds changed, jokers: median {c['checks_med']:.1f}"
        f"  p99 {c['checks_p99']:.1f}; judging all 30 melds (baseline) median {c['all_med']:.1f};"
        f" accepted end median {c['end_med']:.1f}")
    out("classic target: checks median <= 100")
    fig |= {"classic checks median": c["checks_med"], "classic checks p99": c["checks_p99"],
            "classic end median": c["end_med"]}
    return fig


def extract(rev: str) -> Path:
    """The tree of git revision ``rev`` (its ``engine`` package) in a new temporary directory."""
    where = Path(tempfile.mkdtemp(prefix="engine-baseline-"))
    tar = subprocess.run(["git", "archive", rev, "engine"], cwd=REPO, check=True,
                         capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(where)], input=tar, check=True)
    return where


def child(args: argparse.Namespace, root: Path) -> dict[str, float]:
    """One run of this script in a fresh process with the engine imported from ``root``."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--json", "--root", str(root),
           "--logs", args.logs, "--repeat", str(args.repeat)] + (["--classic"] if args.classic else [])
    done = subprocess.run(cmd, check=True, capture_output=True, text=True)
    figures: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def compare(args: argparse.Namespace) -> int:
    """``--baseline REV``: the baseline's and this checkout's runs interleaved, medians side by side."""
    rev = subprocess.run(["git", "rev-parse", "--short", args.baseline], cwd=REPO, check=True,
                         capture_output=True, text=True).stdout.strip()
    base_root = extract(rev)
    base: list[dict[str, float]] = []
    new: list[dict[str, float]] = []
    for i in range(args.runs):
        print(f"run {i + 1} of {args.runs}: baseline {rev}, then this checkout", flush=True)
        base.append(child(args, base_root))
        new.append(child(args, REPO))
    print(f"medians of {args.runs} interleaved runs (µs; counts for cards and plays)")
    print(f"{'figure':<30} {'baseline ' + rev:>18} {'change':>12} {'delta':>8}")
    for name in new[0]:
        b = statistics.median(r[name] for r in base)
        n = statistics.median(r[name] for r in new)
        delta = f"{(n - b) / b * 100:+.1f}%" if b else "-"
        print(f"{name:<30} {b:>18.1f} {n:>12.1f} {delta:>8}")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--logs", default="1000,10000", help="log lengths to pad to")
    ap.add_argument("--repeat", type=int, default=5, help="chain undo repetitions")
    ap.add_argument("--classic", action="store_true", help="only the classic section")
    ap.add_argument("--baseline", metavar="REV", default=None,
                    help="compare with the engine of git revision REV (interleaved runs, medians)")
    ap.add_argument("--runs", type=int, default=3, help="runs of each side with --baseline")
    ap.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    ap.add_argument("--root", default=str(REPO), help="import the engine from this directory")
    args = ap.parse_args()
    if args.baseline:
        return compare(args)
    if args.json:
        print(json.dumps(measure(args, say=False)))
        return 0
    print("engine benchmark (times in microseconds)")
    measure(args, say=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
