"""The rulebook, continued: the chain undo (§5.5, R9, R10), finality (R11), holds (§6, R12)
and ping-pong (R13). Outcomes are worked out by hand in the comments."""

from __future__ import annotations

from enginehelpers import (
    F,
    T,
    assert_refused,
    do,
    events,
    hand_of,
    ids_of,
    meld,
    position,
    staged,
    table_is_valid,
    table_of,
)

from engine import cards as C
from engine.hand import Hand


class TestChainUndo:
    """§5.5: the undo reaches exactly as far as the dependencies reach, and no further."""

    def test_card_edge_a_confirmed_play_that_moved_the_card_falls_whole(self) -> None:
        """A's 7C is on trial; B moves it into a set and places two own cards: confirmed.
        A cancels: the 7C must go back to A's hand, so B's move is undone first, and B's
        play, confirmed, falls whole: B's 7S 7H go back to B (R10)."""
        h = position("4C 5C 6C | 9H 10H JH", A="2S 7C KD", B="7S 7H QD")
        do(h, 0, "A add 2S 2", "A add 7C 1")
        do(h, 2, "B stage 7S", "B stage 7H", "B move 7C 1 new", "B place 7S 3", "B place 7H 3")
        assert h.plays[2].status == "confirmed" and h.plays[2].deps == {1}
        assert table_of(h) == T("4C 5C 6C | 9H 10H JH 2S | 7C 7S 7H")
        events(h)
        do(h, 5, "A cancel")
        assert table_of(h) == T("4C 5C 6C | 9H 10H JH")
        assert meld(h, 3) == []
        assert hand_of(h, "A") == F("2S 7C KD") and hand_of(h, "B") == F("7S 7H QD")
        assert h.plays[2].status == "fallen"
        notices = [e for e in events(h, "chain_undo") if e["player"] == "B"]
        assert notices and notices[0]["cause"] == 1 and notices[0]["cause_player"] == "A"

    def test_meld_edge_whoever_mended_a_gap_falls_when_the_card_comes_back(self) -> None:
        """§5.5: A takes the 7D out of 7H 7S 7D; B adds the other 7D to mend it (B needs A's
        removal, R8). A's play falls: A's 7D returns, and next to it B's 7D cannot stand."""
        h = position("7H 7S 7D", A="7C KD", B="7D QD")
        (a7,) = ids_of(h, "7D", ("meld", 1))
        (b7,) = ids_of(h, "7D", ("hand", "B"))
        do(h, 0, "A stage 7C", "A move 7D 1 new")
        do(h, 1, "B add 7D 1")
        assert h.plays[2].status == "confirmed"
        do(h, 2, "A cancel")
        assert table_of(h) == T("7H 7S 7D")
        assert h.loc[a7] == ("meld", 1) and h.loc[b7] == ("hand", "B")
        assert hand_of(h, "A") == F("7C KD") and meld(h, 2) == []

    def test_disruption_drags_nobody_down(self) -> None:
        h = position("4C 5C 6C", A="JS 2D", B="7C 3H")
        do(h, 0, "A add JS 1")
        do(h, 1, "B add 7C 1")
        do(h, 2, "A cancel")
        assert table_of(h) == T("4C 5C 6C 7C") and hand_of(h, "A") == F("JS 2D")
        assert h.plays[2].status == "final"

    def test_everyone_who_needed_the_card_falls_and_only_they(self) -> None:
        """A's 8H (on trial) carries both B's removal of the 5H and C's 9H; D-less bystander
        work on another meld is untouched."""
        h = position("5H 6H 7H | 9S 10S JS | 4D 5D 6D",
                     A="2D 8H KD", B="5S 5D 7D QD", C="9H QC")
        do(h, 0, "A add 2D 2", "A add 8H 1")
        do(h, 1, "B add 7D 3")                           # independent, final at once
        do(h, 2, "B stage 5S", "B stage 5D", "B move 5H 1 new", "B place 5S 4", "B place 5D 4")
        do(h, 3, "C add 9H 1")
        assert table_of(h) == T("6H 7H 8H 9H | 9S 10S JS 2D | 4D 5D 6D 7D | 5H 5S 5D")
        assert h.plays[3].deps == {1} and h.plays[4].deps == {1}
        do(h, 4, "A cancel")
        assert table_of(h) == T("5H 6H 7H | 9S 10S JS | 4D 5D 6D 7D")
        assert hand_of(h, "A") == F("2D 8H KD")
        assert hand_of(h, "B") == F("5S 5D QD") and hand_of(h, "C") == F("9H QC")
        assert [h.plays[i].status for i in (2, 3, 4)] == ["final", "fallen", "fallen"]

    def test_an_open_play_loses_only_the_piece_the_chain_reaches(self) -> None:
        """B, still at work, moved A's on-trial 7C and, separately, placed a JD on 8D 9D 10D.
        A cancels: B loses the move only, stays open with its staged cards, and its JD stays."""
        h = position("4C 5C 6C | 9H 10H JH | 8D 9D 10D", A="2S 7C 9C", B="7H 7S JD QC")
        do(h, 0, "A add 2S 2", "A add 7C 1")
        do(h, 2, "B stage 7H", "B stage 7S", "B stage JD", "B move 7C 1 new", "B place JD 3")
        do(h, 5, "A cancel")
        assert table_of(h) == T("4C 5C 6C | 9H 10H JH | 8D 9D 10D JD")
        assert h.open_players() == ["B"] and staged(h, "B") == F("7H 7S")
        do(h, 6, "B end")
        assert table_of(h) == T("4C 5C 6C | 9H 10H JH | 8D 9D 10D JD")
        assert hand_of(h, "B") == F("7H 7S QC") and h.plays[2].status == "final"

    def test_cancel_removes_all_your_work_even_the_valid_part(self) -> None:
        h = position("4C 5C 6C | 9H 10H JH", A="2S 7C KD")
        do(h, 0, "A add 2S 2", "A add 7C 1")
        do(h, 1, "A cancel")
        assert table_of(h) == T("4C 5C 6C | 9H 10H JH") and hand_of(h, "A") == F("2S 7C KD")
        assert h.open_players() == []

    def test_draws_are_never_undone(self) -> None:
        h = position("4C 5C 6C", A="JS KD", stocks={"A": "2H 3H"})
        do(h, 0, "A add JS 1", "A draw")
        do(h, 1, "A cancel")
        assert hand_of(h, "A") == F("JS KD 2H") and len(h.stocks["A"]) == 1

    def test_a_meld_comes_back_under_the_same_id(self) -> None:
        """R2: moves empty meld 1 (gone); cancelling brings its cards back under id 1; the id
        of the meld made meanwhile is not reused."""
        h = position("5C 6C 7C", A="8C KD", B="3H 4H 5H QS")
        do(h, 0, "A stage 8C", "A move 5C 1 new", "A move 6C 1 2", "A move 7C 1 2")
        assert 1 not in h.table() and meld(h, 2) == F("5C 6C 7C")
        do(h, 1, "A cancel")
        assert meld(h, 1) == F("5C 6C 7C") and meld(h, 2) == []
        do(h, 2, "B stage 3H", "B stage 4H", "B stage 5H", "B lay 3H 4H 5H")
        assert meld(h, 3) == F("3H 4H 5H")

    def test_a_fallen_lay_takes_its_meld_away_and_back_to_the_hand(self) -> None:
        """A confirmed lay that depended on an open play falls whole; its meld id is gone."""
        h = position("4C 5C 6C | 9H 10H JH", A="2S 7C KD", B="8C 9S 9H 9D QD")
        do(h, 0, "A add 2S 2", "A add 7C 1")
        do(h, 1, "B stage 8C", "B stage 9S", "B stage 9H", "B stage 9D",
           "B lay 9S 9H 9D", "B place 8C 1")
        assert meld(h, 3) == F("9S 9H 9D") and h.plays[2].status == "confirmed"
        do(h, 2, "A cancel")
        assert meld(h, 3) == [] and hand_of(h, "B") == F("8C 9S 9H 9D QD")
        assert table_of(h) == T("4C 5C 6C | 9H 10H JH")

    def _joint_support(self, *, w_open: bool) -> Hand:
        """Two confirmed plays X (B) and Y (C) each add a 9 to a set Q (B) had emptied of its
        9C; both depend on A's open 7C (via another meld). Q alone needs neither X nor Y (each
        alone would do), so Q has no edge to them. A cancels: X and Y fall, leaving 9S 9H."""
        if w_open:   # C's open play W will bring the 10C that Q's run needs
            h = position("9S 9H 9C | 4C 5C 6C | 10H JH QH | JC QC KC | 4D 5D 6D",
                         A="2S 7C", B="9D 8C 8C KD", C="9C 3C 10C KS QD")
        else:
            h = position("9S 9H 9C | 4C 5C 6C | 10H JH QH | 10C JC QC KC | 4D 5D 6D",
                         A="2S 7C", B="9D 8C 8C KD", C="9C 3C KS QD")
        do(h, 0, "A add 2S 3", "A add 7C 2")                          # play 1, open
        do(h, 1, "B stage 9D", "B stage 8C", "B place 8C 2", "B place 9D 1")  # X, play 2
        do(h, 2, "B stage 8C", "B move 9C 1 4")                       # Q, play 3, open
        do(h, 3, "C stage 9C", "C stage 3C", "C place 3C 2", "C place 9C 1")  # Y, play 4
        if w_open:
            do(h, 4, "C add KS 5", "C add 10C 4")                     # W, play 5, open
        do(h, 5, "B place 8C 4")                                      # Q ends
        assert table_of(h) == T(
            "9S 9H 9D 9C | 3C 4C 5C 6C 7C 8C | 10H JH QH 2S | 8C 9C 10C JC QC KC"
            " | 4D 5D 6D KS" if w_open else
            "9S 9H 9D 9C | 3C 4C 5C 6C 7C 8C | 10H JH QH 2S | 8C 9C 10C JC QC KC | 4D 5D 6D")
        return h

    def test_undoing_can_wound_the_final_sweep(self) -> None:
        """§5.5 'undoing can wound', R10's sweep: Q, confirmed and not yet final (it needs C's
        open 10C), is left wounded by the chain and falls whole; the 9C goes home."""
        h = self._joint_support(w_open=True)
        q = h.plays[3]
        # a meld edge to W's 10C only; X and Y (2, 4) are waited for, jointly (docs/rules.md 5.1)
        assert q.status == "confirmed" and q.deps == {2, 4, 5}
        edges = {h.actions[seq - 1].play for seq, plays in h.graph.dependents.items() if 3 in plays}
        assert edges == {5}
        do(h, 6, "A cancel")
        assert table_of(h) == T(
            "9S 9H 9C | 4C 5C 6C | 10H JH QH | 10C JC QC KC | 4D 5D 6D KS")
        assert [h.plays[i].status for i in (2, 3, 4)] == ["fallen"] * 3
        assert hand_of(h, "B") == F("9D 8C 8C KD")

    def test_a_meld_held_up_jointly_never_stays_wounded(self) -> None:
        """Q needs X and Y only jointly: it waits for them (R11, docs/rules.md 5.1) instead of
        being final at once, so when both fall the R10 sweep takes Q down too."""
        h = self._joint_support(w_open=False)
        assert h.plays[3].status == "confirmed" and {2, 4} <= h.plays[3].deps
        do(h, 6, "A cancel")
        assert h.open_players() == []
        assert table_of(h) != T("9S 9H | 4C 5C 6C | 10H JH QH | 8C 9C 10C JC QC KC | 4D 5D 6D")
        assert table_is_valid(h)


