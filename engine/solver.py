"""The solver: the best legal rearrangement of the table with a hand (issue 7).

:func:`solve` takes the table (a list of melds, ids 1..n, or a dict id → cards)
and a hand (physical card ids, as in :mod:`engine.cards`) and returns a
:class:`Solution`: a partition of *every* table card plus a subset of the hand
into valid melds under the :class:`~engine.rules.RuleSet` that

1. puts down the most hand cards, and among those
2. moves the fewest table cards.

"Moved" is defined by a matching: each new meld may inherit the id of at most
one old meld and each old meld passes its id to at most one new meld; a table
card is moved when the meld it ends in does not carry the id of the meld it
started in. ``moved`` = table cards − the best such matching's cards kept
together, so a meld left whole or merely extended costs nothing, and ``moved``
is exactly the number of ``move`` commands in the plan.

Method: two integer programs solved by HiGHS (``highspy``).

* Templates (cached per rule set): every run window per suit and length from 3
  to ``rules.longest_run`` (no longer: a longer run is auto-split at
  confirmation, R4; with no limit, up to 13 cards for ``low_only``, 14 for
  ``low_or_high``, 13 × packs for ``wrap``), windows following the ace mode;
  and every set of 3–4 distinct suits per rank.
* Without jokers (Machiavelox, and any classic position with no joker in
  play), runs that inherit no old id are a flow per suit over the rank
  positions (see :func:`_build_flow`): much smaller and with a tighter
  relaxation than one variable per run window. Sets are template counts.
  With jokers in play, every meld is a template count ``x_t``; sets are
  enumerated with their real suits and joker count, and a run template gets
  integer "a joker fills face f" variables, at most
  ``min(most_jokers_per_meld, length − fewest_real_cards)`` per copy.
* Each table face is used exactly as often as it lies on the table, each hand
  face at most as often as it is in hand.
* Phase 1 maximises the cards put down. If the greedy, move-free baseline
  already reaches that number, it is the answer (0 moves is the least).
* Phase 2 fixes the cards put down at the phase-1 optimum and maximises the
  table cards kept together: a binary ``z[t, m]`` is a meld of template t
  that inherits old meld m's id, worth the cards of m it can hold (one or
  more); each old id goes to at most one meld. A run that inherits an id is
  only offered with at most four cards beyond the old meld's (see
  ``_problem``: a longer run can always be cut so that this holds, keeping the
  same cards together). Phase 2 first solves the relaxation (usually tight,
  often integral), then the integer program over only the ``z`` columns whose
  reduced cost leaves them able to beat the best known answer (exact
  reduced-cost fixing, :func:`_solve_ip`; phase 1 is solved the same way).

What is optimal: without jokers, a solution with ``optimal=True`` is exactly
lexicographically optimal — most hand cards, then fewest moved, with
``moved`` as defined above over every matching — among all partitions into
valid melds no longer than ``rules.longest_run`` (the tests check this against
brute force on small positions). With jokers, the number of hand cards is
still exact, but the weight of a run template that inherits an id counts the
old meld's real cards only (a table joker may be counted as moved that a
cleverer arrangement would have left in place), so ``moved`` is then only
near-minimal (the reported ``moved`` is always the true count for the answer
returned). A table meld longer than ``rules.longest_run`` (left long because
a card in it was on trial) is treated as needing its split.

Time: ``budget`` seconds measured with ``clock`` (injectable; the only clock
read here). The clock is checked before each phase and inside HiGHS (MIP
interrupt callback); HiGHS also gets the remaining time as its own limit.
When the budget runs out, the best answer found so far is returned with
``optimal=False``: at worst the greedy baseline (the table as it is, plus the
cards that can be added or laid without moving anything). Python work between
checks (building a model, placing the cards) is not interrupted, so a solve may
overrun its budget by that much (a few milliseconds). With jokers in play the
template model is far larger: solves typically take 0.1–0.6 s (bench: 2 jokers
in a classic hand), and HiGHS's root processing of such a model does not stop
promptly at its time limit, so the budget may be overrun by up to ~0.1 s.

The plan is an ordered list of engine-level steps (card ids, meld ids):

* nothing moved: ``("add", card, meld)`` for cards that extend a meld, then
  ``("stage", card)``… and ``("lay", [cards])`` for melds of hand cards only;
* otherwise one declared play: ``("stage", card)`` for every card put down,
  then ``("move", card, from_meld, to_meld | "new")``, then ``("lay", [cards])``
  for melds of hand cards only, then ``("place", card, meld)``.

New melds get the ids the engine will give them, counting from
``next_meld_id``. (A plan that moves table cards but puts none down only comes
from a table that was not valid to begin with; outside a Stop! freeze the
engine refuses such moves, ``not_declared``.) :func:`plan_commands` turns a plan into
:class:`~engine.hand.Command` objects. The solver does no I/O itself; note that
HiGHS prints a one-line banner to the process's standard output the first time
a solver object is made in a process (``bench/solver.py`` shows how to swallow
it).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import combinations
from typing import Any

import highspy
import numpy as np
import numpy.typing as npt

from . import cards as C
from .hand import Command
from .melds import is_valid
from .rules import AceMode, RuleSet

JOKER = 52  # the face key of a joker
NFACES = 52
Step = tuple[Any, ...]
Clock = Callable[[], float]
TableIn = Mapping[int, Sequence[int]] | Sequence[Sequence[int]]
IntArray = npt.NDArray[np.int64]


@dataclass
class Solution:
    """The answer of :func:`solve`.

    ``melds`` is the whole new table; ``ids[i]`` is the id ``melds[i]`` has after
    the plan (an old id it inherits, or the id the engine will give a new meld).
    ``placed`` are the hand cards put down; ``moved`` the table cards that end in
    a meld other than the one they started in; ``optimal`` is False when the
    budget ran out first (then this is the best found so far); ``plan`` the steps
    that carry it out (see the module documentation).
    """

    melds: list[list[int]]
    placed: list[int]
    moved: int
    optimal: bool
    plan: list[Step]
    ids: list[int] = field(default_factory=list)

    def table(self) -> dict[int, list[int]]:
        """The new table as id → cards."""
        return dict(zip(self.ids, self.melds))


# ---------------------------------------------------------------------------- templates


@dataclass(frozen=True)
class _Catalogue:
    """Every meld template of a rule set, as arrays over the 52 faces."""

    mat: IntArray  # (K, 52) copies of each face in one meld
    size: IntArray  # (K,) cards in one meld, jokers included
    jokers: IntArray  # (K,) joker cards a set template holds
    jcap: IntArray  # (K,) face slots jokers may fill in a run template
    is_run: npt.NDArray[np.bool_]
    faces: IntArray  # (K, W) the faces of each template, padded with -1
    mults: IntArray  # (K, W) their copies, padded with 0


def _run_length_cap(rules: RuleSet) -> int:
    full = 13 * rules.packs if rules.ace_mode is AceMode.WRAP else (
        13 if rules.ace_mode is AceMode.LOW_ONLY else 14)
    return full if rules.longest_run is None else min(full, rules.longest_run)


def _windows(n: int, mode: AceMode) -> list[list[int]]:
    if mode is AceMode.WRAP:
        return [[(r - 1 + i) % 13 + 1 for i in range(n)] for r in range(1, 14)]
    if mode is AceMode.LOW_ONLY:
        return [list(range(r, r + n)) for r in range(1, 14 - n + 1)]
    return [[1 if v == 14 else v for v in range(r, r + n)] for r in range(1, 15 - n + 1)]


def _joker_limit(rules: RuleSet) -> int:
    return rules.most_jokers_per_meld if rules.jokers > 0 else 0


@lru_cache(maxsize=32)
def _catalogue(rules: RuleSet) -> _Catalogue:
    fr = max(rules.fewest_real_cards, 1)
    jmax = _joker_limit(rules)
    rows: list[list[int]] = []
    size: list[int] = []
    jokers: list[int] = []
    jcap: list[int] = []
    is_run: list[bool] = []
    seen: set[tuple[int, ...]] = set()
    for s in range(4):
        for n in range(3, _run_length_cap(rules) + 1):
            if n < fr:
                continue
            for window in _windows(n, rules.ace_mode):
                row = [0] * NFACES
                for r in window:
                    row[s * 13 + r - 1] += 1
                if max(row) > rules.packs:
                    continue
                key = tuple(row)
                if key in seen:
                    continue
                seen.add(key)
                rows.append(row)
                size.append(n)
                jokers.append(0)
                jcap.append(min(jmax, n - fr))
                is_run.append(True)
    for rank in range(1, 14):
        for k in range(fr, 5):
            for suits in combinations(range(4), k):
                for j in range(min(jmax, 4 - k) + 1):
                    if k + j < 3:
                        continue
                    row = [0] * NFACES
                    for s in suits:
                        row[s * 13 + rank - 1] = 1
                    rows.append(row)
                    size.append(k + j)
                    jokers.append(j)
                    jcap.append(0)
                    is_run.append(False)
    mat = np.array(rows, dtype=np.int64).reshape(len(rows), NFACES)
    width = int((mat > 0).sum(axis=1).max()) if len(rows) else 0
    faces = np.full((len(rows), width), -1, dtype=np.int64)
    mults = np.zeros((len(rows), width), dtype=np.int64)
    for t in range(len(rows)):
        fs = np.nonzero(mat[t])[0]
        faces[t, :len(fs)] = fs
        mults[t, :len(fs)] = mat[t, fs]
    return _Catalogue(
        mat=mat,
        size=np.array(size, dtype=np.int64),
        jokers=np.array(jokers, dtype=np.int64),
        jcap=np.array(jcap, dtype=np.int64),
        is_run=np.array(is_run, dtype=np.bool_),
        faces=faces,
        mults=mults,
    )


def templates(rules: RuleSet) -> list[tuple[list[int], int, int]]:
    """Every template as (faces with repeats, fixed jokers, joker slots allowed), for tests."""
    cat = _catalogue(rules)
    out = []
    for t in range(len(cat.size)):
        faces = [f for f in range(NFACES) for _ in range(int(cat.mat[t, f]))]
        out.append((faces, int(cat.jokers[t]), int(cat.jcap[t])))
    return out


# ---------------------------------------------------------------------------- helpers


def _face(card: int) -> int:
    return JOKER if C.is_joker(card) else card % C.PACK_SIZE


def _normalize(table: TableIn) -> dict[int, list[int]]:
    if isinstance(table, Mapping):
        return {int(m): list(cs) for m, cs in table.items() if cs}
    return {i + 1: list(cs) for i, cs in enumerate(table) if cs}


# An arrangement: the new melds, each with the old id it inherits (or None).
_Arr = list[tuple[list[int], int | None]]


def _score(arr: _Arr, origin: dict[int, int]) -> tuple[int, int]:
    """(hand cards put down, table cards moved)."""
    placed = moved = 0
    for cards, mid in arr:
        for c in cards:
            if c not in origin:
                placed += 1
            elif origin[c] != mid:
                moved += 1
    return placed, moved


def _better(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] > b[0] or (a[0] == b[0] and a[1] < b[1])


def _fits(cards: list[int], card: int, rules: RuleSet) -> bool:
    limit = rules.longest_run
    if limit is not None and len(cards) + 1 > limit:
        return False
    return is_valid(cards + [card], rules)


def _kinds(cards: list[int]) -> tuple[int, int]:
    """(the suit all real cards share or -1, the rank all share or -1)."""
    reals = [c for c in cards if not C.is_joker(c)]
    suits = {C.suit_of(c) for c in reals}
    ranks = {C.rank_of(c) for c in reals}
    return (suits.pop() if len(suits) == 1 else -1), (ranks.pop() if len(ranks) == 1 else -1)


def _greedy(table: dict[int, list[int]], hand: list[int], rules: RuleSet) -> _Arr | None:
    """The move-free baseline: adds to table melds, then melds of hand cards, repeated.

    None when the table itself is not a set of valid melds within the run limit."""
    limit = rules.longest_run
    for cs in table.values():
        if not is_valid(cs, rules) or (limit is not None and len(cs) > limit):
            return None
    arr: _Arr = [(list(cs), mid) for mid, cs in table.items()]
    kinds = [_kinds(cs) for cs, _ in arr]
    rest = list(hand)
    cat = _catalogue(rules)
    while rest:
        changed = False
        for c in list(rest):
            joker = C.is_joker(c)
            for k, (cs, _) in enumerate(arr):
                if not joker and C.suit_of(c) != kinds[k][0] and C.rank_of(c) != kinds[k][1]:
                    continue  # a meld only takes a card of its suit (run) or rank (set)
                if _fits(cs, c, rules):
                    cs.append(c)
                    kinds[k] = _kinds(cs)
                    rest.remove(c)
                    changed = True
                    break
        counts = np.zeros(NFACES, dtype=np.int64)
        for c in rest:
            if not C.is_joker(c):
                counts[_face(c)] += 1
        ok = (cat.jokers == 0) & (cat.mat <= counts).all(axis=1)
        if ok.any():
            sizes = np.where(ok, cat.size, -1)
            t = int(np.argmax(sizes))
            meld: list[int] = []
            for f in np.nonzero(cat.mat[t])[0]:
                for _ in range(int(cat.mat[t, f])):
                    c = next(c for c in rest if _face(c) == f)
                    rest.remove(c)
                    meld.append(c)
            arr.append((meld, None))
            kinds.append(_kinds(meld))
            changed = True
        if not changed:
            break
    return arr


# ---------------------------------------------------------------------------- the IP


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


# ---------------------------------------------------------------------------- template model


@dataclass
class _TplCols:
    x: list[int]
    y: dict[tuple[int, int], int]  # (selected template, face) -> column
    z: dict[tuple[int, int], int]  # (selected template, old meld index) -> column


def _build_tpl(p: _Problem, placed: int | None) -> tuple[_Model, _TplCols]:
    """The template model (used when jokers are in play). Phase 1 (placed None):
    the most cards down; phase 2: that many cards down, the most kept together."""
    cat = _catalogue(p.rules)
    m = _Model()
    inf = float("inf")
    face_row = [m.row(float(p.tcount[f]), float(p.tcount[f] + p.hcount[f])) for f in range(NFACES)]
    joker_row = m.row(float(p.tcount[JOKER]), float(p.tcount[JOKER] + p.hcount[JOKER]))
    total_table = int(p.tcount.sum())
    phase1 = placed is None
    placed_row = -1 if placed is None else m.row(float(total_table + placed),
                                                  float(total_table + placed))
    meld_row = {} if phase1 else {k: m.row(0.0, 1.0) for k in range(len(p.mids))}
    cols = _TplCols([], {}, {})
    for i, t in enumerate(p.sel):
        t = int(t)
        size = int(cat.size[t])
        entries: list[tuple[int, float]] = [
            (face_row[int(f)], float(cat.mat[t, f])) for f in np.nonzero(cat.mat[t])[0]]
        if cat.jokers[t]:
            entries.append((joker_row, float(cat.jokers[t])))
        if placed_row >= 0:
            entries.append((placed_row, float(size)))
        cap_row = -1
        if p.yfaces[i]:
            cap_row = m.row(-inf, 0.0)
            entries.append((cap_row, -float(cat.jcap[t])))
        wz = [] if phase1 else [int(k) for k in np.nonzero(p.matchable[i])[0]]
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
        cols.x.append(m.col(float(size) if phase1 else 0.0, 0.0, float(p.ub[i]), True, entries))
        for f in p.yfaces[i]:
            ye = [(face_row[f], -1.0), (joker_row, 1.0), (cap_row, 1.0)]
            if f in mrows:
                ye.append((mrows[f], 1.0))
            cols.y[(i, f)] = m.col(0.0, 0.0, float(int(cat.mat[t, f]) * int(p.ub[i])), True, ye)
        for k in wz:
            cols.z[(i, k)] = m.col(float(p.weights[i, k]), 0.0, 1.0, False,
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


# ---------------------------------------------------------------------------- flow model
#
# Without jokers, runs that inherit no id need no template: per suit, runs are a
# flow over the rank positions (13 in a circle for wrap, 13 or 14 in a line
# otherwise; position 13 is the ace played high). At position q, n[q] runs start,
# a3[q] runs are three cards long or longer, e[q] of those end there:
#     a3[q] = n[q-2] + a3[q-1] - e[q-1],   e[q] <= a3[q],
# and the cards of the suit's face at q are n[q] + n[q-1] + a3[q]. Any run of
# three or more cards is allowed (a longer one than rules.longest_run is cut into
# pieces, all of them still runs since the limit is at least 5). Sets are set
# templates; melds that inherit an old id are explicit template copies z[t, m].


def _flow_ok(p: _Problem) -> bool:
    limit = p.rules.longest_run
    return not p.with_jokers and (limit is None or limit >= 5)


def _positions(rules: RuleSet) -> tuple[int, bool]:
    if rules.ace_mode is AceMode.WRAP:
        return 13, True
    return (13 if rules.ace_mode is AceMode.LOW_ONLY else 14), False


@dataclass
class _FlowCols:
    n: dict[tuple[int, int], int] = field(default_factory=dict)  # (suit, position) -> column
    a3: dict[tuple[int, int], int] = field(default_factory=dict)
    e: dict[tuple[int, int], int] = field(default_factory=dict)
    sets: dict[int, int] = field(default_factory=dict)  # selected set template -> column
    z: dict[tuple[int, int], int] = field(default_factory=dict)  # (selected, old meld index)


def _flow_suit(m: _Model, cols: _FlowCols, s: int, face_row: list[int], npos: int,
               cyclic: bool, packs: float, phase1: bool, placed_row: int) -> None:
    """The run flow of suit ``s`` (see above)."""

    def face(q: int) -> int:
        return face_row[s * 13 + q % 13]

    def extra(cards: int) -> list[tuple[int, float]]:
        return [(placed_row, float(cards))] if placed_row >= 0 else []

    # cons[q]: a3[q] - n[q-2] - a3[q-1] + e[q-1] = 0; in a line cons[npos] closes all.
    cons: dict[int, int] = {}
    for q in range(npos + (0 if cyclic else 1)):
        if cyclic or q >= 2:
            cons[q] = m.row(0.0, 0.0)

    def crow(q: int) -> int:
        return cons[q % npos] if cyclic else cons[q]

    for q in range(npos):
        if cyclic or q <= npos - 3:  # a run starting here has room for three cards
            cols.n[(s, q)] = m.col(2.0 if phase1 else 0.0, 0.0, packs, True,
                                   [(face(q), 1.0), (face(q + 1), 1.0), (crow(q + 2), -1.0)]
                                   + extra(2))
        if cyclic or q >= 2:
            cap = m.row(-float("inf"), 0.0)
            cols.a3[(s, q)] = m.col(1.0 if phase1 else 0.0, 0.0, packs, True,
                                    [(face(q), 1.0), (crow(q), 1.0), (crow(q + 1), -1.0),
                                     (cap, -1.0)] + extra(1))
            cols.e[(s, q)] = m.col(0.0, 0.0, packs, True, [(crow(q + 1), 1.0), (cap, 1.0)])


def _build_flow(p: _Problem, placed: int | None) -> tuple[_Model, _FlowCols]:
    cat = _catalogue(p.rules)
    m = _Model()
    face_row = [m.row(float(p.tcount[f]), float(p.tcount[f] + p.hcount[f])) for f in range(NFACES)]
    total_table = int(p.tcount.sum())
    phase1 = placed is None
    placed_row = -1 if placed is None else m.row(float(total_table + placed),
                                                  float(total_table + placed))
    cols = _FlowCols()
    npos, cyclic = _positions(p.rules)
    packs = float(p.rules.packs)

    def extra(cards: int) -> list[tuple[int, float]]:
        return [(placed_row, float(cards))] if placed_row >= 0 else []

    for s in range(4):
        _flow_suit(m, cols, s, face_row, npos, cyclic, packs, phase1, placed_row)
    assert face_row == list(range(NFACES))  # face f is row f
    for i, t in enumerate(p.sel):
        t = int(t)
        if not cat.is_run[t]:
            size = int(cat.size[t])
            entries = [(int(f), float(v)) for f, v in zip(cat.faces[t], cat.mults[t]) if f >= 0]
            cols.sets[i] = m.col(float(size) if phase1 else 0.0, 0.0, float(p.ub[i]), True,
                                 entries + extra(size))
    if phase1 or not p.mids:
        return m, cols
    first_meld_row = len(m.rlb)
    for _ in p.mids:
        m.row(0.0, 1.0)
    pi, pk = np.nonzero(p.matchable)
    if not len(pi):
        return m, cols
    t = p.sel[pi]
    index = np.concatenate([cat.faces[t], np.full((len(pi), 1), placed_row),
                            (first_meld_row + pk)[:, None]], axis=1)
    value = np.concatenate([cat.mults[t], cat.size[t][:, None], np.ones((len(pi), 1))],
                           axis=1).astype(np.float64)
    made = m.block(p.weights[pi, pk].astype(np.float64), 1.0, True, index, value)
    cols.z = dict(zip(zip(pi.tolist(), pk.tolist()), made))
    return m, cols


def _flow_runs(npos: int, cyclic: bool, n: dict[int, int], a3: dict[int, int],
               e: dict[int, int]) -> list[list[int]]:
    """Runs (position sequences) carrying integer flow values."""

    class Run:
        def __init__(self, age: int, ph: bool) -> None:
            self.pos: list[int] = []
            self.age = age
            self.ph = ph  # began as a run entering position 0 from the end (circle)
            self.next: Run | None = None

    def sweep(order: list[int], active: list[Run]) -> tuple[list[Run], list[Run]]:
        closed: list[Run] = []
        for q in order:
            for r in active:
                r.pos.append(q)
                r.age += 1
            for _ in range(n.get(q, 0)):
                r = Run(1, False)
                r.pos.append(q)
                active.append(r)
            k = e.get(q, 0)
            ending = [r for r in active if r.age >= 3][:k]
            for r in ending:
                active.remove(r)
                closed.append(r)
        return closed, active

    if not cyclic:
        closed, left = sweep(list(range(npos)), [])
        return [r.pos for r in closed + left]
    crossing = [n.get((q - 1) % npos, 0) + a3.get(q, 0) for q in range(npos)]
    if 0 in crossing:
        q0 = crossing.index(0)
        closed, left = sweep([(q0 + i) % npos for i in range(npos)], [])
        return [r.pos for r in closed + left]
    entering2 = [Run(1, True) for _ in range(n.get(npos - 1, 0))]
    entering3 = [Run(2, True) for _ in range(a3.get(0, 0))]
    closed, left = sweep(list(range(npos)), entering2 + entering3)
    young = [r for r in left if r.age == 1]
    old = [r for r in left if r.age >= 2]
    for r, ph in zip(young, entering2):
        r.next = ph
    for r, ph in zip(old, entering3):
        r.next = ph
    runs = closed + left
    out: list[list[int]] = []
    seen: set[int] = set()
    for r in runs:
        if r.ph or id(r) in seen:
            continue
        seq: list[int] = []
        cur: Run | None = r
        while cur is not None and id(cur) not in seen:
            seen.add(id(cur))
            seq.extend(cur.pos)
            cur = cur.next
        out.append(seq)
    for r in runs:  # rings: every piece began as an entering run
        if id(r) in seen:
            continue
        seq = []
        cur = r
        while cur is not None and id(cur) not in seen:
            seen.add(id(cur))
            seq.extend(cur.pos)
            cur = cur.next
        out.append(seq)
    return out


def _split(seq: list[int], limit: int | None) -> list[list[int]]:
    if limit is None or len(seq) <= limit:
        return [seq]
    k = -(-len(seq) // limit)
    sizes = [len(seq) // k + (1 if i < len(seq) % k else 0) for i in range(k)]
    out, at = [], 0
    for size in sizes:
        out.append(seq[at:at + size])
        at += size
    return out


def _copies_flow(p: _Problem, cols: _FlowCols, values: list[float]) -> list[_Copy]:
    cat = _catalogue(p.rules)
    out: list[_Copy] = []
    npos, cyclic = _positions(p.rules)

    def val(c: int) -> int:
        return round(values[c])

    for s in range(4):
        n = {q: val(c) for (ss, q), c in cols.n.items() if ss == s and val(c)}
        a3 = {q: val(c) for (ss, q), c in cols.a3.items() if ss == s and val(c)}
        e = {q: val(c) for (ss, q), c in cols.e.items() if ss == s and val(c)}
        for seq in _flow_runs(npos, cyclic, n, a3, e):
            for piece in _split(seq, p.rules.longest_run):
                out.append((Counter(s * 13 + q % 13 for q in piece), 0, None))
    for i, c in cols.sets.items():
        for _ in range(val(c)):
            out.append(_template_copy(cat, int(p.sel[i])))
    for (i, k), c in cols.z.items():
        if values[c] > 0.5:
            out.append(_template_copy(cat, int(p.sel[i]), None, p.mids[k]))
    return out


# ---------------------------------------------------------------------------- running HiGHS


@dataclass
class _Run:
    status: str  # "optimal", "infeasible", "stopped"
    values: list[float] | None
    objective: float


def _run(model: _Model, budget_left: Callable[[], float],
         start: list[tuple[int, float]] | None = None) -> _Run:
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
    h.setOptionValue("time_limit", max(budget_left(), 1e-3))
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


def _lp(model: _Model, budget_left: Callable[[], float],
        first: Sequence[bool] | None = None) -> tuple[float, list[float], list[float]] | None:
    """The linear relaxation: (objective, values, reduced costs), or None.

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
        h.setOptionValue("time_limit", max(budget_left(), 1e-3))
        h.run()
        if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
            return None
        sol = h.getSolution()
        y = np.array(sol.row_dual, dtype=np.float64)
        dual = cost - np.bincount(col_of, weights=value * y[index], minlength=n)
        enter = np.nonzero(~inside & (dual > 1e-7))[0]
        if not len(enter):
            break
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
    return float(h.getInfo().objective_function_value), values, dual.tolist()


