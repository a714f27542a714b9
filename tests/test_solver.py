"""The solver (issue 7): best rearrangement, plans the engine accepts, time budget.

Positions are written in faces; :func:`position` deals them through
``Hand.from_position`` so the card ids are the engine's own, and every plan is
checked by playing it on that hand.
"""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations, permutations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import cards as C
from engine.hand import Hand
from engine.melds import is_valid
from engine.rules import (
    CLASSIC,
    CLASSIC_DUTCH,
    CLASSIC_ITALIAN,
    MACHIAVELOX,
    RULE_SETS,
    RuleSet,
)
from solver import Clock, Solution, melds_from_hand, plan_commands, solve, templates

PLAYERS = ["A", "B", "C"]


def position(table: list[str], hand: str, rules: RuleSet = MACHIAVELOX) -> Hand:
    """A hand with ``table`` (one string of faces per meld) and A holding ``hand``."""
    return Hand.from_position(PLAYERS, table=[m.split() for m in table],
                              hands={"A": hand.split()}, rules=rules)


def solve_on(h: Hand, **kw: object) -> Solution:
    return solve(h.table(), h.hands["A"], h.rules, next_meld_id=h.next_meld, **kw)  # type: ignore[arg-type]


def faces(cards: list[int]) -> list[str]:
    return sorted(C.names(cards))


def table_faces(melds: dict[int, list[int]]) -> dict[int, list[str]]:
    return {m: faces(cs) for m, cs in melds.items()}


def check_solution(h: Hand, sol: Solution) -> None:
    """Valid melds, every table card still down, placed cards from the hand, moved right."""
    rules = h.rules
    table = h.table()
    hand = h.hands["A"]
    for meld in sol.melds:
        assert is_valid(meld, rules), C.names(meld)
        if rules.longest_run is not None:
            assert len(meld) <= rules.longest_run
    down = sorted(c for m in sol.melds for c in m)
    assert down == sorted([c for cs in table.values() for c in cs] + sol.placed)
    assert set(sol.placed) <= set(hand) and len(set(sol.placed)) == len(sol.placed)
    assert len(sol.ids) == len(sol.melds) == len(set(sol.ids))
    origin = {c: m for m, cs in table.items() for c in cs}
    moved = sum(1 for m, cs in zip(sol.ids, sol.melds) for c in cs if c in origin and origin[c] != m)
    assert moved == sol.moved
    assert sum(1 for s in sol.plan if s[0] == "move") == sol.moved


def play_plan(h: Hand, sol: Solution) -> None:
    """Carry the plan out on the engine: every command accepted, every play
    confirmed, and the table afterwards is the solution's, meld by meld."""
    now = 0.0
    for cmd in plan_commands(sol.plan, "A"):
        now += 0.25
        h.apply(cmd, now)
    ended = [e.as_dict() for e in h.drain_events() if e.kind == "play_ended"]
    assert all(e["outcome"] == "confirmed" and not e["fell"] for e in ended), ended
    assert table_faces(h.table()) == table_faces(sol.table())
    assert h.staging["A"] == []


def add_only_baseline(table: dict[int, list[int]], hand: list[int], rules: RuleSet) -> int:
    """Cards the greedy add-only baseline puts down: each hand card onto any meld it fits."""
    melds = [list(cs) for cs in table.values()]
    rest = list(hand)
    placed = 0
    changed = True
    while changed:
        changed = False
        for c in list(rest):
            for m in melds:
                if (rules.longest_run is None or len(m) < rules.longest_run) and is_valid(m + [c], rules):
                    m.append(c)
                    rest.remove(c)
                    placed += 1
                    changed = True
                    break
    return placed


# ---------------------------------------------------------------------------- hand-built positions


def test_extend_a_run_moves_nothing() -> None:
    h = position(["4C 5C 6C"], "7C 8C")
    sol = solve_on(h)
    check_solution(h, sol)
    assert faces(sol.placed) == ["7C", "8C"]
    assert sol.moved == 0 and sol.optimal
    assert [s[0] for s in sol.plan] == ["add", "add"]
    assert C.name(sol.plan[0][1]) == "7C"  # each add keeps the meld valid
    play_plan(h, sol)


def test_rearrangement_moves_one_card_to_a_set() -> None:
    h = position(["5H 6H 7H 8H"], "5S 5D")
    sol = solve_on(h)
    check_solution(h, sol)
    assert faces(sol.placed) == ["5D", "5S"]
    assert sol.moved == 1 and sol.optimal
    assert table_faces(sol.table()) == {1: ["6H", "7H", "8H"], 2: ["5D", "5H", "5S"]}
    kinds = [s[0] for s in sol.plan]
    assert kinds == ["stage", "stage", "move", "place", "place"]
    assert sol.plan[2][2:] == (1, "new")
    play_plan(h, sol)


