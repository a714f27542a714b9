"""The solver: plans (see ``solver/__init__.py``)."""

from __future__ import annotations

from collections.abc import Sequence

from engine import cards as C
from engine.melds import is_valid
from engine.model import Command
from engine.rules import RuleSet

from .base import Step
from .greedy import _Arr, _score


def _order_adds(base: list[int], extra: list[int], rules: RuleSet) -> list[int]:
    """Cards to add one by one, each keeping the meld valid where that is possible."""
    cur = list(base)
    rest = list(extra)
    out: list[int] = []
    while rest:
        pick = next((c for c in rest if is_valid(cur + [c], rules)), rest[0])
        rest.remove(pick)
        cur.append(pick)
        out.append(pick)
    return out


def _plan(arr: _Arr, origin: dict[int, int], next_id: int, rules: RuleSet
          ) -> tuple[list[Step], list[int]]:
    """The steps that carry out ``arr``, and the final id of each of its melds."""
    _, moved = _score(arr, origin)
    ids: list[int | None] = [mid for _, mid in arr]
    plan: list[Step] = []
    if moved == 0:
        for cards, mid in arr:
            if mid is None:
                continue
            old = [c for c in cards if c in origin]
            new = [c for c in cards if c not in origin]
            for c in _order_adds(old, new, rules):
                plan.append(("add", c, mid))
        lays = [k for k, (_, mid) in enumerate(arr) if mid is None]
        for k in lays:
            for c in arr[k][0]:
                plan.append(("stage", c))
        for k in lays:
            plan.append(("lay", list(arr[k][0])))
            ids[k] = next_id
            next_id += 1
        return plan, [int(i) for i in ids if i is not None]
    for cards, _ in arr:
        for c in cards:
            if c not in origin:
                plan.append(("stage", c))
    for k, (cards, _mid) in enumerate(arr):
        for c in cards:
            if c in origin and origin[c] != ids[k]:
                if ids[k] is None:
                    plan.append(("move", c, origin[c], "new"))
                    ids[k] = next_id
                    next_id += 1
                else:
                    plan.append(("move", c, origin[c], ids[k]))
    for k, (cards, _) in enumerate(arr):
        if ids[k] is None:
            plan.append(("lay", list(cards)))
            ids[k] = next_id
            next_id += 1
    for k, (cards, mid) in enumerate(arr):
        if mid is None and all(c not in origin for c in cards):
            continue  # laid whole
        for c in cards:
            if c not in origin:
                plan.append(("place", c, ids[k]))
    return plan, [int(i) for i in ids if i is not None]


def plan_commands(plan: Sequence[Step], player: str) -> list[Command]:
    """The plan as engine commands for ``player`` (cards named by their faces)."""
    out: list[Command] = []
    for step in plan:
        do = step[0]
        if do == "add":
            out.append(Command(player, "add", card=C.name(step[1]), meld=step[2]))
        elif do == "stage":
            out.append(Command(player, "stage", card=C.name(step[1])))
        elif do == "move":
            out.append(Command(player, "move", card=C.name(step[1]), meld=step[2], to=step[3]))
        elif do == "place":
            out.append(Command(player, "place", card=C.name(step[1]), meld=step[2]))
        elif do == "lay":
            out.append(Command(player, "lay", cards=tuple(C.name(c) for c in step[1])))
        else:
            raise ValueError(f"unknown plan step {step!r}")
    return out
