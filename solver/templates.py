"""The solver: templates (see ``solver/__init__.py``)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations

import numpy as np
import numpy.typing as npt

from engine.melds import windows
from engine.rules import AceMode, RuleSet

from .base import NFACES, IntArray


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
            for window in windows(n, rules.ace_mode):
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

