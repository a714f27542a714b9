"""Meld validity, run order and auto-split (§3, R3, R4, R5) for every rule-set parameter."""

from __future__ import annotations

from dataclasses import replace

import pytest
from enginehelpers import F, T, do, hand_of, meld, position, table_of

from engine import cards as C
from engine.melds import display_order, is_run, is_set, is_valid, run_order, split_run
from engine.rules import (
    CLASSIC,
    CLASSIC_DUTCH,
    CLASSIC_ITALIAN,
    MACHIAVELOX,
    AceMode,
    RuleSet,
    find_rules,
)


def ids(text: str) -> list[int]:
    """Physical cards for faces, using the second copy (and the next joker) when a face repeats."""
    seen: dict[tuple[int, int], int] = {}
    out = []
    for f in text.split():
        face = C.parse_face(f)
        n = seen.get(face, 0)
        seen[face] = n + 1
        out.append(C.card_id(face, n))
    return out


def names(cards: list[int]) -> str:
    return " ".join(C.names(cards))


def valid(text: str, rules: RuleSet = MACHIAVELOX) -> bool:
    return is_valid(ids(text), rules)


WRAPLESS = replace(MACHIAVELOX, name="t_low_or_high", ace_mode=AceMode.LOW_OR_HIGH)
LOW = replace(MACHIAVELOX, name="t_low", ace_mode=AceMode.LOW)


class TestMachiaveloxValidity:
    """§3 and R3: runs of 3+ in one suit with K–A–2 continuous; sets of 3–4 distinct suits."""

    @pytest.mark.parametrize("text", [
        "5H 6H 7H", "7H 6H 5H", "7H 5H 6H",         # order is not part of the meld (§3.1, R2)
        "QS KS AS 2S 3S", "KS AS 2S", "AD 2D 3D", "QC KC AC",
        "2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH",  # all 13
        "5H 6H 7H 8H 9H 10H JH QH KH AH 2H 3H 4H 5H",  # 14: one rank twice (R3)
        "7H 7S 7D", "7H 7S 7D 7C", "KS KH KD",
    ])
    def test_valid(self, text: str) -> None:
        assert valid(text)

    @pytest.mark.parametrize("text, why", [
        ("5H 6H", "fewer than 3"),
        ("5H", "one card"),
        ("", "no card"),
        ("5H 6H 8H", "a gap"),
        ("5H 6H 7S", "two suits"),
        ("7H 7H 7S", "two identical cards (§3.2)"),
        ("7H 7S 7D 7C 7H", "a set of five"),
        ("7H 7S 8D", "neither"),
        ("5H 6H 7H 8H 9H 10H JH QH KH AH 2H 3H 4H 5H 6H 6H", "16 with a rank three times... not a run"),
        ("5H 5H 6H 6H 7H", "doubled ranks that a short run cannot use"),
        ("QS KS AS 2S 4S", "a gap after the wrap"),
    ])
    def test_invalid(self, text: str, why: str) -> None:
        assert not valid(text), why

    def test_set_and_run_are_told_apart(self) -> None:
        assert is_set(ids("9C 9H 9S"), MACHIAVELOX) and not is_run(ids("9C 9H 9S"), MACHIAVELOX)
        assert is_run(ids("9C 10C JC"), MACHIAVELOX) and not is_set(ids("9C 10C JC"), MACHIAVELOX)

    def test_two_copies_of_a_face_are_the_same_for_validity(self) -> None:
        a = [C.card_id((5, 1), 0), C.card_id((6, 1), 1), C.card_id((7, 1), 0)]
        b = [C.card_id((5, 1), 1), C.card_id((6, 1), 0), C.card_id((7, 1), 1)]
        assert is_valid(a, MACHIAVELOX) and is_valid(b, MACHIAVELOX)

    def test_26_cards_every_rank_twice_is_one_run(self) -> None:
        text = " ".join(f"{r}H" for r in "A 2 3 4 5 6 7 8 9 10 J Q K".split()) * 1
        assert valid(text + " " + text)