def test_nothing_fits() -> None:
    h = position(["4C 5C 6C", "9D 9S 9H"], "KD 2S JH")
    sol = solve_on(h)
    check_solution(h, sol)
    assert sol.placed == [] and sol.moved == 0 and sol.plan == [] and sol.optimal
    assert table_faces(sol.table()) == table_faces(h.table())


def test_empty_hand_and_empty_table() -> None:
    sol = solve([], [], MACHIAVELOX)
    assert sol.melds == [] and sol.placed == [] and sol.optimal and sol.plan == []
    h = position(["4C 5C 6C"], "")
    sol = solve_on(h)
    assert sol.placed == [] and sol.optimal


def test_hand_only_meld_is_laid() -> None:
    h = position([], "3S 4S 5S 9D")
    sol = solve_on(h)
    check_solution(h, sol)
    assert faces(sol.placed) == ["3S", "4S", "5S"]
    assert [s[0] for s in sol.plan] == ["stage", "stage", "stage", "lay"]
    assert sol.ids == [1]
    play_plan(h, sol)


def test_chain_of_moves_through_sets_and_runs() -> None:
    # 7H can only go down if 6H leaves the set of sixes and the sixes stay three.
    h = position(["6H 6S 6D", "4H 5H 6H", "6C 7C 8C"], "7H 8H 6C")
    sol = solve_on(h)
    check_solution(h, sol)
    assert len(sol.placed) == 3 and sol.optimal
    play_plan(h, sol)


def test_dict_table_and_next_meld_id() -> None:
    h = position(["5H 6H 7H 8H", "KC KD KS"], "5S 5D 2C 3C 4C")
    table = {10: h.table()[1], 30: h.table()[2]}
    sol = solve(table, h.hands["A"], MACHIAVELOX, next_meld_id=41)
    assert len(sol.placed) == 5
    assert sorted(sol.ids) == [10, 30, 41, 42]
    assert sol.moved == 1
    steps = [s for s in sol.plan if s[0] == "move"]
    assert steps[0][2:] == (10, "new")


def test_most_cards_before_fewest_moves() -> None:
    # Adding 9H alone needs no move; putting down 5S 5D as well needs one.
    h = position(["5H 6H 7H 8H"], "9H 5S 5D")
    sol = solve_on(h)
    check_solution(h, sol)
    assert len(sol.placed) == 3 and sol.moved == 1
    play_plan(h, sol)


def test_identity_kept_by_one_card() -> None:
    # The set of sixes breaks up; 6H stays in meld 1 (one move saved), the others move.
    h = position(["6H 6S 6C", "7S 8S 9S", "7C 8C 9C"], "4H 5H 7H 8H")
    sol = solve_on(h)
    check_solution(h, sol)
    assert len(sol.placed) == 4 and sol.moved == 2 and sol.optimal
    assert faces(sol.table()[1]) == ["4H", "5H", "6H", "7H", "8H"]
    play_plan(h, sol)


def test_melds_from_hand() -> None:
    h = position([], "3S 4S 5S 6S 9D 9C 9H 9S KH")
    melds = melds_from_hand(h.hands["A"], MACHIAVELOX)
    assert sum(len(m) for m in melds) == 8
    assert all(is_valid(m, MACHIAVELOX) for m in melds)
    assert melds_from_hand(position([], "2C 7D KH").hands["A"], MACHIAVELOX) == []


# ---------------------------------------------------------------------------- ace modes, jokers


@pytest.mark.parametrize("rules, expect", [
    (MACHIAVELOX, ["2S", "AS"]),  # wrap: J Q K A 2
    (CLASSIC, ["AS"]),  # low or high: J Q K A, no wrap
    (CLASSIC_DUTCH, []),  # low only
])
def test_ace_modes(rules: RuleSet, expect: list[str]) -> None:
    h = position(["JS QS KS"], "AS 2S", rules)
    sol = solve_on(h)
    check_solution(h, sol)
    assert faces(sol.placed) == expect
    play_plan(h, sol)


def test_ace_high_and_low_in_one_suit() -> None:
    h = position(["AH 2H 3H"], "QH KH AH", CLASSIC)
    sol = solve_on(h)
    check_solution(h, sol)
    assert len(sol.placed) == 3 and sol.moved == 0
    play_plan(h, sol)


