"""The solver: the faces jokers stand for, and C17's worth (see ``solver/__init__.py``).

A joker in a run stands for one face (C8); in a set for the set's rank in a
missing suit, with no face (C9). Worth (C17): ace 1, 2–10 their number, J Q K 10,
a joker the card it stands for (in a set, the set's rank).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from engine import cards as C
from engine.melds import is_set
from engine.rules import RuleSet

from .templates import face_worth, place_jokers


def read_face(face: str | int) -> int:
    """A face 0..51 from R1 notation (``"7H"``) or a face number. Raises
    ``ValueError`` (``engine.cards.NotationError``) for a joker or a bad face."""
    if isinstance(face, int):
        if not 0 <= face < C.PACK_SIZE:
            raise ValueError(f"face {face} is not a face number 0..51")
        return face
    rank, suit = C.parse_face(face)
    if rank == 0:
        raise ValueError("a joker cannot stand for a joker")
    return suit * 13 + rank - 1


def meld_faces(cards: Sequence[int], rules: RuleSet, keep: Mapping[int, int] | None = None,
               most_worth: bool = False) -> dict[int, int]:
    """joker id → face (0..51) for the jokers of ``cards`` when they form a run
    (C8); empty for a set, a meld without jokers, or cards that form no run.

    ``keep``: joker id → a face it should keep if it can (a joker left in its own
    meld keeps its face); ``most_worth``: among the places, those worth most
    first (C17); otherwise the run starts as low as it can (C8's default)."""
    jokers = sorted(c for c in cards if C.is_joker(c))
    reals = [c for c in cards if not C.is_joker(c)]
    if not jokers or not reals or is_set(cards, rules):
        return {}
    suits = {C.suit_of(c) for c in reals}
    if len(suits) != 1:
        return {}
    suit = suits.pop()
    want = Counter((keep or {}).get(j, -1) for j in jokers)
    del want[-1]
    faces = place_jokers(suit, Counter(C.rank_of(c) for c in reals), len(jokers),
                         rules.ace_mode, want, most_worth)
    if faces is None:
        return {}
    out: dict[int, int] = {}
    free = list(faces)
    for j in jokers:
        f = (keep or {}).get(j)
        if f is not None and f in free:
            out[j] = f
            free.remove(f)
    for j in jokers:
        if j not in out:
            out[j] = free.pop(0)
    return out


def meld_worth(cards: Sequence[int], faces: Mapping[int, int]) -> int:
    """C17's worth of one meld, its jokers at ``faces`` (a joker without a face is
    worth the rank of the set it is in)."""
    reals = [c for c in cards if not C.is_joker(c)]
    total = sum(face_worth(c % C.PACK_SIZE) for c in reals)
    set_rank = min(C.rank_of(reals[0]), 10) if reals else 0
    for c in cards:
        if C.is_joker(c):
            total += face_worth(faces[c]) if c in faces else set_rank
    return total
