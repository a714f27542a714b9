"""What a bot does at a classic table, decided from its seat's classic view and nothing else.

:class:`ClassicBrain` has the interface of :class:`bots.brain.Brain` (``decide(view,
elapsed)`` → a command dict or None, ``result(cmd, reply)``, ``plan``, ``new_plan``,
``stats``), so :class:`bots.client.BotPlayer` runs either. It reads the view that
:func:`engine.classic.view.classic_view` gives the seat (shape in its docstring) and acts only
on its own turn (C13):

* At the turn's start it plans the whole turn (``bots.classic_plans``: ``plan_casual`` or
  ``plan_shark`` by level) and sends it one step at a time, each after the ``ack`` of the one
  before (a new meld's label bound to the id in the ack's ``made``), ending with ``end``; with
  nothing to put down it draws (passes when the stock is empty).
* Refusals: nothing is judged before ``end`` (C13, C16), so a refused step or a refused
  ``end`` means the plan was wrong: it sends ``reset`` (C18) and then draws or passes. A draw
  refused too is followed by a pass (and the other way round); after that it waits for the
  turn to change. It never sends the same plan twice in one turn, so a seat never loops.
* The turn clock (C20, the Dutch two minutes; with the absence clock, C31: the view's
  ``turn.ends``): a plan that would not be done in time at this bot's pace (``step_time``
  seconds a step) is cut back to a draw before it starts; a plan running late is given up with
  ``reset`` and a draw, so the bot takes the card it chooses rather than a penalty card.
* A view that shows the turn already under way (a reconnection mid-turn) is planned from the
  table as it lies (a loose joker must go down, C11); when that cannot be finished, ``reset``.
* In the pause between hands it sends ``ready`` once a hand (C31); it stops at the match's
  end (the client sees ``match.over``).
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from .classic_plans import Seat, TurnPlan, View, plan_casual, plan_shark, read
from .plans import bind_created

LEVELS = ("casual", "shark")

Step = dict[str, Any]

#: Seconds kept back before the turn clock ends, beyond the plan's own steps.
CLOCK_MARGIN = 3.0


class ClassicBrain:
    """One bot's decisions at a classic table (module documentation).

    ``budget``: seconds the solver may think per plan; ``step_time``: seconds one command takes
    at this bot's pace (reaction plus a round trip), to fit a plan within the turn clock;
    ``seed``: the casual level's whims (what it misses, when it rearranges)."""

    def __init__(self, level: str = "casual", *, budget: float = 0.1, step_time: float = 0.05,
                 seed: int | None = None, start_grace: float = 0.0,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        if level not in LEVELS:
            raise ValueError(f"unknown level {level!r}: one of {LEVELS}")
        self.level = level
        self.budget = budget
        self.step_time = max(0.0, step_time)
        self.start_grace = start_grace
        self.clock = clock
        self.rng = random.Random(seed)
        self.plan: list[Step] = []
        self.bound: dict[str, int] = {}
        self.sent: Step | None = None
        self.new_plan: TurnPlan | None = None
        self.stats: Counter[str] = Counter()
        self._turn: tuple[Any, ...] | None = None
        #: What this turn has come to: "fresh" (not planned yet), "playing", "fallback" (after
        #: a refusal: reset then draw/pass), "done" (nothing more to send this turn).
        self._state = "fresh"
        self._ready_for: int | None = None

    # ------------------------------------------------------------ inputs

    def result(self, cmd: dict[str, Any], reply: dict[str, Any]) -> None:
        """The server's answer (``ack``, ``refused`` or ``error``) to ``cmd``."""
        step, self.sent = self.sent, None
        do = cmd.get("do")
        if reply.get("type") != "ack":
            self.stats["refused"] += 1
            self.stats["refused:" + str(reply.get("code"))] += 1
            if do == "ready":
                return
            if do in ("draw", "pass"):
                # The other one once (an empty stock, or a stock we did not see); then wait.
                other = "pass" if do == "draw" else "draw"
                tried = self._state == "fallback_other"
                self.plan = [] if tried else [{"do": "reset"}, {"do": other}]
                self._state = "done" if tried else "fallback_other"
                return
            if do == "reset":
                self.plan = []
                self._state = "done"
                return
            self._fallback()
            return
        self.stats["ack:" + str(do)] += 1
        if step is None or not self.plan or self.plan[0] is not step:
            return
        if not bind_created(self.bound, step, reply, self.plan[1:]):
            self._fallback()  # a later step needs that meld and its id is unknown
            return
        self.plan.pop(0)
        if do in ("end", "draw", "pass"):
            self.plan = []
            self._state = "done"

    def _fallback(self) -> None:
        """The plan failed: put the turn back, then draw (or pass at an empty stock, decided
        on the view at that moment)."""
        if self._state == "playing":
            self.stats["plans_dropped"] += 1
        self.plan = [{"do": "reset"}, {"do": "draw?"}]
        self.bound = {}
        self._state = "fallback"

    # ------------------------------------------------------------ deciding

    def needs_thought(self, game: View | None) -> bool:
        """Whether :meth:`decide` on this view may run the solver (a new turn of ours to plan):
        otherwise it answers at once, and the client calls it without the thinking thread."""
        if not game or game.get("turn") is None or game["turn"].get("player") != game.get("you"):
            return False
        return self._state == "fresh" or self._turn != self._key(game)

    @staticmethod
    def _key(game: View) -> tuple[Any, ...]:
        # What no step of one's own turn changes, and every turn of another does (a draw, a
        # pass, a card down, a penalty card): a new turn of ours even at the same instant.
        turn = game["turn"]
        me = game.get("you")
        return (game["match"].get("hand"), turn.get("started"), game.get("stock"),
                game.get("passes"), tuple(p["hand_count"] for p in game["players"]
                                          if p["name"] != me))

    def decide(self, game: View | None, elapsed: float = 0.0) -> dict[str, Any] | None:
        """The next command for this view (received ``elapsed`` seconds ago), or None: wait."""
        self.sent = None
        self.new_plan = None
        if not game or "match" not in game:
            return None
        me = game.get("you")
        mine = next((p for p in game.get("players", []) if p["name"] == me), None)
        if mine is None or game["match"].get("over"):
            return None
        if not mine.get("connected", True):
            return None  # the server has not seen the socket yet: its view follows
        turn = game.get("turn")
        if turn is None or game.get("hand") is None:
            self.plan = []
            return self._ready(game, mine)
        if turn["player"] != me:
            self.plan = []
            self._turn = None
            return None
        key = self._key(game)
        if key != self._turn:
            self._turn = key
            self._state = "fresh"
            self.plan = []
            self.bound = {}
        now = float(game.get("t") or 0.0) + max(0.0, elapsed)
        if now < self.start_grace and self._state == "fresh" and any(
                not p["connected"] for p in game["players"] if p.get("in_hand")):
            return None  # the hand has just begun and someone is not there yet
        seat = read(game)
        if seat is None:
            return None
        if self._state == "fresh":
            return self._fresh(game, seat, now)
        if self._state == "playing":
            ends = turn.get("ends") if turn.get("ends") is not None else turn.get("deadline")
            if (ends is not None and self.plan and self.plan[0]["do"] not in ("draw", "pass")
                    and ends - now < len(self.plan) * self.step_time + 1.0):
                self.stats["plans_late"] += 1
                self._fallback()
        if not self.plan:
            if self._state in ("playing", "fallback"):
                self._fallback()  # the plan was dropped from outside (a brain error)
            elif self._state == "fallback_other":
                self._state = "done"
                return None
            else:
                return None
        return self._step(seat)

    def _ready(self, game: View, mine: dict[str, Any]) -> dict[str, Any] | None:
        """``ready`` once in the pause after a hand (C31)."""
        match = game["match"]
        if (match.get("pause_until") is None or not mine.get("in_match")
                or self._ready_for == match.get("hand")):
            return None
        self._ready_for = match.get("hand")
        return {"do": "ready"}

    def _fresh(self, game: View, seat: Seat, now: float) -> dict[str, Any] | None:
        plan = self._plan(seat)
        turn = game["turn"]
        ends = turn.get("ends") if turn.get("ends") is not None else turn.get("deadline")
        if ends is not None and not plan.draws:
            left = ends - now - CLOCK_MARGIN
            if len(plan.steps) * self.step_time * 1.5 > left:
                self.stats["plans_too_long"] += 1
                plan = TurnPlan([{"do": "draw" if seat.stock > 0 else "pass"}])
        if seat.changed and plan.draws:
            plan.steps.insert(0, {"do": "reset"})  # drawing needs the turn as it began (C14)
        self.plan = [dict(s) for s in plan.steps]
        self.bound = {}
        self.new_plan = plan
        self._state = "playing"
        self.stats["plans"] += 1
        self.stats["plans_moving"] += 1 if plan.moved else 0
        self.stats["draws" if plan.draws else "plays"] += 1
        return self._step(seat)

    def _plan(self, seat: Seat) -> TurnPlan:
        if self.level == "casual":
            return plan_casual(seat, self.budget, self.clock, self.rng)
        return plan_shark(seat, self.budget, self.clock)

    def _step(self, seat: Seat) -> dict[str, Any] | None:
        step = self.plan[0]
        if step["do"] == "draw?":
            step = self.plan[0] = {"do": "draw" if seat.stock > 0 else "pass"}
        cmd = {k: v for k, v in step.items() if k != "creates"}
        for key in ("meld", "to"):
            v = cmd.get(key)
            if isinstance(v, str) and v not in ("new", "loose"):
                if v not in self.bound:
                    self._fallback()
                    return self._step(seat)
                cmd[key] = self.bound[v]
        self.sent = step
        return cmd