class TestFinality:
    """R11: a confirmed play is final once every play it depends on is final; no chain reaches it."""

    def test_a_play_that_needs_nothing_unsafe_is_final_at_once(self) -> None:
        h = position("4C 5C 6C", A="7C KD")
        events(h)
        do(h, 0, "A add 7C 1")
        kinds = [e["kind"] for e in events(h)]
        assert kinds.index("play_ended") < kinds.index("play_final")
        assert h.plays[1].status == "final"

    def test_a_play_waits_for_the_plays_it_needs(self) -> None:
        h = position("4C 5C 6C | 9H 10H JH", A="2S 7C KD", B="8C QD")
        do(h, 0, "A add 2S 2", "A add 7C 1")
        do(h, 1, "B add 8C 1")
        h.tick(39.999)
        assert h.plays[2].status == "confirmed"
        h.tick(40)                   # A's play ends keeping the 7C: final, and so is B's
        assert h.plays[1].status == "final" and h.plays[2].status == "final"

    def test_no_chain_reaches_a_final_play(self) -> None:
        """B's 8C is final; C moves it into a set and cancels: only C's move is undone."""
        h = position("4C 5C 6C 7C", A="KD", B="8C QD", C="8S 8H JS")
        do(h, 0, "B add 8C 1")
        do(h, 1, "C stage 8S", "C stage 8H", "C move 8C 1 new", "C place 8S 2")
        do(h, 2, "C cancel")
        assert table_of(h) == T("4C 5C 6C 7C 8C") and h.plays[1].status == "final"
        assert hand_of(h, "B") == ["QD"]

    def test_a_final_play_is_never_undone_by_later_falls(self) -> None:
        """A's play (final) extended a run; B's later play on it, open, is cancelled: A keeps."""
        h = position("4C 5C 6C", A="7C KD", B="8C 2S QD")
        do(h, 0, "A add 7C 1")
        do(h, 1, "B add 2S 1")   # wounds the run: B open
        do(h, 2, "B add 8C 1")
        do(h, 3, "B cancel")
        assert table_of(h) == T("4C 5C 6C 7C") and h.plays[1].status == "final"


