"""What a bot does next, decided from the view its seat receives, and nothing else.

Everything here reads the GAME_VIEW of one seat (``engine.view.game_view``: the hand view is
``game["hand"]``, shape in ``engine.view``'s docstring): the table, the seat's own hand and
staging area, counts of the others, clocks. Never the engine's state, never a stock order. The
answers are protocol commands as dicts (``{"do": "move", "card": "4C", "meld": 1, "to":
"new"}``: ``docs/protocol.md``), one at a time; the client adds ``type`` and ``id``.

Levels (:data:`LEVELS`), which differ in what they play, not only in speed:

* ``casual`` draws when it has nothing to play; lays the melds its hand holds
  (``solver.melds_from_hand``), one meld per play (stage the cards, then ``lay``);
  adds single cards that fit a meld as they are (``add``, a direct play). It never touches a
  card already on the table.
* ``shark`` asks ``solver.solve`` for the rearrangement of the table with its hand that
  puts down the most cards (then moves the fewest), and carries it out as one real declared
  play, following ``Solution.plan``: ``stage`` the hand cards it will use, ``move`` table
  cards, ``lay`` new melds of its own, ``place`` the rest (or plain ``add``/``lay`` when
  nothing needs moving). When that play empties its hand, conditions met and the table in
  order, it calls ``stop`` first (Stop!, once per hand): the others are frozen while it goes
  out.

Both work only on melds nobody else is reworking (no open play of another on them, no card
held, on trial or reserved), so their plays rarely meet another's.

Rules a bot keeps (seed §5–§9): it draws only with an empty staging area; it never takes a card
(a ``move`` takes and drops in one command), so it never holds one; before each step of a
plan it checks the step still fits the view it has (the card is still there, the meld still
exists, enough of the 40 s is left for the rest at its pace) and otherwise gives the play up
with ``cancel``; a refused step (the table changed under it) also ends the plan and the open
play with ``cancel``, and the next decision plans again from the new view. It never empties
its hand without having laid a meld (that would be an invalid going out, −15). It sends
``ready`` in the pause between hands. When there is nothing to play and nothing to draw it
waits: the inactivity clock then forces draws or ends the hand (§7), so a hand never stalls on
a bot.

New melds in a plan are named ``"n1"``, ``"n2"``, … (the step that makes one carries
``"creates": "n1"``): the id the engine gives a new meld is only known once it exists (others
make melds too), so the brain takes it from the acknowledgement (``made``, docs/protocol.md)
and uses it in the later steps.

:func:`suggest` is the hint of a friendly game: the shark's play on a seat's hand view.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from engine import cards as C
from engine.melds import is_valid
from engine.rules import MACHIAVELOX, RuleSet, find_rules
from solver import Solution, melds_from_hand, solve

LEVELS = ("casual", "shark")

#: Virtual ids the solver gives new melds (far above any real id).
NEW_BASE = 1_000_000

Step = dict[str, Any]
View = dict[str, Any]


def rules_of(hv: View) -> RuleSet:
    """The rule set a hand view names, with its timers."""
    try:
        base = find_rules(str(hv.get("rules") or "machiavelox"))
    except KeyError:
        base = MACHIAVELOX
    timers = hv.get("timers") or {}
    known = ("play", "hold", "inactivity", "freeze", "absence", "tiebreak", "pause")
    sel = {k: float(v) for k, v in timers.items() if k in known and v}
    try:
        return base.with_timers(**sel) if sel else base
    except ValueError:
        return base


class _Ids:
    """Physical card ids for faces: the first copy of a face seen gets copy 0, the next copy 1."""

    def __init__(self) -> None:
        self.used: Counter[str] = Counter()

    def take(self, face: str) -> int:
        f = C.parse_face(face)
        copy = self.used[face]
        self.used[face] += 1
        return C.card_id(f, copy)


# ---------------------------------------------------------------------------- the position


@dataclass
class Position:
    """What a seat may play with, read from its hand view."""

    me: str
    table: dict[int, list[str]]  # every meld: id -> faces
    usable: dict[int, list[str]]  # the melds nobody else is reworking (all, in our Stop!)
    hand: list[str]  # own hand; in a tie-break the whole shared pile (R19)
    staging: list[str]
    stock: int
    drew: bool
    laid: bool
    stop_used: bool
    open_play: int | None
    tiebreak: bool
    freeze_caller: str | None
    all_valid: bool
    play_clock: float
    t: float
    deadline: float | None  # my open play's, seconds in the hand's frame
    holding: bool


def position(hv: View) -> Position | None:
    """The seat's position, or None when it has no part to play now (a spectator, out of the
    hand, the hand over, outside a tie-break)."""
    me = hv.get("you")
    if me is None or hv.get("result") is not None or hv.get("hand") is None:
        return None
    mine = next((p for p in hv["players"] if p["name"] == me), None)
    if mine is None or mine["status"] != "active":
        return None
    tb = hv.get("tiebreak")
    if tb is not None and me not in tb["players"]:
        return None
    others_res = {r["card"] for r in hv.get("reserved", []) if r["player"] != me}
    table: dict[int, list[str]] = {}
    usable: dict[int, list[str]] = {}
    all_valid = True
    for m in hv["table"]:
        table[m["id"]] = list(m["cards"])
        all_valid = all_valid and bool(m["valid"])
        if (m["valid"] and not m["reworked_by"] and not m["on_trial"] and not m["held"]
                and not others_res.intersection(m["cards"])):
            usable[m["id"]] = list(m["cards"])
    hand = list(hv["hand"])
    if tb is not None:
        hand = [f for p in tb["players"] for f in tb["pile"].get(p, [])]
    deadline = None
    if mine["open_play"] is not None:
        for p in hv["plays"]:
            if p["id"] == mine["open_play"]:
                deadline = p["deadline"]
    freeze = hv["clocks"].get("freeze")
    if freeze is not None and freeze["caller"] == me:
        usable = dict(table)  # our own Stop!: every card on the table is ours to move (§9)
    return Position(
        me=me, table=table, usable=usable, hand=hand, staging=list(mine["staging"]),
        stock=int(mine["stock_count"]), drew=bool(mine["drew"]), laid=bool(mine["laid"]),
        stop_used=bool(mine["stop_used"]), open_play=mine["open_play"], tiebreak=tb is not None,
        freeze_caller=None if freeze is None else freeze["caller"], all_valid=all_valid,
        play_clock=float(hv["timers"]["play"]), t=float(hv["t"]), deadline=deadline,
        holding=any(h["player"] == me for h in hv["holds"]),
    )


# ---------------------------------------------------------------------------- plans


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


def _may_empty(pos: Position, plan: Plan) -> bool:
    """Emptying the hand is only a valid going out after a draw and a laid meld (§8, R15)."""
    return pos.tiebreak or (pos.drew and (pos.laid or plan.lays()))


def plan_casual(pos: Position, rules: RuleSet, budget: float = 0.1,
                clock: Callable[[], float] = time.perf_counter) -> Plan | None:
    """Lay a meld of the hand, else add one card to a meld as it is; never rearrange."""
    ids = _Ids()
    hand_ids = [ids.take(f) for f in pos.hand]
    melds = [m for m in melds_from_hand(hand_ids, rules, budget=budget, clock=clock) if len(m) >= 3]
    if melds:
        best = max(melds, key=len)
        faces = [C.name(c) for c in best]
        plan = Plan(_lay_steps(faces), faces)
        if len(faces) < len(pos.hand) or _may_empty(pos, plan):
            return plan
    if len(pos.hand) <= 1 and not (pos.tiebreak or (pos.drew and pos.laid)):
        return None
    table_ids = {mid: [ids.take(f) for f in cs] for mid, cs in pos.usable.items()}
    for face, card in zip(pos.hand, hand_ids):
        for mid, cs in table_ids.items():
            if is_valid(cs + [card], rules):
                return Plan([{"do": "add", "card": face, "meld": mid}], [face], 0, [mid])
    return None


def plan_shark(pos: Position, rules: RuleSet, budget: float = 0.1,
               clock: Callable[[], float] = time.perf_counter) -> Plan | None:
    """The solver's play on the melds nobody else is reworking: most cards down, fewest moved."""
    hand = list(pos.hand)
    for _ in range(2):
        ids = _Ids()
        table = {mid: [ids.take(f) for f in cs] for mid, cs in pos.usable.items()}
        hand_ids = [ids.take(f) for f in hand]
        sol = solve(table, hand_ids, rules, budget=budget, clock=clock, next_meld_id=NEW_BASE)
        if not sol.placed:
            return None
        plan = _from_solution(sol)
        if len(plan.placed) < len(pos.hand) or _may_empty(pos, plan):
            return plan
        # It would empty the hand without a meld laid (−15): keep one card back.
        hand.remove(plan.placed[-1])
    return None


