"""The solver on classic tables (issue 15): jokers on the table and in the hand (C7–C9),
the opening minimum (C17), joker caps (C7), ace modes (C6), sets of distinct suits (C5),
three packs (C4), the points objective (C17 worth) and the time budget.

Every answer is checked against the rules from outside the solver: each meld valid by
``engine.melds`` and, with its jokers replaced by the faces the answer names, still a run;
the table's cards all still down and only hand cards added. Optimality is checked against
an exhaustive search written here, over every partition into valid melds.
"""

from __future__ import annotations

import importlib.util
import random
import time
from collections import Counter
from dataclasses import replace
from itertools import combinations
from pathlib import Path

import highspy
import pytest

from engine import cards as C
from engine.melds import is_run, is_set, is_valid, windows
from engine.rules import CLASSIC, CLASSIC_DUTCH, CLASSIC_ITALIAN, RuleSet
from solver import Solution, solve

JK = C.JOKER_BASE


def ids(text: str, start_joker: int = 0) -> list[int]:
    """Card ids for faces; each repeat of a face takes the next copy, jokers count up."""
    seen: Counter[tuple[int, int]] = Counter()
    out = []
    joker = start_joker
    for t in text.split():
        face = C.parse_face(t)
        if face[0] == 0:
            out.append(C.card_id(face, joker))
            joker += 1
        else:
            out.append(C.card_id(face, seen[face]))
            seen[face] += 1
    return out


def worth_of(card_face: int) -> int:
    return min(card_face % 13 + 1, 10)


def check(table: dict[int, list[int]], hand: list[int], rules: RuleSet, sol: Solution) -> None:
    """The answer is a legal table: valid melds, joker faces that fit, cards conserved."""
    named = {j: C.parse_face(f) for j, f in sol.joker_faces.items()}
    for meld in sol.melds:
        assert is_valid(meld, rules), C.names(meld)
        jokers = [c for c in meld if C.is_joker(c)]
        reals = [c for c in meld if not C.is_joker(c)]
        cap = rules.most_jokers_per_meld
        if jokers:  # C7, checked here too
            assert cap is None or len(jokers) <= cap
            assert len(reals) >= rules.fewest_real_cards
        if is_set(meld, rules):  # C5 distinct suits; C9 no face in a set
            assert len({C.suit_of(c) for c in reals}) == len(reals)
            assert not any(j in named for j in jokers)
            continue
        # A run: each joker at its face (C8) makes a run of real faces.
        assert all(j in named for j in jokers), C.names(meld)
        stand_ins = [C.card_id(named[j], 0) for j in jokers]
        assert all(C.suit_of(s) == C.suit_of(reals[0]) for s in stand_ins)
        assert is_run(reals + stand_ins, replace(rules, most_jokers_per_meld=0)), (
            C.names(meld), [sol.joker_faces[j] for j in jokers])
    down = sorted(c for m in sol.melds for c in m)
    assert down == sorted([c for cs in table.values() for c in cs] + sol.placed)
    assert set(sol.placed) <= set(hand) and len(set(sol.placed)) == len(sol.placed)
    assert len(sol.ids) == len(sol.melds) == len(set(sol.ids))


def new_worth(sol: Solution, table: dict[int, list[int]]) -> int:
    """C17 worth of the melds the answer adds (an unopened player's), from its faces."""
    total = 0
    for mid, meld in zip(sol.ids, sol.melds):
        if mid in table:
            continue
        reals = [c for c in meld if not C.is_joker(c)]
        for c in meld:
            if not C.is_joker(c):
                total += worth_of(c)
            elif c in sol.joker_faces:
                rank, suit = C.parse_face(sol.joker_faces[c])
                total += worth_of(suit * 13 + rank - 1)
            else:
                total += min(C.rank_of(reals[0]), 10)
    return total


# ---------------------------------------------------------------------------- exhaustive search


def run_worth(meld: list[int], rules: RuleSet) -> int:
    """The most C17 worth a meld can have: a set's rank times its size; a run's best window."""
    reals = [c for c in meld if not C.is_joker(c)]
    if is_set(meld, rules):
        return len(meld) * min(C.rank_of(reals[0]), 10)
    have = Counter(C.rank_of(c) for c in reals)
    best = 0
    for seq in windows(len(meld), rules.ace_mode):
        if all(Counter(seq)[r] >= n for r, n in have.items()):
            best = max(best, sum(min(r, 10) for r in seq))
    return best


