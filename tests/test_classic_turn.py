"""The classic rulebook, turn by turn (C4–C20, C29): every outcome worked out by hand from the
seeds and RULINGS-CLASSIC.md; the comments give the reasoning."""

from __future__ import annotations

import pytest
from classichelpers import F, hand_of, meld, play, position, refused

from engine.classic.jokers import display, meld_ok
from engine.rules import CLASSIC


class TestCardsAndMelds:
    """C4–C7."""

    def test_three_packs_hold_each_face_three_times(self) -> None:
        # C4: packs × 52 + jokers; a face exists `packs` times.
        m = position(rules="classic_dutch", players="ABCDEF", options={"packs": 3, "hand": 15},
                     A="7H 7H 7H")
        assert hand_of(m, "A") == F("7H 7H 7H")
        with pytest.raises(ValueError, match="more than 2"):
            position(A="7H 7H 7H")

    def test_no_more_jokers_than_the_table_has(self) -> None:
        with pytest.raises(ValueError, match="jokers"):
            position(rules="classic_dutch", A="JK")  # Dutch: no jokers by default (C2)

    def test_a_position_meld_must_be_valid(self) -> None:
        with pytest.raises(ValueError, match="not valid"):
            position(["KH AH 2H"])

    def test_a_five_card_run_may_hold_three_jokers(self) -> None:
        # C7: classic has no cap but two real cards; 000 "a five-card run may hold three".
        m = position(A="5H JK JK JK 9H 2S", stock="3C")
        play(m, "A lay 5H JK JK JK 9H")
        play(m, "A end")
        assert meld(m, 1) == "5H JK=6H JK=7H JK=8H 9H"

    def test_min_real_three(self) -> None:
        m = position(options={"min_real": 3}, A="5H JK 7H 2S", stock="3C")
        play(m, "A lay 5H JK 7H")
        refused(m, "A end", "invalid_meld")


class TestJokerFaces:
    """C8–C10."""

    def test_the_default_puts_a_joker_at_either_end_low(self) -> None:
        # C8: `5H 6H JK` is 4H 5H 6H: the run starts as low as it can.
        m = position(A="5H 6H JK 2S", stock="3C")
        play(m, "A lay 5H 6H JK")
        play(m, "A end")
        assert meld(m, 1) == "JK=4H 5H 6H"

    def test_defaults_at_the_edges_of_the_ace(self) -> None:
        # C6, C8: A…K plus a joker is fourteen long: the joker can only be the high ace.
        m = position(A="AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH JK 2S", stock="3C")
        play(m, "A lay AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH JK")
        play(m, "A end")
        assert meld(m, 1) == "AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH JK=AH"
        # `low` (Dutch): Q K JK cannot end at the ace, so the joker is the jack.
        d = position(rules="classic_dutch", options={"jokers": 2}, A="QH KH JK 2S",
                     stock="3C 4C")
        play(d, "A lay QH KH JK")
        play(d, "A end")
        assert meld(d, 1) == "JK=JH QH KH"
        # Two jokers and 2 3: as low as it can, A 2 3 4.
        two = position(A="2H 3H JK JK 5S", stock="3C")
        play(two, "A lay 2H 3H JK JK")
        play(two, "A end")
        assert meld(two, 1) == "JK=AH 2H 3H JK=4H"

    def test_a_named_face_at_the_high_end(self) -> None:
        m = position(A="5H 6H JK 2S", stock="3C")
        play(m, "A lay 5H 6H JK=7H")
        play(m, "A end")
        assert meld(m, 1) == "5H 6H JK=7H"

    def test_a_named_face_that_does_not_fit_is_an_invalid_meld(self) -> None:
        m = position(A="5H 6H JK 2S", stock="3C")
        play(m, "A lay 5H 6H JK=9H")  # a gap at 7H 8H
        refused(m, "A end", "invalid_meld")
        play(m, "A reset")
        play(m, "A lay 5H 6H JK=7S")  # another suit
        refused(m, "A end", "invalid_meld")

    def test_an_ace_face_fits_either_end(self) -> None:
        ah = 13  # face index of AH: suit 1 (H) × 13 + rank 1 − 1
        assert meld_ok(*_cards("QH KH JK", {2: ah}), CLASSIC)  # JK=AH above the king
        assert meld_ok(*_cards("2H 3H JK", {2: ah}), CLASSIC)  # JK=AH below the two
        assert not meld_ok(*_cards("2H 3H JK", {2: ah + 4}), CLASSIC)  # JK=5H leaves a gap

    def test_a_joker_in_a_set_loses_its_face_at_end(self) -> None:
        # C9: a meld is judged as a set whatever its jokers' faces.
        m = position(["5H 6H 7H JK=8H"], A="9C 9D 2S", stock="3C")
        play(m, "A lay 9C 9D")
        play(m, "A move JK=8H 1 2 as=9H")
        play(m, "A end")
        h = m.hand
        assert h is not None
        (joker,) = [c for c in h.melds[2] if c >= 156]
        assert h.faces[joker] is None
        assert meld(m, 2) == "9D 9C JK"

    def test_a_joker_moved_within_its_run_takes_its_new_face(self) -> None:
        # C10: 5H 6H JK=7H; with the real 7H added the joker moves to 8H.
        m = position(["5H 6H JK=7H"], A="7H 2C", stock="3C")
        play(m, "A add 7H 1")
        refused(m, "A end", "invalid_meld")  # two 7s: the joker keeps its face (C8)
        play(m, "A move JK 1 1 as=8H")
        play(m, "A end")
        assert meld(m, 1) == "5H 6H 7H JK=8H"

    def test_a_moved_joker_without_as_stands_for_nothing_until_end(self) -> None:
        m = position(["5H 6H 7H JK=8H", "4C 5C 6C"], A="2S 3S", stock="3C")
        play(m, "A move JK 1 2")
        play(m, "A add 2S 2")  # 2S is another suit: meld 2 is invalid anyway
        refused(m, "A end", "invalid_meld")
        play(m, "A reset")
        play(m, "A lay 2S 3S")
        play(m, "A move JK 1 3")
        play(m, "A end")
        assert meld(m, 3) == "JK=AS 2S 3S"  # the default: as low as it can