def suggest(hv: View, budget: float = 0.1,
            clock: Callable[[], float] = time.perf_counter) -> dict[str, Any]:
    """The hint for a seat's hand view: the play the shark would make now.

    ``{"steps": [...], "cards": [hand cards put down], "melds": [table meld ids touched],
    "moved": n}``; with nothing to put down, ``steps`` is ``[{"do": "draw"}]`` when the seat
    may draw, else ``[]``."""
    pos = position(hv)
    empty: dict[str, Any] = {"steps": [], "cards": [], "melds": [], "moved": 0}
    if pos is None or (pos.freeze_caller is not None and pos.freeze_caller != pos.me):
        return empty
    if pos.open_play is not None or pos.staging:
        return empty  # finish (or cancel) the play under way first
    plan = plan_shark(pos, rules_of(hv), budget, clock)
    if plan is None:
        if not pos.tiebreak and pos.stock > 0:
            return {**empty, "steps": [{"do": "draw"}]}
        return empty
    return {"steps": plan.steps, "cards": plan.placed, "melds": plan.melds, "moved": plan.moved}


# ---------------------------------------------------------------------------- the brain


def _count(faces: Iterable[str]) -> Counter[str]:
    return Counter(faces)


class Brain:
    """One bot's decisions. Feed it every view (:meth:`decide`), the events it receives
    (:meth:`observe`) and the reply to each command it sent (:meth:`result`).

    ``budget``: seconds the solver may think per decision. ``step_time``: the seconds one
    command takes at this bot's pace (reaction time plus a round trip), to judge whether a
    plan fits in what is left of the 40 s. ``use_stop``: the shark may call Stop! to go out.
    ``start_grace``: in the first seconds of a hand, wait (at most that long) until every seat
    is connected, so that a person whose page is still loading is not left behind.
    """

    def __init__(self, level: str = "casual", *, budget: float = 0.1, step_time: float = 0.05,
                 use_stop: bool = True, start_grace: float = 0.0,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        if level not in LEVELS:
            raise ValueError(f"unknown level {level!r}: one of {LEVELS}")
        self.level = level
        self.budget = budget
        self.step_time = max(0.0, step_time)
        self.use_stop = use_stop
        self.start_grace = start_grace
        self.clock = clock
        self.plan: list[Step] = []
        self.bound: dict[str, int] = {}
        self.sent: Step | None = None
        self._idle: tuple[Any, ...] | None = None
        self._ready_for: int | None = None
        self.stats: Counter[str] = Counter()

    # ------------------------------------------------------------ inputs

    def result(self, cmd: dict[str, Any], reply: dict[str, Any]) -> None:
        """The server's answer (``ack``, ``refused`` or ``error``) to ``cmd``."""
        step, self.sent = self.sent, None
        if reply.get("type") != "ack":
            self.stats["refused"] += 1
            self.stats["refused:" + str(reply.get("code"))] += 1
            if cmd.get("do") == "ready":
                return
            self._abort()
            return
        self.stats["ack:" + str(cmd.get("do"))] += 1
        if step is None or not self.plan or self.plan[0] is not step:
            return
        label = step.get("creates")
        if label is not None:
            mid = (reply.get("made") or {}).get("meld")
            if isinstance(mid, int):
                self.bound[label] = mid
            elif any(label in (s.get("meld"), s.get("to")) for s in self.plan[1:]):
                self._abort()  # a later step needs that meld and its id is unknown
                return
        self.plan.pop(0)
        if step["do"] == "stop":
            # Frozen now: plan again on the table as it is (it may have changed since the
            # plan was made); nobody else can change it any more (§9).
            self.plan = []
        if not self.plan:
            self.bound = {}

    def _abort(self) -> None:
        if self.plan:
            self.stats["plans_dropped"] += 1
        self.plan = []
        self.bound = {}

    # ------------------------------------------------------------ deciding

    def decide(self, game: View | None, elapsed: float = 0.0) -> dict[str, Any] | None:
        """The next command for this view (received ``elapsed`` seconds ago), or None: wait."""
        self.sent = None
        if game is None:
            return None
        if "table" in game and "players" in game:
            game = {"phase": "hand", "hand": game}  # a bare hand view
        if game.get("phase") == "pause":
            self._abort()
            return self._ready(game)
        if game.get("phase") != "hand" or game.get("hand") is None:
            self._abort()
            return None
        hv = game["hand"]
        pos = position(hv)
        if pos is None:
            self._abort()
            return None
        mine = next(p for p in hv["players"] if p["name"] == pos.me)
        if not mine["connected"]:
            return None  # the server has not seen the socket yet: its view follows
        if pos.freeze_caller is not None and pos.freeze_caller != pos.me:
            return None  # frozen (§9): our play waits, suspended
        if pos.holding:
            self._abort()
            return {"do": "cancel"}
        now = pos.t + max(0.0, elapsed)
        if now < self.start_grace and not self.plan and any(
                not p["connected"] for p in hv["players"] if p["status"] == "active"):
            return None  # the hand has just begun and someone is not there yet
        if self.plan:
            cmd = self._step(pos, now)
            if cmd is not None:
                return cmd
        if pos.open_play is not None or pos.staging:
            self._abort()
            return {"do": "cancel"}
        return self._fresh(hv, pos)

    def _ready(self, game: View) -> dict[str, Any] | None:
        hv = game.get("hand") or {}
        me = hv.get("you")
        seat = next((s for s in game.get("seats", []) if s["name"] == me), None)
        if seat is None or seat["ready"] or not seat["in_game"] or self._ready_for == game["hand_no"]:
            return None
        self._ready_for = game["hand_no"]
        return {"do": "ready"}

    def _fresh(self, hv: View, pos: Position) -> dict[str, Any] | None:
        rules = rules_of(hv)
        my_freeze = pos.freeze_caller == pos.me
        sig = (self.level, tuple(sorted(pos.usable.items())), tuple(sorted(pos.hand)), pos.laid,
               pos.tiebreak, my_freeze)
        plan: Plan | None = None
        if sig != self._idle:
            plan = self._plan(pos, rules)
            if plan is None:
                self._idle = sig
        if plan is not None and my_freeze and len(plan.placed) < len(pos.hand):
            plan = None  # in our own freeze only going out is worth anything
        if plan is not None:
            self._idle = None
            steps = [dict(s) for s in plan.steps]
            goes_out = len(plan.placed) == len(pos.hand) and not pos.tiebreak
            if (self.level == "shark" and self.use_stop and goes_out and not my_freeze
                    and not pos.stop_used and pos.freeze_caller is None and pos.all_valid
                    and _may_empty(pos, plan)):
                steps.insert(0, {"do": "stop"})
                self.stats["stops"] += 1
            self.plan = steps
            self.bound = {}
            self.stats["plans"] += 1
            self.stats["plans_moving"] += 1 if plan.moved else 0
            return self._step(pos, pos.t)
        if my_freeze:
            return {"do": "give_up"}  # cannot go out: do not keep the others frozen (§9)
        if not pos.tiebreak and pos.stock > 0 and not pos.staging:
            return {"do": "draw"}
        return None

    def _plan(self, pos: Position, rules: RuleSet) -> Plan | None:
        if not pos.hand:
            return None
        if self.level == "casual":
            return plan_casual(pos, rules, self.budget, self.clock)
        plan = plan_shark(pos, rules, self.budget, self.clock)
        # A plan that cannot be carried out within the 40 s at this pace: the simple play.
        if (plan is not None and pos.freeze_caller != pos.me
                and len(plan.steps) * self.step_time > pos.play_clock - 2.0):
            self.stats["plans_too_long"] += 1
            return plan_casual(pos, rules, self.budget, self.clock)
        return plan

    def _step(self, pos: Position, now: float) -> dict[str, Any] | None:
        """The next step of the plan as a command, if it still fits the view; else the plan
        is dropped (and the caller cancels the open play)."""
        step = self.plan[0]
        if pos.deadline is not None and step["do"] != "stop":
            left = pos.deadline - now
            if left < len(self.plan) * self.step_time + 0.3:
                self.stats["plans_late"] += 1
                self._abort()
                return None
        cmd = self._resolve(step)
        if cmd is None or not self._fits(cmd, pos):
            self.stats["plans_stale"] += 1
            self._abort()
            return None
        self.sent = step
        return cmd

    def _resolve(self, step: Step) -> dict[str, Any] | None:
        cmd = {k: v for k, v in step.items() if k != "creates"}
        for key in ("meld", "to"):
            v = cmd.get(key)
            if isinstance(v, str) and v != "new":
                if v not in self.bound:
                    return None
                cmd[key] = self.bound[v]
        return cmd

    @staticmethod
    def _fits(cmd: dict[str, Any], pos: Position) -> bool:
        do = cmd["do"]
        declared = bool(pos.staging) or pos.freeze_caller == pos.me
        if do == "stage":
            return _count(pos.hand)[cmd["card"]] > 0
        if do == "add":
            return not pos.staging and _count(pos.hand)[cmd["card"]] > 0 and cmd["meld"] in pos.table
        if do == "place":
            return cmd["card"] in pos.staging and cmd["meld"] in pos.table
        if do == "lay":
            return not (_count(cmd["cards"]) - _count(pos.staging))
        if do == "move":
            src = pos.table.get(cmd["meld"])
            return (declared and src is not None and cmd["card"] in src
                    and (cmd["to"] == "new" or cmd["to"] in pos.table))
        return True