class TestHolds:
    """§6 and R12: one card at a time, nobody else may take it, 10 s, a bad drop ends it."""

    POS = "5H 6H 7H 8H | 9C 10C JC QC"

    def test_one_card_at_a_time(self) -> None:
        h = position(self.POS, A="5S KD")
        do(h, 0, "A stage 5S", "A take 5H 1")
        assert_refused(h, "A take 9C 2", "already_holding")
        assert_refused(h, "A move 9C 2 new", "already_holding")

    def test_a_held_card_is_nobody_elses(self) -> None:
        h = position(self.POS, A="5S KD", B="QH KH")
        do(h, 0, "A stage 5S", "A take 5H 1")
        do(h, 0.5, "B stage QH")
        assert_refused(h, "B take 5H 1", "held")
        assert_refused(h, "B move 5H 1 new", "held")
        assert meld(h, 1) == F("5H 6H 7H 8H")       # a held card stays where it is

    def test_a_hold_lapses_at_10_seconds(self) -> None:
        h = position(self.POS, A="5S KD", B="QH KH")
        do(h, 0, "A stage 5S")
        do(h, 1, "A take 5H 1")
        do(h, 2, "B stage QH")
        assert_refused(h, "B take 5H 1", "held", now=10.999)
        do(h, 11, "B take 5H 1")
        assert_refused(h, "A drop new", "not_holding", now=11.5)
        do(h, 12, "B drop new")
        assert table_of(h) == T("6H 7H 8H | 9C 10C JC QC | 5H")

    def test_a_refused_drop_ends_the_hold(self) -> None:
        h = position(self.POS, A="5S KD", B="QH KH")
        do(h, 0, "A stage 5S", "A take 5H 1")
        assert_refused(h, "A drop 9", "no_such_meld", now=1)
        assert "A" not in h.holds and meld(h, 1) == F("5H 6H 7H 8H")
        do(h, 2, "B stage QH", "B take 5H 1")
        assert h.holds["B"].card in ids_of(h, "5H")

    def test_a_drop_onto_its_own_meld_is_refused_and_ends_the_hold(self) -> None:
        h = position(self.POS, A="5S KD")
        do(h, 0, "A stage 5S", "A take 8H 1")
        assert_refused(h, "A drop 1", "same_meld", now=1)
        assert "A" not in h.holds
        assert_refused(h, "A move 8H 1 1", "same_meld", now=2)

    def test_a_hold_ends_with_the_play(self) -> None:
        h = position(self.POS, A="5S KD", B="QH KH")
        do(h, 0, "A stage 5S", "A take 5H 1")
        do(h, 1, "A cancel")
        assert h.holds == {}
        do(h, 2, "B stage QH", "B take 5H 1")

    def test_taking_needs_a_declaration_and_names_a_card_there(self) -> None:
        h = position(self.POS, A="5S KD")
        assert_refused(h, "A take 5H 1", "not_declared")
        do(h, 0, "A stage 5S")
        assert_refused(h, "A take 9C 1", "card_not_in_meld")
        assert_refused(h, "A take 9C 7", "no_such_meld")
        assert_refused(h, "A drop new", "not_holding")

    def test_a_take_alone_changes_nothing(self) -> None:
        h = position(self.POS, A="5S KD")
        do(h, 0, "A stage 5S", "A take 8H 1")
        h.tick(10)
        do(h, 11, "A unstage 5S")
        assert table_of(h) == T(self.POS) and h.plays[1].actions == []
        assert h.plays[1].status == "void"

    def test_drop_new_opens_a_meld_holding_only_that_card(self) -> None:
        h = position(self.POS, A="5S 5D KD")
        do(h, 0, "A stage 5S", "A stage 5D", "A take 5H 1", "A drop new")
        assert meld(h, 3) == ["5H"]
        do(h, 1, "A place 5S 3", "A place 5D 3")
        assert table_of(h) == T("6H 7H 8H | 9C 10C JC QC | 5H 5S 5D")


