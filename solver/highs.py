"""The solver: running HiGHS (see ``solver/__init__.py``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import highspy
import numpy as np

from .model import _Model, _new_highs


@dataclass
class _Run:
    status: str  # "optimal", "infeasible", "stopped"
    values: list[float] | None
    objective: float


def _run(model: _Model, budget_left: Callable[[], float],
         start: list[tuple[int, float]] | None = None, share: float = 1.0) -> _Run:
    """HiGHS on the integer program, within ``share`` of the time left (HiGHS may
    overrun its limit while it processes the root of a large model)."""
    h = _new_highs()
    model.run(h)
    h.setOptionValue("mip_rel_gap", 0.0)
    h.setOptionValue("mip_abs_gap", 0.5)  # objectives are integers
    # Measured on bench/solver.py positions: these models are small and their LP
    # bounds tight; presolve, symmetry detection and the feasibility-jump heuristic
    # cost far more time than they save (p50 of a phase: ~3 ms instead of ~50).
    h.setOptionValue("presolve", "off")
    h.setOptionValue("mip_detect_symmetry", False)
    h.setOptionValue("mip_heuristic_run_feasibility_jump", False)
    h.setOptionValue("time_limit", max(share * budget_left(), 1e-3))
    if start:
        h.setSolution(len(start), np.array([i for i, _ in start], dtype=np.int32),
                      np.array([v for _, v in start], dtype=np.float64))

    def interrupt(e: Any) -> None:
        if budget_left() <= 0:
            e.interrupt()

    h.cbMipInterrupt.subscribe(interrupt)
    h.run()
    st = h.getModelStatus()
    info = h.getInfo()
    has = info.primal_solution_status == 2  # kSolutionStatusFeasible
    values = list(h.getSolution().col_value) if has else None
    obj = float(info.objective_function_value) if has else 0.0
    h.cbMipInterrupt.clear()  # type: ignore[no-untyped-call]
    if st == highspy.HighsModelStatus.kOptimal:
        return _Run("optimal", values, obj)
    if st == highspy.HighsModelStatus.kInfeasible:
        return _Run("infeasible", None, 0.0)
    return _Run("stopped", values, obj)


@dataclass
class _Relaxed:
    """A solved linear relaxation: its optimum, values and reduced costs over all the
    model's columns; ``h`` holds it, over the columns ``cols`` (in that order)."""

    objective: float
    values: list[float]
    dual: list[float]
    h: highspy.Highs
    cols: list[int]


def _lp(model: _Model, budget_left: Callable[[], float],
        first: Sequence[bool] | None = None, rounds_checked: bool = False) -> _Relaxed | None:
    """The linear relaxation, or None (infeasible, or out of time; ``rounds_checked``:
    the budget is also checked between rounds of column generation).

    ``first``: if given, start from those columns only and bring in the others
    whose reduced cost is positive until none is (column generation; the
    answer is the same, the linear programs smaller)."""
    n = len(model.cost)
    cols = list(range(n)) if first is None else [j for j in range(n) if first[j]]
    h = _new_highs()
    model.subset(cols).run(h, relax=True)
    h.setOptionValue("solver", "simplex")
    h.setOptionValue("presolve", "off")  # halves the time on these models
    start = np.array(model.start, dtype=np.int64)
    index = np.array(model.index, dtype=np.int64)
    value = np.array(model.value, dtype=np.float64)
    cost = np.array(model.cost, dtype=np.float64)
    col_of = np.repeat(np.arange(n), np.diff(start))
    inside = np.zeros(n, dtype=np.bool_)
    inside[cols] = True
    while True:
        # (with the rounds checked, 80 % of the time left: the simplex overruns a little)
        h.setOptionValue("time_limit", max((0.8 if rounds_checked else 1.0) * budget_left(), 1e-3))
        h.run()
        if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
            return None
        sol = h.getSolution()
        y = np.array(sol.row_dual, dtype=np.float64)
        dual = cost - np.bincount(col_of, weights=value * y[index], minlength=n)
        enter = np.nonzero(~inside & (dual > 1e-7))[0]
        if not len(enter):
            break
        if rounds_checked and budget_left() <= 0:
            return None
        starts = start[enter]
        ends = start[enter + 1]
        pieces = [np.arange(a, b) for a, b in zip(starts, ends)]
        at = np.concatenate(pieces)
        h.addCols(len(enter), cost[enter], np.zeros(len(enter)),
                  np.array([model.ub[j] for j in enter], dtype=np.float64), len(at),
                  np.concatenate([[0], np.cumsum(ends - starts)[:-1]]).astype(np.int32),
                  index[at].astype(np.int32), value[at])
        cols.extend(int(j) for j in enter)
        inside[enter] = True
    values = [0.0] * n
    for k, v in enumerate(sol.col_value):
        values[cols[k]] = v
    return _Relaxed(float(h.getInfo().objective_function_value), values, dual.tolist(), h, cols)


