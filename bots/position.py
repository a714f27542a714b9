"""The position of one seat, read from its hand view (``engine.view.hand_view``) and nothing
else: the table, the seat's own hand and staging area, the going-out conditions (§8, R15), the
melds nobody else is reworking, the clocks. Used by :mod:`bots.plans` and :mod:`bots.brain`.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from engine import cards as C
from engine.rules import MACHIAVELOX, RuleSet, find_rules

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
    removed: list[str] = field(default_factory=list)  # the two cards out of the hand (§1)
    #: A lay of mine confirmed but not yet final (R15 counts it once final; if it falls, its
    #: cards come back to the hand, so emptying the hand meanwhile is no invalid going out).
    lay_pending: bool = False

    @property
    def has_laid(self) -> bool:
        """The lay condition of going out is met, or will be once a standing lay is final."""
        return self.laid or self.lay_pending


def position(hv: View, lay_pending: bool = False) -> Position | None:
    """The seat's position, or None when it has no part to play now (a spectator, out of the
    hand, the hand over, outside a tie-break). ``lay_pending``: what the caller knows of a lay
    of this seat confirmed but not final (the view does not say)."""
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
        removed=list(hv.get("removed") or []), lay_pending=lay_pending and not mine["laid"],
    )
