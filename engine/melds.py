"""Meld validity, run order and auto-split (§3, R3, R4, R5).

All functions take the cards (physical ids, any order) and a
:class:`~engine.rules.RuleSet`; nothing here is hard-coded to Machiavelox.
Results are cached by the multiset of faces, so judging a busy table stays
cheap.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from typing import Any

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
    return _place_run(cards, seq)


def _place_run(cards: Sequence[int], seq: tuple[int, ...]) -> list[int]:
    """The cards of a valid run laid along its rank sequence ``seq`` (R4, :func:`run_order`)."""
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


#: :func:`layout`'s answers by (cards as they lie, ace mode, joker cap, fewest real cards);
#: emptied past 65,536 entries.
_LAYOUTS: dict[tuple[tuple[int, ...], AceMode, int | None, int], tuple[int, ...] | None] = {}


def layout(cards: tuple[int, ...], rules: RuleSet) -> tuple[int, ...] | None:
    """:func:`display_order` of a valid meld, ``None`` when the cards are not one. Cached by
    the cards as they lie and the meld rules: the engine asks before every change of a meld
    (``engine.table``), and a busy table keeps coming back to the same melds."""
    key = (cards, rules.ace_mode, rules.most_jokers_per_meld, rules.fewest_real_cards)
    try:
        return _LAYOUTS[key]
    except KeyError:
        pass
    if len(_LAYOUTS) >= 65536:
        _LAYOUTS.clear()
    shown = _LAYOUTS[key] = _layout(*key)
    return shown


def _layout(cards: tuple[int, ...], mode: AceMode, cap: int | None,
            fewest: int) -> tuple[int, ...] | None:
    key = _face_key(cards)
    seq = _run_ranks(key, mode, cap, fewest)
    if seq is not None:
        return tuple(_place_run(cards, seq))
    if _is_set(key, cap, fewest):
        return tuple(sorted(cards, key=lambda c: (suit_of(c), c)))
    return None


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


# ------------------------------------------------------------------ why a meld is not valid

#: Every code :func:`explain` gives, with the parameters that come with it (faces in R1
#: notation). ``docs/rules.md`` 2.4 lists them with the rule each one names.
WHY_CODES: dict[str, tuple[str, ...]] = {
    "too_short": ("need",),              # fewer than 3 cards (§3)
    "too_many_jokers": ("most",),        # more jokers than the rules allow in a meld (C7)
    "too_few_real": ("need",),           # fewer real cards than the rules ask beside jokers (R5)
    "set_too_big": ("most",),            # a set holds at most 4 cards (§3.2)
    "set_duplicate_suit": ("card",),     # a set holds each suit once: ``card`` is the second
    "set_mixed_ranks": ("card",),        # a set is of one rank: ``card`` is of another
    "run_mixed_suits": ("card",),        # a run is of one suit: ``card`` is of another
    "run_duplicate": ("card",),          # a run holds each rank once: ``card`` is the second
    "run_too_long": ("most",),           # longer than any run the ace rule allows (R5)
    "run_ace_wrap": ("card",),           # K–A–2 only where the ace wraps (R3; not classic)
    "run_ace_high": ("card",),           # Q–K–A only where the ace may be high (C6)
    "run_gap": ("suit", "missing"),      # ranks missing between the cards (§3.1): rank
                                         # names (``"7"``, ``"Q"``) and the suit letter, not
                                         # faces: no card is named that is not on the table
    "not_a_meld": (),                    # none of the above (kept so a client always has words)
}

_LONGEST: dict[AceMode, int | None] = {AceMode.WRAP: None, AceMode.LOW: 13,
                                       AceMode.LOW_OR_HIGH: 14}


def _face(rank: int, suit: int) -> str:
    return _NAMES[rank] + "SHDC"[suit]


_NAMES = {1: "A", 11: "J", 12: "Q", 13: "K", **{r: str(r) for r in range(2, 11)}}


def _named(card: int) -> str:
    return "JK" if is_joker(card) else _face(rank_of(card), suit_of(card))


def _second(cards: Sequence[int], key: Callable[[int], int]) -> int | None:
    """The first card (in the order given) whose ``key`` an earlier card already had."""
    seen: set[int] = set()
    for c in cards:
        k = key(c)
        if k in seen:
            return c
        seen.add(k)
    return None


def _odd_one(cards: Sequence[int], key: Callable[[int], int]) -> int:
    """The first card whose ``key`` differs from the most common one (ties: the earliest)."""
    counts = Counter(key(c) for c in cards)
    best = max(counts.values())
    common = next(key(c) for c in cards if counts[key(c)] == best)
    return next(c for c in cards if key(c) != common)


def _explain_run(cards: Sequence[int], reals: Sequence[int], rules: RuleSet) -> dict[str, Any]:
    """Why cards of one suit (jokers aside) are not a run under ``rules`` (§3.1, R3, R5, C6)."""
    n = len(cards)
    longest = _LONGEST[rules.ace_mode]
    if longest is not None and n > longest:
        return {"why": "run_too_long", "most": longest}
    ranks = Counter(rank_of(c) for c in reals)
    if max(ranks.values()) > max(Counter(w).most_common(1)[0][1] for w in windows(n, rules.ace_mode)):
        dup = _second(reals, rank_of)
        assert dup is not None
        return {"why": "run_duplicate", "card": _named(dup)}
    key = _face_key(cards)
    cap, fewest = rules.most_jokers_per_meld, rules.fewest_real_cards
    ace = next((c for c in reals if rank_of(c) == 1), None)
    if ace is not None and rules.ace_mode is not AceMode.WRAP:
        if rules.ace_mode is AceMode.LOW and _run_ranks(key, AceMode.LOW_OR_HIGH, cap, fewest):
            return {"why": "run_ace_high", "card": _named(ace)}
        if _run_ranks(key, AceMode.WRAP, cap, fewest):
            return {"why": "run_ace_wrap", "card": _named(ace)}
    # The shortest window of ranks that holds every card: the ranks it has and they lack.
    suit = suit_of(reals[0])
    top = longest if longest is not None else 2 * 13
    for length in range(n, top + 1):
        for seq in windows(length, rules.ace_mode):
            need = Counter(seq)
            if all(need[r] >= k for r, k in ranks.items()):
                missing: list[str] = []
                left = Counter(ranks)
                for r in seq:
                    if left[r]:
                        left[r] -= 1
                    else:
                        missing.append(_NAMES[r])
                return {"why": "run_gap", "suit": "SHDC"[suit], "missing": missing}
    return {"why": "not_a_meld"}


def explain(cards: Sequence[int], rules: RuleSet) -> dict[str, Any] | None:
    """Why ``cards`` (physical ids, in the order they were put there) are not a valid meld
    under ``rules``, or ``None`` when they are one (exactly when :func:`is_valid` is true: it
    decides, this only explains).

    Returns ``{"why": code, ...}`` with a code of :data:`WHY_CODES` and its parameters, faces
    in R1 notation: ``{"why": "set_duplicate_suit", "card": "10S"}``, ``{"why": "run_gap",
    "suit": "H", "missing": ["7"]}``. A meld whose real cards share a rank is read as a set, one whose
    real cards share a suit as a run; with neither, as whichever more of its cards agree on
    (a tie: a set when its first two real cards share a rank), and the first card that
    disagrees is named. Jokers are checked first (C7, R5), then the shape (§3)."""
    if is_valid(cards, rules):
        return None
    n = len(cards)
    if n < 3:
        return {"why": "too_short", "need": 3}
    reals = [c for c in cards if not is_joker(c)]
    cap, fewest = rules.most_jokers_per_meld, rules.fewest_real_cards
    if cap is not None and n - len(reals) > cap:
        return {"why": "too_many_jokers", "most": cap}
    if len(reals) < max(fewest, 1):
        return {"why": "too_few_real", "need": max(fewest, 1)}
    by_rank = Counter(rank_of(c) for c in reals)
    by_suit = Counter(suit_of(c) for c in reals)
    if len(by_rank) == 1 or (len(by_suit) > 1 and _looks_like_set(reals, by_rank, by_suit)):
        if len(by_rank) > 1:
            return {"why": "set_mixed_ranks", "card": _named(_odd_one(reals, rank_of))}
        if n > 4:
            return {"why": "set_too_big", "most": 4}
        dup = _second(reals, suit_of)
        if dup is not None:
            return {"why": "set_duplicate_suit", "card": _named(dup)}
        return {"why": "not_a_meld"}
    if len(by_suit) > 1:
        return {"why": "run_mixed_suits", "card": _named(_odd_one(reals, suit_of))}
    return _explain_run(cards, reals, rules)


def _looks_like_set(reals: Sequence[int], by_rank: Counter[int], by_suit: Counter[int]) -> bool:
    """Mixed ranks and suits: read as a set when more cards share a rank than a suit (a tie:
    when the first two real cards share a rank)."""
    most_rank, most_suit = max(by_rank.values()), max(by_suit.values())
    if most_rank != most_suit:
        return most_rank > most_suit
    return len(reals) > 1 and rank_of(reals[0]) == rank_of(reals[1])
