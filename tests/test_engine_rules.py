"""The rulebook, section by section (§1–§5.4, R1–R8): setup, melds, staging, plays, judging.

Every expected outcome here is worked out by hand from the seed and RULINGS.md; the
comments give the reasoning. Positions use ``enginehelpers`` notation: melds get ids
1, 2, … in the order written, and every player has drawn and laid unless a test says so.
"""

from __future__ import annotations

import pytest
from enginehelpers import (
    F,
    T,
    assert_refused,
    check_cards,
    do,
    events,
    hand_of,
    ids_of,
    meld,
    position,
    staged,
    table_of,
)

from engine import cards as C
from engine.hand import Hand


class TestSetup:
    """§1: two packs, two cards removed face up, three stocks of 34, empty hands."""

    def test_a_deal(self) -> None:
        h = Hand.deal(["A", "B", "C"], seed=7)
        check_cards(h)
        assert len(h.removed) == 2
        assert {p: len(s) for p, s in h.stocks.items()} == {"A": 34, "B": 34, "C": 34}
        assert all(not h.hands[p] and not h.staging[p] for p in "ABC")
        assert table_of(h) == []
        assert not [c for c, loc in h.loc.items() if loc == ("out",)]
        assert h.result is None and h.open_players() == []

    def test_the_same_seed_deals_the_same_hand(self) -> None:
        a, b = Hand.deal(["A", "B", "C"], seed=11), Hand.deal(["A", "B", "C"], seed=11)
        c = Hand.deal(["A", "B", "C"], seed=12)
        assert a.stocks == b.stocks and a.removed == b.removed
        assert a.stocks != c.stocks

    def test_the_removed_cards_are_shown_to_everyone(self) -> None:
        h = Hand.deal(["A", "B", "C"], seed=5)
        (started,) = events(h, "hand_started")
        assert sorted(started["removed"]) == sorted(C.names(h.removed))
        assert started["stocks"] == {"A": 34, "B": 34, "C": 34}

    def test_everyone_draws_from_their_own_stock_one_card_at_a_time(self) -> None:
        h = Hand.deal(["A", "B", "C"], seed=5)
        top = h.stocks["A"][0]
        b_stock = list(h.stocks["B"])
        do(h, 0, "A draw")
        assert h.hands["A"] == [top] and len(h.stocks["A"]) == 33
        assert h.stocks["B"] == b_stock
        for i in range(33):
            do(h, 0.01 * (i + 1), "A draw")
        assert len(h.hands["A"]) == 34
        assert_refused(h, "A draw", "stock_empty")

    def test_nobody_goes_out_without_having_drawn(self) -> None:
        """§1, §8: A has laid before but never drawn; emptying the hand eliminates (R15)."""
        h = position("4C 5C 6C", A="7C", B="KD", C="QD", stocks={"A": "2S"}, drew="BC")
        do(h, 0, "A add 7C 1")
        assert h.players["A"].status == "eliminated"
        assert h.result is None
        assert meld(h, 1) == F("4C 5C 6C 7C")   # the cards stay on the table

    def test_players_are_distinct(self) -> None:
        with pytest.raises(ValueError):
            Hand(["A", "A", "B"])

    def test_the_first_clock_is_the_silence(self) -> None:
        h = Hand.deal(["A", "B", "C"], seed=1)
        assert h.next_deadline() == 120