def exhaustive(table_cards: list[int], hand: list[int], rules: RuleSet,
               points: bool = False, opening: int = 0) -> int:
    """The most hand cards (or, with ``points``, the most worth of the whole table) over
    every partition of the table's cards and some hand cards into valid melds; -1 when
    none. ``opening``: table empty, the melds' worth must reach it (C17)."""
    best = -1

    def value(melds: list[list[int]], placed: int) -> int:
        return sum(run_worth(m, rules) for m in melds) if points else placed

    def search(must: list[int], may: list[int], melds: list[list[int]], placed: int) -> None:
        nonlocal best
        if not must:
            if not opening or sum(run_worth(m, rules) for m in melds) >= opening:
                best = max(best, value(melds, placed))
            if not may:
                return
            first, rest = may[0], may[1:]
            search([], rest, melds, placed)  # the first card stays in the hand
            for k in range(2, len(rest) + 1):
                for others in combinations(rest, k):
                    meld = [first, *others]
                    if is_valid(meld, rules):
                        left = [c for c in rest if c not in others]
                        search([], left, melds + [meld], placed + len(meld))
            return
        first, rest = must[0], must[1:]
        pool = rest + may
        for k in range(2, len(pool) + 1):
            for others in combinations(pool, k):
                meld = [first, *others]
                if is_valid(meld, rules):
                    search([c for c in rest if c not in others],
                           [c for c in may if c not in others], melds + [meld],
                           placed + sum(1 for c in others if c in may))

    search(sorted(table_cards), sorted(hand), [], 0)
    return best


def small_position(seed: int, rules: RuleSet) -> tuple[dict[int, list[int]], list[int]]:
    """One or two table melds (a joker in one of them, often) and a few hand cards near them."""
    rng = random.Random(seed)
    suit = rng.randrange(4)
    start = rng.randint(1, 10)
    run = [C.card_id((start + i, suit), 0) for i in range(3)]
    table: dict[int, list[int]] = {1: run}
    jokers = iter(range(JK, JK + rules.jokers))
    if rules.jokers and rng.random() < 0.7:
        i = rng.randrange(3)
        table[1] = run[:i] + [next(jokers)] + run[i + 1:]
    if rng.random() < 0.5:
        rank = rng.choice([r for r in range(1, 14) if not start <= r < start + 3])
        suits = rng.sample(range(4), 3)
        table[2] = [C.card_id((rank, s), 0) for s in suits]
    hand: list[int] = []
    near = [(start + d, suit) for d in (-2, -1, 0, 1, 2, 3, 4)] + [
        (rng.randint(1, 13), rng.randrange(4)) for _ in range(3)]
    for _ in range(rng.choice([3, 4])):
        rank, s = rng.choice(near)
        if 1 <= rank <= 13:
            card = C.card_id((rank, s), 1)
            if card not in hand:
                hand.append(card)
    if rules.jokers and rng.random() < 0.6:
        hand.append(next(jokers))
    return table, hand


SMALL_RULES = [CLASSIC, CLASSIC_ITALIAN, replace(CLASSIC_DUTCH, name="t_dutch_jokers", jokers=2),
               replace(CLASSIC, name="t_min_real_3", fewest_real_cards=3)]


@pytest.mark.parametrize("rules", SMALL_RULES, ids=lambda r: r.name)
def test_small_positions_match_the_exhaustive_search(rules: RuleSet) -> None:
    for seed in range(12):
        table, hand = small_position(seed, rules)
        sol = solve(table, hand, rules, budget=10.0)
        check(table, hand, rules, sol)
        assert sol.optimal and sol.gain_optimal
        cards = [c for cs in table.values() for c in cs]
        assert len(sol.placed) == exhaustive(cards, hand, rules), (seed, C.names(hand))


