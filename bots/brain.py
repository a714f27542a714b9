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
* ``shark`` plans for going out (``bots.plans.choose_shark``): until it has laid a meld of its
  own (R15) it lays one its hand holds first, else keeps back the pair most likely to become
  one and draws for it; then it asks ``solver.solve`` for the rearrangement of the table with
  its hand that puts down the most cards (then moves the fewest), and carries it out as one
  real declared play, following ``Solution.plan``: ``stage`` the hand cards it will use, ``move`` table
  cards, ``lay`` new melds of its own, ``place`` the rest (or plain ``add``/``lay`` when
  nothing needs moving). When that play empties its hand, conditions met and the table in
  order, it calls ``stop`` first (Stop!, once per hand): the others are frozen while it goes
  out.

A lay of its own that was acknowledged counts for the bot while its meld stands, before the
view says ``laid`` (that comes once the play is final): should it fall, its cards come back.

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

:func:`suggest` (``bots.plans``) is the hint of a friendly game: the shark's play on a seat's
hand view, with its advice. The reading of the view is in ``bots.position``, the plays in
``bots.plans``; how long a bot waits before each command is its pace (``bots.pace``).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

from engine.rules import RuleSet

from .plans import NEW_BASE, Plan, bind_created, may_empty, plan_casual, plan_shark, suggest
from .position import Position, View, position, rules_of

__all__ = ["LEVELS", "NEW_BASE", "Brain", "Plan", "Position", "position", "suggest"]

LEVELS = ("casual", "shark")

Step = dict[str, Any]


# ---------------------------------------------------------------------------- the brain


def _count(faces: Iterable[str]) -> Counter[str]:
    return Counter(faces)


class Brain:
    """One bot's decisions. Feed it every view (:meth:`decide`) and the reply to each command
    it sent (:meth:`result`). After :meth:`decide`, ``new_plan`` is the play that decision
    began (None when it went on with a play, drew or waited): the pace thinks over it.

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
        self.new_plan: Plan | None = None
        #: The melds this bot laid this hand (acknowledged ``lay``): while one stands, its lay
        #: counts for going out before the view says ``laid`` (R15, ``Position.lay_pending``).
        self.laid_melds: set[int] = set()

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
        made = (reply.get("made") or {}).get("meld")
        if cmd.get("do") == "lay" and isinstance(made, int):
            self.laid_melds.add(made)
        if step is None or not self.plan or self.plan[0] is not step:
            return
        if not bind_created(self.bound, step, reply, self.plan[1:]):
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
        self.new_plan = None
        if game is None:
            return None
        if "table" in game and "players" in game:
            game = {"phase": "hand", "hand": game}  # a bare hand view
        if game.get("phase") == "pause":
            self._abort()
            self.laid_melds = set()
            return self._ready(game)
        if game.get("phase") != "hand" or game.get("hand") is None:
            self._abort()
            return None
        hv = game["hand"]
        pending = bool(self.laid_melds) and any(m["id"] in self.laid_melds for m in hv["table"])
        pos = position(hv, pending)
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
        sig = (self.level, tuple(sorted(pos.usable.items())), tuple(sorted(pos.hand)),
               pos.has_laid, pos.drew, pos.stock > 0, pos.tiebreak, my_freeze)
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
                    and may_empty(pos, plan)):
                steps.insert(0, {"do": "stop"})
                self.stats["stops"] += 1
            self.plan = steps
            self.bound = {}
            self.new_plan = plan
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
                and len(plan.steps) * self.step_time > pos.play_clock * 0.95):
            self.stats["plans_too_long"] += 1
            return plan_casual(pos, rules, self.budget, self.clock)
        return plan

    def _step(self, pos: Position, now: float) -> dict[str, Any] | None:
        """The next step of the plan as a command, if it still fits the view; else the plan
        is dropped (and the caller cancels the open play)."""
        step = self.plan[0]
        if pos.deadline is not None and step["do"] != "stop":
            left = pos.deadline - now
            if left < len(self.plan) * self.step_time + pos.play_clock * 0.0075:
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
