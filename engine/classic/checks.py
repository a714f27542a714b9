"""C16: the checks of ``end``, in their order, and what an accepted ``end`` settles (C8, C9).

:func:`end_refusal` returns the code of the first check that fails, or None; it changes
nothing. Only the melds the turn touched are judged (the others were valid at the turn's
start and are as they were), so the cost follows the turn, not the table (bench/engine.py,
"classic").
"""

from __future__ import annotations

from typing import Protocol

from ..rules import RuleSet
from .jokers import meld_ok, meld_worth, settled_faces
from .model import Snapshot


class TurnTable(Protocol):
    """What the checks read of a classic hand (``turn.ClassicHand`` is one; no import back):
    the table now and at the turn's start, and who has not opened or played yet."""

    rules: RuleSet
    hands: dict[str, list[int]]
    melds: dict[int, list[int]]
    faces: dict[int, int | None]  # jokers on the table → face (C8)
    loose: list[int]  # freed jokers of this turn (C11)
    snapshot: Snapshot
    touched: set[int]
    swaps: int
    first_turn: set[str]
    unopened: set[str]


def end_refusal(hand: TurnTable, player: str) -> str | None:
    """The first of C16's checks that fails for ``player`` ending their turn now, or None:

    1. ``loose_joker``: a freed joker is not down again (C11);
    2. ``invalid_meld``: a meld on the table is not valid (C5–C9);
    3. ``no_card_from_hand``: the table holds no more cards than at the turn's start, each
       swap counting one (000 "Rearranging alone is not a turn");
    4. ``opening_minimum``: an unopened player's new melds are worth less than ``opening``
       (C17);
    5. ``first_turn_out``: the hand would be empty on the player's first turn (C19)."""
    if hand.loose:
        return "loose_joker"
    rules = hand.rules
    melds, faces = hand.melds, hand.faces
    for mid in hand.touched:
        cards = melds.get(mid)
        if cards is not None and not meld_ok(cards, faces, rules):
            return "invalid_meld"
    snap = hand.snapshot
    down = sum(len(m) for m in melds.values())
    if down + hand.swaps <= sum(len(m) for m in snap.melds.values()):
        return "no_card_from_hand"
    if rules.opening > 0 and player in hand.unopened:
        worth = 0
        for mid, cards in melds.items():
            if mid >= snap.next_meld:
                worth += meld_worth(cards, settled_faces(cards, faces, rules), rules)
        if worth < rules.opening:
            return "opening_minimum"
    if not rules.first_turn_out and player in hand.first_turn and not hand.hands[player]:
        return "first_turn_out"
    return None


def settle(hand: TurnTable) -> None:
    """After an accepted ``end``: every touched run's jokers take their faces (C8's default
    for those with none), every joker in a set loses its face (C9)."""
    for mid in hand.touched:
        cards = hand.melds.get(mid)
        if cards is not None:
            hand.faces.update(settled_faces(cards, hand.faces, hand.rules))