def test_long_runs_without_a_limit() -> None:
    # Classic has no auto-split: A..K..A is one run of 14.
    h = position(["AH 2H 3H 4H 5H 6H 7H", "8H 9H 10H JH QH KH"], "AH", CLASSIC_DUTCH)
    sol = solve_on(h)
    assert sol.placed == []  # low only: the ace cannot follow the king
    h = position(["AH 2H 3H 4H 5H 6H 7H", "8H 9H 10H JH QH KH"], "AH", CLASSIC)
    sol = solve_on(h)
    check_solution(h, sol)
    assert faces(sol.placed) == ["AH"] and sol.moved == 0


def test_machiavelox_runs_stay_within_the_limit() -> None:
    # 3..10 spades plus J Q K A would be 12 cards: the solver splits instead of
    # leaving it to the engine's auto-split.
    h = position(["3S 4S 5S 6S 7S 8S 9S 10S"], "JS QS KS AS")
    sol = solve_on(h)
    check_solution(h, sol)
    assert len(sol.placed) == 4 and all(len(m) <= 10 for m in sol.melds)
    play_plan(h, sol)


def test_joker_fills_a_gap() -> None:
    h = position(["5H 6H 7H"], "JK 9H", CLASSIC)
    sol = solve_on(h)
    check_solution(h, sol)
    assert faces(sol.placed) == ["9H", "JK"] and sol.moved == 0
    play_plan(h, sol)


def test_joker_limits() -> None:
    two = position([], "JK JK 4C", CLASSIC)  # two real cards at least per meld
    assert solve_on(two).placed == []
    italian = position([], "JK JK 4C 5C", CLASSIC_ITALIAN)  # one joker per meld
    sol = solve_on(italian)
    check_solution(italian, sol)
    assert faces(sol.placed) == ["4C", "5C", "JK"]
    classic = position([], "JK JK 4C 5C", CLASSIC)
    assert len(solve_on(classic).placed) == 4


def test_table_joker_stays_and_sets_take_jokers() -> None:
    h = position(["5H JK 7H", "9C 9D 9S"], "8H JK KC KD", CLASSIC)
    sol = solve_on(h)
    check_solution(h, sol)
    assert len(sol.placed) == 4
    play_plan(h, sol)


@pytest.mark.parametrize("name", sorted(RULE_SETS))
def test_every_template_is_a_valid_meld(name: str) -> None:
    rules = RULE_SETS[name]
    ids = iter(range(C.JOKER_BASE, C.JOKER_BASE + 8))
    for face_list, fixed, slots in templates(rules):
        seen: Counter[int] = Counter()
        cards = []
        for f in face_list:
            cards.append(f + 52 * seen[f])
            seen[f] += 1
        jokers = [next(ids) for _ in range(fixed)]
        ids = iter(range(C.JOKER_BASE, C.JOKER_BASE + 8))
        assert is_valid(cards + jokers, rules), (C.names(cards), fixed)
        if slots:  # jokers may stand for the first `slots` faces
            assert is_valid(cards[slots:] + list(range(C.JOKER_BASE, C.JOKER_BASE + slots)), rules)


# ---------------------------------------------------------------------------- the budget


def flipping_clock(calls: int) -> Clock:
    """A clock that reads 0 for ``calls`` reads, then a time far past any budget."""
    state = {"n": 0}

    def clock() -> float:
        state["n"] += 1
        return 0.0 if state["n"] <= calls else 1e9

    return clock


def test_budget_gone_at_once_gives_the_baseline() -> None:
    h = position(["5H 6H 7H 8H", "4C 5C 6C"], "5S 5D 7C")
    sol = solve_on(h, clock=flipping_clock(1))
    check_solution(h, sol)
    assert not sol.optimal
    assert faces(sol.placed) == ["7C"] and sol.moved == 0  # adds only: nothing moved
    play_plan(h, sol)


def test_budget_running_out_midway_still_answers() -> None:
    h = position(["5H 6H 7H 8H", "4C 5C 6C", "9D 10D JD", "KS KH KC"],
                 "5S 5D 7C 8D 9H KD 2C 3C")
    full = solve_on(h)
    assert full.optimal
    results = []
    for calls in range(1, 14):
        fresh = position(["5H 6H 7H 8H", "4C 5C 6C", "9D 10D JD", "KS KH KC"],
                         "5S 5D 7C 8D 9H KD 2C 3C")
        sol = solve_on(fresh, clock=flipping_clock(calls))
        check_solution(fresh, sol)
        play_plan(fresh, sol)
        results.append(sol)
        assert len(sol.placed) <= len(full.placed)
        if sol.optimal:
            assert (len(sol.placed), sol.moved) == (len(full.placed), full.moved)
    assert not results[0].optimal and results[-1].optimal


