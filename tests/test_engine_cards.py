"""Cards and their notation (R1): rank then suit, ``T`` for ten on input, two packs."""

from __future__ import annotations

from collections import Counter

import pytest
from enginehelpers import F, assert_refused, do, ids_of, meld, position

from engine import cards as C
from engine.hand import Hand


class TestNotation:
    @pytest.mark.parametrize("text, face", [
        ("AS", (1, 0)), ("2H", (2, 1)), ("9D", (9, 2)), ("10C", (10, 3)),
        ("JS", (11, 0)), ("QH", (12, 1)), ("KD", (13, 2)),
        ("TH", (10, 1)), ("tc", (10, 3)), ("qs", (12, 0)), (" 7C ", (7, 3)),
    ])
    def test_parse(self, text: str, face: tuple[int, int]) -> None:
        assert C.parse_face(text) == face

    @pytest.mark.parametrize("face, text", [
        ((1, 0), "AS"), ((10, 1), "10H"), ((11, 2), "JD"), ((12, 3), "QC"), ((13, 0), "KS"),
        ((7, 1), "7H"),
    ])
    def test_format(self, face: tuple[int, int], text: str) -> None:
        assert C.format_face(face) == text

    def test_ten_is_always_written_10(self) -> None:
        assert C.format_face(C.parse_face("TS")) == "10S"

    def test_round_trip_for_every_face(self) -> None:
        for rank in range(1, 14):
            for suit in range(4):
                assert C.parse_face(C.format_face((rank, suit))) == (rank, suit)

    @pytest.mark.parametrize("bad", [
        "", "H", "1H", "11H", "0S", "010H", "10X", "ZZ", "A", "KK", "1 0H", "S10", "+2H", "2.0H",
    ])
    def test_not_a_card_raises_naming_the_text(self, bad: str) -> None:
        with pytest.raises(C.NotationError) as err:
            C.parse_face(bad)
        assert isinstance(err.value, ValueError)
        assert repr(bad)[1:-1] in str(err.value) or bad == ""
        assert "rank" in str(err.value) or "suit" in str(err.value) or "card" in str(err.value)

    def test_not_text_raises(self) -> None:
        with pytest.raises(C.NotationError):
            C.parse_face(10)  # type: ignore[arg-type]


class TestPhysicalCards:
    def test_two_packs_hold_every_face_twice(self) -> None:
        deck = C.full_deck()
        assert len(deck) == 104 == len(set(deck))
        faces = Counter(C.name(c) for c in deck)
        assert len(faces) == 52 and set(faces.values()) == {2}

    def test_ids_and_faces_agree(self) -> None:
        for copy in (0, 1):
            for rank in range(1, 14):
                for suit in range(4):
                    cid = C.card_id((rank, suit), copy)
                    assert C.face_of(cid) == (rank, suit)
                    assert C.rank_of(cid) == rank and C.suit_of(cid) == suit
                    assert not C.is_joker(cid)

    def test_the_two_copies_are_different_cards(self) -> None:
        assert C.card_id((7, 1), 0) != C.card_id((7, 1), 1)
        assert C.name(C.card_id((7, 1), 0)) == C.name(C.card_id((7, 1), 1)) == "7H"

    def test_jokers_for_classic_decks(self) -> None:
        deck = C.full_deck(2, 4)
        jokers = [c for c in deck if C.is_joker(c)]
        assert len(jokers) == 4 and all(C.name(j) == "JK" for j in jokers)
        assert C.parse_face("JK") == (0, -1)


class TestNotationInCommands:
    """A command naming something that is not a card is refused with ``bad_card`` (R1, R6)."""

    def test_bad_card_in_a_command(self) -> None:
        h = position("4C 5C 6C", A="7C KD")
        assert_refused(h, "A add 1C 1", "bad_card", now=0)
        assert_refused(h, "A stage XX", "bad_card", now=0)

    def test_ten_written_T_in_a_command(self) -> None:
        h = position("7H 8H 9H", A="TH KD")
        do(h, 0, "A add TH 1")
        assert meld(h, 1) == F("7H 8H 9H 10H")

    def test_a_third_copy_in_a_position_is_refused(self) -> None:
        with pytest.raises(ValueError, match="7C"):
            position("7C 8C 9C", A="7C 7C")

    def test_a_face_names_the_card_that_arrived_last(self) -> None:
        """R1: where the place named holds two cards of that face, the one that arrived last."""
        h = position("9S 9H 9C", A="9D KD", B="9D QD")
        (a_copy,) = ids_of(h, "9D", ("hand", "A"))
        (b_copy,) = ids_of(h, "9D", ("hand", "B"))
        do(h, 0, "A add 9D 1")            # 9S 9H 9C 9D: confirmed at once
        do(h, 1, "B add 9D 1")            # a second 9D: B's play stays open
        do(h, 2, "B stage QD", "B move 9D 1 new")
        assert h.loc[a_copy] == ("meld", 1)
        assert h.loc[b_copy] == ("meld", 2)

    def test_deal_uses_the_whole_deck(self) -> None:
        h = Hand.deal(["A", "B", "C"], seed=3)
        assert sorted(h.loc) == C.full_deck()
