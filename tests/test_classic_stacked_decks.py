"""Stacked test deals of later classic hands (tests only): a position's ``decks`` puts named
cards on top of hand h's deck, dealt as C21 deals (``hand_size`` each from the starter on,
the rest the stock); a hand without one is dealt from the seed as before."""

from __future__ import annotations

import dataclasses

import pytest

from engine.classic.game import ClassicGame
from engine.classic.model import ClassicCommand
from engine.classic.view import classic_view
from engine.rules import CLASSIC

RULES = dataclasses.replace(CLASSIC, hand_size=5)
FIRST = {"hands": {"A": ["7C", "8C", "9C"], "B": ["2H", "3D", "KS"]}, "stock": ["4S", "5S"]}
HAND2 = ["3H", "4H", "5H", "6H", "7H", "KS", "KD", "2C", "9D", "JK", "QC"]


def out_with_clubs(game: ClassicGame) -> None:
    game.apply(ClassicCommand("A", "lay", cards=("7C", "8C", "9C"), to="new"), 1.0)
    game.apply(ClassicCommand("A", "end"), 2.0)


def test_a_stacked_second_hand_is_dealt_from_its_starter_on() -> None:
    game = ClassicGame(["A", "B"], 5, RULES, position={**FIRST, "decks": {"2": HAND2}})
    out_with_clubs(game)
    game.match.deal_next()
    hand = game.match.hand
    assert hand is not None and hand.turn == "B"  # C21: the deal moved on, B starts
    seat = {p: [str(c) for c in classic_view(game.match, p)["hand"]] for p in ("A", "B")}
    assert sorted(seat["B"]) == sorted(HAND2[:5])
    assert sorted(seat["A"]) == sorted(HAND2[5:10])
    assert classic_view(game.match, "B")["stock"] == 2 * 52 + 4 - 10


def test_without_decks_a_later_hand_is_dealt_from_the_seed() -> None:
    games = [ClassicGame(["A", "B"], 5, RULES, position=dict(FIRST)) for _ in range(2)]
    for g in games:
        out_with_clubs(g)
        g.match.deal_next()
    assert classic_view(games[0].match, "A")["hand"] == classic_view(games[1].match, "A")["hand"]


@pytest.mark.parametrize("decks", [{"1": ["3H"]}, {"2": "3H 4H"}, {"x": []}, {"2": ["ZZ"]},
                                   {"2": ["JK"] * 5}, ["3H"]])
def test_a_deck_that_cannot_be_stacked_is_refused(decks: object) -> None:
    with pytest.raises(ValueError):
        ClassicGame(["A", "B"], 5, RULES, position={**FIRST, "decks": decks})