class TestPingPong:
    """R13: from the third return, once two players moved it, the card is reserved for the
    mover whose play opened first, until that play ends."""

    POS = "5H 6H 7H 8H | 9C 10C JC"

    def test_reserved_for_the_play_that_opened_first_even_if_it_moved_second(self) -> None:
        h = position(self.POS, A="AS 2D", B="AD 3D", C="KC")
        do(h, 0, "B stage AD")           # B's play opens first
        do(h, 1, "A stage AS")
        do(h, 2, "A move 8H 1 2")        # melds seen: 1, 2
        do(h, 3, "B move 8H 2 1")        # return 1
        do(h, 4, "A move 8H 1 2")        # return 2
        do(h, 5, "B move 8H 2 1")        # return 3, two movers: reserved for B
        assert_refused(h, "A take 8H 1", "reserved", now=6)
        assert_refused(h, "A move 8H 1 2", "reserved", now=6)
        do(h, 7, "B move 8H 1 2")
        assert meld(h, 2) == F("8H 9C 10C JC")

    def test_the_reservation_ends_with_that_play(self) -> None:
        h = position(self.POS, A="AS 2D", B="AD 3D", C="KC")
        do(h, 0, "B stage AD")
        do(h, 1, "A stage AS")
        for t, text in enumerate(("A move 8H 1 2", "B move 8H 2 1", "A move 8H 1 2",
                                  "B move 8H 2 1"), start=2):
            do(h, t, text)
        assert_refused(h, "A take 8H 1", "reserved", now=6)
        do(h, 7, "B cancel")     # B's moves are undone, and with them A's later one (card edge)
        assert meld(h, 2) == F("8H 9C 10C JC") and h.reserved == {}
        do(h, 8, "A take 8H 2")

    def test_a_reservation_outlives_the_overlap_until_its_play_ends(self) -> None:
        """docs/rules.md 6.2 (choice): A ends; C, declaring later, still finds the card B's."""
        h = position(self.POS, A="AS 2D", B="AD 3D", C="AC KC")
        do(h, 0, "B stage AD")
        do(h, 1, "A stage AS")
        for t, text in enumerate(("A move 8H 1 2", "B move 8H 2 1", "A move 8H 1 2",
                                  "B move 8H 2 1"), start=2):
            do(h, t, text)
        do(h, 6, "A unstage AS")
        do(h, 7, "C stage AC")
        assert_refused(h, "C take 8H 1", "reserved", now=8)

    def test_the_stop_caller_ignores_reservations(self) -> None:
        """docs/rules.md 6.2 (choice)."""
        h = position(self.POS, A="AS 2D", B="AD 3D", C="KC")
        do(h, 0, "B stage AD")
        do(h, 1, "A stage AS")
        for t, text in enumerate(("A move 8H 1 2", "B move 8H 2 1", "A move 8H 1 2",
                                  "B move 8H 2 1"), start=2):
            do(h, t, text)
        do(h, 6, "A stop", "A take 8H 1")

    def test_one_player_alone_does_not_reserve_a_card(self) -> None:
        h = position(self.POS, A="AS 2D", B="AD 3D", C="KC")
        do(h, 0, "A stage AS")
        do(h, 1, "B stage AD")           # the overlap begins
        for t, text in enumerate(("A move 8H 1 2", "A move 8H 2 1", "A move 8H 1 2",
                                  "A move 8H 2 1"), start=2):
            do(h, t, text)
        assert h.reserved == {}
        do(h, 6, "B take 8H 1", "B drop 2")   # a fourth return, now by two movers
        assert_refused(h, "B take 8H 2", "reserved", now=7)   # reserved for A (opened first)
        do(h, 8, "A move 8H 2 1")

    def test_returns_count_only_while_plays_overlap(self) -> None:
        h = position(self.POS, A="AS 2D", B="AD 3D", C="KC")
        do(h, 0, "A stage AS")
        for t, text in enumerate(("A move 8H 1 2", "A move 8H 2 1", "A move 8H 1 2",
                                  "A move 8H 2 1"), start=1):
            do(h, t, text)
        do(h, 6, "B stage AD", "B move 8H 1 2")   # first move of the overlap: no return yet
        do(h, 7, "A move 8H 2 1")                 # return 1
        assert h.reserved == {}
        do(h, 8, "B move 8H 1 2")                 # return 2
        assert h.reserved == {}

    def test_a_card_cannot_go_to_the_meld_it_is_in(self) -> None:
        h = position(self.POS, A="AS 2D")
        do(h, 0, "A stage AS")
        assert_refused(h, "A move 8H 1 1", "same_meld")


def test_card_identity_in_notices() -> None:
    """Notices name faces in R1 notation."""
    h = position("4C 5C 6C | 9H 10H JH", A="2S 7C KD", B="8C QD")
    do(h, 0, "A add 2S 2", "A add 7C 1")
    do(h, 1, "B add 8C 1")
    events(h)
    do(h, 2, "A cancel")
    undone = [e["card"] for e in events(h, "undone")]
    assert sorted(undone) == sorted(["2S", "7C", "8C"])
    assert all(C.parse_face(c) for c in undone)