def _solve_ip(model: _Model, known: float, budget_left: Callable[[], float],
              start: list[tuple[int, float]] | None = None,
              first: Sequence[bool] | None = None) -> _Run:
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
    relax = _lp(model, budget_left, first)
    if relax is None:  # infeasible, or out of time
        if budget_left() <= 0:
            return _Run("stopped", None, 0.0)
        return _run(model, budget_left, start)
    bound, values, dual = relax
    if all(abs(v - round(v)) < 1e-6 for v, integer in zip(values, model.integer) if integer):
        return _Run("optimal", values if bound > known + 0.5 else None, bound)
    g = int(np.floor(bound + 1e-6))
    best: list[float] | None = None
    worth = known
    while g > worth:
        if budget_left() <= 0:
            return _Run("stopped", best, worth)
        keep = [j for j in range(len(model.cost))
                if not model.integer[j] or values[j] > 1e-9 or bound + dual[j] >= g - 1e-6]
        sub = model.subset(keep)
        pos = {j: k for k, j in enumerate(keep)}
        hint = start if best is None else list(enumerate(best))
        r = _run(sub, budget_left, [(pos[j], v) for j, v in hint or () if j in pos])
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


# ---------------------------------------------------------------------------- realising


def _face_matrix(items: Sequence[tuple[Counter[int], int]]) -> IntArray:
    out = np.zeros((len(items), NFACES + 1), dtype=np.int64)
    for k, (need, jk) in enumerate(items):
        for f, c in need.items():
            out[k, f] = c
        out[k, JOKER] = jk
    return out