class TestMelds:
    """§3: only valid runs and sets reach the table; a laid card never returns to a hand."""

    def test_lay_a_valid_run_across_the_ace(self) -> None:
        h = position(A="QS KS AS 2C")
        do(h, 0, "A stage QS", "A stage KS", "A stage AS", "A lay QS KS AS")
        assert meld(h, 1) == F("QS KS AS")
        assert h.open_players() == [] and staged(h, "A") == []
        assert h.plays[1].status == "final"

    def test_two_identical_cards_never_make_a_set(self) -> None:
        h = position(A="7H 7H 7S 2C")
        do(h, 0, "A stage 7H", "A stage 7H", "A stage 7S")
        assert_refused(h, "A lay 7H 7H 7S", "invalid_meld")
        assert staged(h, "A") == F("7H 7H 7S") and h.open_players() == ["A"]

    def test_a_meld_has_at_least_three_cards(self) -> None:
        h = position(A="7H 8H 2C")
        do(h, 0, "A stage 7H", "A stage 8H")
        assert_refused(h, "A lay 7H 8H", "too_few_cards")

    def test_lay_only_staged_cards(self) -> None:
        h = position(A="7H 8H 9H 2C")
        do(h, 0, "A stage 7H", "A stage 8H")
        assert_refused(h, "A lay 7H 8H 9H", "card_not_staged")

    def test_identical_melds_may_sit_together(self) -> None:
        h = position(A="4C 5C 6C 2D", B="4C 5C 6C 3D")
        do(h, 0, "A stage 4C", "A stage 5C", "A stage 6C", "A lay 4C 5C 6C")
        do(h, 1, "B stage 4C", "B stage 5C", "B stage 6C", "B lay 4C 5C 6C")
        assert table_of(h) == T("4C 5C 6C | 4C 5C 6C")
        assert sorted(h.table()) == [1, 2]

    def test_lay_may_use_some_of_the_staged_cards(self) -> None:
        """R6: the play stays open while cards remain staged."""
        h = position(A="4C 5C 6C KD 2S")
        do(h, 0, "A stage 4C", "A stage 5C", "A stage 6C", "A stage KD", "A lay 6C 4C 5C")
        assert meld(h, 1) == F("4C 5C 6C")
        assert staged(h, "A") == ["KD"] and h.open_players() == ["A"]
        do(h, 1, "A end")
        assert hand_of(h, "A") == F("KD 2S") and meld(h, 1) == F("4C 5C 6C")

    def test_a_card_on_the_table_never_goes_back_to_a_hand(self) -> None:
        h = position("4C 5C 6C", A="7C KD QD")
        do(h, 0, "A add 7C 1")
        assert h.plays[1].status == "final"
        assert_refused(h, "A unstage 7C", "card_not_staged")
        do(h, 1, "A stage KD", "A take 7C 1")
        h.tick(12)                           # the hold lapses: the card is still on the table
        assert meld(h, 1) == F("4C 5C 6C 7C")
        do(h, 13, "A unstage KD")
        assert hand_of(h, "A") == F("KD QD")

    def test_meld_ids_count_up_and_are_never_reused(self) -> None:
        """R2: a meld that loses its last card is gone; a new meld gets a new id."""
        h = position("5C 6C 7C", A="8C KD", B="3H 4H 5H QS")
        do(h, 0, "A stage 8C", "A move 5C 1 new", "A move 6C 1 2", "A move 7C 1 2")
        assert 1 not in h.table() and meld(h, 1) == []
        do(h, 1, "A place 8C 2")
        assert table_of(h) == T("5C 6C 7C 8C") and meld(h, 2) == F("5C 6C 7C 8C")
        do(h, 2, "B stage 3H", "B stage 4H", "B stage 5H", "B lay 3H 4H 5H")
        assert meld(h, 3) == F("3H 4H 5H")


class TestStagingArea:
    """§4: the staging area is part of the hand, untouchable by others; no draw while it holds cards."""

    def test_staging_opens_a_play_and_its_40_seconds(self) -> None:
        h = position(A="7C KD")
        events(h)
        do(h, 5, "A stage 7C")
        (opened,) = events(h, "play_opened")
        assert opened["player"] == "A" and opened["deadline"] == 45
        assert staged(h, "A") == ["7C"] and hand_of(h, "A") == ["KD"]
        assert h.count_in_hand("A") == 2

    def test_staged_cards_are_shown_to_everyone(self) -> None:
        h = position(A="7C KD")
        events(h)
        do(h, 0, "A stage 7C")
        ev = next(e for e in h.drain_events() if e.kind == "staged")
        assert ev.data["card"] == "7C" and "card" not in ev.private

    def test_nobody_touches_another_players_staging_area(self) -> None:
        h = position("5H 6H 7H", A="8H 9H 10H", B="KD")
        do(h, 0, "A stage 8H", "A stage 9H", "A stage 10H")
        assert_refused(h, "B unstage 8H", "card_not_staged")
        assert_refused(h, "B place 8H 1", "card_not_staged")
        assert_refused(h, "B stage 8H", "card_not_in_hand")
        assert_refused(h, "B lay 8H 9H 10H", "card_not_staged")

    def test_no_draw_while_the_staging_area_holds_cards(self) -> None:
        h = position(A="7C KD", stocks={"A": "2S"})
        do(h, 0, "A stage 7C")
        assert_refused(h, "A draw", "staging_not_empty")
        do(h, 1, "A unstage 7C", "A draw")
        assert hand_of(h, "A") == F("7C KD 2S")

    def test_emptying_the_staging_area_ends_the_play(self) -> None:
        h = position(A="7C KD")
        do(h, 0, "A stage 7C", "A stage KD", "A unstage KD")
        assert h.open_players() == ["A"]
        do(h, 1, "A unstage 7C")
        assert h.open_players() == [] and h.plays[1].status == "void"
        assert hand_of(h, "A") == F("7C KD")

    def test_no_going_out_while_the_staging_area_holds_cards(self) -> None:
        h = position("4C 5C 6C", A="7C KD", stocks={"A": "2D"})
        do(h, 0, "A stage 7C", "A stage KD", "A place 7C 1")
        assert hand_of(h, "A") == [] and h.result is None
        do(h, 1, "A end")
        assert hand_of(h, "A") == ["KD"] and meld(h, 1) == F("4C 5C 6C 7C")
        assert h.result is None

    def test_stage_and_unstage_name_cards_that_are_there(self) -> None:
        h = position(A="7C KD")
        assert_refused(h, "A stage 8C", "card_not_in_hand")
        assert_refused(h, "A unstage 7C", "card_not_staged")


