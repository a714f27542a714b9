"""A classic turn as a bot (or a hint) would play it, from the seat's classic view (C13–C19).

Everything here reads the dict :func:`engine.classic.view.classic_view` gives one seat: its own
hand, the table with each joker's face (``JK=7H``), the loose jokers (a count), who has opened,
whose turn it is, the options (C1). Never the engine's state, never another hand.

A plan is the whole turn, as protocol commands (``docs/protocol.md``, classic commands):
``lay``/``add``/``move`` steps ending with ``{"do": "end"}``, or a lone ``draw`` (``pass``
when the stock is empty, C14, C15). New melds are named ``"n1"``, ``"n2"``, … (the step that
makes one carries ``"creates"``); the client binds each label to the id the engine gave it
(``made`` in the ``ack``) before the later steps use it.

* :func:`plan_casual`: a casual person. Opened, it lays the melds its hand holds
  (``solver.melds_from_hand``) and adds single cards to melds as they lie; it rarely
  rearranges (``rearrange`` chance: the shark's play instead) and sometimes misses the adds
  (``miss`` chance). Unopened (C17), it lays what its hand holds only when the melds reach the
  opening minimum, else draws. It never spends a joker on an add.
* :func:`plan_shark`: the solver's best rearrangement (``solver.solve``: most cards down, then
  fewest table cards moved), C17's opening respected (``opened=False``: only new melds of hand
  cards worth the minimum), loose jokers placed (they are cards that must go down this turn,
  C11), out when it can; it keeps its jokers while the hand is long unless they take it out or
  the play without them puts nothing down (a joker in hand costs 25 at the end, C25, but one
  kept makes a later meld). C19 (``first_turn_out: false``): on its first turn it keeps a card
  back rather than empty its hand.
* :func:`suggest`: the hint of a friendly classic table (the same shape as ``bots.plans``'s).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from engine import cards as C
from engine.classic.jokers import card_worth, meld_ok, parse_joker
from engine.rules import RuleSet, table_rules
from solver import Solution, solve

from .plans import NEW_BASE

View = dict[str, Any]
Step = dict[str, Any]

#: Reading a view's table and hand: a joker's text with its face, ``JK=7H`` (or ``JK``).
LOOSE = "loose"


@dataclass
class TurnPlan:
    """One turn: its ``steps`` (commands; the last is ``end``, or a lone ``draw``/``pass``), the
    hand cards it puts down (``placed``, faces; loose jokers as ``JK``), the table cards it
    moves, the table melds it touches and the advice behind it (``(code, faces)`` or None)."""

    steps: list[Step]
    placed: list[str] = field(default_factory=list)
    moved: int = 0
    melds: list[int] = field(default_factory=list)
    advice: tuple[str, list[str]] | None = None

    @property
    def draws(self) -> bool:
        return bool(self.steps) and self.steps[0]["do"] in ("draw", "pass")


@lru_cache(maxsize=64)
def _rules(name: str, players: int, options: tuple[tuple[str, Any], ...]) -> RuleSet:
    return table_rules(name, players, dict(options))


def rules_of(view: View) -> RuleSet:
    """The table's rules (C1) from the view's ``rules`` (the preset) and ``options``."""
    opts = tuple(sorted(view["options"].items()))
    return _rules(view["rules"], len(view["players"]), opts)


@dataclass
class Seat:
    """A classic view read for planning: physical ids for every card the seat sees.

    ``table``: meld id → card ids; ``faces``: run joker id → the face it stands for now;
    ``text``: card id → how a command names it on the table (``JK=7H``, ``JK``, ``7H``);
    ``hand``: the hand's card ids; ``loose``: the loose jokers' ids (C11)."""

    me: str
    rules: RuleSet
    table: dict[int, list[int]]
    faces: dict[int, str]
    text: dict[int, str]
    hand: list[int]
    loose: list[int]
    opened: bool
    first_turn: bool
    stock: int
    changed: bool
    on_turn: bool


def read(view: View) -> Seat | None:
    """The seat's position, or None for a spectator or a view without a hand."""
    me = view.get("you")
    if me is None or view.get("hand") is None:
        return None
    rules = rules_of(view)
    used: dict[int, int] = {}
    jokers = 0

    def take(text: str) -> int:
        nonlocal jokers
        is_joker, face = parse_joker(text)
        if is_joker:
            jokers += 1
            return C.JOKER_BASE + jokers - 1
        assert face is not None
        n = used.get(face, 0)
        used[face] = n + 1
        return n * C.PACK_SIZE + face

    table: dict[int, list[int]] = {}
    faces: dict[int, str] = {}
    text: dict[int, str] = {}
    for meld in view["table"]:
        cards = []
        for t in meld["cards"]:
            c = take(t)
            cards.append(c)
            text[c] = t
            if C.is_joker(c):
                face = parse_joker(t)[1]
                if face is not None:
                    faces[c] = C.format_face((face % 13 + 1, face // 13))
        table[int(meld["id"])] = cards
    hand = [take(t) for t in view["hand"]]
    loose = [take("JK") for _ in range(int(view.get("loose") or 0))]
    mine: dict[str, Any] = next((p for p in view["players"] if p["name"] == me), {})
    turn = view.get("turn") or {}
    return Seat(me, rules, table, faces, text, hand, loose, bool(mine.get("opened")),
                bool(mine.get("first_turn")), int(view.get("stock") or 0),
                any(m.get("changed") for m in view["table"]) or bool(loose),
                turn.get("player") == me and view.get("result") is None)


def _draw(seat: Seat, advice: tuple[str, list[str]] | None = None) -> TurnPlan:
    return TurnPlan([{"do": "draw" if seat.stock > 0 else "pass"}], advice=advice)


# ---------------------------------------------------------------------------- the solver's play


def _named(card: int, sol_faces: dict[int, str]) -> str:
    """A hand card as a command names it: a joker with the face the new table gives it."""
    if C.is_joker(card):
        face = sol_faces.get(card)
        return f"JK={face}" if face else "JK"
    return C.name(card)


def from_solution(seat: Seat, sol: Solution) -> TurnPlan:
    """``sol``'s plan as classic commands (``stage`` steps drop out: a hand card stays in the
    hand until it goes down; ``place`` is an ``add``; a loose joker goes down by ``move`` from
    ``"loose"``), ending with ``end``. The solver numbers new melds from ``NEW_BASE`` in the
    order its plan makes them (a ``move`` to ``"new"`` or a ``lay``): each becomes a label."""
    loose = set(seat.loose)
    made = 0

    def ref(m: Any) -> Any:
        return f"n{m - NEW_BASE + 1}" if isinstance(m, int) and m >= NEW_BASE else m

    def create() -> str:
        nonlocal made
        made += 1
        return f"n{made}"

    steps: list[Step] = []
    touched: list[int] = []

    def touch(m: Any) -> None:
        if isinstance(m, int) and m < NEW_BASE and m not in touched:
            touched.append(m)

    def put(card: int, meld: Any) -> None:
        if card in loose:
            step: Step = {"do": "move", "card": "JK", "meld": LOOSE, "to": meld}
            face = sol.joker_faces.get(card)
            if face:
                step["as"] = face
            steps.append(step)
        else:
            steps.append({"do": "add", "card": _named(card, sol.joker_faces), "meld": meld})
        touch(meld)

    for st in sol.plan:
        do = st[0]
        if do in ("add", "place"):
            put(st[1], ref(st[2]))
        elif do == "move":
            card, src, dst = st[1], st[2], st[3]
            touch(src)
            step: Step = {"do": "move", "card": seat.text.get(card, C.name(card)),
                          "meld": ref(src)}
            if dst == "new":
                step["to"] = "new"
                step["creates"] = create()
            else:
                step["to"] = ref(dst)
                touch(dst)
            if C.is_joker(card):
                face = sol.joker_faces.get(card)
                if face:
                    step["as"] = face
            steps.append(step)
        elif do == "lay":
            label = create()
            hand_cards = [c for c in st[1] if c not in loose]
            steps.append({"do": "lay", "cards": [_named(c, sol.joker_faces) for c in hand_cards],
                          "creates": label})
            for j in (c for c in st[1] if c in loose):
                put(j, label)
        # "stage": nothing to send in a classic turn
    moved = {st[1] for st in sol.plan if st[0] == "move"}
    for mid, cards in seat.table.items():
        for j in cards:
            new = sol.joker_faces.get(j)
            if C.is_joker(j) and j not in moved and new and new != seat.faces.get(j):
                # C10: a joker that stays in its meld takes the face of its new place there.
                steps.append({"do": "move", "card": seat.text[j], "meld": mid, "to": mid,
                              "as": new})
                touch(mid)
    steps.append({"do": "end"})
    placed = ["JK" if c in loose else _named(c, sol.joker_faces) for c in sol.placed]
    return TurnPlan(steps, placed, sol.moved, touched)


def _solve(seat: Seat, hand: list[int], budget: float, clock: Callable[[], float]) -> Solution:
    return solve(seat.table, hand + seat.loose, seat.rules, budget=budget, clock=clock,
                 next_meld_id=NEW_BASE, opened=seat.opened or seat.rules.opening <= 0,
                 joker_faces=seat.faces)


def _acceptable(seat: Seat, sol: Solution, hand: list[int]) -> bool:
    """A solution this seat may carry out: something from the hand down (or, mid-turn, the
    table put in order), every loose joker down, and (C19) not out on a first turn where that
    is refused."""
    if not any(c in sol.placed for c in hand) and not (seat.changed and (sol.placed
                                                                          or sol.moved)):
        return False
    if any(j not in sol.placed for j in seat.loose):
        return False
    return not _first_turn_out(seat, sol, len(hand))


def _first_turn_out(seat: Seat, sol: Solution, hand_size: int) -> bool:
    return (not seat.rules.first_turn_out and seat.first_turn
            and len([c for c in sol.placed if c not in seat.loose]) >= hand_size)


def _hold_one(seat: Seat, hand: list[int], sol: Solution, budget: float,
              clock: Callable[[], float]) -> Solution | None:
    """C19: the best play that keeps at least one card in the hand (tries a few cards)."""
    order = sorted(set(c for c in sol.placed if c in hand),
                   key=lambda c: (C.is_joker(c), card_worth(C.rank_of(c)) if not C.is_joker(c)
                                  else 0))
    best: Solution | None = None
    for card in order[:3]:
        rest = [c for c in hand if c != card]
        got = _solve(seat, rest, budget / 3, clock)
        if got.placed and (best is None or len(got.placed) > len(best.placed)):
            best = got
    return best


def plan_shark(seat: Seat, budget: float = 0.1,
               clock: Callable[[], float] = time.perf_counter) -> TurnPlan:
    """The shark's turn (module documentation)."""
    hand = list(seat.hand)
    full = _solve(seat, hand, budget, clock)
    out = len([c for c in full.placed if c in hand]) == len(hand)
    if out and _first_turn_out(seat, full, len(hand)):
        held = _hold_one(seat, hand, full, budget, clock)
        if held is None:
            return _draw(seat, ("hold_back", []))
        plan = from_solution(seat, held)
        kept = [_named(c, held.joker_faces) for c in hand if c not in held.placed]
        plan.advice = ("hold_back", kept)
        return plan
    if out and _acceptable(seat, full, hand):
        plan = from_solution(seat, full)
        plan.advice = ("go_out", list(plan.placed))
        return plan
    jokers = [c for c in hand if C.is_joker(c)]
    if jokers and len(hand) > 4:
        bare = [c for c in hand if not C.is_joker(c)]
        keep = _solve(seat, bare, budget, clock)
        if keep.placed and _acceptable(seat, keep, bare):
            plan = from_solution(seat, keep)
            plan.advice = ("hold_back", ["JK"] * len(jokers))
            return plan
    if (full.placed or (seat.changed and full.moved)) and _acceptable(seat, full, hand):
        return from_solution(seat, full)
    return _draw(seat)


# ---------------------------------------------------------------------------- the casual play


def plan_casual(seat: Seat, budget: float = 0.1, clock: Callable[[], float] = time.perf_counter,
                rng: random.Random | None = None, *, rearrange: float = 0.1,
                miss: float = 0.25) -> TurnPlan:
    """The casual turn (module documentation); ``rng`` draws its whims."""
    rng = rng or random.Random()
    if seat.loose or (seat.opened and rng.random() < rearrange):
        return plan_shark(seat, budget, clock)  # a loose joker must go down: think hard
    rules = seat.rules
    hand = list(seat.hand)
    if not seat.opened and rules.opening > 0:
        sol = _solve(seat, hand, budget, clock)  # only new melds of the hand, worth enough
        if not sol.placed or _first_turn_out(seat, sol, len(hand)):
            return _draw(seat)
        return from_solution(seat, sol)
    laid = solve({}, hand, rules, budget=budget, clock=clock, next_meld_id=NEW_BASE)
    steps: list[Step] = []
    placed: list[int] = []
    n = 0
    for meld in laid.melds:
        if len(meld) < 3:
            continue
        n += 1
        steps.append({"do": "lay", "cards": [_named(c, laid.joker_faces) for c in meld],
                      "creates": f"n{n}"})
        placed.extend(meld)
    left = [c for c in hand if c not in placed]
    touched: list[int] = []
    if rng.random() >= miss:
        table = {m: list(cs) for m, cs in seat.table.items()}
        faces = {j: parse_joker("JK=" + f)[1] for j, f in seat.faces.items()}
        for card in sorted(left, key=lambda c: (C.suit_of(c), C.rank_of(c))):
            if C.is_joker(card):
                continue  # a casual keeps its jokers for a meld of its own
            for mid, cs in table.items():
                if meld_ok(cs + [card], faces, rules):
                    cs.append(card)
                    steps.append({"do": "add", "card": C.name(card), "meld": mid})
                    placed.append(card)
                    if mid not in touched:
                        touched.append(mid)
                    break
    if not placed:
        return _draw(seat)
    if (len(placed) == len(hand) and not rules.first_turn_out and seat.first_turn):
        # C19: keep the last card back (drop the last add, or the draw when nothing else).
        last = steps.pop()
        if last["do"] != "add":
            return _draw(seat)
        placed = placed[:-1]
    steps.append({"do": "end"})
    return TurnPlan(steps, [_named(c, laid.joker_faces) for c in placed], 0, touched)


# ---------------------------------------------------------------------------- hints


def suggest(view: View, budget: float = 0.1,
            clock: Callable[[], float] = time.perf_counter) -> dict[str, Any]:
    """The hint for a seat's classic view: the shark's turn now, as ``bots.plans.suggest``
    gives it (``{"steps", "cards", "melds", "moved", "advice"}``). Raises ``ValueError``
    (``"not_your_turn"``) when it is not the seat's turn."""
    seat = read(view)
    if seat is None or not seat.on_turn:
        raise ValueError("not_your_turn")
    if seat.changed and not seat.opened and seat.rules.opening > 0:
        plan = TurnPlan([{"do": "reset"}])  # unopened mid-turn: plan again from the start
    else:
        # Mid-turn, the play is planned from the table as it lies now (a loose joker must go
        # down); with nothing more to put down, a table all valid is ended as it is, else
        # the turn is put back and the seat draws.
        plan = plan_shark(seat, budget, clock)
        if seat.changed and plan.draws:
            valid = all(m.get("valid", True) for m in view["table"])
            plan = TurnPlan([{"do": "end"}] if valid and not seat.loose
                            else [{"do": "reset"}, *plan.steps])
    advice = None if plan.advice is None else {"code": plan.advice[0], "cards": plan.advice[1]}
    return {"steps": plan.steps, "cards": plan.placed, "melds": plan.melds,
            "moved": plan.moved, "advice": advice}
