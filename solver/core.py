"""The solver: the solver (see ``solver/__init__.py``)."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from engine import cards as C
from engine.rules import RuleSet

from .base import Clock, Solution, TableIn
from .faces import meld_faces, meld_worth, read_face
from .flow import _build_flow, _copies_flow, _flow_ok, _FlowCols
from .greedy import _Arr, _better, _greedy, _normalize, _score
from .highs import _solve_ip
from .model import _Copy, _Model, _Problem, _problem
from .plans import _plan
from .realize import _greedy_match, _realize, _rematch
from .templates import _catalogue
from .tplmodel import _build_tpl, _copies_tpl, _TplCols

OBJECTIVES = ("cards", "points")


def _faces_of(arr: _Arr, origin: dict[int, int], old: Mapping[int, int], rules: RuleSet,
              most_worth: bool) -> dict[int, int]:
    """joker id → face for every joker in a run of ``arr``; a joker left in its own
    meld keeps its old face where it can."""
    out: dict[int, int] = {}
    for cards, mid in arr:
        keep = {c: old[c] for c in cards if c in old and origin.get(c) == mid}
        out.update(meld_faces(cards, rules, keep, most_worth))
    return out


def _first_columns(p: _Problem, model: _Model, cols: _FlowCols | _TplCols) -> list[bool] | None:
    """Phase 1's relaxation by column generation from all columns but the joker runs
    with two jokers or more (many, and seldom in the optimum); None: all at once."""
    if not isinstance(cols, _FlowCols) or not p.with_jokers:
        return None
    cat = _catalogue(p.rules)
    first = np.ones(len(model.cost), dtype=np.bool_)
    where = np.array(list(cols.sets.items()), dtype=np.int64).reshape(-1, 2)
    t = p.sel[where[:, 0]]
    first[where[cat.pattern[t] & (cat.jokers[t] > 1), 1]] = False
    return first.tolist()


def _finish(arr: _Arr | None, table: dict[int, list[int]], origin: dict[int, int],
            next_id: int, rules: RuleSet, optimal: bool, gain_optimal: bool,
            old: Mapping[int, int], points: bool) -> Solution:
    old_worth = sum(meld_worth(cs, old) for cs in table.values())
    if arr is None:  # the table cannot be arranged at all: leave it
        return Solution([list(cs) for cs in table.values()], [], 0, optimal, [], list(table),
                        {j: C.name(f) for j, f in old.items()}, 0, gain_optimal)
    _, moved = _score(arr, origin)
    plan, ids = _plan(arr, origin, next_id, rules)
    faces = _faces_of(arr, origin, old, rules, points)
    return Solution(
        melds=[list(cs) for cs, _ in arr],
        placed=[c for cs, _ in arr for c in cs if c not in origin],
        moved=moved, optimal=optimal, plan=plan, ids=ids,
        joker_faces={j: C.name(f) for j, f in faces.items()},
        worth=sum(meld_worth(cs, faces) for cs, _ in arr) - old_worth,
        gain_optimal=gain_optimal,
    )


def solve(
    table: TableIn,
    hand: Sequence[int],
    rules: RuleSet,
    budget: float = 0.1,
    clock: Clock = time.perf_counter,
    next_meld_id: int | None = None,
    *,
    opened: bool = True,
    objective: str = "cards",
    joker_faces: Mapping[int, str | int] | None = None,
) -> Solution:
    """The legal rearrangement of ``table`` with cards of ``hand`` that puts down the
    most hand cards (``objective="points"``: the most worth, C17), then moves the
    fewest table cards (see the module documentation).

    ``table``: a list of melds (ids 1..n) or a dict id → cards; cards are physical
    ids. ``budget``: seconds by ``clock``, model building included. ``next_meld_id``:
    the id the engine will give the next new meld (default: the largest id + 1).
    ``opened``: False for a player who has not yet opened (C17): when
    ``rules.opening`` > 0 only new melds of hand cards worth that much in all are
    laid and the table is not touched; when none reaches it the answer is a draw
    (nothing placed). ``joker_faces``: the faces the table's jokers stand for now
    (joker id → ``"7H"`` or 0..51; default: C8's, each run as low as it can start).
    Raises ``ValueError`` for an unknown objective or a bad face.
    """
    if objective not in OBJECTIVES:
        raise ValueError(f"unknown objective {objective!r}: one of {OBJECTIVES}")
    t0 = clock()

    def left() -> float:
        return budget - (clock() - t0)

    tab = _normalize(table)
    next_id = next_meld_id if next_meld_id is not None else max(tab, default=0) + 1
    points = objective == "points"
    old = {int(j): read_face(f) for j, f in (joker_faces or {}).items()}
    for cs in tab.values():
        for j, f in meld_faces(cs, rules).items():
            old.setdefault(j, f)
    opening = getattr(rules, "opening", 0)
    if opening <= 0 or opened:
        return _solve(tab, list(hand), rules, left, budget, next_id, points, 0, old)
    # C17: an unopened player lays melds of hand cards only, worth `opening` in all.
    sub = _solve({}, list(hand), rules, left, budget, next_id, points, opening, {})
    return Solution(
        melds=[list(cs) for cs in tab.values()] + sub.melds, placed=sub.placed, moved=0,
        optimal=sub.optimal, plan=sub.plan, ids=list(tab) + sub.ids,
        joker_faces={**{j: C.name(f) for j, f in old.items()}, **sub.joker_faces},
        worth=sub.worth, gain_optimal=sub.gain_optimal,
    )


def _solve(tab: dict[int, list[int]], cards_in_hand: list[int], rules: RuleSet,
           left: Callable[[], float], budget: float, next_id: int, points: bool, opening: int,
           old: dict[int, int]) -> Solution:
    origin = {c: mid for mid, cs in tab.items() for c in cs}

    def score(arr: _Arr) -> tuple[int, int]:
        """(the objective's gain over the whole table, table cards moved)."""
        placed, moved = _score(arr, origin)
        if not points:
            return len(origin) + placed, moved
        faces = _faces_of(arr, origin, old, rules, True)
        return sum(meld_worth(cs, faces) for cs, _ in arr), moved

    def worth(arr: _Arr) -> int:
        faces = _faces_of(arr, origin, old, rules, True)
        return sum(meld_worth(cs, faces) for cs, _ in arr)

    best = _greedy(tab, cards_in_hand, rules)
    if best is not None and opening and worth(best) < opening:
        best = None  # the move-free melds do not open: no answer known yet
    best_score = score(best) if best is not None else (-1, 0)

    def done(optimal: bool, gain_optimal: bool | None = None) -> Solution:
        # Faces worth most for the points, and for the opening (the worth that was
        # counted is then the worth of the faces the answer names, C8, C17).
        return _finish(best, tab, origin, next_id, rules, optimal,
                       optimal if gain_optimal is None else gain_optimal, old,
                       points or opening > 0)

    if not cards_in_hand and (best is not None or opening):
        return done(True)
    if left() <= 0:
        return done(False)
    flow = _flow_ok(rules)
    p = _problem(tab, cards_in_hand, rules, fixed=flow)
    p.points, p.opening = points, opening
    if p.with_jokers:
        # Keep back what placing the cards and planning take after the last check
        # (a few ms) so that the call ends within its budget.
        reserve = min(0.12 * budget, 0.012)
        given = left

        def left() -> float:
            return given() - reserve

    def consider(copies: list[_Copy], matched: bool) -> None:
        """Keep these melds if better; ``matched``: their old ids are an optimal
        matching already (phase 2's own); otherwise a matching is made."""
        nonlocal best, best_score
        if not matched and p.mids:
            # With jokers (phase 2 is often out of reach) the best matching of these
            # melds to the old ids; otherwise a greedy one (phase 2 follows).
            copies = _rematch(p, copies) if p.with_jokers else _greedy_match(p, copies)
        arr = _realize(p, copies)
        if arr is not None and (not opening or worth(arr) >= opening):
            s = score(arr)
            if best is None or _better(s, best_score):
                best, best_score = arr, s

    # Phase 1: the most cards (or worth) down.
    model1, cols1 = _build_flow(p, None) if flow else _build_tpl(p, None)
    if left() <= 0:
        return done(False)
    r1 = _solve_ip(model1, best_score[0] if best is not None else -1, left,
                   first=_first_columns(p, model1, cols1), dive=p.with_jokers)
    # Infeasible, or nothing better than what is known: with an opening minimum and
    # nothing known, no play reaches it (a draw, proved).
    if r1.status == "infeasible":
        return done(best is not None or opening > 0)
    if r1.values is None:
        # Optimal: nothing puts down more than the move-free baseline (or stopped).
        return done(r1.status == "optimal" and (best is not None or opening > 0))
    most = round(r1.objective)
    consider(_copies_flow(p, cols1, r1.values) if isinstance(cols1, _FlowCols)
             else _copies_tpl(p, cols1, r1.values), False)
    proved = r1.status == "optimal" and best_score[0] >= most
    if r1.status != "optimal" or left() <= 0:
        return done(False, proved)
    if best_score == (most, 0):
        return done(True)
    if p.with_jokers and left() < 1.5 * (budget - left()):
        # Phase 2 is larger than phase 1 with jokers in play: with less time left
        # than 1.5 times what phase 1 took, it would seldom finish (bench/solver.py).
        # The answer stands, its old ids the best matching of its melds.
        return done(False, proved)
    # Phase 2: that much down, the most table cards kept together.
    known = len(origin) - best_score[1] if best_score[0] == most else -1
    start: list[tuple[int, float]] = []
    if isinstance(cols1, _FlowCols):
        model2, cols2f = _build_flow(p, float(most))
        for a, b in ((cols1.n, cols2f.n), (cols1.a3, cols2f.a3), (cols1.e, cols2f.e)):
            start.extend((b[key], r1.values[c]) for key, c in a.items())
        start.extend((cols2f.sets[key], r1.values[c]) for key, c in cols1.sets.items())
        start.extend((c, 0.0) for c in cols2f.z.values())
        if left() <= 0:
            return done(False, proved)
        # The relaxation by column generation, from the matches keeping 2+ cards.
        first = [c == 0 or c >= 2 for c in model2.cost]
        r2 = _solve_ip(model2, known, left, start, first, dive=p.with_jokers)
        if r2.values is not None:
            copies = _copies_flow(p, cols2f, r2.values)
            consider(copies, True)
            if r2.status != "optimal":  # an incumbent's own ids need not be its best
                consider(copies, False)
    else:
        model2, cols2t = _build_tpl(p, float(most))
        start.extend((cols2t.x[i], r1.values[c]) for i, c in enumerate(cols1.x))
        start.extend((cols2t.y[key], r1.values[c]) for key, c in cols1.y.items())
        start.extend((c, 0.0) for c in cols2t.z.values())
        if left() <= 0:
            return done(False, proved)
        r2 = _solve_ip(model2, known, left, start)
        if r2.values is not None:
            values = r2.values
            integral = all(abs(values[c] - round(values[c])) < 1e-6 for c in cols2t.z.values())
            copies = _copies_tpl(p, cols2t, values)
            consider(copies if integral or not p.mids else _rematch(p, copies), True)
    proved = best_score[0] >= most
    return done(r2.status == "optimal" and proved, proved)


def melds_from_hand(hand: Sequence[int], rules: RuleSet, budget: float = 0.1,
                    clock: Clock = time.perf_counter) -> list[list[int]]:
    """The melds ``hand`` alone can lay: disjoint valid melds holding the most cards."""
    return solve({}, hand, rules, budget=budget, clock=clock).melds