class TestDirectPlays:
    """§5.1 lay a new meld, §5.2 add to melds: no declaration, the play begins at the first card."""

    def test_laid_cards_arrive_together(self) -> None:
        h = position(A="9C 9H 9S 2C", B="9D KD")
        do(h, 0, "A stage 9C", "A stage 9H")
        assert table_of(h) == []
        assert_refused(h, "B add 9D 1", "no_such_meld")
        do(h, 1, "A stage 9S", "A lay 9C 9H 9S")
        do(h, 2, "B add 9D 1")
        assert meld(h, 1) == F("9C 9H 9S 9D")

    def test_an_add_in_order_is_confirmed_at_once(self) -> None:
        h = position("4C 5C 6C", A="7C KD")
        do(h, 0, "A add 7C 1")
        assert h.open_players() == [] and h.plays[1].status == "final"
        assert meld(h, 1) == F("4C 5C 6C 7C") and hand_of(h, "A") == ["KD"]

    def test_one_play_may_add_to_several_melds(self) -> None:
        """The play is open while any of its melds is wounded, and ends once all are in order."""
        h = position("4C 5C 6C | 9H 10H JH", A="8C QH 7C KD")
        do(h, 0, "A add 8C 1")                       # 4 5 6 8: wounded
        do(h, 1, "A add QH 2")                       # 9..Q: fine, but the play is still open
        assert h.open_players() == ["A"] and len(h.plays) == 1
        do(h, 2, "A add 7C 1")                       # 4..8: all in order, the play ends
        assert h.open_players() == [] and len(h.plays) == 1
        assert h.plays[1].status == "final"
        assert table_of(h) == T("4C 5C 6C 7C 8C | 9H 10H JH QH")

    def test_beaten_to_it_the_card_goes_back(self) -> None:
        """§5.2: B's 7C arrives first; A's other 7C no longer fits and returns at 40 s."""
        h = position("4C 5C 6C", A="7C KD", B="7C QD")
        do(h, 0.5, "B add 7C 1")
        do(h, 1, "A add 7C 1")
        assert h.open_players() == ["A"]
        h.tick(40.999)
        assert h.open_players() == ["A"]
        h.tick(41)
        assert h.open_players() == []
        assert meld(h, 1) == F("4C 5C 6C 7C") and hand_of(h, "A") == F("7C KD")
        (b7,) = ids_of(h, "7C", ("meld", 1))
        assert b7 not in ids_of(h, "7C", ("hand", "A"))

    def test_the_40_seconds_are_exact(self) -> None:
        h = position("4C 5C 6C", A="JS KD")
        do(h, 0.1, "A add JS 1")
        h.tick(40.099)
        assert h.open_players() == ["A"]
        h.tick(40.1)
        assert h.open_players() == [] and hand_of(h, "A") == F("JS KD")

    def test_draw_is_allowed_during_a_play_that_staged_nothing(self) -> None:
        h = position("4C 5C 6C", A="JS KD", stocks={"A": "2H"})
        do(h, 0, "A add JS 1", "A draw")
        assert h.open_players() == ["A"] and hand_of(h, "A") == F("KD 2H")

    def test_no_add_while_cards_are_staged(self) -> None:
        h = position("4C 5C 6C", A="7C KD")
        do(h, 0, "A stage KD")
        assert_refused(h, "A add 7C 1", "staging_not_empty")

    def test_a_single_card_never_opens_a_meld(self) -> None:
        h = position("4C 5C 6C", A="7C KD")
        assert_refused(h, "A add KD new", ("no_such_meld", "place_needs_meld"))
        do(h, 0, "A stage KD")
        assert_refused(h, "A place KD new", "place_needs_meld")

    def test_add_names_a_meld_on_the_table(self) -> None:
        h = position("4C 5C 6C", A="7C KD")
        assert_refused(h, "A add 7C 9", "no_such_meld")
        assert_refused(h, "A add 8C 1", "card_not_in_hand")

    def test_end_judges_at_once(self) -> None:
        """§5.4: on `end` the wounded part falls and the part in order stays."""
        h = position("4C 5C 6C | 9H 10H JH", A="2S 7C KD")
        do(h, 0, "A add 2S 2", "A add 7C 1")
        do(h, 3, "A end")
        assert table_of(h) == T("4C 5C 6C 7C | 9H 10H JH")
        assert hand_of(h, "A") == F("2S KD") and h.plays[1].status == "final"

    def test_end_and_cancel_need_an_open_play(self) -> None:
        h = position(A="7C")
        assert_refused(h, "A end", "no_open_play")
        assert_refused(h, "A cancel", "no_open_play")


