"""The solver: the IP (see ``solver/__init__.py``)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import highspy
import numpy as np
import numpy.typing as npt

from engine import cards as C
from engine.rules import RuleSet

from .base import JOKER, NFACES, IntArray
from .greedy import _face
from .templates import _Catalogue, _catalogue


def _new_highs() -> highspy.Highs:
    """A quiet HiGHS object. (HiGHS itself prints a banner to standard output the
    first time one is made in a process; the engine does no I/O and leaves that
    to the caller: see ``bench/solver.py``, which swallows it.)"""
    h = highspy.Highs()  # type: ignore[no-untyped-call]
    h.setOptionValue("output_flag", False)
    # One thread: these models are small, and on a busy machine (the server, the
    # bots) HiGHS's extra worker costs more than it gives (bench/solver.py).
    h.setOptionValue("threads", 1)
    return h


class _Model:
    """A sparse model built column by column, passed to HiGHS at once."""

    def __init__(self) -> None:
        self.cost: list[float] = []
        self.lb: list[float] = []
        self.ub: list[float] = []
        self.integer: list[int] = []
        self.start: list[int] = [0]
        self.index: list[int] = []
        self.value: list[float] = []
        self.rlb: list[float] = []
        self.rub: list[float] = []

    def row(self, lo: float, hi: float) -> int:
        self.rlb.append(lo)
        self.rub.append(hi)
        return len(self.rlb) - 1

    def col(self, cost: float, lo: float, hi: float, integer: bool,
            entries: Sequence[tuple[int, float]]) -> int:
        self.cost.append(cost)
        self.lb.append(lo)
        self.ub.append(hi)
        self.integer.append(1 if integer else 0)
        for r, v in entries:
            self.index.append(r)
            self.value.append(v)
        self.start.append(len(self.index))
        return len(self.cost) - 1

    def block(self, cost: npt.NDArray[np.float64], hi: float, integer: bool,
              index: IntArray, value: npt.NDArray[np.float64]) -> range:
        """Columns with bounds [0, hi], one per row of ``index``/``value``; entries
        whose row index is negative are padding."""
        count = index.shape[0]
        first = len(self.cost)
        self.cost.extend(cost.tolist())
        self.lb.extend([0.0] * count)
        self.ub.extend([hi] * count)
        self.integer.extend([1 if integer else 0] * count)
        keep = index >= 0
        at = len(self.index)
        self.index.extend(index[keep].tolist())
        self.value.extend(value[keep].tolist())
        self.start.extend((at + np.cumsum(keep.sum(axis=1))).tolist())
        return range(first, first + count)

    def subset(self, keep: Sequence[int]) -> _Model:
        """The same rows with only the columns ``keep`` (in that order)."""
        out = _Model()
        out.rlb, out.rub = self.rlb, self.rub
        if not len(keep):
            return out
        ks = np.asarray(keep, dtype=np.int64)
        start = np.asarray(self.start, dtype=np.int64)
        lengths = start[ks + 1] - start[ks]
        at = np.repeat(start[ks] - np.concatenate([[0], np.cumsum(lengths)[:-1]]), lengths)
        at = at + np.arange(int(lengths.sum()))
        out.index = np.asarray(self.index, dtype=np.int64)[at].tolist()
        out.value = np.asarray(self.value, dtype=np.float64)[at].tolist()
        out.start = [0, *np.cumsum(lengths).tolist()]
        out.cost = [self.cost[j] for j in keep]
        out.lb = [self.lb[j] for j in keep]
        out.ub = [self.ub[j] for j in keep]
        out.integer = [self.integer[j] for j in keep]
        return out

    def run(self, h: highspy.Highs, relax: bool = False) -> None:
        inf = highspy.kHighsInf
        h.passModel(
            len(self.cost), len(self.rlb), len(self.index),
            int(highspy.MatrixFormat.kColwise), int(highspy.ObjSense.kMaximize), 0.0,
            np.array(self.cost, dtype=np.float64),
            np.array(self.lb, dtype=np.float64),
            np.minimum(np.array(self.ub, dtype=np.float64), inf),
            np.maximum(np.array(self.rlb, dtype=np.float64), -inf),
            np.minimum(np.array(self.rub, dtype=np.float64), inf),
            np.array(self.start, dtype=np.int32),
            np.array(self.index, dtype=np.int32),
            np.array(self.value, dtype=np.float64),
            np.zeros(len(self.cost), dtype=np.int32) if relax
            else np.array(self.integer, dtype=np.int32),
        )


@dataclass
class _Problem:
    """One position as the integer programs see it."""

    rules: RuleSet
    table: dict[int, list[int]]
    hand: list[int]
    tcount: IntArray  # (53,) table faces, jokers at 52
    hcount: IntArray  # (53,)
    sel: IntArray  # catalogue rows usable here
    ub: IntArray  # copies allowed per selected template
    yfaces: list[list[int]]  # per selected template: faces jokers may fill
    mids: list[int]  # old meld ids
    weights: IntArray  # (selected, old melds): cards of the old meld the template can hold
    matchable: npt.NDArray[np.bool_]  # (selected, old melds): may inherit that id (phase 2)

    @property
    def with_jokers(self) -> bool:
        return bool(self.tcount[JOKER] + self.hcount[JOKER])


def _problem(table: dict[int, list[int]], hand: list[int], rules: RuleSet) -> _Problem:
    cat = _catalogue(rules)
    tcount = np.zeros(NFACES + 1, dtype=np.int64)
    hcount = np.zeros(NFACES + 1, dtype=np.int64)
    for cs in table.values():
        for c in cs:
            tcount[_face(c)] += 1
    for c in hand:
        hcount[_face(c)] += 1
    avail = (tcount + hcount)[:NFACES]
    jav = int(tcount[JOKER] + hcount[JOKER])
    jeff = np.minimum(cat.jcap, jav)
    deficit = np.maximum(cat.mat - avail, 0).sum(axis=1)
    ok = (deficit <= jeff) & (cat.jokers <= jav)
    sel = np.nonzero(ok)[0]
    mat = cat.mat[sel]
    big = 1 << 20
    per_face = np.where(mat > 0, (avail + jeff[sel][:, None]) // np.maximum(mat, 1), big)
    ub = per_face.min(axis=1)
    js = cat.jokers[sel]
    ub = np.where(js > 0, np.minimum(ub, jav // np.maximum(js, 1)), ub)
    yfaces: list[list[int]] = []
    for i, t in enumerate(sel):
        if jeff[t] > 0:
            yfaces.append([int(f) for f in np.nonzero(mat[i])[0]])
        else:
            yfaces.append([])
    mids = list(table)
    om = np.zeros((len(mids), NFACES), dtype=np.int64)
    ojk = np.zeros(len(mids), dtype=np.int64)
    for k, mid in enumerate(mids):
        for c in table[mid]:
            if C.is_joker(c):
                ojk[k] += 1
            else:
                om[k, _face(c)] += 1
    if mat.size == 0 or mat.max() <= 1:  # min(a, b) = a * min(b, 1) when a is 0 or 1
        weights = mat @ np.minimum(om, 1).T
    else:
        weights = np.minimum(mat[:, None, :], om[None, :, :]).sum(axis=2)
    weights = weights + np.minimum(js[:, None], ojk[None, :])
    # Which template may inherit which old id in phase 2: any overlap; for a run,
    # at most four cards beyond the old meld's, unless the two can overlap at both
    # ends (wrap). No optimum is lost: in a run that inherits an id, if the cards
    # on one side of those it keeps number three or more and the run holds six or
    # more, a run of its own can be split off on that side (three cards or more,
    # leaving three or more), which changes nothing kept; so some optimum has at
    # most two such cards on each side, or at most five cards in all.
    size = cat.size[sel][:, None]
    olen = (om.sum(axis=1) + ojk)[None, :]
    run = cat.is_run[sel][:, None]
    matchable = (weights >= 1) & (~run | (size - weights <= 4) | (size + olen > 13))
    return _Problem(rules, table, hand, tcount, hcount, sel, ub, yfaces, mids, weights,
                    matchable)


# A meld copy: (real faces it holds, joker cards it holds, old meld id it inherits or None).
_Copy = tuple[Counter[int], int, int | None]


def _template_copy(cat: _Catalogue, t: int, fill: Counter[int] | None = None,
                   mid: int | None = None) -> _Copy:
    need: Counter[int] = Counter()
    fill = fill or Counter()
    for f in np.nonzero(cat.mat[t])[0]:
        k = int(cat.mat[t, f]) - fill[int(f)]
        if k > 0:
            need[int(f)] = k
    return need, int(cat.jokers[t]) + sum(fill.values()), mid
