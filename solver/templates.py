"""The solver: templates and joker faces (see ``solver/__init__.py``; C5–C9, C17)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
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
    """Every meld template of a rule set, as arrays over the 52 faces.

    Rows: run windows without jokers (``jcap`` joker slots for the template model),
    then sets (``jokers`` of them jokers), then joker runs (``pattern``): a run whose
    jokers sit at fixed places, ``jokers`` of them, standing for ``jface``."""

    mat: IntArray  # (K, 52) copies of each face in one meld
    size: IntArray  # (K,) cards in one meld, jokers included
    jokers: IntArray  # (K,) joker cards a set or joker-run template holds
    jcap: IntArray  # (K,) face slots jokers may fill in a run window (template model)
    is_run: npt.NDArray[np.bool_]
    pattern: npt.NDArray[np.bool_]  # (K,) a joker run (fixed joker places)
    worth: IntArray  # (K,) C17 worth: A 1, 2-10 face, J Q K 10, a joker its card
    faces: IntArray  # (K, W) the faces of each template, padded with -1
    mults: IntArray  # (K, W) their copies, padded with 0
    layers: tuple[npt.NDArray[np.float32], ...]  # [v-1]: (K, 52) 1 where mat >= v


def face_worth(face: int) -> int:
    """C17's worth of a face 0..51: ace 1, 2–10 their number, J Q K 10."""
    return min(face % 13 + 1, 10)


def _run_length_cap(rules: RuleSet) -> int:
    full = 13 * rules.packs if rules.ace_mode is AceMode.WRAP else (
        14 if rules.ace_mode is AceMode.LOW_OR_HIGH else 13)
    return full if rules.longest_run is None else min(full, rules.longest_run)


def joker_limit(rules: RuleSet) -> int:
    """The most jokers one meld may hold under ``rules`` (C7; a None cap is the jokers
    in the deck)."""
    cap = rules.most_jokers_per_meld
    return rules.jokers if cap is None else min(cap, rules.jokers)


def _valid_pattern(jokers: int, length: int, fewest: int) -> bool:
    return length >= 3 and (jokers == 0 or length - jokers >= fewest)


@lru_cache(maxsize=16)
def _irreducible(fewest: int, most: int, longest: int) -> list[tuple[int, tuple[int, ...]]]:
    """Joker places (0-based) in runs that no cut splits into two valid runs (C7: at
    least ``fewest`` real cards beside a joker, at most ``most`` jokers). Any valid run
    is such joker runs and runs without jokers side by side, so the models need only
    these (runs without jokers are flows or windows). Items: (length, places)."""
    out: list[tuple[int, tuple[int, ...]]] = []
    for length in range(3, longest + 1):
        for k in range(1, min(most, length) + 1):
            if not _valid_pattern(k, length, fewest):
                continue
            for places in combinations(range(length), k):
                cuts = (sum(1 for q in places if q < cut) for cut in range(3, length - 2))
                if not any(_valid_pattern(left, cut, fewest)
                           and _valid_pattern(k - left, length - cut, fewest)
                           for cut, left in zip(range(3, length - 2), cuts)):
                    out.append((length, places))
    return out


def place_jokers(suit: int, ranks: Counter[int], jokers: int, mode: AceMode,
                 keep: Mapping[int, int] | None = None, most_worth: bool = False
                 ) -> list[int] | None:
    """The faces (0..51) ``jokers`` jokers stand for in a run of ``suit`` with real
    ``ranks`` (1..13, with repeats), or None when no window holds them (C8).

    The window is the first (lowest, ``engine.melds.windows``' order: C8's default)
    that keeps the most wanted faces of ``keep`` (face → how many jokers want it; a
    joker that stays in its meld keeps its face); with ``most_worth`` the one worth
    most (C17) comes first. The list is in window order."""
    n = sum(ranks.values()) + jokers
    best: tuple[int, int] | None = None
    found: list[int] | None = None
    for seq in windows(n, mode):
        need = Counter(seq)
        if any(need[r] < c for r, c in ranks.items()):
            continue
        free = need - ranks
        fs = [suit * 13 + r - 1 for r in seq if free[r] > 0 and not free.subtract({r: 1})]
        kept = sum(min(c, Counter(fs)[f]) for f, c in (keep or {}).items())
        score = (sum(face_worth(f) for f in fs) if most_worth else 0, kept)
        if best is None or score > best:
            best, found = score, fs
    return found


