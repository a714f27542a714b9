"""Jokers on a classic table (C8–C11, C17): the faces they stand for, judged melds, defaults.

A joker on the table carries a *face* (``int`` 0..51, ``suit * 13 + rank - 1``, the card it
stands for in a run) or ``None``. Faces count only while the meld is a run (C9): a meld is
judged as a set whatever its jokers' faces. An ace face fits either end of a run (C8).

All functions are pure: ``cards`` are card ids in the meld's arrival order, ``faces`` maps
each joker id there to its face (a joker missing from ``faces`` has none).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from .. import cards as C
from ..melds import is_run, is_set, windows
from ..rules import RuleSet

Faces = Mapping[int, "int | None"]


def face_index(card: int) -> int:
    """The face (0..51) of a real card id, whatever its pack."""
    return card % C.PACK_SIZE


def face_text(face: int) -> str:
    """A face index in R1 notation (``19`` → ``7H``)."""
    return C.format_face((face % 13 + 1, face // 13))


def parse_joker(text: str) -> tuple[bool, int | None]:
    """Read ``JK``, ``JK=7H`` or a real face: ``(is_joker, face or None)``; for a real card the
    face is its index. Raises :class:`~engine.cards.NotationError` for anything else."""
    t = text.strip().upper() if isinstance(text, str) else text
    if isinstance(t, str) and "=" in t:
        head, _, tail = t.partition("=")
        if C.parse_face(head)[0] != 0:
            raise C.NotationError(f"'{text}': only a joker stands for a face (JK=7H)")
        rank, suit = C.parse_face(tail)
        if rank == 0:
            raise C.NotationError(f"'{text}': a joker stands for a real card, like JK=7H")
        return True, suit * 13 + rank - 1
    rank, suit = C.parse_face(t)
    if rank == 0:
        return True, None
    return False, suit * 13 + rank - 1


def _run_window(cards: Sequence[int], faces: Faces, rules: RuleSet) -> tuple[int, ...] | None:
    """The lowest rank sequence (as :func:`engine.melds.windows` gives it) that holds the real
    cards and the named jokers at their faces, or None. The meld must already be a run by
    its cards (:func:`engine.melds.is_run`)."""
    reals = [c for c in cards if not C.is_joker(c)]
    suit = C.suit_of(reals[0])
    need: Counter[int] = Counter(C.rank_of(c) for c in reals)
    for c in cards:
        f = faces.get(c) if C.is_joker(c) else None
        if f is not None:
            if f // 13 != suit:
                return None
            need[f % 13 + 1] += 1
    for seq in windows(len(cards), rules.ace_mode):
        have = Counter(seq)
        if all(have[r] >= k for r, k in need.items()):
            return tuple(seq)
    return None


def meld_ok(cards: Sequence[int], faces: Faces, rules: RuleSet) -> bool:
    """C5–C9: a valid set (faces ignored), or a valid run with each joker at its face."""
    if is_set(cards, rules):
        return True
    if not is_run(cards, rules):
        return False
    if not any(faces.get(c) is not None for c in cards if C.is_joker(c)):
        return True
    return _run_window(cards, faces, rules) is not None


def settled_faces(cards: Sequence[int], faces: Faces, rules: RuleSet) -> dict[int, int | None]:
    """The jokers' faces after an accepted ``end`` (C8, C9): in a run, a joker with no face
    takes the place left free when the run starts as low as it can (in arrival order); in a
    set every joker loses its face. ``cards`` must be a valid meld (:func:`meld_ok`)."""
    jokers = [c for c in cards if C.is_joker(c)]
    if not jokers:
        return {}
    if is_set(cards, rules):
        return {j: None for j in jokers}
    seq = _run_window(cards, faces, rules)
    if seq is None:
        return {j: faces.get(j) for j in jokers}
    suit = C.suit_of(next(c for c in cards if not C.is_joker(c)))
    free = Counter(seq)
    for c in cards:
        r = C.rank_of(c) if not C.is_joker(c) else None
        f = faces.get(c) if r is None else None
        if r is None and f is not None:
            r = f % 13 + 1
        if r is not None:
            free[r] -= 1
    places = [r for r in dict.fromkeys(seq) for _ in range(max(free[r], 0))]
    out: dict[int, int | None] = {}
    for j in jokers:
        f = faces.get(j)
        if f is None:
            r = places.pop(0)
            f = suit * 13 + r - 1
        out[j] = f
    return out


def card_worth(rank: int) -> int:
    """C17's worth of a card toward the opening minimum: A 1, 2–10 face, J Q K 10."""
    return min(rank, 10)


