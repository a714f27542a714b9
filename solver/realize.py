"""The solver: realising (see ``solver/__init__.py``)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import highspy
import numpy as np

from .base import JOKER, NFACES, IntArray
from .greedy import _Arr, _face
from .model import _Copy, _Model, _new_highs, _Problem


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