class TestAceModes:
    """R5, C6: wrap (Machiavelox), low or high without wrap (seed 000), low (seed 004)."""

    @pytest.mark.parametrize("text, wrap, low_or_high, low", [
        ("AS 2S 3S", True, True, True),
        ("QS KS AS", True, True, False),
        ("KS AS 2S", True, False, False),
        ("QS KS AS 2S 3S", True, False, False),
        ("JS QS KS", True, True, True),
        ("AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS", True, True, True),
        ("AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS", True, True, False),  # A..K..A
        ("2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS 2S", True, False, False),
    ])
    def test_modes(self, text: str, wrap: bool, low_or_high: bool, low: bool) -> None:
        assert valid(text, MACHIAVELOX) is wrap
        assert valid(text, WRAPLESS) is low_or_high
        assert valid(text, LOW) is low

    def test_low_or_high_run_order_puts_a_high_ace_last(self) -> None:
        assert names(run_order(ids("AS KS QS"), WRAPLESS) or []) == "QS KS AS"
        assert names(run_order(ids("3S AS 2S"), WRAPLESS) or []) == "AS 2S 3S"

    def test_dutch_is_low(self) -> None:
        assert CLASSIC_DUTCH.ace_mode is AceMode.LOW and AceMode.LOW.value == "low"
        assert not valid("QS KS AS", CLASSIC_DUTCH)
        assert valid("AS 2S 3S", CLASSIC_DUTCH)


class TestJokers:
    """R5, C7: jokers in the deck, most jokers per meld, fewest real cards per meld."""

    def test_machiavelox_has_no_jokers(self) -> None:
        assert MACHIAVELOX.jokers == 0 and MACHIAVELOX.most_jokers_per_meld == 0
        assert not is_valid(ids("5H JK 7H"), MACHIAVELOX)

    @pytest.mark.parametrize("text, classic, italian", [
        ("5H JK 7H", True, True),             # the joker is the 6
        ("JK 6H 7H", True, True),
        ("5H JK JK 8H", True, False),         # two jokers: classic has no cap (C7), Italian 1
        ("5H JK JK", False, False),           # one real card: classic needs 2
        ("JK JK 7H 8H", True, False),
        ("5H JK JK JK 9H", True, False),      # three jokers in five: 000's "may hold three"
        ("5H JK JK JK", False, False),        # three jokers, one real card: too few real
        ("7H 7S JK", True, True),             # a set with a joker
        ("7H 7S JK JK", True, False),
        ("7H 7H JK", False, False),           # still two identical cards
        ("7H 7S 7D 7C JK", False, False),     # a set has at most 4
        ("5H JK 8H", False, False),           # one joker cannot fill two gaps
        ("QH KH JK", True, True),             # joker as the ace (high) or the jack
        ("KH JK 2H", False, False),           # no wrap in classic
    ])
    def test_classic_jokers(self, text: str, classic: bool, italian: bool) -> None:
        assert valid(text, CLASSIC) is classic
        assert valid(text, CLASSIC_ITALIAN) is italian

    def test_fewest_real_cards_is_a_parameter(self) -> None:
        three = replace(CLASSIC, name="t_three_real", fewest_real_cards=3)
        assert valid("5H JK 7H", CLASSIC)
        assert not valid("5H JK 7H", three)
        assert valid("5H JK 7H 8H", three)

    def test_most_jokers_is_a_parameter(self) -> None:
        many = replace(CLASSIC, name="t_many_jokers", most_jokers_per_meld=3, fewest_real_cards=1)
        assert valid("5H JK JK JK 9H", many)
        assert valid("JK JK 7H", many)
        two = replace(CLASSIC, name="t_two_jokers", most_jokers_per_meld=2)
        assert valid("5H JK JK 8H", two) and not valid("5H JK JK JK 9H", two)
        assert not valid("7H 7S JK JK JK", replace(CLASSIC, most_jokers_per_meld=None))

    def test_run_order_puts_the_joker_where_it_stands(self) -> None:
        assert names(run_order(ids("7H 5H JK"), CLASSIC) or []) == "5H JK 7H"
        assert names(run_order(ids("6H JK 8H 9H"), CLASSIC) or []) in ("6H JK 8H 9H",)


class TestRunOrder:
    """R4: the run is r, r+1, …, r+n−1 using exactly its cards; several r fit → r is the ace."""

    @pytest.mark.parametrize("text, order", [
        ("7H 5H 6H", "5H 6H 7H"),
        ("2S AS KS QS 3S", "QS KS AS 2S 3S"),
        ("KD AD 2D", "KD AD 2D"),
        ("AD 2D 3D", "AD 2D 3D"),
        ("QC KC AC", "QC KC AC"),
        # 13 cards: every r fits, so r is the ace.
        ("7H 8H 9H 10H JH QH KH AH 2H 3H 4H 5H 6H", "AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH"),
        # 14 cards with 5 twice: only r = 5 uses exactly these cards.
        ("AH 2H 3H 4H 5H 5H 6H 7H 8H 9H 10H JH QH KH",
         "5H 6H 7H 8H 9H 10H JH QH KH AH 2H 3H 4H 5H"),
    ])
    def test_order(self, text: str, order: str) -> None:
        assert names(run_order(ids(text), MACHIAVELOX) or []) == order

    def test_not_a_run_has_no_order(self) -> None:
        assert run_order(ids("7H 7S 7D"), MACHIAVELOX) is None
        assert run_order(ids("5H 6H 8H"), MACHIAVELOX) is None

    def test_display_order(self) -> None:
        assert names(display_order(ids("2S AS KS"), MACHIAVELOX)) == "KS AS 2S"
        shown = names(display_order(ids("7C 7S 7H"), MACHIAVELOX))
        assert sorted(shown.split()) == ["7C", "7H", "7S"]
        assert names(display_order(ids("7C JS"), MACHIAVELOX)) == "7C JS"