def _greedy_match(p: _Problem, copies: list[_Copy]) -> list[_Copy]:
    """Old ids for the copies, biggest overlaps first (for answers found before phase 2)."""
    a = _face_matrix([(need, jk) for need, jk, _ in copies])
    b = _face_matrix([(Counter(_face(c) for c in p.table[mid]), 0) for mid in p.mids])
    w = np.minimum(a[:, None, :], b[None, :, :]).sum(axis=2)
    ks, js = np.nonzero(w)
    order = np.argsort(-w[ks, js], kind="stable")
    ids: dict[int, int] = {}
    used: set[int] = set()
    for o in order:
        k, j = int(ks[o]), int(js[o])
        if k not in ids and j not in used:
            ids[k] = p.mids[j]
            used.add(j)
    return [(need, jk, ids.get(k)) for k, (need, jk, _) in enumerate(copies)]


def _rematch(p: _Problem, copies: list[_Copy]) -> list[_Copy]:
    """Give the copies the old ids of a matching that keeps the most table cards
    together (all overlaps count, one card included): a max-weight bipartite
    matching, solved as a linear program (totally unimodular: a simplex vertex is
    integral). Keeps the copies' own ids when that fails."""
    olds = [(mid, Counter(_face(c) for c in p.table[mid])) for mid in p.mids]
    pairs: list[tuple[int, int, int]] = []
    for k, (need, jk, _) in enumerate(copies):
        for j, (_, have) in enumerate(olds):
            w = sum(min(c, have[f]) for f, c in need.items()) + min(jk, have[JOKER])
            if w > 0:
                pairs.append((k, j, w))
    if not pairs:
        return [(need, jk, None) for need, jk, _ in copies]
    mdl = _Model()
    crow = {k: mdl.row(0.0, 1.0) for k in {k for k, _, _ in pairs}}
    orow = {j: mdl.row(0.0, 1.0) for j in {j for _, j, _ in pairs}}
    for k, j, w in pairs:
        mdl.col(float(w), 0.0, 1.0, False, [(crow[k], 1.0), (orow[j], 1.0)])
    h = _new_highs()
    mdl.run(h)
    h.setOptionValue("solver", "simplex")
    h.run()
    if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        return copies
    vals = list(h.getSolution().col_value)
    if any(1e-6 < v < 1 - 1e-6 for v in vals):
        return copies
    ids: dict[int, int] = {k: olds[j][0] for (k, j, _), v in zip(pairs, vals) if v > 0.5}
    return [(need, jk, ids.get(k)) for k, (need, jk, _) in enumerate(copies)]


