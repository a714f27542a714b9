"""The solver: template model (see ``solver/__init__.py``)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from .base import JOKER, NFACES
from .model import _Copy, _gain, _match_arrays, _Model, _Problem, _template_copy
from .templates import _catalogue


@dataclass
class _TplCols:
    x: list[int]
    y: dict[tuple[int, int], int]  # (selected template, face) -> column
    z: dict[tuple[int, int], int]  # (selected template, old meld index) -> column


def _build_tpl(p: _Problem, target: float | None) -> tuple[_Model, _TplCols]:
    """The template model (one column per run window, jokers in any slot; used
    when the flow model cannot be, a run limit under 5, and by the tests as a
    check on it). Phase 1 (``target`` None): the most gain (cards or worth);
    phase 2: exactly ``target`` gain, the most table cards kept together. A
    window's worth is its faces' whether jokers or real cards fill them (C17)."""
    cat = _catalogue(p.rules)
    m = _Model()
    inf = float("inf")
    face_row = [m.row(float(p.tcount[f]), float(p.tcount[f] + p.hcount[f])) for f in range(NFACES)]
    joker_row = m.row(float(p.tcount[JOKER]), float(p.tcount[JOKER] + p.hcount[JOKER]))
    phase1 = target is None
    placed_row = -1 if target is None else m.row(target, target)
    worth_row = m.row(float(p.opening), inf) if p.opening > 0 else -1
    meld_row = {} if phase1 else {k: m.row(0.0, 1.0) for k in range(len(p.mids))}
    cols = _TplCols([], {}, {})
    weights, matchable = _match_arrays(p) if not phase1 else (None, None)
    for i, t in enumerate(p.sel):
        t = int(t)
        entries: list[tuple[int, float]] = [
            (face_row[int(f)], float(cat.mat[t, f])) for f in np.nonzero(cat.mat[t])[0]]
        if cat.jokers[t]:
            entries.append((joker_row, float(cat.jokers[t])))
        if placed_row >= 0:
            entries.append((placed_row, _gain(p, t)))
        if worth_row >= 0:
            entries.append((worth_row, float(cat.worth[t])))
        cap_row = -1
        if p.yfaces[i]:
            cap_row = m.row(-inf, 0.0)
            entries.append((cap_row, -float(cat.jcap[t])))
        wz = [] if matchable is None else [int(k) for k in np.nonzero(matchable[i])[0]]
        zrow = -1
        if wz:
            zrow = m.row(-inf, 0.0)
            entries.append((zrow, -1.0))
        mrows: dict[int, int] = {}
        for f in p.yfaces[i]:
            mult = int(cat.mat[t, f])
            if cat.jcap[t] > mult:
                mrows[f] = m.row(-inf, 0.0)
                entries.append((mrows[f], -float(mult)))
        cols.x.append(m.col(_gain(p, t) if phase1 else 0.0, 0.0, float(p.ub[i]), True, entries))
        for f in p.yfaces[i]:
            ye = [(face_row[f], -1.0), (joker_row, 1.0), (cap_row, 1.0)]
            if f in mrows:
                ye.append((mrows[f], 1.0))
            cols.y[(i, f)] = m.col(0.0, 0.0, float(int(cat.mat[t, f]) * int(p.ub[i])), True, ye)
        for k in wz:
            assert weights is not None
            cols.z[(i, k)] = m.col(float(weights[i, k]), 0.0, 1.0, False,
                                   [(zrow, 1.0), (meld_row[k], 1.0)])
    return m, cols


def _copies_tpl(p: _Problem, cols: _TplCols, values: list[float]) -> list[_Copy]:
    cat = _catalogue(p.rules)
    out: list[_Copy] = []
    for i, t in enumerate(p.sel):
        n = round(values[cols.x[i]])
        if n <= 0:
            continue
        fills: list[Counter[int]] = [Counter() for _ in range(n)]
        for f in p.yfaces[i]:
            mult = int(cat.mat[t, f])
            for _ in range(round(values[cols.y[(i, f)]])):
                room = [j for j in range(n) if fills[j][f] < mult]
                j = min(room, key=lambda j: (sum(fills[j].values()), j))
                fills[j][f] += 1
        mids = [p.mids[k] for (ii, k), c in cols.z.items() if ii == i and values[c] > 0.5]
        for j in range(n):
            out.append(_template_copy(cat, int(t), fills[j], mids[j] if j < len(mids) else None))
    return out
