"""Judging's wound and dependency step (R8) and the chain undo (§5.5, R10), without a Hand.

* ``engine.wounds.judge_meld`` against R8 by its letter on random action graphs (the generator
  of ``test_engine_judging``): wounded exactly when no put-back set mends the meld; its
  dependencies are that set plus each confirmed action the meld cannot do without alone
  (R8(b)); its waits the other confirmed actions when the meld falls without all of them.
* ``DependencyGraph.undo`` (the chain undo's walk) against a brute-force closure, with
  Hypothesis: what falls is the fixpoint of R10's two edges (later actions on the card; plays
  that needed an undone action fall whole), each card's actions are undone newest first, and
  a fallen play is announced before its first action goes back.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from enginehelpers import replayed_place
from hypothesis import given, settings
from hypothesis import strategies as st
from test_engine_judging import ACE_MODES, brute_force, random_graph

from engine.graph import DependencyGraph
from engine.melds import is_valid
from engine.model import Action, Play
from engine.rules import RuleSet
from engine.wounds import judge_meld, judge_play, touched

STATUS = {1: "open", 2: "open", 3: "open", 4: "confirmed"}


def _content(g: dict[str, Any], back: set[Action]) -> list[int]:
    return [c for c in g["cards"]
            if replayed_place(g["stacks"][c], g["start"][c], back) == ("meld", 1)]


def _ok(cards: list[int], rules: RuleSet) -> bool:
    return not cards or is_valid(cards, rules)


@pytest.mark.parametrize("rules", ACE_MODES, ids=[r.ace_mode.value for r in ACE_MODES])
def test_judge_meld_is_r8_by_its_letter_without_a_hand(rules: RuleSet) -> None:
    rng = random.Random(20261204)
    seen = {"wounded": 0, "deps": 0, "waits": 0}
    for i in range(500):
        g = random_graph(rng, max_open=6)
        meld_log = {1: [a for a in g["actions"] if 1 in a.touches()]}
        melds = {1: [c for c in g["cards"] if g["where"][c] == ("meld", 1)]}
        got = judge_meld(1, 1, meld_log, g["stacks"], melds, g["where"], STATUS.__getitem__, rules)
        want, _ = brute_force(g, rules)
        assert got.ok == (want is not None), (i, g["actions"])
        if want is None:
            seen["wounded"] += 1
            assert got.deps == [] and got.waits == []
            continue
        put_back = [a for a in g["others"] if a.seq in want]
        taken = set(g["others"]) - set(put_back)
        unsafe = [a for a in meld_log[1] if a.play == 4]
        needed = [a for a in unsafe if not _ok(_content(g, taken | {a}), rules)]
        assert [a.seq for a in got.deps] == sorted(want) + [a.seq for a in needed], i
        waits = ([a for a in unsafe if a not in needed]
                 if len(unsafe) > 1 and not _ok(_content(g, taken | set(unsafe)), rules) else [])
        assert got.waits == waits, i
        seen["deps"] += bool(needed)
        seen["waits"] += bool(waits)
        # A play judged on its touched melds is the meld's verdict (one meld here).
        mine = [a for a in g["actions"] if a.play == 1]
        if 1 in touched(mine):
            whole = judge_play(1, [1], meld_log, g["stacks"], melds, g["where"],
                               STATUS.__getitem__, rules)
            assert (whole.wounded, whole.deps, whole.waits) == ([], got.deps, got.waits)
    assert seen["wounded"] >= 20 and seen["deps"] >= 10 and seen["waits"] >= 1, seen


# ---------------------------------------------------------------------------------- R10


@st.composite
def graphs(draw: st.DrawFn) -> tuple[DependencyGraph, dict[int, Play], Action]:
    """Up to 6 plays (open or confirmed) and 30 actions on up to 5 cards over 4 melds; each
    confirmed play needed a few earlier actions of other plays (its meld edges)."""
    n_plays = draw(st.integers(1, 6))
    plays = {pid: Play(pid, f"P{pid}", 0, None) for pid in range(1, n_plays + 1)}
    for p in plays.values():
        p.status = draw(st.sampled_from(["open", "confirmed"]))
    graph = DependencyGraph(plays)
    where: dict[int, int] = {}
    for seq in range(1, draw(st.integers(1, 30)) + 1):
        pid = draw(st.integers(1, n_plays))
        card = draw(st.integers(0, 4))
        src = ("meld", where.get(card, 0))
        dst = draw(st.sampled_from([m for m in range(4) if m != src[1]]))
        a = Action(seq, pid, f"P{pid}", "move", card, src, dst, None)
        where[card] = dst
        plays[pid].actions.append(a)
        graph.add(a)
    for p in plays.values():
        if p.status == "confirmed":
            earlier = [a for a in graph.actions if a.play != p.id]
            graph.confirm(p, draw(st.lists(st.sampled_from(earlier), max_size=3))
                          if earlier else [])
    return graph, plays, draw(st.sampled_from(graph.actions))


def _closure(graph: DependencyGraph, plays: dict[int, Play],
             a: Action) -> tuple[set[int], set[int]]:
    """R10 by its letter: (undone action numbers, fallen plays), the fixpoint of the edges."""
    stacks = {c: list(s) for c, s in graph.card_stack.items()}
    deps = {k: set(v) for k, v in graph.dependents.items()}
    standing = {p.id for p in plays.values() if p.status in ("confirmed", "final")}
    undone: set[Action] = {a}
    fallen: set[int] = set()
    changed = True
    while changed:
        changed = False
        for x in list(undone):
            st_ = stacks[x.card]
            for b in st_[st_.index(x) + 1:]:
                if b.play in standing:
                    changed |= b.play not in fallen
                    fallen.add(b.play)
                elif b not in undone:
                    undone.add(b)
                    changed = True
            for pid in deps.get(x.seq, ()):
                if pid in standing and pid not in fallen:
                    fallen.add(pid)
                    changed = True
        for pid in fallen:
            for b in plays[pid].actions:
                if b not in undone:
                    undone.add(b)
                    changed = True
    return {x.seq for x in undone}, fallen


@settings(max_examples=400, deadline=None)
@given(graphs())
def test_the_chain_undo_is_the_closure_of_r10s_edges(case: tuple[DependencyGraph, dict[int, Play],
                                                                 Action]) -> None:
    graph, plays, a = case
    want_undone, want_fallen = _closure(graph, plays, a)
    log: list[tuple[str, int]] = []
    graph.undo(a, lambda x: log.append(("undo", x.seq)),
               lambda p, done: log.append(("fell" if not done else "fell_done", p.id)))
    undone = [s for k, s in log if k == "undo"]
    assert len(undone) == len(set(undone)) and set(undone) == want_undone
    assert {s for k, s in log if k == "fell"} == want_fallen
    assert {p.id for p in plays.values() if p.status == "fallen"} == want_fallen
    by_seq = {x.seq: x for x in graph.actions}
    for c in {by_seq[s].card for s in undone}:          # each card: newest first
        mine = [s for s in undone if by_seq[s].card == c]
        assert mine == sorted(mine, reverse=True), (c, mine)
    for pid in want_fallen:                             # said before its cards go back
        first = log.index(("fell", pid))
        assert all(log.index(("undo", x.seq)) > first for x in plays[pid].actions
                   if x is not a), pid
        assert log.index(("fell_done", pid)) > first
    for c, stack in graph.card_stack.items():           # nothing undone left in the graph
        assert all(not x.undone for x in stack), c
    for m, acts in graph.meld_log.items():
        assert all(not x.undone for x in acts), m
    assert not set(graph.unfinal) & want_fallen