def meld_worth(cards: Sequence[int], faces: Faces, rules: RuleSet) -> int:
    """A valid meld's worth (C17): each joker the card it stands for, with ``faces`` as
    :func:`settled_faces` gives them (in a set, the set's rank)."""
    reals = [c for c in cards if not C.is_joker(c)]
    total = sum(card_worth(C.rank_of(c)) for c in reals)
    set_rank = C.rank_of(reals[0]) if reals and is_set(cards, rules) else None
    for c in cards:
        if C.is_joker(c):
            f = faces.get(c)
            rank = set_rank if set_rank is not None else (f % 13 + 1 if f is not None else 0)
            total += card_worth(rank)
    return total


def joker_place(cards: Sequence[int], faces: Faces, face: int) -> int | None:
    """C11: the joker of this meld that a real card of ``face`` can stand for, or None.

    In a run, exactly the joker's face; in a set (every real card of one rank, suits
    distinct), the rank in a suit the set lacks. A joker put into a run this turn without
    a face stands for nothing until ``end`` (it has no face to match); in a set a joker
    stands for the missing suits from the moment it arrives (C9), so it may be freed or
    swapped in the turn it came in (C11's turn 3). Of two jokers that fit, the one that
    arrived last."""
    jokers = [c for c in cards if C.is_joker(c)]
    for j in reversed(jokers):
        if faces.get(j) == face:
            return j
    reals = [c for c in cards if not C.is_joker(c)]
    if not reals or len({C.rank_of(c) for c in reals}) != 1:
        return None
    suits = [C.suit_of(c) for c in reals]
    if len(set(suits)) != len(suits) or face % 13 + 1 != C.rank_of(reals[0]):
        return None
    if face // 13 in suits or len(cards) > 4:
        return None
    plain = [j for j in jokers if faces.get(j) is None]
    return plain[-1] if plain else None


def display(cards: Sequence[int], faces: Faces, rules: RuleSet) -> list[str]:
    """A meld as a player sees it: a run in run order with each joker as ``JK=7H``, a set by
    suit with jokers as ``JK``, anything else as it lies (jokers with a face as ``JK=…``)."""
    def text(c: int, in_set: bool) -> str:
        f = faces.get(c) if C.is_joker(c) else None
        return "JK" if C.is_joker(c) and (f is None or in_set) else (
            f"JK={face_text(f)}" if f is not None else C.name(c))

    if is_set(cards, rules):
        return [text(c, True) for c in sorted(cards, key=lambda c: (C.suit_of(c) % 5, c))]
    if is_run(cards, rules):
        shown = settled_faces(cards, faces, rules)
        seq = _run_window(cards, shown, rules)
        if seq is not None:
            start = seq[0]
            values = range(start, start + len(cards))
            slots: dict[int, list[int]] = {}
            for c in cards:
                r = C.rank_of(c) if not C.is_joker(c) else (shown[c] or 0) % 13 + 1
                slots.setdefault(r, []).append(c)
            out = []
            for v in values:
                r = 1 if v == 14 else v
                c = slots[r].pop(0)
                out.append(text(c, False) if not C.is_joker(c) or faces.get(c) is not None
                           else "JK")
            return out
    return [text(c, False) for c in cards]