def _cards(text: str, faces: dict[int, int]) -> tuple[list[int], dict[int, int | None]]:
    from engine import cards as C

    out: list[int] = []
    fmap: dict[int, int | None] = {}
    j = 0
    for i, f in enumerate(text.split()):
        face = C.parse_face(f)
        if face[0] == 0:
            card = C.JOKER_BASE + j
            j += 1
            fmap[card] = faces.get(i)
            out.append(card)
        else:
            out.append(C.card_id(face, 0))
    return out, fmap


class TestFreeAndSwap:
    """C11, C12."""

    def test_free_from_another_meld(self) -> None:
        # C11: the real card may come from another meld; the joker is loose.
        m = position(["5H JK=6H 7H", "6H 6S 6D 6C"], A="8H 2S", stock="3C")
        play(m, "A free 6H 1 from=2")
        assert meld(m, 1) == "5H 6H 7H" and meld(m, 2) == "6S 6D 6C"
        assert m.hand is not None and len(m.hand.loose) == 1
        refused(m, "A end", "loose_joker")
        play(m, "A add 8H 1")
        play(m, "A move JK loose 1")
        play(m, "A end")
        assert meld(m, 1) == "JK=4H 5H 6H 7H 8H"

    def test_free_in_a_set_takes_a_missing_suit(self) -> None:
        m = position(["9C 9D JK"], A="9S 9D 2S", stock="3C")
        refused(m, "A free 9D 1", "not_joker_place")  # 9D is there already
        play(m, "A free 9S 1")
        assert meld(m, 1) == "9S 9D 9C"

    def test_free_needs_the_exact_face_in_a_run(self) -> None:
        m = position(["5H JK=6H 7H"], A="4H 6S 2S", stock="3C")
        refused(m, "A free 4H 1", "not_joker_place")
        refused(m, "A free 6S 1", "not_joker_place")

    def test_a_joker_laid_without_a_face_cannot_be_freed_this_turn(self) -> None:
        # C11: it stands for nothing until end; naming it makes it freeable.
        m = position(A="5H 6H JK 7H 2S", stock="3C")
        play(m, "A lay 5H 6H JK")
        refused(m, "A free 7H 1", "not_joker_place")
        play(m, "A reset")
        play(m, "A lay 5H 6H JK=7H")
        play(m, "A free 7H 1")
        assert m.hand is not None and len(m.hand.loose) == 1

    def test_swap_keeps_the_joker_and_counts_as_a_card_from_the_hand(self) -> None:
        m = position(["5H JK=6H 7H"], rules="classic_dutch", options={"jokers": 2},
                     A="6H 2S", stock="3C")
        play(m, "A swap 6H 1")
        assert hand_of(m, "A") == F("2S JK")
        play(m, "A end")  # C16 check 3: the swap counts one
        assert m.hand is not None and m.hand.turn == "B"

    def test_swap_needs_an_opened_player(self) -> None:
        m = position(["5H JK=6H 7H"], rules="classic_dutch", options={"jokers": 2, "opening": 36},
                     A="6H 2S", stock="3C", unopened=["A"])
        refused(m, "A swap 6H 1", "not_opened")

    def test_swap_is_refused_with_replay(self) -> None:
        m = position(["5H JK=6H 7H"], A="6H", stock="3C")
        refused(m, "A swap 6H 1", "swap_not_allowed")
        refused(m, "A swap 6H 9", "swap_not_allowed")  # before no_such_meld (C29)


