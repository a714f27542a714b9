"""Meld validity, run order and auto-split (§3, R3, R4, R5).

All functions take the cards (physical ids, any order) and a
:class:`~engine.rules.RuleSet`; nothing here is hard-coded to Machiavelox.
Results are cached by the multiset of faces, so judging a busy table stays
cheap.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from functools import lru_cache

from .cards import PACK_SIZE, is_joker, rank_of, suit_of
from .rules import AceMode, RuleSet


def _face_key(cards: Iterable[int]) -> tuple[int, ...]:
    # Jokers all share the key 52; the two copies of a face share a key.
    return tuple(sorted(52 if is_joker(c) else c % PACK_SIZE for c in cards))


@lru_cache(maxsize=256)
def windows(n: int, mode: AceMode) -> list[list[int]]:
    """Candidate rank sequences of length n, in the order R4 prefers (ace first). Cached:
    do not change the lists returned."""
    out: list[list[int]] = []
    if mode is AceMode.WRAP:
        for r in range(1, 14):
            out.append([(r - 1 + i) % 13 + 1 for i in range(n)])
    elif mode is AceMode.LOW:
        for r in range(1, 14 - n + 1):
            out.append(list(range(r, r + n)))
    else:  # LOW_OR_HIGH: values 1..14, 14 is the ace played high; A..K..A is the longest
        for r in range(1, 15 - n + 1):
            out.append([1 if v == 14 else v for v in range(r, r + n)])
    return out


def _jokers_allowed(jokers: int, reals: int, cap: int | None, fewest: int) -> bool:
    """C7, R5: no more jokers than ``cap`` (None: no cap) and at least ``fewest`` real cards
    (at least one even when ``fewest`` says 0)."""
    return (cap is None or jokers <= cap) and reals >= max(fewest, 1)


@lru_cache(maxsize=65536)
def _run_ranks(key: tuple[int, ...], mode: AceMode, cap: int | None,
               fewest: int) -> tuple[int, ...] | None:
    """The rank sequence (run order) of a valid run with these faces, or None. Keyed on the
    meld rules alone (ace mode, joker cap, fewest real cards), not the whole rule set."""
    n = len(key)
    if n < 3:
        return None
    reals = [k for k in key if k != 52]
    if not _jokers_allowed(n - len(reals), len(reals), cap, fewest):
        return None
    if len({k // 13 for k in reals}) != 1:
        return None
    have = Counter(k % 13 + 1 for k in reals)
    for seq in windows(n, mode):
        need = Counter(seq)
        if all(need[r] >= c for r, c in have.items()):
            return tuple(seq)
    return None


@lru_cache(maxsize=65536)
def _is_set(key: tuple[int, ...], cap: int | None, fewest: int) -> bool:
    n = len(key)
    if n < 3 or n > 4:
        return False
    reals = [k for k in key if k != 52]
    if not _jokers_allowed(n - len(reals), len(reals), cap, fewest):
        return False
    if len({k % 13 for k in reals}) != 1:
        return False
    return len({k // 13 for k in reals}) == len(reals)


def is_run(cards: Sequence[int], rules: RuleSet) -> bool:
    """True when ``cards`` form a valid run under ``rules`` (§3.1, R3, R5)."""
    return _run_ranks(_face_key(cards), rules.ace_mode, rules.most_jokers_per_meld,
                      rules.fewest_real_cards) is not None


def is_set(cards: Sequence[int], rules: RuleSet) -> bool:
    """True when ``cards`` form a valid set: 3 or 4 of one rank, distinct suits (§3.2)."""
    return _is_set(_face_key(cards), rules.most_jokers_per_meld, rules.fewest_real_cards)


def is_valid(cards: Sequence[int], rules: RuleSet) -> bool:
    """True when ``cards`` are a valid meld (a run or a set) under ``rules``."""
    key = _face_key(cards)
    cap, fewest = rules.most_jokers_per_meld, rules.fewest_real_cards
    return _run_ranks(key, rules.ace_mode, cap, fewest) is not None or _is_set(key, cap, fewest)


def run_order(cards: Sequence[int], rules: RuleSet) -> list[int] | None:
    """The cards of a valid run in run order (R4), or ``None`` if not a run.

    The run is the sequence r, r+1, … that uses exactly its cards; where several
    r fit (every rank equally often), r is the ace. Jokers stand where the
    sequence needs them. Of two cards of one face, the lower id comes first.
    """
    seq = _run_ranks(_face_key(cards), rules.ace_mode, rules.most_jokers_per_meld,
                     rules.fewest_real_cards)
    if seq is None:
        return None
    pool: dict[int, list[int]] = {}
    jokers: list[int] = []
    for c in sorted(cards):
        if is_joker(c):
            jokers.append(c)
        else:
            pool.setdefault(rank_of(c), []).append(c)
    need = Counter(seq)
    out: list[int] = []
    for r in seq:
        # Use a real card where the run still needs more of this rank than jokers fill.
        if pool.get(r):
            if len(pool[r]) >= need[r] or not jokers:
                out.append(pool[r].pop(0))
            else:
                out.append(jokers.pop(0))
            need[r] -= 1
        else:
            out.append(jokers.pop(0))
            need[r] -= 1
    return out


def display_order(cards: Sequence[int], rules: RuleSet) -> list[int]:
    """How the server shows a meld: runs in run order, sets by suit, others as they lie."""
    ordered = run_order(cards, rules)
    if ordered is not None:
        return ordered
    if is_set(cards, rules):
        return sorted(cards, key=lambda c: (suit_of(c), c))
    return list(cards)


def split_run(cards: Sequence[int], rules: RuleSet) -> list[list[int]]:
    """Auto-split (§3.1, R4): a valid run longer than ``rules.longest_run`` in pieces.

    The first ⌈n/2⌉ cards in run order form the first piece, the rest the
    second; repeated while a piece is still too long, pieces kept in the
    order they were made (the first piece keeps the meld's id). A meld that
    needs no split comes back as one piece.
    """
    limit = rules.longest_run
    ordered = run_order(cards, rules)
    if limit is None or ordered is None or len(ordered) <= limit:
        return [list(cards)]
    pieces = [ordered]
    changed = True
    while changed:
        changed = False
        for i, piece in enumerate(pieces):
            if len(piece) > limit:
                half = (len(piece) + 1) // 2
                pieces[i : i + 1] = [piece[:half], piece[half:]]
                changed = True
                break
    return pieces