def test_small_positions_most_points_match_the_exhaustive_search() -> None:
    for seed in range(10):
        table, hand = small_position(100 + seed, CLASSIC)
        table = {k: cs for k, cs in table.items() if not any(C.is_joker(c) for c in cs)}
        sol = solve(table, hand, CLASSIC, budget=10.0, objective="points")
        check(table, hand, CLASSIC, sol)
        cards = [c for cs in table.values() for c in cs]
        old = sum(run_worth(cs, CLASSIC) for cs in table.values())
        assert sol.worth == exhaustive(cards, hand, CLASSIC, points=True) - old, seed


def test_points_choose_worth() -> None:
    # The 3S goes in a run A 2 3 (worth 6) or a set of threes (worth 9): the same cards.
    hand = ids("AS 2S 3S 3H 3D")
    sol = solve({}, hand, CLASSIC, budget=5.0, objective="points")
    check({}, hand, CLASSIC, sol)
    assert sol.worth == 9 and len(sol.placed) == 3
    # A joker at either end of 5H 6H: C8's default (4H) for cards, the 7H for points.
    hand = ids("5H 6H JK")
    assert solve({}, hand, CLASSIC, budget=5.0).joker_faces == {JK: "4H"}
    sol = solve({}, hand, CLASSIC, budget=5.0, objective="points")
    assert sol.joker_faces == {JK: "7H"} and sol.worth == 18
    with pytest.raises(ValueError):
        solve({}, hand, CLASSIC, objective="most")


# ---------------------------------------------------------------------------- jokers


def test_joker_faces_are_named_in_runs_and_kept_where_they_stay() -> None:
    table = {1: ids("5H JK 7H")}
    sol = solve(table, ids("8H"), CLASSIC, budget=5.0, joker_faces={JK: "6H"})
    check(table, ids("8H"), CLASSIC, sol)
    assert sol.joker_faces == {JK: "6H"} and sol.moved == 0
    # Given as 8H (the joker at the top), adding 4H keeps it there.
    table = {1: ids("6H 7H JK")}
    sol = solve(table, ids("5H"), CLASSIC, budget=5.0, joker_faces={JK: "8H"})
    check(table, ids("5H"), CLASSIC, sol)
    assert sol.joker_faces == {JK: "8H"}
    # A face the caller gives must be a face (R1), not a joker or a stray word.
    for bad in ("JK", "7X", 52):
        with pytest.raises(ValueError):
            solve(table, ids("5H"), CLASSIC, budget=1.0, joker_faces={JK: bad})
    # A joker in a set has no face (C9).
    table = {1: ids("9C 9D JK")}
    sol = solve(table, ids("9S"), CLASSIC, budget=5.0)
    check(table, ids("9S"), CLASSIC, sol)
    assert sol.joker_faces == {} and len(sol.placed) == 1


def test_a_table_joker_is_freed_and_used_again() -> None:
    # The 6H takes the joker's place; the joker goes on to make 9C 10C JK.
    table = {1: ids("5H JK 7H")}
    hand = ids("6H 9C 10C")
    sol = solve(table, hand, CLASSIC, budget=5.0)
    check(table, hand, CLASSIC, sol)
    assert len(sol.placed) == 3


def test_joker_caps_and_real_cards() -> None:
    hand = ids("4C 5C JK JK")
    classic = solve({}, hand, CLASSIC, budget=5.0)
    check({}, hand, CLASSIC, classic)
    assert len(classic.placed) == 4  # no cap: 4C 5C JK JK
    italian = solve({}, hand, CLASSIC_ITALIAN, budget=5.0)  # one joker a meld
    check({}, hand, CLASSIC_ITALIAN, italian)
    assert len(italian.placed) == 3
    three = replace(CLASSIC, name="t_min_real_3", fewest_real_cards=3)
    sol = solve({}, ids("4C 5C 6C JK"), three, budget=5.0)
    assert len(sol.placed) == 4
    assert solve({}, hand, three, budget=5.0).placed == []  # two real cards are too few
    # Five cards with three jokers: classic only.
    hand = ids("4C 8C JK JK JK")
    assert len(solve({}, hand, CLASSIC, budget=5.0).placed) == 5
    assert len(solve({}, hand, replace(CLASSIC, name="t_cap_2", most_jokers_per_meld=2),
                     budget=5.0).placed) == 0