def test_zero_budget_real_clock() -> None:
    h = position(["5H 6H 7H 8H"], "5S 5D 9H")
    sol = solve_on(h, budget=0.0)
    check_solution(h, sol)
    assert not sol.optimal and faces(sol.placed) == ["9H"]


# ---------------------------------------------------------------------------- random positions


def random_position(seed: int, melds: int, hand: int, rules: RuleSet = MACHIAVELOX) -> Hand:
    """Random valid melds from two packs, then hand cards mostly near them."""
    rng = random.Random(seed)
    left: Counter[str] = Counter({C.name(c): 2 for c in range(52)})
    table: list[str] = []
    suits, ranks = "SHDC", ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
    for _ in range(melds * 5):
        if len(table) == melds:
            break
        if rng.random() < 0.4:
            r = rng.choice(ranks)
            fs = [r + s for s in rng.sample(suits, rng.choice([3, 4]))]
        else:
            s = rng.choice(suits)
            start, n = rng.randrange(13), rng.choice([3, 3, 4, 5])
            fs = [ranks[(start + i) % 13] + s for i in range(n)]
        ids = [C.card_id(C.parse_face(f), 0) for f in fs]
        if all(left[f] for f in fs) and is_valid(ids, rules):
            left.subtract(fs)
            table.append(" ".join(fs))
    on_table = [C.parse_face(f) for m in table for f in m.split()]

    def same_rank(f: str) -> bool:
        return any(C.parse_face(f)[0] == r for r, _ in on_table)

    def next_to(f: str) -> bool:  # same suit, one or two ranks away
        r, s = C.parse_face(f)
        return any(s == s2 and min((r - r2) % 13, (r2 - r) % 13) in (1, 2) for r2, s2 in on_table)

    pool = list(left.elements())
    kinds = [[f for f in pool if same_rank(f)] or pool, [f for f in pool if next_to(f)] or pool,
             pool]
    cards: list[str] = []
    for _ in range(hand):
        f = rng.choice(rng.choices(kinds, weights=[5, 4, 1])[0])
        if left[f] > 0:
            left[f] -= 1
            cards.append(f)
    return position(table, " ".join(cards), rules)


def brute_force(h: Hand) -> tuple[int, int]:
    """(most hand cards down, fewest moved) by trying every partition: tiny positions."""
    rules = h.rules
    table = h.table()
    table_cards = [c for cs in table.values() for c in cs]
    hand = h.hands["A"]

    def partitions(cards: list[int]):  # type: ignore[no-untyped-def]
        if not cards:
            yield []
            return
        first, rest = cards[0], cards[1:]
        for k in range(2, len(rest) + 1):
            for others in combinations(rest, k):
                meld = [first, *others]
                if rules.longest_run is not None and len(meld) > rules.longest_run:
                    continue
                if not is_valid(meld, rules):
                    continue
                remaining = [c for c in rest if c not in others]
                for p in partitions(remaining):
                    yield [meld] + p

    def kept(part: list[list[int]]) -> int:
        olds = list(table.values())
        best = 0
        slots = list(range(len(part))) + [-1] * len(olds)
        for assign in set(permutations(slots, len(olds))):
            best = max(best, sum(len(set(part[a]) & set(o)) for a, o in zip(assign, olds) if a >= 0))
        return best

    for r in range(len(hand), -1, -1):
        found = None
        for sub in set(combinations(sorted(hand), r)):
            for part in partitions(sorted(table_cards + list(sub))):
                k = kept(part)
                found = k if found is None else max(found, k)
        if found is not None:
            return r, len(table_cards) - found
    raise AssertionError("the table itself cannot be arranged")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**9), st.sampled_from([MACHIAVELOX, CLASSIC, CLASSIC_DUTCH]))
def test_tiny_positions_match_brute_force(seed: int, rules: RuleSet) -> None:
    h = random_position(seed, melds=random.Random(seed).choice([1, 2, 2, 3]), hand=4, rules=rules)
    if sum(len(cs) for cs in h.table().values()) > 10:
        return
    sol = solve_on(h, budget=10.0)
    check_solution(h, sol)
    assert sol.optimal
    assert (len(sol.placed), sol.moved) == brute_force(h)
    play_plan(h, sol)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**9), st.integers(2, 14), st.integers(1, 12))