def _catalogue(rules: RuleSet) -> _Catalogue:
    """The catalogue of ``rules``, cached on the fields melds depend on (hashing a
    whole rule set costs more, and tables made from options share catalogues)."""
    return _catalogue_of(rules.packs, rules.jokers, rules.ace_mode, rules.longest_run,
                         rules.most_jokers_per_meld, rules.fewest_real_cards)


@lru_cache(maxsize=32)
def _catalogue_of(packs: int, jokers_in_deck: int, ace_mode: AceMode, longest_run: int | None,
                  cap: int | None, fewest: int) -> _Catalogue:
    rules = RuleSet(name="catalogue", packs=packs, jokers=jokers_in_deck, ace_mode=ace_mode,
                    longest_run=longest_run, most_jokers_per_meld=cap, fewest_real_cards=fewest)
    fr = max(rules.fewest_real_cards, 1)
    jmax = joker_limit(rules)
    rows: list[list[int]] = []
    size: list[int] = []
    jokers: list[int] = []
    jcap: list[int] = []
    is_run: list[bool] = []
    pattern: list[bool] = []
    worth: list[int] = []
    seen: set[tuple[int, ...]] = set()

    def add(row: list[int], n: int, j: int, cap: int, run: bool, pat: bool, w: int) -> None:
        rows.append(row)
        size.append(n)
        jokers.append(j)
        jcap.append(cap)
        is_run.append(run)
        pattern.append(pat)
        worth.append(w)

    longest = _run_length_cap(rules)
    for s in range(4):
        for n in range(3, longest + 1):
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
                add(row, n, 0, min(jmax, n - fr), True, False,
                    sum(face_worth(s * 13 + r - 1) for r in window))
    for rank in range(1, 14):
        for k in range(fr, 5):
            for suits in combinations(range(4), k):
                for j in range(min(jmax, 4 - k) + 1):
                    if k + j < 3:
                        continue
                    row = [0] * NFACES
                    for s in suits:
                        row[s * 13 + rank - 1] = 1
                    add(row, k + j, j, 0, False, False, (k + j) * min(rank, 10))
    if jmax:
        runs_seen: set[tuple[tuple[int, ...], int]] = set()
        for s in range(4):
            for length, places in _irreducible(fr, jmax, longest):
                for window in windows(length, rules.ace_mode):
                    ranks = Counter(r for q, r in enumerate(window) if q not in places)
                    if max(ranks.values()) > rules.packs:
                        continue
                    row = [0] * NFACES
                    for r, c in ranks.items():
                        row[s * 13 + r - 1] = c
                    rkey = (tuple(row), len(places))
                    if rkey in runs_seen:
                        continue
                    runs_seen.add(rkey)
                    # Its worth: the best window's (jokers count their faces, C17), as
                    # place_jokers(most_worth=True) places them; a window this short
                    # holds each rank once.
                    have = frozenset(ranks)
                    w = max(sum(min(r, 10) for r in seq)
                            for seq in windows(length, rules.ace_mode) if have <= set(seq))
                    add(row, length, len(places), 0, True, True, w)
    mat = np.array(rows, dtype=np.int64).reshape(len(rows), NFACES)
    width = int((mat > 0).sum(axis=1).max()) if len(rows) else 0
    faces = np.full((len(rows), width), -1, dtype=np.int64)
    mults = np.zeros((len(rows), width), dtype=np.int64)
    for t in range(len(rows)):
        nz = np.nonzero(mat[t])[0]
        faces[t, :len(nz)] = nz
        mults[t, :len(nz)] = mat[t, nz]
    return _Catalogue(
        mat=mat,
        size=np.array(size, dtype=np.int64),
        jokers=np.array(jokers, dtype=np.int64),
        jcap=np.array(jcap, dtype=np.int64),
        is_run=np.array(is_run, dtype=np.bool_),
        pattern=np.array(pattern, dtype=np.bool_),
        worth=np.array(worth, dtype=np.int64),
        faces=faces,
        mults=mults,
        layers=tuple((mat >= v).astype(np.float32) for v in range(1, int(mat.max(initial=0)) + 1)),
    )


def templates(rules: RuleSet) -> list[tuple[list[int], int, int]]:
    """Every template as (faces with repeats, fixed jokers, joker slots allowed), for tests."""
    cat = _catalogue(rules)
    out = []
    for t in range(len(cat.size)):
        faces = [f for f in range(NFACES) for _ in range(int(cat.mat[t, f]))]
        out.append((faces, int(cat.jokers[t]), int(cat.jcap[t])))
    return out