class TestDeclaredPlays:
    """§5.3: declare (stage), move, place; the right to move lasts while the staging area holds cards."""

    def test_no_hands_on_the_table_without_a_declaration(self) -> None:
        h = position("5H 6H 7H 8H", A="5S 5D KC")
        assert_refused(h, "A take 5H 1", "not_declared")
        assert_refused(h, "A move 5H 1 new", "not_declared")

    def test_rearrange_then_place(self) -> None:
        """6D goes between two runs: move 7D 8D 9D onto 3D 4D 5D, then place the 6D."""
        h = position("3D 4D 5D | 7D 8D 9D", A="6D KC")
        do(h, 0, "A stage 6D")
        do(h, 1, "A move 7D 2 1", "A move 8D 2 1", "A move 9D 2 1")
        assert meld(h, 2) == [] and h.open_players() == ["A"]
        do(h, 2, "A place 6D 1")
        assert table_of(h) == T("3D 4D 5D 6D 7D 8D 9D")
        assert h.open_players() == [] and h.plays[1].status == "final"

    def test_while_cards_are_staged_nothing_comes_from_the_hand(self) -> None:
        h = position("5H 6H 7H 8H", A="5S 5D KC")
        do(h, 0, "A stage 5S", "A move 5H 1 new")
        assert_refused(h, "A add 5D 2", "staging_not_empty")
        do(h, 1, "A stage 5D")                  # declaring more once under way is fine
        do(h, 2, "A place 5S 2", "A place 5D 2")
        assert table_of(h) == T("6H 7H 8H | 5H 5S 5D")

    def test_the_clock_starts_at_the_declaration(self) -> None:
        h = position("5H 6H 7H 8H", A="5S KC")
        do(h, 5, "A stage 5S")
        do(h, 30, "A move 5H 1 new")
        h.tick(44.999)
        assert h.open_players() == ["A"]
        h.tick(45)
        assert h.open_players() == [] and table_of(h) == T("5H 6H 7H 8H")
        assert hand_of(h, "A") == F("5S KC")

    def test_cards_that_find_no_place_go_back(self) -> None:
        h = position("5H 6H 7H 8H", A="5S 5D KC")
        do(h, 0, "A stage 5S", "A stage 5D", "A stage KC", "A move 5H 1 new",
           "A place 5S 2", "A place 5D 2")
        assert h.open_players() == ["A"]
        do(h, 1, "A end")
        assert table_of(h) == T("6H 7H 8H | 5H 5S 5D")
        assert hand_of(h, "A") == ["KC"] and staged(h, "A") == []

    def test_placing_nothing_undoes_the_moves_and_whoever_built_on_them(self) -> None:
        """§5.3: A moves 8H onto 9H 10H JH and B adds the other 7H below it (B needs A's
        8H, R8); A takes the declared card back: the table is as it was, B's 7H too."""
        h = position("5H 6H 7H 8H | 9H 10H JH", A="QS KD", B="7H QD")
        do(h, 0, "A stage QS", "A move 8H 1 2")
        do(h, 1, "B add 7H 2")
        assert h.open_players() == ["A"] and h.plays[2].status == "confirmed"
        assert table_of(h) == T("5H 6H 7H | 7H 8H 9H 10H JH")
        do(h, 2, "A unstage QS")
        assert table_of(h) == T("5H 6H 7H 8H | 9H 10H JH")
        assert hand_of(h, "B") == F("7H QD") and hand_of(h, "A") == F("QS KD")
        assert h.plays[2].status == "fallen"

    def test_the_right_to_move_ends_with_the_staging_area(self) -> None:
        h = position("5H 6H 7H 8H", A="5S 5D 9C")
        do(h, 0, "A stage 5S", "A stage 5D", "A move 5H 1 new", "A place 5S 2", "A place 5D 2")
        assert h.open_players() == []
        assert_refused(h, "A take 8H 1", "not_declared")

    def test_a_meld_emptied_by_moves_is_gone(self) -> None:
        h = position("7D 8D 9D | 10D JD QD", A="KD 2C")
        do(h, 0, "A stage KD")
        for face in ("10D", "JD", "QD"):
            do(h, 1, f"A move {face} 2 1")
        assert 2 not in h.table()
        do(h, 2, "A place KD 1")
        assert table_of(h) == T("7D 8D 9D 10D JD QD KD")
        assert meld(h, 2) == []


