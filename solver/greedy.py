"""The solver: helpers (see ``solver/__init__.py``)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from engine import cards as C
from engine.melds import is_valid
from engine.rules import RuleSet

from .base import JOKER, NFACES, TableIn
from .templates import _catalogue


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
