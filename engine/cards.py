"""Cards: physical identity over two packs, and the notation (R1).

A *face* is a rank and a suit (``"10H"``); two packs hold every face twice,
and every physical card has its own integer id so that the event log can say
which card went where.

Card ids: ``id = copy * 52 + suit_index * 13 + (rank - 1)`` for the cards of the
packs (``copy`` is 0 or 1, and 2 for a classic table of three packs, C1). Jokers, for the
classic rule sets, are ids ``156 + n`` (past the third pack). Ranks are 1 (ace) to 13 (king); suits are ``S H D C``.

Errors: :class:`NotationError` (a ``ValueError``) for a face that cannot be
read, with the offending text in the message.
"""

from __future__ import annotations

SUITS = "SHDC"
RANK_NAMES = {1: "A", 11: "J", 12: "Q", 13: "K"}
RANK_BY_NAME = {"A": 1, "J": 11, "Q": 12, "K": 13, "T": 10}
PACK_SIZE = 52
JOKER_BASE = 3 * PACK_SIZE  # 156: after the cards of up to three packs (C1)
JOKER_FACE = "JK"


class NotationError(ValueError):
    """A card face that does not follow R1's notation (``10H``, ``QS``, ``AC``)."""


Face = tuple[int, int]  # (rank 1..13, suit index 0..3); jokers are (0, -1)


def parse_face(text: str) -> Face:
    """Read a face in R1 notation: rank (``A 2..10 J Q K``, ``T`` for ten) then suit.

    Returns ``(rank, suit_index)``; ``"JK"`` (a joker) is ``(0, -1)``.
    Raises :class:`NotationError` naming the text when it is not a card.
    """
    if not isinstance(text, str):
        raise NotationError(f"a card must be written as text like '10H', not {text!r}")
    t = text.strip().upper()
    if t in (JOKER_FACE, "JOKER", "*"):
        return (0, -1)
    if len(t) < 2:
        raise NotationError(f"'{text}' is not a card: write rank then suit, like '10H' or 'QS'")
    rank_text, suit_text = t[:-1], t[-1]
    if suit_text not in SUITS:
        raise NotationError(f"'{text}' has no suit: the suit is one of S, H, D, C")
    if rank_text in RANK_BY_NAME:
        rank = RANK_BY_NAME[rank_text]
    elif rank_text.isdigit() and 2 <= int(rank_text) <= 10 and rank_text == str(int(rank_text)):
        rank = int(rank_text)
    else:
        raise NotationError(f"'{text}' has no rank: the rank is A, 2-10, J, Q or K")
    return (rank, SUITS.index(suit_text))


def format_face(face: Face) -> str:
    """Write a face in R1 notation (``(10, 1)`` → ``"10H"``)."""
    rank, suit = face
    if rank == 0:
        return JOKER_FACE
    return RANK_NAMES.get(rank, str(rank)) + SUITS[suit]


def card_id(face: Face, copy: int) -> int:
    """The physical card ``copy`` (0, 1, 2 for a third pack, or the joker number) of ``face``."""
    rank, suit = face
    if rank == 0:
        return JOKER_BASE + copy
    return copy * PACK_SIZE + suit * 13 + (rank - 1)


def face_of(card: int) -> Face:
    """The face of a physical card id."""
    if card >= JOKER_BASE:
        return (0, -1)
    c = card % PACK_SIZE
    return (c % 13 + 1, c // 13)


def rank_of(card: int) -> int:
    """Rank 1..13 of a card id, 0 for a joker."""
    return 0 if card >= JOKER_BASE else card % 13 + 1


def suit_of(card: int) -> int:
    """Suit index 0..3 of a card id, -1 for a joker."""
    return -1 if card >= JOKER_BASE else (card % PACK_SIZE) // 13


def is_joker(card: int) -> bool:
    return card >= JOKER_BASE


def name(card: int) -> str:
    """The face of a card id in R1 notation."""
    return format_face(face_of(card))


def names(cards: list[int] | tuple[int, ...]) -> list[str]:
    return [name(c) for c in cards]


def full_deck(packs: int = 2, jokers: int = 0) -> list[int]:
    """Every physical card of ``packs`` packs plus ``jokers`` jokers, in id order."""
    return [c for c in range(packs * PACK_SIZE)] + [JOKER_BASE + j for j in range(jokers)]
