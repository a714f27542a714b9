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
from .templates import _Catalogue, _catalogue, face_worth


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
              index: IntArray, value: npt.NDArray[np.float64],
              his: npt.NDArray[np.float64] | None = None) -> range:
        """Columns with bounds [0, hi] (or [0, his[k]]), one per row of
        ``index``/``value``; entries whose row index is negative are padding."""
        count = index.shape[0]
        first = len(self.cost)
        self.cost.extend(cost.tolist())
        self.lb.extend([0.0] * count)
        self.ub.extend([hi] * count if his is None else his.tolist())
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
    # (selected, old melds), from _match_arrays: cards of the old meld the template can
    # hold; whether it may inherit that id (phase 2)
    weights: IntArray | None = None
    matchable: npt.NDArray[np.bool_] | None = None
    points: bool = False  # the objective: C17 worth instead of cards
    opening: int = 0  # the worth the melds must reach in all (C17; 0: none)

    @property
    def with_jokers(self) -> bool:
        return bool(self.tcount[JOKER] + self.hcount[JOKER])


def _problem(table: dict[int, list[int]], hand: list[int], rules: RuleSet,
             fixed: bool = False) -> _Problem:
    """The position for the models. ``fixed``: jokers only at fixed places (the flow
    model: sets and joker runs of the catalogue); otherwise run windows take jokers
    in any slot (the template model) and joker runs are left out."""
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
    jeff = np.zeros_like(cat.jcap) if fixed else np.minimum(cat.jcap, jav)
    # On the sparse faces (K × ~14) rather than the dense (K × 52) matrix: faster.
    have = np.append(avail, 0)[cat.faces]  # padding (-1) reads the appended 0
    deficit = np.maximum(cat.mults - have, 0).sum(axis=1)
    ok = (deficit <= jeff) & (cat.jokers <= jav)
    if not fixed:
        ok &= ~cat.pattern
    sel = np.nonzero(ok)[0]
    big = 1 << 20
    mults = cat.mults[sel]
    per_face = np.where(mults > 0, (have[sel] + jeff[sel][:, None]) // np.maximum(mults, 1), big)
    ub = per_face.min(axis=1)
    js = cat.jokers[sel]
    ub = np.where(js > 0, np.minimum(ub, jav // np.maximum(js, 1)), ub)
    yfaces: list[list[int]] = [[] for _ in sel]
    for i in np.nonzero(jeff[sel] > 0)[0].tolist():
        yfaces[i] = [int(f) for f in np.nonzero(cat.mat[sel[i]])[0]]
    return _Problem(rules, table, hand, tcount, hcount, sel, ub, yfaces, list(table))


def _match_arrays(p: _Problem) -> tuple[IntArray, npt.NDArray[np.bool_]]:
    """(weights, matchable) of ``p``, computed once (phase 2 alone needs them)."""
    if p.weights is not None and p.matchable is not None:
        return p.weights, p.matchable
    cat = _catalogue(p.rules)
    sel, mids, table = p.sel, p.mids, p.table
    om = np.zeros((len(mids), NFACES + 1), dtype=np.int16)  # column 52: padding reads 0
    ojk = np.zeros(len(mids), dtype=np.int64)
    for k, mid in enumerate(mids):
        for c in table[mid]:
            if C.is_joker(c):
                ojk[k] += 1
            else:
                om[k, _face(c)] += 1
    # sum over faces of min(template's copies, old meld's), on the sparse faces
    faces = cat.faces[sel]
    mults = cat.mults[sel].astype(np.int16)
    js = cat.jokers[sel]
    weights = np.minimum(mults[None, :, :], om[:, faces]).sum(axis=2, dtype=np.int64).T
    weights = weights + np.minimum(js[:, None], ojk[None, :])
    # Which template may inherit which old id in phase 2: any overlap; for a run,
    # at most four cards beyond the old meld's, unless the two can overlap at both
    # ends (wrap). No optimum is lost: in a run that inherits an id, if the cards
    # on one side of those it keeps number three or more and the run holds six or
    # more, a run of its own can be split off on that side (three cards or more,
    # leaving three or more), which changes nothing kept; so some optimum has at
    # most two such cards on each side, or at most five cards in all.
    size = cat.size[sel][:, None]
    olen = (om.sum(axis=1, dtype=np.int64) + ojk)[None, :]
    run = cat.is_run[sel][:, None]
    p.weights = weights
    matchable = (weights >= 1) & (~run | (size - weights <= 4) | (size + olen > 13))
    # A joker run inherits an id only when it keeps two cards or more of that meld
    # and the meld held a joker or the run is that meld's cards but one (so phase 2
    # stays small enough for the budget; moves are then near-minimal, see above).
    pat = cat.pattern[sel][:, None]
    held = (ojk > 0)[None, :]
    matchable &= ~pat | ((weights >= 2) & (held | (weights >= size - 1)))
    if p.with_jokers:
        # With jokers in play, only melds that keep all of an old meld's cards but one
        # (or more) inherit its id: phase 2 then fits a budget of 0.1 s far more
        # often (its answer keeps near the most cards together, not always the most).
        matchable &= weights >= np.maximum(olen - 1, 2)
    p.matchable = matchable
    return p.weights, p.matchable


def _gain(p: _Problem, t: int) -> float:
    """What one meld of catalogue template ``t`` is worth to the objective."""
    cat = _catalogue(p.rules)
    return float(cat.worth[t] if p.points else cat.size[t])


def _face_gain(p: _Problem, face: int) -> float:
    """What one card of ``face`` (0..51) is worth to the objective."""
    return float(face_worth(face)) if p.points else 1.0


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