class TestTheTurn:
    """C13–C16, C18."""

    def test_only_the_player_on_turn_acts(self) -> None:
        m = position(A="2C", B="3C", stock="9S")
        for cmd in ("B draw", "B lay 3C", "B reset", "B end"):
            refused(m, cmd, "not_your_turn")

    def test_draw_after_changing_and_changing_back_is_a_draw(self) -> None:
        # C14: the table and hand as at the turn's start, whatever happened between.
        m = position(["3H 4H 5H 6H"], A="2C", stock="9S")
        play(m, "A move 6H 1 new")
        play(m, "A move 6H 2 1")
        assert m.hand is not None and m.hand.next_meld == 3
        play(m, "A draw")
        assert m.hand.next_meld == 2  # R2 as amended: the draw puts back the next id
        assert hand_of(m, "A") == F("2C 9S")

    def test_a_loose_joker_is_a_change(self) -> None:
        m = position(["5H JK=6H 7H", "9C 9D 9S"], A="6H", stock="9S")
        play(m, "A free 6H 1")
        refused(m, "A draw", "turn_changed")

    def test_stock_empty_comes_before_turn_changed(self) -> None:
        m = position(A="2C 3C 4C 5D")
        play(m, "A lay 2C 3C 4C")
        refused(m, "A draw", "stock_empty")
        m2 = position(A="2C 3C 4C 5D", stock="9S")
        play(m2, "A lay 2C 3C 4C")
        refused(m2, "A pass", "stock_not_empty")

    def test_checks_in_order(self) -> None:
        # C16: a loose joker before an invalid meld, an invalid meld before no card from the
        # hand.
        m = position(["5H JK=6H 7H", "9C 9D 9S 9H"], A="6H 2S", stock="3C")
        play(m, "A free 6H 1")
        play(m, "A move 9S 2 new")  # meld 3 is 9S alone: invalid
        refused(m, "A end", "loose_joker")
        play(m, "A move JK loose 3")  # 9S JK: one real card
        refused(m, "A end", "invalid_meld")
        play(m, "A reset")
        play(m, "A move 9H 2 new")
        play(m, "A move 9H 3 2")  # back as it was: meld 3 is gone
        refused(m, "A end", "no_card_from_hand")

    def test_reset_restores_faces_and_loose_jokers(self) -> None:
        m = position(["5H JK=6H 7H"], A="6H 8H", stock="3C")
        play(m, "A free 6H 1")
        play(m, "A move JK loose 1 as=8H")
        play(m, "A reset")
        assert meld(m, 1) == "5H JK=6H 7H" and hand_of(m, "A") == F("6H 8H")
        assert m.hand is not None and m.hand.loose == [] and m.hand.turn == "A"


