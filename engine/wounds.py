"""Judging a play's melds (§5.4, R8): what a play's melds depend on, and which are wounded.

Pure functions over plain data, no :class:`~engine.hand.Hand`: a play's melds are judged
from the graph's edges (``meld_log``: meld → its live actions, oldest first; ``card_stack``:
card → its live actions, oldest first; both as :class:`~engine.graph.DependencyGraph` keeps
them), the table (``melds``: meld id → cards; ``loc``: card → location), each play's status
(``status``: play id → ``"open"``, ``"confirmed"``, ...) and the rule set. The search itself
(the smallest put-back set, the judged cards) is :mod:`engine.judging`'s.

Shapes:

* :func:`judge_meld` → ``Verdict(ok, deps, waits)``: ``ok`` False when no put-back set mends
  the meld (wounded, R8); ``deps`` the actions it depends on (the put-back set, R8(a), and
  each confirmed-but-not-final action it cannot do without, R8(b)); ``waits`` the confirmed
  actions that hold it up only jointly (R11: not final until their plays are; R10's sweep
  judges it again if they fall);
* :func:`judge_play` → ``Judgement(wounded, deps, waits)`` over every meld the play touched;
* :func:`explain_wounds` → ``[{"meld": id, "cards": [faces], "why": code, ...}]``, as in
  ``play_ended`` and ``chain_undo`` (§5.5).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from . import cards as C
from .judging import judged_cards, smallest_put_back, valid_or_empty
from .melds import explain
from .model import Action, Loc
from .rules import RuleSet

Status = Callable[[int], str]  # play id -> its status


class Verdict(NamedTuple):
    """One meld judged for one play (R8)."""

    ok: bool
    deps: list[Action]
    waits: list[Action]


class Judgement(NamedTuple):
    """One play judged (R8): its wounded melds, the actions it depends on and waits for."""

    wounded: list[int]
    deps: list[Action]
    waits: list[Action]


def judge_meld(mid: int, pid: int, meld_log: Mapping[int, Sequence[Action]],
               card_stack: dict[int, list[Action]], melds: Mapping[int, Sequence[int]],
               loc: dict[int, Loc], status: Status, rules: RuleSet) -> Verdict:
    """Judge meld ``mid`` for play ``pid`` (R8), by the order of actions.

    The other open plays' live actions on the meld are taken back, then the smallest set of
    them put back (:func:`~engine.judging.smallest_put_back`); ``None`` from it is a wound.
    A confirmed (not final) action is a dependency when the meld is not valid or empty
    without it alone; the rest of them are waited for when the meld falls without all of
    them together (``docs/rules.md`` 5.1)."""
    others: list[Action] = []
    unsafe: list[Action] = []
    cands: dict[int, None] = dict.fromkeys(melds.get(mid, ()))
    for a in meld_log.get(mid, ()):
        if a.undone:
            continue
        cands[a.card] = None
        if a.play == pid:
            continue
        st = status(a.play)
        if st == "open":
            others.append(a)
        elif st == "confirmed":
            unsafe.append(a)
    put_back = smallest_put_back(mid, cands, card_stack, loc, others, rules)
    if put_back is None:
        return Verdict(False, [], [])
    taken = set(others).difference(put_back)

    def valid_without(extra: Iterable[Action]) -> bool:
        cards = judged_cards(mid, cands, card_stack, loc, taken.union(extra))
        return valid_or_empty(cards, rules)

    deps: list[Action] = list(put_back)
    deps.extend(a for a in unsafe if not valid_without((a,)))
    waits: list[Action] = []
    if len(unsafe) > 1 and not valid_without(unsafe):
        waits = [a for a in unsafe if a not in deps]
    return Verdict(True, deps, waits)


def touched(actions: Iterable[Action]) -> list[int]:
    """The melds a play's standing ``actions`` took from, put into or created, in first-touch
    order (R8: the melds judged for it)."""
    seen: dict[int, None] = {}
    for a in actions:
        if not a.undone:
            for m in a.touches():
                seen[m] = None
    return list(seen)


def judge_play(pid: int, mids: Iterable[int], meld_log: Mapping[int, Sequence[Action]],
               card_stack: dict[int, list[Action]], melds: Mapping[int, Sequence[int]],
               loc: dict[int, Loc], status: Status, rules: RuleSet) -> Judgement:
    """Judge play ``pid`` on each of ``mids`` (its touched melds, :func:`touched`), R8: the
    wounded melds in that order, and the dependencies and waits of the others."""
    wounded: list[int] = []
    deps: list[Action] = []
    waits: list[Action] = []
    for m in mids:
        ok, d, w = judge_meld(m, pid, meld_log, card_stack, melds, loc, status, rules)
        if ok:
            deps.extend(d)
            waits.extend(w)
        else:
            wounded.append(m)
    return Judgement(wounded, deps, waits)


def explain_wounds(mids: Iterable[int], pid: int, meld_log: Mapping[int, Sequence[Action]],
                   card_stack: dict[int, list[Action]], melds: Mapping[int, Sequence[int]],
                   loc: dict[int, Loc], status: Status, rules: RuleSet) -> list[dict[str, Any]]:
    """Why each wounded meld of play ``pid`` is not valid (R8, ``engine.melds.explain``):
    ``[{"meld": id, "cards": [faces], "why": code, ...}]``. ``cards`` are the meld as it
    was judged for the play (the other open plays' actions taken back), in the order they
    were put there. Call before the play's work on them is undone."""
    out: list[dict[str, Any]] = []
    for mid in mids:
        cands: dict[int, None] = dict.fromkeys(melds.get(mid, ()))
        others: set[Action] = set()
        for a in meld_log.get(mid, ()):
            if a.undone:
                continue
            cands[a.card] = None
            if a.play != pid and status(a.play) == "open":
                others.add(a)
        cards = judged_cards(mid, cands, card_stack, loc, others)
        why = explain(cards, rules) or {"why": "not_a_meld"}
        out.append({"meld": mid, "cards": C.names(cards), **why})
    return out
