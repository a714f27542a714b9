"""``engine.invariants`` finds each broken invariant it names (issue 26, item 2); the state
machine of ``test_engine_properties`` asserts them after every step of random hands."""

from __future__ import annotations

from engine import cards as C
from engine.invariants import card_faults, hold_faults, play_faults
from engine.model import Action, Hold, Play

A, B, K = (C.card_id(C.parse_face(f), 0) for f in ("5H", "6H", "KS"))


def test_a_card_in_two_places_or_where_loc_does_not_say_is_a_fault() -> None:
    deck = [A, B, K]
    loc = {A: ("hand", "P"), B: ("meld", 1), K: ("out",)}
    assert card_faults(deck, loc, [(("hand", "P"), [A]), (("meld", 1), [B])]) == []
    assert card_faults(deck, loc, [(("hand", "P"), [A, B]), (("meld", 1), [B])])
    assert card_faults(deck, loc, [(("hand", "P"), [A]), (("meld", 1), [B, K])])
    assert card_faults(deck, {A: ("hand", "P")}, [(("hand", "P"), [A])])


def test_a_hold_off_its_meld_is_a_fault() -> None:
    loc = {A: ("meld", 2)}
    assert hold_faults({"P": Hold("P", A, 2, 0)}, loc) == []
    assert hold_faults({"P": Hold("P", A, 1, 0)}, loc)


def test_an_open_plays_actions_out_of_order_or_not_the_graphs_are_a_fault() -> None:
    p = Play(1, "P", 0, None)
    a1 = Action(1, 1, "P", "move", A, ("meld", 1), 2, None)
    a2 = Action(2, 1, "P", "move", B, ("meld", 1), 2, None)
    p.actions = [a1, a2]
    assert play_faults({1: p}, [1], [a1, a2]) == []
    p.actions = [a2, a1]
    assert play_faults({1: p}, [1], [a1, a2])
    p.actions = [a1, a2]
    p.status = "confirmed"
    assert play_faults({1: p}, [1], [a1, a2])
    p.status = "open"
    assert play_faults({1: p}, [1, 1], [a1, a2])
    assert play_faults({1: p}, [1], [a1, Action(2, 1, "P", "move", B, ("meld", 1), 3, None)])