def _dive(model: _Model, relaxed: _Relaxed, budget_left: Callable[[], float]
          ) -> tuple[float, list[float]] | None:
    """A quick integer solution from the relaxation (a heuristic): over its columns,
    fix the integer column of largest fractional part up (or, when that leaves
    nothing feasible, down), solve again, and repeat until the values are integral.
    (objective, values over all columns), or None. Used with jokers in play, whose
    integer programs HiGHS often cannot solve within a budget of 0.1 s."""
    h, cols = relaxed.h, relaxed.cols
    integer = [model.integer[j] for j in cols]
    x = np.array(h.getSolution().col_value, dtype=np.float64)
    for _ in range(4 * len(cols)):
        if budget_left() <= 0:
            return None
        part = x - np.floor(x)
        frac = np.nonzero(np.array(integer, dtype=np.bool_) & (part > 1e-6) & (part < 1 - 1e-6))[0]
        if not len(frac):
            values = [0.0] * len(model.cost)
            for k, v in enumerate(x.tolist()):
                values[cols[k]] = float(round(v)) if integer[k] else v
            return float(sum(model.cost[j] * values[j] for j in cols)), values
        k = int(frac[np.argmax(part[frac])])
        j = cols[k]
        h.setOptionValue("time_limit", max(budget_left(), 1e-3))
        h.changeColBounds(k, float(np.ceil(x[k])), model.ub[j])
        h.run()
        if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
            h.changeColBounds(k, model.lb[j], float(np.floor(x[k])))
            h.run()
            if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
                return None
        x = np.array(h.getSolution().col_value, dtype=np.float64)
    return None


def _solve_ip(model: _Model, known: float, budget_left: Callable[[], float],
              start: list[tuple[int, float]] | None = None,
              first: Sequence[bool] | None = None, dive: bool = False) -> _Run:
    """Maximise an integer objective knowing a solution worth ``known``: status
    "optimal" with values (None when nothing beats ``known``), "infeasible", or
    "stopped" with the best values found (or None).

    The relaxation first: on these models it is usually tight and often
    integral, and then it is the answer. Otherwise reduced-cost fixing, exact:
    with the relaxation's optimum U and the reduced cost d_j ≤ 0 of an integer
    column at 0, any solution using that column is worth at most U + d_j. To look
    for a solution worth g or more, only the columns with U + d_j ≥ g are needed.
    If the restricted optimum v reaches g it is the optimum; if the restricted
    model is infeasible, g goes down by one; otherwise nothing reaches g, the
    optimum lies between the best known w and g − 1, and the next round looks
    for w + 1 (g goes down every round). This spares HiGHS the cut rounds it spends on the full
    model, and usually the whole integer search."""
    relax = _lp(model, budget_left, first, rounds_checked=dive)
    if relax is None:  # infeasible, or out of time
        if budget_left() <= 0:
            return _Run("stopped", None, 0.0)
        return _run(model, budget_left, start)
    bound, values, dual = relax.objective, relax.values, relax.dual
    if all(abs(v - round(v)) < 1e-6 for v, integer in zip(values, model.integer) if integer):
        return _Run("optimal", values if bound > known + 0.5 else None, bound)
    g = int(np.floor(bound + 1e-6))
    integer = np.array(model.integer)
    vals, duals = np.array(values), np.array(dual)
    best: list[float] | None = None
    worth = known
    if dive:  # ``dive``: first look for a good solution by diving (see _dive)
        found = _dive(model, relax, budget_left)
        if found is not None and found[0] > worth + 0.5:
            worth, best = found
        if worth >= g - 1e-6:
            return _Run("optimal", best, worth)
    while g > worth:
        if budget_left() <= 0:
            return _Run("stopped", best, worth)
        keep = np.nonzero((integer == 0) | (vals > 1e-9) | (bound + duals >= g - 1e-6))[0].tolist()
        sub = model.subset(keep)
        pos = {j: k for k, j in enumerate(keep)}
        hint = start if best is None else list(enumerate(best))
        r = _run(sub, budget_left, [(pos[j], v) for j, v in hint or () if j in pos],
                 0.6 if dive else 1.0)
        if r.status == "infeasible":  # nothing worth g or more
            g -= 1
            continue
        if r.values is not None and r.objective > worth + 0.5:
            best = [0.0] * len(model.cost)
            for k, j in enumerate(keep):
                best[j] = r.values[k]
            worth = r.objective
        if r.status != "optimal":
            return _Run("stopped", best, worth)
        if r.objective >= g - 1e-6 or worth >= g - 1 - 1e-6:
            break  # it reaches g; or nothing does, and the best known is worth g - 1
        g = round(worth) + 1  # the optimum lies in [worth, g - 1]: look for worth + 1
    return _Run("optimal", best, worth)
