"""Properties aimed at the fault classes the rules fixes closed (issue 10), driven by Hypothesis.

(a) Removals and returns on one meld in every order (R8): three players rework one crowded
    run at random; after every step, every open play's judgement of every meld it touches
    (in order or wounded, and which open actions it needs put back) equals a brute force
    that replays each card forward without the actions taken back.
(b) Holds on cards an undo moves (R12): in the same games, a held card is always in the
    meld its hold names, and a hold only ends by a drop, 10 s, the end of its play, a Stop!,
    or an undo sending the card to a hand.
(c) Draws and confirmations during a freeze (R14): when a freeze fails, the inactivity clock
    resumes from 120 s if the caller drew or confirmed a play with an own card down during
    it (even one the restore undid), else from what it had left at the Stop!.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

from enginehelpers import check_cards, position, replayed_place
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import cards as C
from engine.errors import Refused
from engine.hand import Command, Hand
from engine.melds import is_valid

PLAYERS = ("A", "B", "C")

# ---------------------------------------------------------------------------------- (a), (b)


def brute_force_judgement(h: Hand, mid: int, pid: int) -> tuple[bool, set[int]]:
    """R8 by its letter on the hand's live actions: (in order, seqs of the open actions put
    back), the smallest set, ties by newest action oldest first."""
    log = [a for a in h.meld_log.get(mid, ()) if not a.undone]
    others = [a for a in log if a.play != pid and h.plays[a.play].status == "open"]
    cards = set(h.melds.get(mid, ())) | {a.card for a in log}
    if len(others) > 12:
        raise AssertionError("too many open actions for the brute force")
    for k in range(len(others) + 1):
        found = []
        for subset in combinations(others, k):
            back = set(others) - set(subset)
            content = []
            for c in cards:
                stack = h.card_stack.get(c, [])
                place = replayed_place(stack, stack[0].src if stack else h.loc[c], back)
                if place == ("meld", mid):
                    content.append(c)
            if not content or is_valid(content, h.rules):
                found.append(sorted((a.seq for a in subset), reverse=True))
        if found:
            return True, set(min(found))
    return False, set()


def crowded_position() -> Hand:
    return position("3H 4H 5H 6H 7H 8H 9H | 9S 9D 9C | 5S 6S 7S | 10H JH QH",
                    A="2H 10S KD 4S", B="KH 8S 2D 9H", C="AH 4D 3S QS")


def crowded_commands(h: Hand) -> dict[str, list[Command]]:
    """Moves in and out of meld 1 above all, takes of cards others moved, cancels; by kind."""
    out: dict[str, list[Command]] = {}

    def put(kind: str, c: Command) -> None:
        out.setdefault(kind, []).append(c)

    table = h.table()
    for p in PLAYERS:
        if h.players[p].status != "active":
            continue
        for c in h.hands[p][:2]:
            put("stage", Command(p, "stage", card=C.name(c)))
            for m in (1, 4):
                if m in table and not h.staging[p]:
                    put("add", Command(p, "add", card=C.name(c), meld=m))
        for c in h.staging[p]:
            for m in list(table)[:3]:
                put("place", Command(p, "place", card=C.name(c), meld=m))
            put("unstage", Command(p, "unstage", card=C.name(c)))
        for m, cs in table.items():
            if not h.staging[p] or p in h.holds:
                break  # moving table cards needs a declared play and free hands (R6, R12)
            for c in cs[:: max(1, len(cs) // 3)]:
                for d in [x for x in (1, 2, 3, 4) if x in table and x != m][:2]:
                    put("move", Command(p, "move", card=C.name(c), meld=m, to=d))
            moved = [c for c in cs if h.on_trial(c)]  # the holds an undo may move
            for c in moved or cs[:1]:
                put("take", Command(p, "take", card=C.name(c), meld=m))
        if p in h.holds:
            for m in list(table)[:3]:
                put("drop", Command(p, "drop", to=m))
            put("drop", Command(p, "drop", to="new"))
        if h.players[p].play is not None:
            put("cancel", Command(p, "cancel"))
            put("end", Command(p, "end"))
    return out


KIND_WEIGHTS = {"stage": 15, "move": 30, "take": 25, "drop": 6, "cancel": 15, "end": 5,
                "add": 6, "place": 8, "unstage": 3}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_judging_and_holds_on_one_crowded_meld(data: st.DataObject) -> None:
    h = crowded_position()
    for p in PLAYERS:  # everyone declared from the start: moves and takes are open to all
        h.apply(Command(p, "stage", card=C.name(h.hands[p][-1])), 0.0)
    t = 0.0
    for _ in range(data.draw(st.integers(5, 25), label="steps")):
        t = round(t + data.draw(st.sampled_from([0.0, 0.2, 1.0, 3.0]), label="dt"), 3)
        holds_before = {p: (x.card, x.meld) for p, x in h.holds.items()}
        cands = crowded_commands(h)
        kind = data.draw(st.sampled_from(
            [k for k, w in KIND_WEIGHTS.items() if k in cands for _ in range(w)]), label="kind")
        cmd = data.draw(st.sampled_from(cands[kind]), label="command")
        try:
            h.apply(cmd, t)
        except Refused:
            pass
        evs = h.drain_events()
        check_cards(h)
        if h.result is not None:
            return
        ended = {e.player for e in evs if e.kind == "hold_ended"}
        dropped = {e.player for e in evs if e.kind == "moved" and e.player in holds_before
                   and e.data["card"] == C.name(holds_before[e.player][0])}
        for p, (card, _) in holds_before.items():
            # (b) a hold survives whatever moved its card between melds
            if p in dropped:
                continue
            if p not in ended:
                assert p in h.holds and h.holds[p].card == card, (p, evs)
            else:
                (why,) = [e.data["reason"] for e in evs if e.kind == "hold_ended" and e.player == p]
                assert why != "undone" or h.loc[card][0] == "hand", (why, h.loc[card])
        for p, x in h.holds.items():
            assert h.loc[x.card] == ("meld", x.meld), f"{p} holds {C.name(x.card)} in meld {x.meld}"
        for pid in h._open:
            for m in h._touched(h.plays[pid]):
                ok, deps, _ = h._judge_meld(m, pid)
                want_ok, want_back = brute_force_judgement(h, m, pid)
                put_back = {a.seq for a in deps if h.plays[a.play].status == "open"}
                assert (ok, put_back if ok else set()) == (want_ok, want_back), (pid, m)


# ---------------------------------------------------------------------------------- (c)


def _own_down_at_end(evs: list[Any], pid: int) -> bool:
    """From the events alone: own cards of play ``pid`` put down minus those undone."""
    down = 0
    for e in evs:
        if e.data.get("play") != pid:
            continue
        if e.kind == "laid":
            down += len(e.data["cards"])
        elif e.kind in ("added", "placed"):
            down += 1
        elif e.kind == "undone" and e.data.get("owner") is not None:
            down -= 1
    return down > 0


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_failed_freeze_resumes_inactivity_by_what_happened_in_it(data: st.DataObject) -> None:
    h = position("5H 6H 7H 8H | 9C 10C JC | 4S 4D 4C", A="5D 5S 5C 2D 6D 7D 3H",
                 B="KS 2C", C="QD", stocks={"A": "3D 4H 8D 9D", "B": "AS"})
    t_draw = data.draw(st.sampled_from([None, 1.0, 4.0]), label="B draws at")
    if t_draw is not None:
        h.apply(Command("B", "draw"), t_draw)
    t_stop = data.draw(st.sampled_from([5.0, 30.0, 100.0]), label="stop at")
    h.apply(Command("A", "stop"), t_stop)
    before = h.freeze.inactivity_left_ms if h.freeze else None
    left = 120_000 - int((t_stop - (t_draw or 0.0)) * 1000)
    assert before == left
    evs = h.drain_events()
    t = t_stop
    moves = [Command("A", "draw"), Command("A", "stage", card="5D"), Command("A", "stage", card="5S"),
             Command("A", "stage", card="5C"), Command("A", "lay", cards=("5D", "5S", "5C")),
             Command("A", "add", card="2D", meld=1), Command("A", "move", card="9C", meld=2, to="new"),
             Command("A", "move", card="8H", meld=1, to="new"), Command("A", "add", card="6D", meld=3),
             Command("A", "stage", card="3H"), Command("A", "end"), Command("A", "cancel"),
             Command("A", "place", card="3H", meld=1)]
    for _ in range(data.draw(st.integers(0, 8), label="freeze steps")):
        t = round(t + data.draw(st.sampled_from([0.5, 10.0, 30.0]), label="dt"), 3)
        if t >= t_stop + 180:
            break
        try:
            h.apply(data.draw(st.sampled_from(moves), label="command"), t)
        except Refused:
            pass
        evs += h.drain_events()
        if h.freeze is None:
            break
    if h.freeze is not None:
        end = data.draw(st.sampled_from(["give_up", "timeout"]), label="end")
        if end == "give_up" and t + 1 < t_stop + 180:
            t = round(t + 1, 3)
            h.apply(Command("A", "give_up"), t)
        else:
            t = t_stop + 180
            h.tick(t)
        evs += h.drain_events()
    if h.result is not None or not any(e.kind == "freeze_ended" for e in evs):
        return  # went out: the hand is over
    t_end = next(e.t for e in evs if e.kind == "freeze_ended")
    restarted = any(e.kind == "drew" and e.player == "A" for e in evs) or any(
        e.kind == "play_ended" and e.data["outcome"] == "confirmed" and e.player == "A"
        and _own_down_at_end(evs[: i + 1], e.data["play"])
        for i, e in enumerate(evs))
    want = int(t_end * 1000) + (120_000 if restarted else left)
    assert h.inactivity_deadline_ms == want, (restarted, [(e.kind, e.data) for e in evs])