class TestAutoSplit:
    """§3.1 and R4: a run longer than ``longest_run`` splits, the first ⌈n/2⌉ in run order first."""

    def pieces(self, text: str, rules: RuleSet = MACHIAVELOX) -> list[str]:
        return [names(p) for p in split_run(ids(text), rules)]

    def test_ten_stays_whole(self) -> None:
        text = "2H 3H 4H 5H 6H 7H 8H 9H 10H JH"
        assert len(split_run(ids(text), MACHIAVELOX)) == 1

    def test_eleven_splits_six_and_five(self) -> None:
        assert self.pieces("2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH") == [
            "2H 3H 4H 5H 6H 7H", "8H 9H 10H JH QH"]

    def test_wrapping_run_splits_in_run_order(self) -> None:
        assert self.pieces("3D 6D 7D 8D 9D 10D JD QD KD AD 2D") == [
            "6D 7D 8D 9D 10D JD", "QD KD AD 2D 3D"]

    def test_thirteen_splits_from_the_ace(self) -> None:
        text = "7H 8H 9H 10H JH QH KH AH 2H 3H 4H 5H 6H"
        assert self.pieces(text) == ["AH 2H 3H 4H 5H 6H 7H", "8H 9H 10H JH QH KH"]

    def test_fourteen_with_one_rank_twice(self) -> None:
        text = "AH 2H 3H 4H 5H 5H 6H 7H 8H 9H 10H JH QH KH"
        assert self.pieces(text) == ["5H 6H 7H 8H 9H 10H JH", "QH KH AH 2H 3H 4H 5H"]

    def test_every_piece_is_valid(self) -> None:
        for n in range(11, 27):
            ranks = [(i % 13) + 1 for i in range(n)]
            cards = [C.card_id((r, 1), i // 13) for i, r in enumerate(ranks)]
            pieces = split_run(cards, MACHIAVELOX)
            assert sorted(c for p in pieces for c in p) == sorted(cards)
            assert all(3 <= len(p) <= 10 and is_valid(p, MACHIAVELOX) for p in pieces), n

    def test_repeated_splits(self) -> None:
        """A run still too long after one split is split again (R4: repeat)."""
        twenty_six = " ".join(f"{r}H" for r in "A 2 3 4 5 6 7 8 9 10 J Q K".split())
        got = self.pieces(twenty_six + " " + twenty_six)
        assert [len(p.split()) for p in got] == [7, 6, 7, 6]

    def test_no_split_without_a_limit(self) -> None:
        text = "AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH"
        assert CLASSIC.longest_run is None
        assert len(split_run(ids(text), CLASSIC)) == 1
        assert len(split_run(ids(text), replace(MACHIAVELOX, longest_run=None))) == 1

    def test_a_set_never_splits(self) -> None:
        assert len(split_run(ids("7H 7S 7D 7C"), replace(MACHIAVELOX, longest_run=3))) == 1


class TestAutoSplitInTheEngine:
    """R4 through a hand: at confirmation, ids kept and made, and joined again if the play falls."""

    def test_split_at_confirmation_keeps_the_first_id(self) -> None:
        h = position("2H 3H 4H 5H 6H 7H 8H 9H 10H JH | 9S 10S JS", A="QH KD")
        do(h, 0, "A add QH 1")
        assert meld(h, 1) == F("2H 3H 4H 5H 6H 7H")
        assert meld(h, 3) == F("8H 9H 10H JH QH")
        assert meld(h, 2) == F("9S 10S JS")

    def test_thirteen_card_run_splits_at_the_ace(self) -> None:
        h = position("2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH", A="AH KD",
                     rules=replace(MACHIAVELOX, name="t_no_limit_12", longest_run=12))
        do(h, 0, "A add AH 1")
        assert meld(h, 1) == F("AH 2H 3H 4H 5H 6H 7H")
        assert meld(h, 2) == F("8H 9H 10H JH QH KH")

    def test_no_split_while_a_card_is_on_trial_then_at_the_next_confirmation(self) -> None:
        """R4: a long run left whole because a card in it was on trial is split at the next
        confirmation that touches it."""
        h = position("2H 3H 4H 5H 6H 7H 8H 9H 10H | 9S 10S JS | 4C 5C 6C",
                     A="JH 2D", B="QH KD")
        do(h, 0, "A add 2D 2")            # a wound: A's play stays open
        do(h, 1, "A add JH 1")            # 2H..JH, 10 cards
        do(h, 2, "B add QH 1")            # 11 cards, B confirmed, but A's JH is on trial
        assert h.open_players() == ["A"]
        assert meld(h, 1) == F("2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH")
        h.tick(40)                        # A's play ends: 2D falls, JH stays, and the split
        assert hand_of(h, "A") == ["2D"]
        assert meld(h, 1) == F("2H 3H 4H 5H 6H 7H")
        assert meld(h, 4) == F("8H 9H 10H JH QH")

    def test_halves_join_again_under_the_first_id_when_the_play_falls(self) -> None:
        h = position("2H 3H 4H 5H 6H 7H 8H 9H 10H JH | 4D 5D 6D | 9S 10S JS",
                     A="QH 9D KC", B="8D KH", C="7D 2S")
        do(h, 0, "C add 2S 3")            # C's wound keeps C's play open
        do(h, 1, "C add 7D 2")            # 4D..7D
        do(h, 2, "B add 8D 2")            # needs C's 7D: confirmed, not final
        do(h, 3, "A stage QH", "A stage 9D", "A place 9D 2", "A place QH 1")
        # A's play ended (staging empty), confirmed: meld 1 had 11 cards, none on trial.
        assert meld(h, 1) == F("2H 3H 4H 5H 6H 7H")
        assert meld(h, 4) == F("8H 9H 10H JH QH")
        assert h.result is None
        do(h, 4, "C cancel")              # C's 7D goes: B's 8D and A's 9D fall with it
        assert meld(h, 1) == F("2H 3H 4H 5H 6H 7H 8H 9H 10H JH")
        assert meld(h, 4) == []
        assert meld(h, 2) == F("4D 5D 6D")
        assert hand_of(h, "A") == F("QH 9D KC")
        assert hand_of(h, "B") == F("8D KH")
        assert table_of(h) == T("2H 3H 4H 5H 6H 7H 8H 9H 10H JH | 4D 5D 6D | 9S 10S JS")

    def test_repeated_splits_get_ids_in_the_order_the_melds_are_made(self) -> None:
        """R4 + R2: a play that brings a run to 24 cards splits it 12|12, the second half
        getting a new id (4); then each half splits, the first piece keeping its id, the
        second getting the next new id: 1 = A..6, 5 = 7..Q, 4 = K A 2..5, 6 = 6..J."""
        run1 = "AH 2H 3H 4H 5H 6H 7H 8H 9H 10H"            # copy 0
        run2 = "JH QH KH AH 2H 3H 4H 5H 6H 7H"             # J Q K copy 0, A..7 copy 1
        run3 = "8H 9H 10H"                                  # copy 1
        h = position(f"{run1} | {run2} | {run3}", A="JH KD")
        do(h, 0, "A stage JH")
        t = 1.0
        for face in run2.split():
            do(h, t, f"A move {face} 2 1")
            t += 0.5
        for face in run3.split():
            do(h, t, f"A move {face} 3 1")
            t += 0.5
        assert len(h.melds[1]) == 23
        do(h, t, "A place JH 1")
        assert h.open_players() == []
        assert meld(h, 1) == F("AH 2H 3H 4H 5H 6H")
        assert meld(h, 4) == F("KH AH 2H 3H 4H 5H")
        assert meld(h, 5) == F("7H 8H 9H 10H JH QH")
        assert meld(h, 6) == F("6H 7H 8H 9H 10H JH")
        assert meld(h, 2) == [] and meld(h, 3) == []


class TestRuleSets:
    def test_find_rules(self) -> None:
        assert find_rules("machiavelox") is MACHIAVELOX
        with pytest.raises(KeyError, match="unknown rule set"):
            find_rules("poker")

    def test_machiavelox_parameters(self) -> None:
        r = MACHIAVELOX
        assert (r.packs, r.jokers, r.ace_mode, r.longest_run) == (2, 0, AceMode.WRAP, 10)
        assert (r.removed_cards, r.stock_size, r.players) == (2, 34, 3)
        assert (r.play, r.hold, r.inactivity, r.freeze, r.absence, r.tiebreak) == (
            40, 10, 120, 180, 90, 120)

    def test_with_timers(self) -> None:
        quick = MACHIAVELOX.with_timers(play=4, hold=1)
        assert (quick.play, quick.hold, quick.inactivity) == (4, 1, 120)
        assert MACHIAVELOX.play == 40
        with pytest.raises(ValueError):
            MACHIAVELOX.with_timers(lunch=3)
        with pytest.raises(ValueError):
            MACHIAVELOX.with_timers(play=0)