def test_ace_modes_with_jokers() -> None:
    hand = ids("QS KS JK")
    sol = solve({}, hand, CLASSIC, budget=5.0)  # Q K A with the joker as the ace, or J Q K
    check({}, hand, CLASSIC, sol)
    assert len(sol.placed) == 3
    dutch = replace(CLASSIC_DUTCH, name="t_dutch_jokers", jokers=2)
    hand = ids("KS AS JK")  # Q K A in classic, never K A 2 (C6); low aces only in Dutch
    assert solve({}, hand, CLASSIC, budget=5.0).joker_faces == {JK: "QS"}
    assert solve({}, hand, dutch, budget=5.0).placed == []
    assert solve({}, ids("AS 2S JK"), dutch, budget=5.0).joker_faces == {JK: "3S"}
    # A..K..A, 14 cards, with a joker for the 7: classic only (C6).
    long = ids("AS 2S 3S 4S 5S 6S JK 8S 9S 10S JS QS KS AS")
    sol = solve({}, long, CLASSIC, budget=5.0)
    check({}, long, CLASSIC, sol)
    assert len(sol.placed) == 14


def test_three_packs_and_sets_of_distinct_suits() -> None:
    three = replace(CLASSIC, name="t_three_packs", packs=3, jokers=6)
    hand = ids("7H 7H 7H 7S 7D")  # three 7H: a set never holds two of one suit (C5)
    sol = solve({}, hand, three, budget=5.0)
    check({}, hand, three, sol)
    assert len(sol.placed) == 3
    hand = ids("5H 6H 7H 5H 6H 7H 5H 6H 7H")  # three runs 5-6-7 of hearts
    sol = solve({}, hand, three, budget=5.0)
    check({}, hand, three, sol)
    assert len(sol.placed) == 9


# ---------------------------------------------------------------------------- opening (C17)


OPEN30 = replace(CLASSIC, name="t_opening_30", opening=30)


def test_an_unopened_hand_only_lays_melds_worth_the_minimum() -> None:
    table = {1: ids("5H 6H 7H"), 4: ids("9C 9D 9S")}
    hand = ids("8H 9H 2C 3C 4C KS KH KD")
    opened = solve(table, hand, OPEN30, budget=5.0, next_meld_id=7)
    assert len(opened.placed) == 8  # 8H 9H on the run too
    sol = solve(table, hand, OPEN30, budget=5.0, next_meld_id=7, opened=False)
    check(table, hand, OPEN30, sol)
    for mid, cs in table.items():  # the table untouched: same ids, same cards
        assert sol.table()[mid] == cs
    assert sol.moved == 0 and all(step[0] in ("stage", "lay") for step in sol.plan)
    assert new_worth(sol, table) >= 30 and sol.worth == new_worth(sol, table)
    assert C.names(sorted(sol.placed)) == C.names(sorted(ids("2C 3C 4C KS KH KD")))
    assert min(i for i in sol.ids if i not in table) == 7


def test_an_unopened_hand_draws_when_nothing_reaches_the_minimum() -> None:
    hand = ids("2C 3C 4C 5D 6D 7D")  # 9 + 18 = 27 < 30
    sol = solve({1: ids("8D 9D 10D")}, hand, OPEN30, budget=5.0, opened=False)
    assert sol.draw and sol.placed == [] and sol.plan == [] and sol.optimal
    # A joker counts the card it stands for: AC 2C 3C (6) and 5D 6D 7D (18) with the joker
    # as 4D make 28, as 8D 32: the answer names the face that opens.
    hand = ids("AC 2C 3C 5D 6D 7D JK")
    sol = solve({}, hand, OPEN30, budget=5.0, opened=False)
    check({}, hand, OPEN30, sol)
    assert not sol.draw and sol.joker_faces == {JK: "8D"} and new_worth(sol, {}) == 32


def test_opening_matches_the_exhaustive_search() -> None:
    rng = random.Random(7)
    rules = replace(CLASSIC, name="t_opening_25", opening=25)
    for _ in range(12):
        faces = rng.sample([(r, s) for r in range(1, 14) for s in range(4)], 6)
        hand = [C.card_id(f, 0) for f in faces] + ([JK] if rng.random() < 0.5 else [])
        sol = solve({}, hand, rules, budget=10.0, opened=False)
        check({}, hand, rules, sol)
        best = exhaustive([], hand, rules, opening=25)
        assert len(sol.placed) == max(best, 0), C.names(hand)
        if sol.placed:
            assert new_worth(sol, {}) >= 25


