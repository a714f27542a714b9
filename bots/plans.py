"""The plays a bot (or a hint) would make from a seat's position, and the going out (§8, R15).

* :func:`plan_casual`: lay a meld the hand holds, else add one card to a meld as it is.
* :func:`choose_shark` / :func:`plan_shark`: the solver's play on the melds nobody else is
  reworking (most cards down, fewest moved), planned **for going out**: going out needs a draw
  and a lay of one's own (R15), so while the seat has laid no meld it first lays one its hand
  holds (``lay_first``); holding none, it keeps back the two cards most likely to become one
  (the pair with the most unseen cards that would complete it, ``hold_back``) and plays the
  rest, then draws until the meld is there (with an empty stock, keeping is worth nothing: it
  plays all it can but its last card, since emptying the hand without a lay costs −15). It
  never empties its hand before its first draw (``need_draw``). A lay of its own that is
  confirmed but not yet final counts (``Position.lay_pending``): should it fall, its cards come
  back to the hand, so the hand is not empty and nothing is lost.
* :func:`suggest`: the hint of a friendly game, the shark's choice for the seat, with its
  ``advice`` (:data:`ADVICE`).

Plans are protocol commands (``docs/protocol.md``); new melds are named ``"n1"``, ``"n2"``, …
(the step that makes one carries ``"creates"``).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from engine import cards as C
from engine.melds import is_valid
from engine.rules import RuleSet
from solver import Solution, melds_from_hand, solve

from .position import Position, View, _Ids, position, rules_of

#: Virtual ids the solver gives new melds (far above any real id).
NEW_BASE = 1_000_000

Step = dict[str, Any]

#: The hint's advice codes (docs/protocol.md "Hints"; sentences ``hint.advice.<code>`` in
#: web/lang/*.js, with ``{cards}``).
ADVICE = ("lay_first", "hold_back", "need_draw", "go_out")


@dataclass
class Plan:
    """A play: its steps (protocol commands, new melds named ``"n1"``…), the hand cards it puts
    down, how many table cards it moves and the table melds it touches."""

    steps: list[Step]
    placed: list[str]
    moved: int = 0
    melds: list[int] = field(default_factory=list)

    def lays(self) -> bool:
        return any(s["do"] == "lay" for s in self.steps)


def bind_created(bound: dict[str, int], step: dict[str, Any], reply: dict[str, Any],
                 rest: list[dict[str, Any]]) -> bool:
    """After the ack of ``step``: when it made a meld (its ``creates`` label), bind the label to
    the meld id the ack names (``made.meld``) in ``bound``. False when the ack names none and
    a later step of ``rest`` needs it (``meld`` or ``to``): the plan cannot go on. Used by the
    real-time and the classic brains."""
    label = step.get("creates")
    if label is None:
        return True
    mid = (reply.get("made") or {}).get("meld")
    if isinstance(mid, int):
        bound[label] = mid
        return True
    return not any(label in (s.get("meld"), s.get("to")) for s in rest)


def _from_solution(sol: Solution) -> Plan:
    labels: dict[int, str] = {}
    made = 0

    def ref(m: Any) -> Any:
        return labels[m] if isinstance(m, int) and m >= NEW_BASE else m

    def new_label() -> str:
        nonlocal made
        label = f"n{made + 1}"
        labels[NEW_BASE + made] = label
        made += 1
        return label

    steps: list[Step] = []
    touched: list[int] = []

    def touch(m: Any) -> None:
        if isinstance(m, int) and m < NEW_BASE and m not in touched:
            touched.append(m)

    for st in sol.plan:
        do = st[0]
        if do == "add":
            steps.append({"do": "add", "card": C.name(st[1]), "meld": ref(st[2])})
            touch(st[2])
        elif do == "stage":
            steps.append({"do": "stage", "card": C.name(st[1])})
        elif do == "move":
            touch(st[2])
            if st[3] == "new":
                steps.append({"do": "move", "card": C.name(st[1]), "meld": ref(st[2]), "to": "new",
                              "creates": new_label()})
            else:
                touch(st[3])
                steps.append({"do": "move", "card": C.name(st[1]), "meld": ref(st[2]),
                              "to": ref(st[3])})
        elif do == "place":
            touch(st[2])
            steps.append({"do": "place", "card": C.name(st[1]), "meld": ref(st[2])})
        elif do == "lay":
            steps.append({"do": "lay", "cards": [C.name(c) for c in st[1]], "creates": new_label()})
    return Plan(steps, [C.name(c) for c in sol.placed], sol.moved, touched)


def _lay_steps(faces: list[str], label: str = "n1") -> list[Step]:
    return [{"do": "stage", "card": f} for f in faces] + [
        {"do": "lay", "cards": list(faces), "creates": label}]


def may_empty(pos: Position, plan: Plan) -> bool:
    """Emptying the hand is only a valid going out after a draw and a laid meld (§8, R15)."""
    return pos.tiebreak or (pos.drew and (pos.has_laid or plan.lays()))


def _hand_melds(pos: Position, rules: RuleSet, budget: float,
                clock: Callable[[], float]) -> list[list[str]]:
    """The melds the hand alone can lay (3 cards or more), as faces, largest first."""
    ids = _Ids()
    hand_ids = [ids.take(f) for f in pos.hand]
    melds = [m for m in melds_from_hand(hand_ids, rules, budget=budget, clock=clock) if len(m) >= 3]
    return sorted(([C.name(c) for c in m] for m in melds), key=len, reverse=True)


def plan_casual(pos: Position, rules: RuleSet, budget: float = 0.1,
                clock: Callable[[], float] = time.perf_counter) -> Plan | None:
    """Lay a meld of the hand, else add one card to a meld as it is; never rearrange."""
    melds = _hand_melds(pos, rules, budget, clock)
    if melds:
        faces = melds[0]
        plan = Plan(_lay_steps(faces), faces)
        if len(faces) < len(pos.hand) or may_empty(pos, plan):
            return plan
    if len(pos.hand) <= 1 and not (pos.tiebreak or (pos.drew and pos.has_laid)):
        return None
    ids = _Ids()
    hand_ids = [ids.take(f) for f in pos.hand]
    table_ids = {mid: [ids.take(f) for f in cs] for mid, cs in pos.usable.items()}
    for face, card in zip(pos.hand, hand_ids):
        for mid, cs in table_ids.items():
            if is_valid(cs + [card], rules):
                return Plan([{"do": "add", "card": face, "meld": mid}], [face], 0, [mid])
    return None


def _unseen(pos: Position, rules: RuleSet) -> Counter[str]:
    """Copies of each face that this seat has not seen (in others' hands or in stocks)."""
    seen = Counter(pos.hand) + Counter(pos.staging) + Counter(pos.removed)
    for cs in pos.table.values():
        seen.update(cs)
    out: Counter[str] = Counter()
    for suit in C.SUITS:
        for rank in range(1, 14):
            face = C.format_face((rank, C.SUITS.index(suit)))
            left = rules.packs - seen[face]
            if left > 0:
                out[face] = left
    return out


def _first(face: str) -> int:
    return C.card_id(C.parse_face(face), 0)


def keep_for_meld(pos: Position, rules: RuleSet) -> list[str]:
    """The two hand cards most likely to become a meld of the hand's own: the pair (same rank,
    or same suit a rank or two apart) with the most unseen cards that would complete it into a
    valid set or run. One card when no pair has any (the card of the most pairs), the whole
    hand when it has fewer than two cards."""
    hand = [f for f in pos.hand if C.parse_face(f)[0] != 0]  # jokers: placed by the solver
    if len(hand) < 2:
        return list(hand)
    unseen = _unseen(pos, rules)
    best: tuple[int, list[str]] = (0, [])
    partners: Counter[str] = Counter()
    for a, b in combinations(sorted(set(hand)), 2):
        (ra, sa), (rb, sb) = C.parse_face(a), C.parse_face(b)
        if not (ra == rb or sa == sb):
            continue
        partners[a] += 1
        partners[b] += 1
        pair = [_first(a), _first(b)]  # distinct faces: copy 0 of each
        # Only a face of the same rank or suit, a rank or two away, can complete the pair.
        near = {C.format_face((r, s)) for r, s in
                [(ra, s) for s in range(4)] + [((ra + d - 1) % 13 + 1, sa) for d in (-2, -1, 1, 2)]
                + [((rb + d - 1) % 13 + 1, sb) for d in (-2, -1, 1, 2)]}
        outs = sum(unseen[f] for f in near - {a, b}
                   if unseen[f] and is_valid(pair + [_first(f)], rules))
        if outs > best[0]:
            best = (outs, [a, b])
    if best[1]:
        return best[1]
    return [max(hand, key=lambda f: (partners[f], f))]


def _solved(pos: Position, hand: list[str], rules: RuleSet, budget: float,
            clock: Callable[[], float]) -> Plan | None:
    ids = _Ids()
    table = {mid: [ids.take(f) for f in cs] for mid, cs in pos.usable.items()}
    hand_ids = [ids.take(f) for f in hand]
    sol = solve(table, hand_ids, rules, budget=budget, clock=clock, next_meld_id=NEW_BASE)
    return _from_solution(sol) if sol.placed else None


@dataclass
class Choice:
    """What the shark does: a plan (None: nothing to put down) and the advice behind it, as
    ``(code, faces)`` with a code of :data:`ADVICE`."""

    plan: Plan | None
    advice: tuple[str, list[str]] | None = None


def _without(hand: list[str], faces: list[str]) -> list[str]:
    rest = list(hand)
    for f in faces:
        rest.remove(f)
    return rest


def choose_shark(pos: Position, rules: RuleSet, budget: float = 0.1,
                 clock: Callable[[], float] = time.perf_counter) -> Choice:
    """The shark's play, planned for going out (module documentation)."""
    hand = list(pos.hand)
    if not hand:
        return Choice(None)
    if pos.tiebreak:  # any one card down wins (R19): no condition to meet
        return Choice(_solved(pos, hand, rules, budget, clock))
    keep: list[str] = []
    code = "hold_back"
    if not pos.has_laid:
        melds = _hand_melds(pos, rules, budget, clock)
        if melds and pos.drew:
            full = _solved(pos, hand, rules, budget, clock)
            if full is not None and len(full.placed) == len(hand) and full.lays():
                return Choice(full, ("go_out", list(full.placed)))  # out in one play
        if melds:
            faces = melds[0]
            if len(faces) == len(hand) and not pos.drew:
                if len(faces) > 3:  # lay all but one; the draw comes before going out
                    return Choice(Plan(_lay_steps(faces[:-1]), faces[:-1]),
                                  ("need_draw", faces[-1:]))
                return Choice(None, ("need_draw", faces))
            return Choice(Plan(_lay_steps(faces), faces), ("lay_first", faces))
        keep = keep_for_meld(pos, rules) if pos.stock > 0 else []
    plan = _solved(pos, _without(hand, keep), rules, budget, clock)
    if plan is not None and len(plan.placed) == len(hand) and not may_empty(pos, plan):
        # It would empty the hand without the conditions (−15): keep one card back.
        code = "hold_back" if pos.drew else "need_draw"
        keep = plan.placed[-1:]
        plan = _solved(pos, _without(hand, keep), rules, budget, clock)
    advice = (code, keep) if keep else None
    if plan is not None and len(plan.placed) == len(hand):
        advice = ("go_out", list(plan.placed))
    return Choice(plan, advice)


def plan_shark(pos: Position, rules: RuleSet, budget: float = 0.1,
               clock: Callable[[], float] = time.perf_counter) -> Plan | None:
    """The shark's play (:func:`choose_shark`), without its advice."""
    return choose_shark(pos, rules, budget, clock).plan


def suggest(hv: View, budget: float = 0.1, clock: Callable[[], float] = time.perf_counter,
            lay_pending: bool = False) -> dict[str, Any]:
    """The hint for a seat's hand view: the play the shark would make now.

    ``{"steps": [...], "cards": [hand cards put down], "melds": [table meld ids touched],
    "moved": n, "advice": {"code", "cards": [faces]} | None}``; with nothing to put down,
    ``steps`` is ``[{"do": "draw"}]`` when the seat may draw, else ``[]``. ``advice`` says why
    cards stay in the hand or what the play is for (:data:`ADVICE`): ``lay_first`` (lay these
    as a meld of your own: going out needs one), ``hold_back`` (these stay in the hand to make
    that meld, or as the last card until it is laid), ``need_draw`` (these stay until you have
    drawn once), ``go_out`` (the play empties the hand). ``lay_pending``: the seat has a lay
    confirmed but not final (the server knows; the view does not say)."""
    pos = position(hv, lay_pending)
    empty: dict[str, Any] = {"steps": [], "cards": [], "melds": [], "moved": 0, "advice": None}
    if pos is None or (pos.freeze_caller is not None and pos.freeze_caller != pos.me):
        return empty
    if pos.open_play is not None or pos.staging:
        return empty  # finish (or cancel) the play under way first
    choice = choose_shark(pos, rules_of(hv), budget, clock)
    advice = None if choice.advice is None else {"code": choice.advice[0],
                                                 "cards": choice.advice[1]}
    plan = choice.plan
    if plan is None:
        if not pos.tiebreak and pos.stock > 0:
            return {**empty, "steps": [{"do": "draw"}], "advice": advice}
        return {**empty, "advice": advice}
    return {"steps": plan.steps, "cards": plan.placed, "melds": plan.melds, "moved": plan.moved,
            "advice": advice}
