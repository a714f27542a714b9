"""The rules fixes of R8, R12, R14–R16, R18 and R1, each pinned (issue 10).

* R8's smallest put-back set against brute force on random action graphs of up to 12
  open actions on one meld, ties included; the brute force replays each card forward
  (skipping the actions taken back) and tries every subset, sorted by R8's tie-break.
* One worked example per ruling made exact, with the outcome reasoned in the docstring.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace
from itertools import combinations
from typing import Any

import pytest
from enginehelpers import (
    F,
    T,
    cmd,
    do,
    events,
    hand_of,
    ids_of,
    meld,
    position,
    replayed_place,
    table_of,
)

from engine import cards as C
from engine.judging import judged_cards, smallest_put_back
from engine.melds import is_valid
from engine.model import Action
from engine.rules import MACHIAVELOX, AceMode, RuleSet
from engine.view import hand_view

# ---------------------------------------------------------------------------------- R8 search

FACES = ["3H", "4H", "5H", "6H", "7H", "8H", "9H", "5S", "6S", "7S", "7C", "7D", "8S"]


def random_graph(rng: random.Random, max_open: int) -> dict[str, Any]:
    """Cards moving between meld 1 (judged), melds 2–3 and a hand, by three kinds of play:
    the judged play (1), other open plays (2, 3) and a confirmed one (4)."""
    cards: list[int] = []
    copies: Counter[str] = Counter()
    start: dict[int, tuple[Any, ...]] = {}
    low = rng.randint(3, 5)
    for r in range(low, low + rng.randint(3, 4)):       # meld 1 starts as a valid run
        c = C.card_id((r, C.parse_face("2H")[1]), 0)
        cards.append(c)
        copies[C.name(c)] += 1
        start[c] = ("meld", 1)
    for _ in range(rng.randint(1, 6)):
        f = rng.choice(FACES)
        if copies[f] < 2:
            c = C.card_id(C.parse_face(f), copies[f])
            cards.append(c)
            copies[f] += 1
            start[c] = rng.choice([("meld", 1), ("meld", 2), ("hand", "X"), ("hand", "X")])
    where = dict(start)
    actions: list[Action] = []
    n_open = 0
    crowded = max_open > 6
    for seq in range(1, rng.randint(12, 26) if crowded else rng.randint(1, 12) + 1):
        c = rng.choice(cards)
        src = where[c]
        dst = rng.choice([m for m in (1, 1, 2, 3) if ("meld", m) != src])
        play = rng.choice([1, 2, 3, 3, 4] if not crowded else [1, 2, 2, 3, 3, 4])
        touches_1 = dst == 1 or src == ("meld", 1)
        if play in (2, 3) and touches_1:
            if n_open >= max_open:
                play = rng.choice([1, 4])
            else:
                n_open += 1
        kind = "own" if src[0] == "hand" else "move"
        actions.append(Action(seq, play, "P", kind, c, src, dst, "X" if kind == "own" else None))
        where[c] = ("meld", dst)
    stacks = {c: [a for a in actions if a.card == c] for c in cards}
    others = [a for a in actions if a.play in (2, 3) and 1 in a.touches()]
    return {"cards": cards, "start": start, "where": where, "actions": actions,
            "stacks": stacks, "others": others}


def brute_force(g: dict[str, Any], rules: RuleSet = MACHIAVELOX) -> tuple[list[int] | None, int]:
    """R8 by its letter: every subset of the open actions put back, each card replayed
    forward without the actions still taken back (and, R8's turn 3, without a play's later
    actions of the card once one of its actions on it is taken back); the smallest valid-or-empty set, ties
    by newest action oldest first. Returns (the set's action numbers, how many sets tied)."""
    others = g["others"]
    for k in range(len(others) + 1):
        found = []
        for subset in combinations(others, k):
            back = set(others) - set(subset)
            content = []
            for c in g["cards"]:
                place = replayed_place(g["stacks"][c], g["start"][c], back)
                content += [c] if place == ("meld", 1) else []
            if not content or is_valid(content, rules):
                found.append(sorted((a.seq for a in subset), reverse=True))
        if found:
            return sorted(min(found)), len(found)
    return None, 0


ACE_MODES = [MACHIAVELOX, replace(MACHIAVELOX, ace_mode=AceMode.LOW_ONLY),
             replace(MACHIAVELOX, ace_mode=AceMode.LOW_OR_HIGH)]


@pytest.mark.parametrize("rules", ACE_MODES, ids=[r.ace_mode.value for r in ACE_MODES])
def test_the_smallest_put_back_set_is_the_brute_force_one_ties_included(rules: RuleSet) -> None:
    rng = random.Random(20261201)
    tied = wounded = needed = big = several = 0
    for i in range(900):
        g = random_graph(rng, max_open=12 if i % 4 == 0 else 6)
        cands = {c: None for c in g["cards"]}
        got = smallest_put_back(1, cands, g["stacks"], g["where"], g["others"], rules)
        want, ties = brute_force(g, rules)
        assert (None if got is None else [a.seq for a in got]) == want, (i, g["actions"])
        tied += ties > 1 and bool(want)
        wounded += want is None
        needed += bool(want)
        big += len(g["others"]) >= 10
        several += bool(got) and len({a.card for a in got or ()}) < len(got or ())
    # The generator must reach every branch: ties among several smallest sets, no set at
    # all (wounded), a set needed, crowded melds, and one card needing two of its actions
    # put back (R8's turn 3 hides a play's later action behind its earlier one).
    assert tied >= 20 and wounded >= 20 and needed >= 50 and big >= 20 and several >= 3, (
        tied, wounded, needed, big, several)


def test_the_judged_meld_holds_a_card_where_its_newest_live_action_put_it() -> None:
    """R8: a removal taken back after the card came back brings in nothing (no double
    count); a card the judged play moved out is not in the meld."""
    c9 = C.card_id(C.parse_face("9C"), 0)
    out_c = Action(1, 2, "C", "move", c9, ("meld", 1), 3, None)    # other open play: 1 → 3
    back_b = Action(2, 4, "B", "move", c9, ("meld", 3), 1, None)   # confirmed play: 3 → 1
    stacks = {c9: [out_c, back_b]}
    where = {c9: ("meld", 1)}
    assert judged_cards(1, [c9], stacks, where, {out_c}) == [c9]   # once, not twice
    mine = Action(3, 1, "A", "move", c9, ("meld", 1), 2, None)     # the judged play moves it out
    stacks = {c9: [out_c, back_b, mine]}
    assert judged_cards(1, [c9], stacks, {c9: ("meld", 2)}, {out_c}) == []


# ---------------------------------------------------------------------------------- R12


def test_an_undo_that_moves_a_held_card_leaves_it_held_on_its_new_meld() -> None:
    """B moved 8H onto the 9C run (open); C takes it there; B cancels: the 8H goes back to
    meld 1 and C still holds it there (no hold_ended), the view shows the hold on meld 1,
    and C's drop moves it from meld 1."""
    h = position("5H 6H 7H 8H | 9C 10C JC QC", A="2S", B="KD 3C", C="QH KH")
    do(h, 0, "B stage KD", "B move 8H 1 2")
    do(h, 1, "C stage QH", "C take 8H 2")
    events(h)
    do(h, 2, "B cancel")
    assert events(h, "hold_ended") == []
    assert h.holds["C"].meld == 1 and h.loc[h.holds["C"].card] == ("meld", 1)
    assert hand_view(h, "C")["holds"] == [
        {"player": "C", "card": "8H", "meld": 1, "until": 11.0}]
    do(h, 3, "C drop new")
    assert table_of(h) == T("5H 6H 7H | 9C 10C JC QC | 8H")


def test_an_undo_that_sends_a_held_card_to_a_hand_ends_the_hold() -> None:
    h = position("4C 5C 6C | 9H 10H JH", A="2S 7C KD", B="7S 7H QD")
    do(h, 0, "A add 2S 2", "A add 7C 1")
    do(h, 1, "B stage 7S", "B take 7C 1")
    events(h)
    do(h, 2, "A cancel")
    (ended,) = events(h, "hold_ended")
    assert (ended["player"], ended["reason"]) == ("B", "undone") and "B" not in h.holds
    assert hand_of(h, "A") == F("2S 7C KD")


# ---------------------------------------------------------------------------------- R14


class TestInactivityInAFreeze:
    """R14: the caller's draw, or a confirmation with an own card down, during the freeze
    restarts the clock: it resumes from the full 120 s when the freeze ends, even if that
    play was undone by the restore. Without a restart it resumes with what it had left."""

    POS = "5H 6H 7H 8H | 9C 10C JC"

    def _stop_at_10(self, **kw: str) -> Any:
        h = position(self.POS, A="5D 5S 5C 2D", B="KS", stocks={"A": "3D 4D"}, **kw)
        do(h, 10, "A stop")                       # the clock had 110 s left
        return h

    def test_no_restart_resumes_with_the_time_left(self) -> None:
        h = self._stop_at_10()
        do(h, 30, "A give_up")
        assert h.inactivity_deadline_ms == 140_000

    def test_a_draw_by_the_caller_restarts_it(self) -> None:
        h = self._stop_at_10()
        do(h, 20, "A draw")
        do(h, 30, "A give_up")
        assert h.inactivity_deadline_ms == 150_000

    def test_a_confirmation_restarts_it_and_stands_when_the_restore_undoes_it(self) -> None:
        h = self._stop_at_10()
        do(h, 20, "A stage 5D", "A stage 5S", "A stage 5C", "A lay 5D 5S 5C")   # confirmed
        do(h, 25, "A stage 2D", "A move 9C 2 new")   # leaves 10C JC: wounded
        do(h, 30, "A give_up")
        assert table_of(h) == T(self.POS) and h.players["A"].status == "eliminated"
        assert h.inactivity_deadline_ms == 150_000


def test_a_twin_added_where_an_open_play_moved_a_card_on_falls_with_that_play() -> None:
    """R8, turn 3 (public case 32): A's open play moves 10C from the tens to the kings, then
    on to a new meld; C adds its own 10C to the tens, confirmed at once. A cancels: taking
    back A's first move takes back its later move of the same card too, so the judged tens
    hold A's 10C again and C's twin makes them invalid: C's add leaned on A's play and falls
    with it, and C's notice says the cause was cancelled."""
    h = position("KC KS KD | 10D 10H 10S 10C", A="QC 4H", B="2D", C="10C KH")
    do(h, 1, "A stage QC", "A move 10C 2 1", "A move 10C 1 new", "C add 10C 2")
    events(h)
    do(h, 5, "A cancel")
    assert table_of(h) == T("KC KS KD | 10D 10H 10S 10C")
    assert hand_of(h, "A") == F("QC 4H") and hand_of(h, "C") == F("10C KH")
    (undo,) = [e for e in events(h, "chain_undo") if e["player"] == "C"]
    assert (undo["cause_player"], undo["cards_back"], undo["cause_reason"]) == ("A", ["10C"], "cancel")


def test_a_card_moved_on_twice_is_judged_where_the_play_first_found_it() -> None:
    """R8, turn 3: taking back A's move of 5H out of the run also takes back A's later
    move of 5H (set → new meld): judged, the run holds 5H, so B's 5H added to the run in
    its place is a duplicate that leans on A's play."""
    h = position("5H 6H 7H 8H | 5S 5D 5C", A="2S KD", B="5H QS", C="KS")
    do(h, 1, "A stage 2S", "A move 5H 1 2", "A move 5H 2 new", "B add 5H 1")
    h.tick(41)
    assert table_of(h) == T("5H 6H 7H 8H | 5S 5D 5C")
    assert hand_of(h, "B") == F("5H QS")


# ---------------------------------------------------------------------------------- R16


def test_a_failed_freeze_judges_the_callers_open_play_by_r8_alone() -> None:
    """A calls Stop!, stages 2S and moves 5H from the run into the 5s: both melds valid, no
    own card down. A gives up: nothing is wounded, so no restore, and the play, opened in
    the freeze, is not undone for having no own card down (the exemption covers work in
    the freeze, to its end)."""
    h = position("5H 6H 7H 8H | 5S 5D 5C", A="2S KD", B="KS")
    do(h, 1, "A stop", "A stage 2S", "A move 5H 1 2")
    do(h, 5, "A give_up")
    assert h.players["A"].status == "eliminated"
    assert table_of(h) == T("6H 7H 8H | 5S 5D 5C 5H")
    assert hand_of(h, "A") == F("2S KD")


def test_after_a_restore_the_callers_play_from_before_the_stop_is_ordinary_again() -> None:
    """R16, turn 3 (public case 33): B stages 2D and moves 7C onto 8C–10C, then calls Stop!
    and wounds the run in the freeze; B gives up. The table goes back to the Stop!, and B's
    play from before it is judged as at its 40 s, §5.3 included: none of B's cards is down,
    so it is undone whole (7C home, 2D back to the hand)."""
    h = position("4C 5C 6C 7C | 8C 9C 10C", A="KD", B="2D 3S", C="3D")
    do(h, 1, "B stage 2D", "B move 7C 1 2", "B stop", "B move 4C 1 new")
    do(h, 5, "B give_up")
    assert h.players["B"].status == "eliminated" and not h._open
    assert table_of(h) == T("4C 5C 6C 7C | 8C 9C 10C")
    assert hand_of(h, "B") == F("2D 3S")


def test_after_a_restore_a_pre_stop_play_with_an_own_card_down_stands() -> None:
    """R16, turn 3, the other way: the pre-Stop! play laid B's 7C on 4C–6C (an own card
    down; KH stays staged), so once the table is back to the Stop! it is in order and
    stands, KH back to the hand."""
    h = position("4C 5C 6C | 8C 9C 10C", A="KD", B="7C KH 3S", C="3D")
    do(h, 1, "B stage 7C", "B stage KH", "B place 7C 1", "B stop", "B move 8C 2 new")
    do(h, 5, "B give_up")
    assert table_of(h) == T("4C 5C 6C 7C | 8C 9C 10C")
    assert hand_of(h, "B") == F("KH 3S")


# ---------------------------------------------------------------------------------- R18


def test_a_tied_player_left_alone_wins_the_tiebreak_even_as_the_last_active() -> None:
    h = position("2C 3C 4C", A="KD QD", B="KS QS", C="KH QH JH")
    do(h, 1, "C leave")
    h.tick(120)
    assert h.tiebreak is not None and sorted(h.tiebreak.players) == ["A", "B"]
    do(h, 121, "A leave")
    assert h.result is not None
    assert (h.result.end, h.result.winner) == ("tiebreak", "B")
    assert h.result.scores == {"A": -15, "B": 50 + 2 + 3, "C": -15}


# ---------------------------------------------------------------------------------- R15


def test_of_two_going_out_plays_final_at_once_the_first_confirmed_goes_out() -> None:
    """C's open play moves 6C onto 3C 4C 5C. B then adds its last card 7C, A its last 2C:
    each needs C's move (without it the 5C–7C gap breaks the run), so both are confirmed
    but wait for C. C places 10C and ends: C is final at once, and so are A and B, at the
    same instant. B was confirmed first, so B goes out, although A sits first."""
    h = position("3C 4C 5C | 6C 7C 8C 9C", A="2C", B="7C", C="10C KD")
    do(h, 0, "C stage 10C", "C move 6C 2 1")
    do(h, 1, "B add 7C 1")
    do(h, 2, "A add 2C 1")
    assert [h.plays[p].status for p in (2, 3)] == ["confirmed", "confirmed"]
    assert h.result is None
    do(h, 3, "C place 10C 2")
    assert h.result is not None and (h.result.end, h.result.winner) == ("out", "B")
    assert meld(h, 1) == F("2C 3C 4C 5C 6C 7C")


# ---------------------------------------------------------------------------------- R1


def test_a_card_sent_back_by_an_undo_is_the_copy_a_later_command_names() -> None:
    """A's 9H (copy 0) goes into a meld that needs B's open move; A draws the other 9H;
    B cancels, A's play falls and copy 0 comes back, arriving last: ``stage 9H`` takes it."""
    h = position("5H 6H 7H | 8H 8S 8D 8C", A="9H KD", B="2C", stocks={"A": "9H"})
    first = ids_of(h, "9H", ("hand", "A"))
    do(h, 0, "B stage 2C", "B move 8H 2 1")
    do(h, 1, "A add 9H 1")
    do(h, 2, "A draw")
    do(h, 3, "B cancel")
    assert h.plays[2].status == "fallen" and len(ids_of(h, "9H", ("hand", "A"))) == 2
    do(h, 4, "A stage 9H")
    assert ids_of(h, "9H", ("staging", "A")) == first


def test_the_search_is_exact_past_ten_open_actions() -> None:
    """Before the fix the search stopped at sets of 3 past 10 open actions. Meld 1 holds
    3H; other open plays moved 4H 5H 6H 7H in from meld 2, and the judged play added 8H:
    taken back, 3H 8H is no meld, and only all four moves put back make it one. Eight more
    open actions pass four spades through meld 1 (2 → 1 → 3), which no set needs."""
    def card(face: str, copy: int = 0) -> int:
        return C.card_id(C.parse_face(face), copy)

    actions: list[Action] = []
    start: dict[int, tuple[Any, ...]] = {card("3H"): ("meld", 1), card("8H"): ("hand", "A")}
    for f in ("4H", "5H", "6H", "7H"):
        start[card(f)] = ("meld", 2)
        actions.append(Action(len(actions) + 1, 2, "B", "move", card(f), ("meld", 2), 1, None))
    actions.append(Action(len(actions) + 1, 1, "A", "own", card("8H"), ("hand", "A"), 1, "A"))
    for f in ("9S", "10S", "JS", "QS"):
        start[card(f)] = ("meld", 2)
        actions.append(Action(len(actions) + 1, 3, "C", "move", card(f), ("meld", 2), 1, None))
        actions.append(Action(len(actions) + 1, 3, "C", "move", card(f), ("meld", 1), 3, None))
    where = {c: ("meld", 1) for c in start}
    for c in start:
        for a in actions:
            if a.card == c:
                where[c] = ("meld", a.dst)
    stacks = {c: [a for a in actions if a.card == c] for c in start}
    others = [a for a in actions if a.play != 1]
    assert len(others) == 12
    g = {"cards": list(start), "start": start, "stacks": stacks, "others": others}
    got = smallest_put_back(1, dict.fromkeys(start), stacks, where, others, MACHIAVELOX)
    assert got is not None and [a.seq for a in got] == [1, 2, 3, 4] == brute_force(g)[0]


def test_apply_says_which_new_meld_a_command_made() -> None:
    """Issue 14: the ack names the meld a lay, a drop on new or a move to new opened."""
    h = position("5H 6H 7H 8H | 9C 10C JC", A="KD KS KC 2S", B="QH")
    assert h.apply(cmd("A stage KD"), 0) == {}
    for f in ("KS", "KC"):
        h.apply(cmd(f"A stage {f}"), 0)
    assert h.apply(cmd("A lay KD KS KC"), 0) == {"meld": 3}
    h.apply(cmd("A stage 2S"), 1)
    assert h.apply(cmd("A move 8H 1 new"), 1) == {"meld": 4}
    assert h.apply(cmd("A take 8H 4"), 1) == {}
    assert h.apply(cmd("A drop new"), 1) == {"meld": 5}
    assert h.apply(cmd("A move 8H 5 1"), 2) == {}