def _realize(p: _Problem, copies: list[_Copy]) -> _Arr | None:
    """Physical cards for each copy: an old meld's own cards go to the copy that
    inherits its id, then the other table cards, then hand cards. None when the
    copies cannot hold exactly the table cards plus some hand cards."""
    out: list[list[int]] = [[] for _ in copies]
    left = [Counter(need) for need, _, _ in copies]
    for k, (_, jk, _) in enumerate(copies):
        if jk:
            left[k][JOKER] = jk
    wants: dict[int, list[int]] = {}
    for k, need in enumerate(left):
        for f in need:
            wants.setdefault(f, []).append(k)
    taken: set[int] = set()

    def put(k: int, c: int, f: int) -> bool:
        if left[k][f] <= 0:
            return False
        left[k][f] -= 1
        out[k].append(c)
        taken.add(c)
        return True

    for k, (_, _, mid) in enumerate(copies):
        if mid is not None:
            for c in p.table.get(mid, []):
                put(k, c, _face(c))
    for pool in (sorted(c for cs in p.table.values() for c in cs), list(p.hand)):
        for c in pool:
            if c in taken:
                continue
            f = _face(c)
            for k in wants.get(f, ()):
                if put(k, c, f):
                    break
    if any(v > 0 for need in left for v in need.values()):
        return None
    if any(c not in taken for cs in p.table.values() for c in cs):
        return None
    return [(out[k], copies[k][2]) for k in range(len(copies))]