def test_random_positions_are_legal_and_beat_adding(seed: int, melds: int, hand: int) -> None:
    h = random_position(seed, melds, hand)
    sol = solve_on(h, budget=10.0)
    check_solution(h, sol)
    assert len(sol.placed) >= add_only_baseline(h.table(), h.hands["A"], h.rules)
    play_plan(h, sol)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**9), st.sampled_from([CLASSIC, CLASSIC_ITALIAN]))
def test_random_positions_with_jokers(seed: int, rules: RuleSet) -> None:
    h = random_position(seed, 4, 5, rules)
    jokers = [c for c in C.full_deck(2, rules.jokers) if C.is_joker(c)]
    table = h.table()
    hand = h.hands["A"] + jokers[:2]
    sol = solve(table, hand, rules, budget=10.0)
    for meld in sol.melds:
        assert is_valid(meld, rules)
    assert sorted(c for m in sol.melds for c in m) == sorted(
        [c for cs in table.values() for c in cs] + sol.placed)
    assert len(sol.placed) >= add_only_baseline(table, hand, rules)


# ---------------------------------------------------------------------------- runs from flows


def test_flow_runs_in_a_line_and_around_the_circle() -> None:
    from solver.flow import _flow_runs

    # A line: one run 2..6 (positions 1..5) and one 4..6 (3..5).
    runs = _flow_runs(13, False, {1: 1, 3: 1}, {3: 1, 4: 1, 5: 2}, {5: 2})
    assert sorted(runs) == [[1, 2, 3, 4, 5], [3, 4, 5]]
    # Every position crossed: a ring of all 13 ranks.
    ring = _flow_runs(13, True, {}, {q: 1 for q in range(13)}, {})
    assert len(ring) == 1 and sorted(ring[0]) == list(range(13))
    # A run of 15 that starts at the ace and goes round to the 2.
    a3 = {q: 1 for q in range(13)}
    long = _flow_runs(13, True, {0: 1}, a3, {1: 1})
    assert long == [[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 0, 1]]
    # Two runs crossing the king-ace edge: Q K A 2 and K A 2 3.
    two = _flow_runs(13, True, {11: 1, 12: 1}, {0: 1, 1: 2, 2: 1}, {1: 1, 2: 1})
    assert sorted(two) == [[11, 12, 0, 1], [12, 0, 1, 2]]


@pytest.mark.parametrize("seed", [0, 2, 6, 11, 17, 24])
def test_flow_model_agrees_with_the_full_template_model(
        seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The fast model (runs as flows, inheriting runs at most four cards beyond
    the old meld) finds the same optimum as one variable per template with every
    overlap allowed."""
    import solver.core as S
    import solver.model as M

    h = random_position(seed, melds=12, hand=9)
    fast = solve_on(h, budget=30.0)
    assert fast.optimal
    original = S._problem

    def every_overlap(*args: object, **kw: object) -> M._Problem:
        p = original(*args, **kw)  # type: ignore[arg-type]
        weights, _ = M._match_arrays(p)
        p.matchable = weights >= 1
        return p

    monkeypatch.setattr(S, "_flow_ok", lambda rules: False)
    monkeypatch.setattr(S, "_problem", every_overlap)
    full = solve_on(h, budget=60.0)
    assert full.optimal
    assert (len(fast.placed), fast.moved) == (len(full.placed), full.moved)


def test_a_table_that_is_not_valid_is_mended_when_it_can_be() -> None:
    # A two-card "meld" (as if a play were half done): the 7H completes it.
    h = position(["5H 6H", "9C 9D 9S"], "7H")
    sol = solve_on(h)
    check_solution(h, sol)
    assert faces(sol.placed) == ["7H"] and sol.moved == 0
    play_plan(h, sol)
    # Nothing can mend it: the table is left as it is.
    h = position(["5H 6H"], "KC")
    sol = solve_on(h)
    assert sol.placed == [] and sol.plan == [] and table_faces(sol.table()) == table_faces(h.table())


def test_a_run_left_longer_than_the_limit_is_split() -> None:
    # 12 hearts on the table (a card on trial kept it whole): the answer keeps
    # every run within rules.longest_run.
    h = position(["AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH"], "KH")
    sol = solve_on(h)
    check_solution(h, sol)
    assert faces(sol.placed) == ["KH"]
    assert all(len(m) <= 10 for m in sol.melds)
    play_plan(h, sol)