# ---------------------------------------------------------------------------- the budget


def big_position(seed: int) -> tuple[dict[int, list[int]], list[int]]:
    """About 25 table melds from two packs, two jokers in them, twenty cards in hand."""
    rng = random.Random(seed)
    left = {c for c in range(104)}
    table: dict[int, list[int]] = {}
    for _ in range(400):
        if len(table) == 25:
            break
        if rng.random() < 0.4:
            rank = rng.randint(1, 13)
            meld = [c for c in (C.card_id((rank, s), k) for s in rng.sample(range(4), 3)
                                for k in (0, 1)) if c in left][:3]
            if len({C.suit_of(c) for c in meld}) < 3:
                continue
        else:
            suit, start, n = rng.randrange(4), rng.randint(1, 9), rng.choice([3, 4, 5])
            meld = []
            for r in range(start, start + n):
                free = [c for c in (C.card_id((r, suit), k) for k in (0, 1)) if c in left]
                if not free:
                    break
                meld.append(free[0])
            if len(meld) < n:
                continue
        left -= set(meld)
        table[len(table) + 1] = meld
    for j, mid in enumerate((1, 2)):  # a joker in place of each meld's second card
        left.add(table[mid][1])
        table[mid] = table[mid][:1] + [JK + j] + table[mid][2:]
    rest = sorted(left)
    rng.shuffle(rest)
    return table, rest[:18] + [JK + 2, JK + 3]


# Positions of bench/solver.py (--rules classic, seed 1) whose relaxation is fractional:
# the solver dives, many linear programs in a row.
HARD_BENCH_SEEDS = [1_000_005, 1_000_011, 1_000_025]


def bench_position(seed: int, rules: RuleSet = CLASSIC, on_table: int = 2
                   ) -> tuple[dict[int, list[int]], list[int]]:
    """A position of ``bench/solver.py``'s generator: jokers on the table, two in hand."""
    path = Path(__file__).resolve().parents[1] / "bench" / "solver.py"
    spec = importlib.util.spec_from_file_location("bench_solver", path)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    table, hand, _ = bench.position(seed, rules, 2, on_table)
    return dict(enumerate(table, start=1)), hand


@pytest.mark.parametrize("rules, on_table", [
    (CLASSIC, 2), (CLASSIC_ITALIAN, 2), (replace(CLASSIC, name="t_three_packs", packs=3, jokers=6), 4),
], ids=["classic", "italian", "three_packs"])
def test_bench_positions_get_legal_answers(rules: RuleSet, on_table: int) -> None:
    """Big positions within 0.1 s: whatever phase the budget stops in, the answer is legal
    and puts down at least what the move-free baseline does."""
    for seed in range(6):
        table, hand = bench_position(2_000_000 + seed, rules, on_table)
        sol = solve(table, hand, rules, budget=0.1)
        check(table, hand, rules, sol)
        assert len(sol.placed) >= len(solve(table, hand, rules, budget=0.0).placed)


class SlowHighs(highspy.Highs):  # type: ignore[misc]
    """HiGHS that takes 0.1 s longer over every solve: a big position on a busy machine."""

    def run(self) -> object:
        time.sleep(0.1)
        return super().run()


def slow_highs() -> highspy.Highs:
    h = SlowHighs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 1)
    return h


@pytest.mark.parametrize("budget", [0.0, 0.1, 0.3])
def test_the_budget_is_kept_on_a_big_position(budget: float,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """The call returns within the budget and a margin, with the best plan found, even
    when each HiGHS solve is slow (diving solves many linear programs in a row)."""
    import solver.highs
    import solver.model
    import solver.realize

    for module in (solver.highs, solver.model, solver.realize):
        monkeypatch.setattr(module, "_new_highs", slow_highs)
    worst = 0.0
    positions = [big_position(seed) for seed in range(2)] + [
        bench_position(seed) for seed in HARD_BENCH_SEEDS]
    for table, hand in positions:
        t = time.perf_counter()
        sol = solve(table, hand, CLASSIC, budget=budget)
        worst = max(worst, time.perf_counter() - t)
        check(table, hand, CLASSIC, sol)
    assert worst <= 3 * budget + 0.5, worst
