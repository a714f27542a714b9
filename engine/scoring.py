"""The count at the end of a hand (§12, R20), written once: each player's score as its terms.

:func:`count` returns the terms; a score is the sum of its terms and its reason is said from
them, so the two can never disagree. Terms (keys of :attr:`~engine.model.Result.breakdown`):
``base`` (50), ``stock`` (minus the winner's stock), ``opponents`` (cards in every opponent's
hand and staging area), ``bonus`` (+10 for going out with an empty stock), ``pile`` (minus
the shared pile, a draw), ``floor`` (what lifts a draw to −15), ``pile_from_others`` and
``outside`` (a tie-break win), ``penalty`` (−15, eliminated or departed).
"""

from __future__ import annotations

from dataclasses import dataclass

from .rules import RuleSet


@dataclass(frozen=True)
class Counted:
    """What the count needs to know of a finished hand (all card counts, no cards)."""

    order: list[str]
    status: dict[str, str]          # active, eliminated, left
    in_hand: dict[str, int]         # cards in hand and staging area
    stock: dict[str, int]           # cards left in stock
    tied: list[str]                 # the tie-break's players ([] if none)
    pile_from: dict[str, int]       # pile cards still there, by the tied player they came from


def count(c: Counted, end: str, winner: str | None, rules: RuleSet) -> dict[str, dict[str, int]]:
    """Each player's terms (R20) for a hand that ended by ``end`` (``out``, ``silence``,
    ``tiebreak``, ``draw``, ``survivor``, ``abandoned``) with ``winner`` (None for a draw or
    an abandoned hand)."""
    terms: dict[str, dict[str, int]] = {
        p: {"penalty": -rules.penalty} if c.status[p] in ("eliminated", "left") else {}
        for p in c.order}
    if end == "abandoned":
        return terms
    if end == "draw":
        pile = sum(c.in_hand[p] for p in c.tied)
        for p in c.tied:
            if c.status[p] == "active":
                terms[p] = {"base": rules.win_base, "pile": -pile}
                if rules.win_base - pile < -rules.penalty:  # §12: staying costs no more than leaving
                    terms[p]["floor"] = -rules.penalty - (rules.win_base - pile)
        return terms
    if winner is None:
        return terms
    if end == "tiebreak":
        terms[winner] = {
            "base": rules.win_base,
            "pile_from_others": sum(c.pile_from[q] for q in c.tied if q != winner),
            "outside": sum(c.in_hand[q] for q in c.order if q not in c.tied)}
        return terms
    stock = c.stock[winner]
    terms[winner] = {"base": rules.win_base, "stock": -stock,
                     "opponents": sum(c.in_hand[q] for q in c.order if q != winner)}
    if end == "out" and stock == 0:
        terms[winner]["bonus"] = rules.empty_stock_bonus
    return terms


def reason(status: str, end: str, terms: dict[str, int]) -> str:
    """A score's reason in words, from its terms (the sentence the hand-end event carries)."""
    if "penalty" in terms:
        return status  # eliminated, left
    if not terms:
        return "lost"
    if "pile" in terms:
        return f"draw: {terms['base']} - {-terms['pile']} pile cards"
    if "pile_from_others" in terms:
        return (f"tie-break: {terms['base']} + {terms['pile_from_others']} pile cards of the others"
                f" + {terms['outside']} cards outside")
    text = f"{terms['base']} - {-terms['stock']} in stock + {terms['opponents']} in opponents' hands"
    if "bonus" in terms:
        text += f" + {terms['bonus']} for an empty stock"
    return text