# ---------------------------------------------------------------------------- plans


def _order_adds(base: list[int], extra: list[int], rules: RuleSet) -> list[int]:
    """Cards to add one by one, each keeping the meld valid where that is possible."""
    cur = list(base)
    rest = list(extra)
    out: list[int] = []
    while rest:
        pick = next((c for c in rest if is_valid(cur + [c], rules)), rest[0])
        rest.remove(pick)
        cur.append(pick)
        out.append(pick)
    return out


def _plan(arr: _Arr, origin: dict[int, int], next_id: int, rules: RuleSet
          ) -> tuple[list[Step], list[int]]:
    """The steps that carry out ``arr``, and the final id of each of its melds."""
    _, moved = _score(arr, origin)
    ids: list[int | None] = [mid for _, mid in arr]
    plan: list[Step] = []
    if moved == 0:
        for cards, mid in arr:
            if mid is None:
                continue
            old = [c for c in cards if c in origin]
            new = [c for c in cards if c not in origin]
            for c in _order_adds(old, new, rules):
                plan.append(("add", c, mid))
        lays = [k for k, (_, mid) in enumerate(arr) if mid is None]
        for k in lays:
            for c in arr[k][0]:
                plan.append(("stage", c))
        for k in lays:
            plan.append(("lay", list(arr[k][0])))
            ids[k] = next_id
            next_id += 1
        return plan, [int(i) for i in ids if i is not None]
    for cards, _ in arr:
        for c in cards:
            if c not in origin:
                plan.append(("stage", c))
    for k, (cards, _mid) in enumerate(arr):
        for c in cards:
            if c in origin and origin[c] != ids[k]:
                if ids[k] is None:
                    plan.append(("move", c, origin[c], "new"))
                    ids[k] = next_id
                    next_id += 1
                else:
                    plan.append(("move", c, origin[c], ids[k]))
    for k, (cards, _) in enumerate(arr):
        if ids[k] is None:
            plan.append(("lay", list(cards)))
            ids[k] = next_id
            next_id += 1
    for k, (cards, mid) in enumerate(arr):
        if mid is None and all(c not in origin for c in cards):
            continue  # laid whole
        for c in cards:
            if c not in origin:
                plan.append(("place", c, ids[k]))
    return plan, [int(i) for i in ids if i is not None]


def plan_commands(plan: Sequence[Step], player: str) -> list[Command]:
    """The plan as engine commands for ``player`` (cards named by their faces)."""
    out: list[Command] = []
    for step in plan:
        do = step[0]
        if do == "add":
            out.append(Command(player, "add", card=C.name(step[1]), meld=step[2]))
        elif do == "stage":
            out.append(Command(player, "stage", card=C.name(step[1])))
        elif do == "move":
            out.append(Command(player, "move", card=C.name(step[1]), meld=step[2], to=step[3]))
        elif do == "place":
            out.append(Command(player, "place", card=C.name(step[1]), meld=step[2]))
        elif do == "lay":
            out.append(Command(player, "lay", cards=tuple(C.name(c) for c in step[1])))
        else:
            raise ValueError(f"unknown plan step {step!r}")
    return out


# ---------------------------------------------------------------------------- the solver


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