class TestRefusalOrder:
    """C29: when several reasons apply, the first in its list."""

    def test_hand_over_first(self) -> None:
        m = position(["4C 5C 6C"], A="7C", B="2D")
        play(m, "A add 7C 1")
        play(m, "A end")
        refused(m, "B draw", "hand_over")  # B is not on turn either

    def test_no_such_meld_meld_then_to(self) -> None:
        m = position(["4C 5C 6C"], A="7C", stock="3S")
        refused(m, "A move 8C 7 9", "no_such_meld")
        refused(m, "A move 9C 1 1", "same_meld")
        refused(m, "A move 9C 1 new", "card_not_in_meld")
        refused(m, "A move JK loose new", "no_loose_joker")

    def test_not_opened_before_card_not_in_hand(self) -> None:
        m = position(["4C 5C 6C"], rules="classic_dutch", options={"opening": 36},
                     A="KH KD KS", stock="3S", unopened=["A"])
        refused(m, "A add 9H 1", "not_opened")  # 9H is not in hand either
        refused(m, "A move 6C 1 new", "not_opened")

    def test_a_bad_card_is_refused(self) -> None:
        m = position(A="7C", stock="3S")
        refused(m, "A lay 1X", "bad_card")


class TestOpening:
    """C17."""

    def test_a_joker_counts_as_the_card_it_stands_for(self) -> None:
        # K K JK (set): 10 + 10 + 10 = 30; with 5D 6D 7D (18): 48 ≥ 36.
        m = position(rules="classic_dutch", options={"opening": 36, "jokers": 2},
                     A="KH KD JK 5D 6D 7D 2S", stock="3S", unopened=["A"])
        play(m, "A lay KH KD JK")
        refused(m, "A end", "opening_minimum")  # 30
        play(m, "A lay 5D 6D 7D")
        play(m, "A end")
        assert m.hand is not None and "A" not in m.hand.unopened

    def test_an_unopened_player_may_work_on_melds_made_this_turn(self) -> None:
        m = position(rules="classic_dutch", options={"opening": 36},
                     A="10H JH QH KH 9S", stock="3S", unopened=["A"])
        play(m, "A lay 10H JH QH")
        play(m, "A add KH 1")  # a meld made this turn
        play(m, "A end")  # 10 + 10 + 10 + 10 = 40
        assert meld(m, 1) == "10H JH QH KH"

    def test_ace_worth_one(self) -> None:
        # Q K A of hearts: 10 + 10 + 1 = 21 < 36 (A is 1 toward the opening, C17).
        m = position(rules="classic_dutch", options={"opening": 21, "ace": "low_or_high"},
                     A="QH KH AH 9S", stock="3S", unopened=["A"])
        play(m, "A lay QH KH AH")
        play(m, "A end")
        m2 = position(rules="classic_dutch", options={"opening": 22, "ace": "low_or_high"},
                      A="QH KH AH 9S", stock="3S", unopened=["A"])
        play(m2, "A lay QH KH AH")
        refused(m2, "A end", "opening_minimum")


class TestClock:
    """C20."""

    def test_the_clock_with_an_empty_stock_counts_as_a_pass(self) -> None:
        m = position(["3H 4H 5H"], rules="classic_dutch", options={"stock_out": "pass"},
                     A="6H 9C", B="2S")
        play(m, "A add 6H 1", t=1)
        m.tick(120)
        assert meld(m, 1) == "3H 4H 5H" and hand_of(m, "A") == F("6H 9C")
        assert m.hand is not None and m.hand.passes == 1 and m.hand.turn == "B"
        assert m.next_deadline() == 240

    def test_a_command_at_the_deadline_is_too_late(self) -> None:
        m = position(["3H 4H 5H"], rules="classic_dutch", A="6H 9C", B="2S", stock="KC QC")
        m.tick(119.999)
        play(m, "A add 6H 1", t=119.999)
        refused(m, "A end", "not_your_turn", t=120)
        assert hand_of(m, "A") == F("6H 9C KC")

    def test_display_of_an_unfinished_meld_is_as_it_lies(self) -> None:
        cards, faces = _cards("9H 2C", {})
        assert display(cards, faces, CLASSIC) == ["9H", "2C"]
