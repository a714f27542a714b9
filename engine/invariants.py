"""The invariants of a hand's state (issue 26, item 2), as pure checks that tests assert.

Each function takes one concern's containers and returns the faults found, as sentences
(``[]`` when the state is sound); nothing here changes a hand or is called by the rules:

* :func:`card_faults`: every card of the deck in exactly one place (§1: hands, staging areas,
  stocks, melds, the removed cards, or out of play), and ``loc`` agreeing with the containers;
* :func:`hold_faults`: every hold on a card in the meld it names (R12; an undo that moves a
  held card to another meld moves the hold with it);
* :func:`play_faults`: every open play's actions in action order, numbered as the graph's
  (R6), each belonging to it, and the open list naming open plays only, in opening order (R7).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from . import cards as C
from .model import Action, Hold, Loc, Play


def card_faults(deck: Iterable[int], loc: Mapping[int, Loc],
                places: Iterable[tuple[Loc, Sequence[int]]]) -> list[str]:
    """Faults of §1's one-place rule. ``places``: (location, its cards) for every container,
    e.g. ``(("hand", "A"), [3, 17])``, ``(("meld", 2), [...])``, ``(("removed",), [...])``."""
    out: list[str] = []
    deck = sorted(deck)
    if sorted(loc) != deck:
        out.append("loc does not name every card of the deck exactly once")
    where: dict[int, Loc] = {}
    for place, cards in places:
        for c in cards:
            if c in where:
                out.append(f"{C.name(c)} is in {where[c]} and in {place}")
            where[c] = place
    for c in deck:
        at = loc.get(c)
        if at == ("out",):
            if c in where:
                out.append(f"{C.name(c)} is out of play but sits in {where[c]}")
        elif where.get(c) != at:
            out.append(f"{C.name(c)}: loc says {at}, the containers say {where.get(c)}")
    return out


def hold_faults(holds: Mapping[str, Hold], loc: Mapping[int, Loc]) -> list[str]:
    """Faults of R12: a hold whose card is not in the meld the hold names."""
    return [f"{p}'s hold on {C.name(h.card)} names meld {h.meld}, the card is at {loc.get(h.card)}"
            for p, h in holds.items() if loc.get(h.card) != ("meld", h.meld)]


def play_faults(plays: Mapping[int, Play], open_ids: Sequence[int],
                actions: Sequence[Action]) -> list[str]:
    """Faults of R6–R7 in the plays: ``open_ids`` (opening order) names open plays only, each
    once; each open play's actions are its own, in increasing action
    number, and are the graph's ``actions`` (numbered 1, 2, ... in order)."""
    out: list[str] = []
    if len(set(open_ids)) != len(open_ids):
        out.append(f"a play is listed open twice: {list(open_ids)}")
    for i, a in enumerate(actions, 1):
        if a.seq != i:
            out.append(f"action {a.seq} is number {i} in the graph")
            break
    for pid in open_ids:
        play = plays.get(pid)
        if play is None or play.status != "open":
            out.append(f"play {pid} is listed open but is {play and play.status}")
            continue
        seqs = [a.seq for a in play.actions]
        if seqs != sorted(set(seqs)):
            out.append(f"play {pid}'s actions are out of order: {seqs}")
        for a in play.actions:
            if a.play != pid:
                out.append(f"action {a.seq} of play {a.play} is in play {pid}")
            elif not 1 <= a.seq <= len(actions) or actions[a.seq - 1] is not a:
                out.append(f"action {a.seq} of play {pid} is not the graph's")
    return out