class TestJudging:
    """§5.4 and R8: only the melds you touched are judged; others' cards on trial do not count,
    unless you needed them; in a clash the later to end answers."""

    def test_only_the_melds_you_touched_are_judged(self) -> None:
        h = position("4C 5C 6C | 9H 10H JH", A="7C KD", B="JS QD")
        do(h, 0, "B add JS 2")                   # B wounds meld 2
        do(h, 1, "A add 7C 1")
        assert h.open_players() == ["B"] and h.plays[2].status == "final"

    def test_a_card_on_trial_does_not_count_against_you(self) -> None:
        """§5.4: the jack arrives while B is assembling a set (between the 2nd and 3rd 6)."""
        h = position("6H 7H 8H 9H", A="JS KD", B="6C 6D QD")
        do(h, 0, "B stage 6C", "B stage 6D", "B move 6H 1 new", "B place 6C 2")
        do(h, 1, "A add JS 2")                   # A's play: wounded, stays open
        do(h, 2, "B place 6D 2")                 # B's set is judged without A's jack
        assert h.open_players() == ["A"]
        assert [p.status for p in h.plays.values() if p.player == "B"] == ["final"]
        h.tick(41)                               # A's jack goes back to A's hand, and A's only
        assert table_of(h) == T("7H 8H 9H | 6H 6C 6D")
        assert hand_of(h, "A") == F("JS KD") and hand_of(h, "B") == ["QD"]

    def test_a_card_on_trial_you_needed_counts_for_you(self) -> None:
        """§5.4: A's 7C is on trial; B's 8C needs it: B is confirmed, depending on A."""
        h = position("4C 5C 6C | 9H 10H JH", A="2S 7C KD", B="8C QD")
        do(h, 0, "A add 2S 2", "A add 7C 1")
        do(h, 1, "B add 8C 1")
        assert h.open_players() == ["A"]
        b = h.plays[2]
        assert b.status == "confirmed" and b.deps == {1}
        h.tick(40)                               # A's 2S falls, the 7C stays: B is safe
        assert table_of(h) == T("4C 5C 6C 7C 8C | 9H 10H JH")
        assert b.status == "final" and hand_of(h, "A") == F("2S KD")

    def _two_eights(self) -> Hand:
        """A and B each add an 8C under 5C 6C 7C while their plays stay open (each has a
        wound elsewhere); then C adds the 9C. Alone, either 8C makes C's run valid: the
        smallest sets tie, and R8 picks the one whose newest action is oldest, A's."""
        h = position("5C 6C 7C | 9H 10H JH | 9S 10S JS",
                     A="2D 8C KD", B="2D 8C QD", C="9C KH")
        do(h, 0, "A add 2D 2", "A add 8C 1")
        do(h, 1, "B add 2D 3", "B add 8C 1")
        do(h, 2, "C add 9C 1")
        assert h.open_players() == ["A", "B"]
        assert h.plays[3].status == "confirmed" and h.plays[3].deps == {1}
        return h

    def test_the_tie_goes_to_the_older_action_so_A_falling_takes_C_down(self) -> None:
        h = self._two_eights()
        a8 = h.plays[1].actions[1].card         # A's 8C and B's 8C, by identity
        b8 = h.plays[2].actions[1].card
        assert C.name(a8) == C.name(b8) == "8C" and a8 != b8
        do(h, 3, "A cancel")
        assert meld(h, 1) == F("5C 6C 7C 8C") and h.loc[b8] == ("meld", 1)
        assert h.loc[a8] == ("hand", "A")
        assert hand_of(h, "C") == F("9C KH") and h.plays[3].status == "fallen"
        assert h.open_players() == ["B"]

    def test_the_tie_goes_to_the_older_action_so_B_falling_leaves_C_alone(self) -> None:
        h = self._two_eights()
        do(h, 3, "B cancel")
        assert meld(h, 1) == F("5C 6C 7C 8C 9C") and h.plays[3].status == "confirmed"
        assert hand_of(h, "B") == F("2D 8C QD")
        h.tick(40)                               # A's 2D falls, A's 8C stays; C is safe
        assert table_of(h) == T("5C 6C 7C 8C 9C | 9H 10H JH | 9S 10S JS")
        assert h.plays[3].status == "final" and hand_of(h, "A") == F("2D KD")

    def test_two_removals_from_one_run_the_later_to_end_answers(self) -> None:
        """R8: A opens first and takes the 5H, B takes the 8H; B finishes first and keeps its
        set; A, ending later, answers for 6H 7H: A's move and its cards go back."""
        h = position("5H 6H 7H 8H", A="5S 5D KC", B="8S 8D QC")
        do(h, 0, "A stage 5S", "A stage 5D")
        do(h, 0.5, "B stage 8S", "B stage 8D")
        do(h, 1, "A move 5H 1 new")
        do(h, 2, "B move 8H 1 new")
        do(h, 3, "B place 8S 3", "B place 8D 3")
        assert h.plays[2].status == "final"
        do(h, 4, "A place 5S 2", "A place 5D 2")
        assert table_of(h) == T("5H 6H 7H | 8H 8S 8D")
        assert meld(h, 2) == [] and hand_of(h, "A") == F("5S 5D KC")
        assert h.plays[1].status == "void"

    def test_two_9D_added_to_one_set_the_later_to_end_answers(self) -> None:
        h = position("9S 9H 9C | 4C 5C 6C", A="KD 9D 2S", B="9D QD")
        (a9,) = ids_of(h, "9D", ("hand", "A"))
        (b9,) = ids_of(h, "9D", ("hand", "B"))
        do(h, 0, "A add KD 2", "A add 9D 1")     # A's play stays open (KD wounds meld 2)
        do(h, 1, "B add 9D 1")                   # judged without A's 9D: confirmed
        assert h.plays[2].status == "final"
        do(h, 2, "A end")
        assert table_of(h) == T("9S 9H 9C 9D | 4C 5C 6C")
        assert h.loc[b9] == ("meld", 1) and h.loc[a9] == ("hand", "A")
        assert hand_of(h, "A") == F("KD 9D 2S")

    def test_a_wound_that_another_play_mends_stands(self) -> None:
        """R8: A's 8C leaves a gap; B's 7C fills it and is confirmed; A's play is then in
        order and ends by itself (R7)."""
        h = position("4C 5C 6C", A="8C KD", B="7C QD")
        do(h, 0, "A add 8C 1")
        assert h.open_players() == ["A"]
        do(h, 1, "B add 7C 1")
        assert h.open_players() == []
        assert meld(h, 1) == F("4C 5C 6C 7C 8C")
        assert h.plays[1].status == "final" and h.plays[2].status == "final"

    def test_nobody_can_spoil_your_play_meanwhile(self) -> None:
        """B's jack on A's meld is on trial: A's end judges A's meld without it."""
        h = position("4C 5C 6C | 9H 10H JH", A="2S 7C KD", B="JS QD")
        do(h, 0, "A add 2S 2", "A add 7C 1")
        do(h, 1, "B add JS 1")
        do(h, 2, "A end")
        assert hand_of(h, "A") == F("2S KD") and h.plays[1].status == "final"
        h.tick(41)
        assert table_of(h) == T("4C 5C 6C 7C | 9H 10H JH") and hand_of(h, "B") == F("JS QD")

    def test_the_valid_part_stays_at_the_40_seconds(self) -> None:
        h = position("4C 5C 6C | 9H 10H JH", A="2S 7C QD")
        do(h, 0, "A add 2S 2", "A add 7C 1")
        h.tick(40)
        assert table_of(h) == T("4C 5C 6C 7C | 9H 10H JH") and hand_of(h, "A") == F("2S QD")
