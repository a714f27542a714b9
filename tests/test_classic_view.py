"""What a classic seat sees (engine/classic/view.py): own hand, others' counts, joker faces,
the turn and its clock, loose jokers, opening status; never another hand or the stock."""

from __future__ import annotations

import json

from classichelpers import play, position

from engine.classic.view import classic_event_view, classic_view


def test_a_seat_sees_its_own_hand_and_counts_of_the_others() -> None:
    m = position(["5H JK=6H 7H"], players="ABC", A="6H 2S", B="KD QD", C="9S", stock="3C 4C")
    v = classic_view(m, "A")
    assert sorted(v["hand"]) == ["2S", "6H"]
    assert {p["name"]: p["hand_count"] for p in v["players"]} == {"A": 2, "B": 2, "C": 1}
    assert v["table"] == [{"id": 1, "cards": ["5H", "JK=6H", "7H"], "valid": True,
                           "changed": False}]
    assert v["stock"] == 2 and v["turn"] == {"player": "A", "started": 0.0, "deadline": None,
                                             "ends": None}
    text = json.dumps(classic_view(m, "B"))
    assert "2S" not in text and "3C" not in text and "4C" not in text  # A's hand, the stock
    assert classic_view(m, None)["hand"] is None


def test_loose_jokers_changed_melds_and_the_clock() -> None:
    m = position(["5H JK=6H 7H", "9C 9D 9S"], rules="classic_dutch", options={"jokers": 2},
                 A="6H", B="2C", stock="3C 4C")
    play(m, "A free 6H 1", t=4)
    v = classic_view(m, "A")
    assert v["loose"] == 1 and v["turn"]["deadline"] == 120
    assert [t["changed"] for t in v["table"]] == [True, False]
    play(m, "A disconnect", t=50)  # the absence clock (C31) ends the turn at 140 > 120
    assert classic_view(m, "B")["players"][0]["absent_until"] == 140
    assert classic_view(m, "B")["turn"]["ends"] == 120


def test_the_turn_ends_at_its_players_absence_without_a_clock() -> None:
    m = position(A="2C", B="3C", stock="9S")
    play(m, "A disconnect", t=5)
    turn = classic_view(m, "B")["turn"]
    assert turn["deadline"] is None and turn["ends"] == 95


def test_opening_status_and_options() -> None:
    m = position(rules="classic_dutch", options={"opening": 36}, A="2C", B="3C",
                 stock="9S", unopened=["A"])
    v = classic_view(m, "B")
    assert [p["opened"] for p in v["players"]] == [False, True]
    assert v["options"]["opening"] == 36 and v["options"]["ace"] == "low"
    assert v["options"]["freed_joker"] == "keep" and v["options"]["clock"] == 120


def test_a_drawn_card_only_for_its_player() -> None:
    m = position(A="2C", B="3C", stock="9S")
    m.drain_events()
    play(m, "A draw")
    (drew,) = [e for e in m.drain_events() if e.kind == "drew"]
    assert classic_event_view(drew, "A")["card"] == "9S"
    assert "card" not in classic_event_view(drew, "B")
