"""The solver: flow model (see ``solver/__init__.py``)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from engine.rules import AceMode, RuleSet

from .base import JOKER, NFACES
from .model import _Copy, _face_gain, _match_arrays, _Model, _Problem, _template_copy
from .templates import _catalogue, face_worth

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


def _flow_ok(rules: RuleSet) -> bool:
    """The flow model serves these rules: a run longer than the limit splits into runs."""
    limit = rules.longest_run
    return limit is None or limit >= 5


def _positions(rules: RuleSet) -> tuple[int, bool]:
    if rules.ace_mode is AceMode.WRAP:
        return 13, True
    return (14 if rules.ace_mode is AceMode.LOW_OR_HIGH else 13), False


@dataclass
class _FlowCols:
    n: dict[tuple[int, int], int] = field(default_factory=dict)  # (suit, position) -> column
    a3: dict[tuple[int, int], int] = field(default_factory=dict)
    e: dict[tuple[int, int], int] = field(default_factory=dict)
    sets: dict[int, int] = field(default_factory=dict)  # selected set template -> column
    z: dict[tuple[int, int], int] = field(default_factory=dict)  # (selected, old meld index)


def _flow_suit(m: _Model, cols: _FlowCols, s: int, face_row: list[int], npos: int,
               cyclic: bool, packs: float, phase1: bool, gain_rows: list[int],
               p: _Problem) -> None:
    """The run flow of suit ``s`` (see above). ``gain_rows``: rows summing the
    objective's gain (phase 2's fixed value), or C17 worth (the opening)."""

    def face(q: int) -> int:
        return face_row[s * 13 + q % 13]

    def gain(*qs: int) -> float:
        return sum(_face_gain(p, s * 13 + q % 13) for q in qs)

    def extra(*qs: int) -> list[tuple[int, float]]:
        return [(r, gain(*qs) if w else sum(float(face_worth(s * 13 + q % 13)) for q in qs))
                for r, w in zip(gain_rows, (True, False)) if r >= 0]

    # cons[q]: a3[q] - n[q-2] - a3[q-1] + e[q-1] = 0; in a line cons[npos] closes all.
    cons: dict[int, int] = {}
    for q in range(npos + (0 if cyclic else 1)):
        if cyclic or q >= 2:
            cons[q] = m.row(0.0, 0.0)

    def crow(q: int) -> int:
        return cons[q % npos] if cyclic else cons[q]

    for q in range(npos):
        if cyclic or q <= npos - 3:  # a run starting here has room for three cards
            cols.n[(s, q)] = m.col(gain(q, q + 1) if phase1 else 0.0, 0.0, packs, True,
                                   [(face(q), 1.0), (face(q + 1), 1.0), (crow(q + 2), -1.0)]
                                   + extra(q, q + 1))
        if cyclic or q >= 2:
            cap = m.row(-float("inf"), 0.0)
            cols.a3[(s, q)] = m.col(gain(q) if phase1 else 0.0, 0.0, packs, True,
                                    [(face(q), 1.0), (crow(q), 1.0), (crow(q + 1), -1.0),
                                     (cap, -1.0)] + extra(q))
            cols.e[(s, q)] = m.col(0.0, 0.0, packs, True, [(crow(q + 1), 1.0), (cap, 1.0)])


def _build_flow(p: _Problem, target: float | None) -> tuple[_Model, _FlowCols]:
    """The flow model. Phase 1 (``target`` None): the most gain (cards or worth);
    phase 2: exactly ``target`` gain, the most table cards kept together. Jokers
    (when in play) sit only in sets and joker runs, one column per template."""
    cat = _catalogue(p.rules)
    m = _Model()
    face_row = [m.row(float(p.tcount[f]), float(p.tcount[f] + p.hcount[f])) for f in range(NFACES)]
    assert face_row == list(range(NFACES))  # face f is row f
    joker_row = -1
    if p.with_jokers:
        joker_row = m.row(float(p.tcount[JOKER]), float(p.tcount[JOKER] + p.hcount[JOKER]))
    phase1 = target is None
    # Rows of fixed sums: phase 2's gain (its coefficients are the gain), then the
    # opening's worth (C17); -1 where there is none.
    gain_row = -1 if target is None else m.row(target, target)
    worth_row = m.row(float(p.opening), float("inf")) if p.opening > 0 else -1
    gain_rows = [gain_row, worth_row]
    cols = _FlowCols()
    npos, cyclic = _positions(p.rules)
    packs = float(p.rules.packs)

    for s in range(4):
        _flow_suit(m, cols, s, face_row, npos, cyclic, packs, phase1, gain_rows, p)
    fixed = np.nonzero(~cat.is_run[p.sel] | (cat.jokers[p.sel] > 0))[0]  # sets, joker runs
    if len(fixed):
        t = p.sel[fixed]
        gain = cat.worth[t] if p.points else cat.size[t]
        parts, vals = [cat.faces[t]], [cat.mults[t]]
        for row, coef in ((gain_row, gain), (worth_row, cat.worth[t]),
                          (joker_row, cat.jokers[t])):
            if row >= 0:
                parts.append(np.where(coef > 0, row, -1)[:, None])
                vals.append(coef[:, None])
        made = m.block(gain.astype(np.float64) if phase1 else np.zeros(len(t)), 0.0, True,
                       np.concatenate(parts, axis=1),
                       np.concatenate(vals, axis=1).astype(np.float64),
                       p.ub[fixed].astype(np.float64))
        cols.sets = dict(zip(fixed.tolist(), made))
    if phase1 or not p.mids:
        return m, cols
    first_meld_row = len(m.rlb)
    for _ in p.mids:
        m.row(0.0, 1.0)
    weights, matchable = _match_arrays(p)
    pi, pk = np.nonzero(matchable)
    if not len(pi):
        return m, cols
    t = p.sel[pi]
    gains = cat.worth[t] if p.points else cat.size[t]
    parts = [cat.faces[t], np.full((len(pi), 1), gain_row), (first_meld_row + pk)[:, None]]
    vals = [cat.mults[t], gains[:, None], np.ones((len(pi), 1), dtype=np.int64)]
    if worth_row >= 0:
        parts.append(np.full((len(pi), 1), worth_row))
        vals.append(cat.worth[t][:, None])
    if joker_row >= 0:
        parts.append(np.where(cat.jokers[t] > 0, joker_row, -1)[:, None])
        vals.append(cat.jokers[t][:, None])
    index = np.concatenate(parts, axis=1)
    value = np.concatenate(vals, axis=1).astype(np.float64)
    made = m.block(weights[pi, pk].astype(np.float64), 1.0, True, index, value)
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
