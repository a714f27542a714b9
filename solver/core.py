"""The solver: the solver (see ``solver/__init__.py``)."""

from __future__ import annotations

import time
from collections.abc import Sequence

from engine.rules import RuleSet

from .base import Clock, Solution, TableIn
from .flow import _build_flow, _copies_flow, _flow_ok, _FlowCols
from .greedy import _Arr, _better, _greedy, _normalize, _score
from .highs import _solve_ip
from .model import _Copy, _problem
from .plans import _plan
from .realize import _greedy_match, _realize, _rematch
from .tplmodel import _build_tpl, _copies_tpl


def _finish(arr: _Arr | None, table: dict[int, list[int]], origin: dict[int, int],
            next_id: int, rules: RuleSet, optimal: bool) -> Solution:
    if arr is None:  # the table cannot be arranged at all: leave it
        return Solution([list(cs) for cs in table.values()], [], 0, optimal, [], list(table))
    _, moved = _score(arr, origin)
    plan, ids = _plan(arr, origin, next_id, rules)
    return Solution(
        melds=[list(cs) for cs, _ in arr],
        placed=[c for cs, _ in arr for c in cs if c not in origin],
        moved=moved, optimal=optimal, plan=plan, ids=ids,
    )


def solve(
    table: TableIn,
    hand: Sequence[int],
    rules: RuleSet,
    budget: float = 0.1,
    clock: Clock = time.perf_counter,
    next_meld_id: int | None = None,
) -> Solution:
    """The legal rearrangement of ``table`` with cards of ``hand`` that puts down the
    most hand cards, then moves the fewest table cards (see the module documentation).

    ``table``: a list of melds (ids 1..n) or a dict id → cards; cards are physical
    ids. ``budget``: seconds by ``clock``. ``next_meld_id``: the id the engine will
    give the next new meld (default: the largest id + 1).
    """
    t0 = clock()

    def left() -> float:
        return budget - (clock() - t0)

    tab = _normalize(table)
    cards_in_hand = list(hand)
    next_id = next_meld_id if next_meld_id is not None else max(tab, default=0) + 1
    origin = {c: mid for mid, cs in tab.items() for c in cs}
    best = _greedy(tab, cards_in_hand, rules)
    best_score = _score(best, origin) if best is not None else (-1, 0)

    def done(optimal: bool) -> Solution:
        return _finish(best, tab, origin, next_id, rules, optimal)

    if not cards_in_hand and best is not None:
        return done(True)
    if left() <= 0:
        return done(False)

    p = _problem(tab, cards_in_hand, rules)
    flow = _flow_ok(p)

    def consider(copies: list[_Copy], matched: bool) -> None:
        """Keep these melds if better; ``matched``: their old ids are an optimal
        matching already (phase 2's own); otherwise a matching is made."""
        nonlocal best, best_score
        if not matched and p.mids:
            copies = _greedy_match(p, copies)
        arr = _realize(p, copies)
        if arr is not None:
            score = _score(arr, origin)
            if best is None or _better(score, best_score):
                best, best_score = arr, score

    # Phase 1: the most cards down.
    model1, cols1 = _build_flow(p, None) if flow else _build_tpl(p, None)
    known1 = len(origin) + best_score[0] if best is not None else -1
    r1 = _solve_ip(model1, known1, left)
    if r1.status == "infeasible":
        return done(best is not None)
    if r1.values is None:
        # Optimal: nothing puts down more than the move-free baseline (or stopped).
        return done(r1.status == "optimal" and best is not None)
    most = round(r1.objective) - len(origin)
    consider(_copies_flow(p, cols1, r1.values) if isinstance(cols1, _FlowCols)
             else _copies_tpl(p, cols1, r1.values), False)
    if r1.status != "optimal" or left() <= 0:
        return done(False)
    if best_score == (most, 0):
        return done(True)
    # Phase 2: that many cards down, the most table cards kept together.
    known = len(origin) - best_score[1] if best_score[0] == most else -1
    start: list[tuple[int, float]] = []
    if isinstance(cols1, _FlowCols):
        model2, cols2f = _build_flow(p, most)
        for a, b in ((cols1.n, cols2f.n), (cols1.a3, cols2f.a3), (cols1.e, cols2f.e)):
            start.extend((b[key], r1.values[c]) for key, c in a.items())
        start.extend((cols2f.sets[key], r1.values[c]) for key, c in cols1.sets.items())
        start.extend((c, 0.0) for c in cols2f.z.values())
        # The relaxation by column generation, from the matches keeping 2+ cards.
        first = [c == 0 or c >= 2 for c in model2.cost]
        r2 = _solve_ip(model2, known, left, start, first)
        if r2.values is not None:
            copies = _copies_flow(p, cols2f, r2.values)
            consider(copies, True)
            if r2.status != "optimal":  # an incumbent's own ids need not be its best
                consider(copies, False)
    else:
        model2, cols2t = _build_tpl(p, most)
        start.extend((cols2t.x[i], r1.values[c]) for i, c in enumerate(cols1.x))
        start.extend((cols2t.y[key], r1.values[c]) for key, c in cols1.y.items())
        start.extend((c, 0.0) for c in cols2t.z.values())
        r2 = _solve_ip(model2, known, left, start)
        if r2.values is not None:
            values = r2.values
            integral = all(abs(values[c] - round(values[c])) < 1e-6 for c in cols2t.z.values())
            copies = _copies_tpl(p, cols2t, values)
            consider(copies if integral or not p.mids else _rematch(p, copies), True)
    return done(r2.status == "optimal" and best_score[0] == most)


def melds_from_hand(hand: Sequence[int], rules: RuleSet, budget: float = 0.1,
                    clock: Clock = time.perf_counter) -> list[list[int]]:
    """The melds ``hand`` alone can lay: disjoint valid melds holding the most cards."""
    return solve({}, hand, rules, budget=budget, clock=clock).melds
