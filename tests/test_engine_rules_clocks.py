"""The rulebook, continued: inactivity (§7, R14), going out (§8, R15), Stop! (§9, R16),
absence (§11, R18), the tie-break (§10, R19), scores (§12, R20) and the order of clocks (R23).
Outcomes are worked out by hand in the comments."""

from __future__ import annotations

from enginehelpers import (
    F,
    T,
    assert_refused,
    do,
    events,
    hand_of,
    meld,
    position,
    score_by_r20,
    staged,
    table_of,
)

from engine.rules import MACHIAVELOX


def statuses(h: object, status: str) -> list[str]:
    return sorted(p for p, ps in h.players.items() if ps.status == status)  # type: ignore[attr-defined]


class TestInactivity:
    """§7, R14: 120 s without a draw or a confirmed play of one's own cards forces a draw each."""

    def test_forced_draws_for_every_active_player_with_a_stock(self) -> None:
        h = position(A="KS", B="QS", C="JS", stocks={"A": "2C 3C", "B": "4D", "C": "5S"})
        do(h, 10, "C leave")
        h.tick(119.999)
        assert hand_of(h, "A") == ["KS"]
        h.tick(120)
        assert hand_of(h, "A") == F("KS 2C") and hand_of(h, "B") == F("QS 4D")
        assert len(h.stocks["C"]) == 1          # C has left: no forced draw
        h.tick(240)
        assert hand_of(h, "A") == F("KS 2C 3C") and len(h.stocks["B"]) == 0

    def test_a_draw_restarts_the_countdown(self) -> None:
        h = position(A="KS", B="QS", C="JS", stocks={"A": "2C", "B": "4D 5D", "C": "5S"})
        do(h, 100, "B draw")
        h.tick(219.999)
        assert len(h.stocks["A"]) == 1
        h.tick(220)
        assert len(h.stocks["A"]) == 0 and len(h.stocks["C"]) == 0

    def test_an_open_play_does_not_stop_the_clock(self) -> None:
        h = position("4C 5C 6C", A="JS KS", B="QS", C="JH", stocks={"A": "2C", "B": "4D", "C": "5S"})
        do(h, 100, "A add JS 1")
        h.tick(120)
        assert hand_of(h, "A") == F("KS 2C") and h.open_players() == ["A"]

    def test_moving_table_cards_does_not_restart_it(self) -> None:
        h = position("5H 6H 7H 8H", A="KS", B="QS", C="JH",
                     stocks={"A": "2C", "B": "4D", "C": "5S"})
        do(h, 100, "A stage KS", "A move 8H 1 new")
        do(h, 110, "A unstage KS")              # nothing of A's came down: all undone
        h.tick(120)
        assert len(h.stocks["B"]) == 0 and table_of(h) == T("5H 6H 7H 8H")

    def test_a_confirmed_play_with_an_own_card_restarts_it(self) -> None:
        h = position("4C 5C 6C", A="7C KS", B="QS", C="JH",
                     stocks={"A": "2C", "B": "4D", "C": "5S"})
        do(h, 100, "A add 7C 1")
        h.tick(219.999)
        assert len(h.stocks["B"]) == 1
        h.tick(220)
        assert len(h.stocks["B"]) == 0

    def test_a_held_back_draw_arrives_when_the_play_ends_before_going_out(self) -> None:
        """§7 extreme case: A is laying out at the silence; A's forced card is handed over
        when the lay ends, before going out is decided: A has a card, so A is not out."""
        h = position(A="7C 8C 9C", B="KD", C="QD", stocks={"A": "2D 3D", "B": "4H", "C": "5H"})
        do(h, 115, "A stage 7C", "A stage 8C", "A stage 9C")
        h.tick(120)
        assert hand_of(h, "B") == F("KD 4H") and hand_of(h, "C") == F("QD 5H")
        assert hand_of(h, "A") == [] and len(h.stocks["A"]) == 2
        do(h, 121, "A lay 7C 8C 9C")
        assert hand_of(h, "A") == ["2D"] and len(h.stocks["A"]) == 1
        assert h.result is None and statuses(h, "active") == ["A", "B", "C"]

    def test_the_late_delivery_does_not_restart_the_clock(self) -> None:
        h = position(A="KD", B="QS", C="JH",
                     stocks={"A": "2D 3D", "B": "4H 5H", "C": "6H 7H"})
        do(h, 110, "A stage KD")
        h.tick(120)                              # B and C draw; A's card waits
        do(h, 130, "A unstage KD")               # A gets 2D now
        assert hand_of(h, "A") == F("KD 2D")
        h.tick(239.999)
        assert len(h.stocks["B"]) == 1
        h.tick(240)                              # 120 s after the expiry, not after 130
        assert len(h.stocks["B"]) == 0 and hand_of(h, "A") == F("KD 2D 3D")

    def test_dormant_players_are_forced_to_draw_too(self) -> None:
        """docs/rules.md 7.2 (choice): a disconnected player is still playing, badly."""
        h = position(A="KS", B="QS", C="JS", stocks={"A": "2C", "B": "4D", "C": "5S"})
        do(h, 50, "C disconnect")
        h.tick(120)
        assert hand_of(h, "C") == F("JS 5S")

    def test_silence_with_every_active_stock_empty_ends_the_hand(self) -> None:
        """A has left with a stock: it does not count (R17). B has fewest cards: B wins."""
        h = position(A="KS KH", B="QS", C="JS JH", stocks={"A": "2C"})
        do(h, 1, "A leave")
        h.tick(119.999)
        assert h.result is None
        h.tick(120)
        assert h.result is not None and (h.result.end, h.result.winner) == ("silence", "B")
        assert h.result.scores == {"A": -15, "B": 50 + 2 + 2, "C": 0}


class TestGoingOut:
    """§8, R15: empty hand and staging after a confirmed play, having drawn and laid; final."""

    def test_the_going_out_lay_itself_meets_the_laid_condition(self) -> None:
        h = position(A="7C 8C 9C", B="KD QD", C="JS", stocks={"A": "2D"}, laid="")
        do(h, 0, "A stage 7C", "A stage 8C", "A stage 9C", "A lay 7C 8C 9C")
        assert h.result is not None and (h.result.end, h.result.winner) == ("out", "A")
        assert h.result.scores == {"A": 50 - 1 + 2 + 1, "B": 0, "C": 0}

    def test_emptying_the_hand_without_a_lay_eliminates_and_the_cards_stay(self) -> None:
        h = position("4C 5C 6C", A="7C", B="KD", C="QD", laid="BC")
        do(h, 0, "A add 7C 1")
        assert statuses(h, "eliminated") == ["A"] and h.result is None
        assert meld(h, 1) == F("4C 5C 6C 7C")
        assert_refused(h, "A draw", "out_of_hand", now=1)

    def test_a_going_out_play_that_is_undone_costs_nothing(self) -> None:
        """A's last card needs B's open 7C; B cancels: A's 8C comes back, no penalty."""
        h = position("4C 5C 6C | 9H 10H JH", A="8C", B="2S 7C QD", C="KD")
        do(h, 0, "B add 2S 2", "B add 7C 1")
        do(h, 1, "A add 8C 1")
        assert hand_of(h, "A") == [] and h.result is None
        do(h, 2, "B cancel")
        assert hand_of(h, "A") == ["8C"] and h.result is None
        assert statuses(h, "active") == ["A", "B", "C"]

    def test_going_out_waits_for_finality(self) -> None:
        h = position("4C 5C 6C | 9H 10H JH", A="8C", B="2S 7C QD", C="KD")
        do(h, 0, "B add 2S 2", "B add 7C 1")
        do(h, 1, "A add 8C 1")
        h.tick(39.999)
        assert h.result is None
        h.tick(40)                       # B's 7C stays: A's play is final, A is out
        assert h.result is not None and (h.result.end, h.result.winner) == ("out", "A")
        assert h.result.scores["A"] == 50 - 0 + 2 + 1 + 10

    def test_the_laid_condition_is_kept_even_if_the_meld_is_taken_apart(self) -> None:
        h = position("10D JD QD", A="6C 7C 8C 9C KD", B="9S 9H QS", C="2C",
                     stocks={"A": "2H"}, laid="")
        do(h, 0, "A stage 6C", "A stage 7C", "A stage 8C", "A stage 9C", "A lay 6C 7C 8C 9C")
        do(h, 1, "B stage 9S", "B stage 9H", "B move 9C 2 new", "B place 9S 3", "B place 9H 3")
        assert table_of(h) == T("10D JD QD | 6C 7C 8C | 9C 9S 9H")
        do(h, 2, "A add KD 1")
        assert h.result is not None and (h.result.end, h.result.winner) == ("out", "A")
        assert h.result.scores["A"] == 50 - 1 + 1 + 1

    def test_going_out_ends_the_other_plays_as_at_their_40_seconds(self) -> None:
        h = position("4C 5C 6C | 9H 10H JH | 4D 5D 6D", A="7C", B="2S 7D QS", C="KD KH",
                     stocks={"A": "3S"})
        do(h, 0, "B add 2S 2", "B add 7D 3")
        do(h, 1, "A add 7C 1")
        assert h.result is not None and (h.result.end, h.result.winner) == ("out", "A")
        assert table_of(h) == T("4C 5C 6C 7C | 9H 10H JH | 4D 5D 6D 7D")
        assert hand_of(h, "B") == F("2S QS") and h.open_players() == []
        assert h.result.scores == {"A": 50 - 1 + 2 + 2, "B": 0, "C": 0}

    def test_the_hand_is_over_after_going_out(self) -> None:
        h = position("4C 5C 6C", A="7C", B="KD", C="QD")
        do(h, 0, "A add 7C 1")
        assert_refused(h, "B draw", "hand_over", now=1)
        assert h.next_deadline() is None


class TestStop:
    """§9, R16: once per hand; the others freeze; the caller mends and goes out in 3 minutes,
    or is eliminated and the table goes back to the instant of the Stop!"""

    def test_no_stop_inside_a_freeze(self) -> None:
        h = position(A="KD", B="QD", C="JD")
        do(h, 0, "A stop")
        assert_refused(h, "B stop", "frozen", now=1)
        assert_refused(h, "A stop", "no_stop_now", now=1)
        assert h.freeze is not None and h.freeze.caller == "A"

    def test_the_others_are_frozen_but_may_come_and_go(self) -> None:
        h = position("4C 5C 6C", A="KD", B="7C QD", C="JD", stocks={"B": "2H"})
        do(h, 0, "A stop")
        for text in ("B draw", "B add 7C 1", "B stage QD", "B end", "B give_up", "B leave"):
            assert_refused(h, text, ("frozen", "not_stop_caller"), now=1)
        do(h, 2, "B disconnect", "B reconnect")

    def test_holds_are_freed_and_the_caller_takes_what_it_likes(self) -> None:
        h = position("5H 6H 7H 8H", A="KD", B="5S QD", C="JD")
        do(h, 0, "B stage 5S", "B take 5H 1")
        events(h)
        do(h, 1, "A stop")
        (ended,) = events(h, "hold_ended")
        assert ended["player"] == "B" and h.holds == {}
        do(h, 2, "A move 5H 1 new")              # no declaration needed
        assert_refused(h, "B drop new", "frozen", now=3)
        assert table_of(h) == T("6H 7H 8H | 5H")

    def test_the_caller_may_draw_and_has_no_40_second_limit(self) -> None:
        h = position("5H 6H 7H 8H", A="KD", B="QD", C="JD", stocks={"A": "2C 3C"})
        do(h, 0, "A stop", "A draw", "A stage KD")
        h.tick(100)
        assert h.open_players() == ["A"] and hand_of(h, "A") == ["2C"]

    def test_a_suspended_play_is_not_undone_and_its_wound_waits(self) -> None:
        h = position("4C 5C 6C", A="KD", B="JS QD", C="2D")
        do(h, 0, "B add JS 1")
        do(h, 10, "A stop")
        h.tick(120)
        assert meld(h, 1) == F("4C 5C 6C JS") and h.open_players() == ["B"]

    def test_the_caller_mends_the_wounds_and_goes_out(self) -> None:
        """B's jack wounds 4C 5C 6C; A lays out but is not out while the table is wounded;
        A moves the jack to 8S 9S 10S, the table is in order, A goes out (§9)."""
        h = position("4C 5C 6C | 8S 9S 10S", A="7H 8H 9H", B="JS QD", C="KD",
                     stocks={"A": "2D"})
        do(h, 0, "B add JS 1")
        do(h, 1, "A stop")
        do(h, 2, "A stage 7H", "A stage 8H", "A stage 9H", "A lay 7H 8H 9H")
        assert h.result is None and hand_of(h, "A") == []
        do(h, 3, "A move JS 1 2")
        assert h.result is not None and (h.result.end, h.result.winner) == ("out", "A")
        assert table_of(h) == T("4C 5C 6C | 8S 9S 10S JS | 7H 8H 9H")
        assert h.result.scores == {"A": 50 - 1 + 1 + 1, "B": 0, "C": 0}

    def test_the_hand_ends_as_it_stands_staged_cards_counting_as_hand(self) -> None:
        h = position(A="7C 8C 9C", B="QD QH 2S", C="KD", stocks={"A": "2D"})
        do(h, 0, "B stage QD", "B stage QH")
        do(h, 1, "A stop", "A stage 7C", "A stage 8C", "A stage 9C", "A lay 7C 8C 9C")
        assert h.result is not None and (h.result.end, h.result.winner) == ("out", "A")
        assert staged(h, "B") == F("QD QH")
        assert h.result.scores["A"] == 50 - 1 + 3 + 1

    def test_failure_puts_the_table_back_to_the_instant_of_the_stop(self) -> None:
        """A lays during the freeze (confirmed) and then leaves an 8H alone: at 180 s the
        work is wounded, so all of it goes, the lay too (R16)."""
        h = position("5H 6H 7H 8H", A="7C 8C 9C KD", B="2C", C="3C")
        do(h, 0, "A stop")
        do(h, 1, "A stage 7C", "A stage 8C", "A stage 9C", "A lay 7C 8C 9C")
        do(h, 2, "A move 8H 1 new")
        h.tick(179.999)
        assert h.freeze is not None
        h.tick(180)
        assert h.freeze is None and statuses(h, "eliminated") == ["A"]
        assert table_of(h) == T("5H 6H 7H 8H")
        assert hand_of(h, "A") == F("7C 8C 9C KD")
        assert h.result is None

    def test_valid_freeze_work_stays_when_the_caller_gives_up(self) -> None:
        h = position(A="7C 8C 9C KD", B="2C", C="3C")
        do(h, 0, "A stop", "A stage 7C", "A stage 8C", "A stage 9C", "A lay 7C 8C 9C")
        do(h, 5, "A give_up")
        assert statuses(h, "eliminated") == ["A"] and h.freeze is None
        assert table_of(h) == T("7C 8C 9C") and hand_of(h, "A") == ["KD"]

    def test_suspended_plays_restart_with_a_full_40_seconds(self) -> None:
        h = position("5H 6H 7H 8H", A="KD", B="5S 2C", C="3C")
        do(h, 0, "B stage 5S")                 # would end at 40
        do(h, 10, "A stop")
        do(h, 20, "A give_up")                 # B's play: a fresh 40 s from 20
        h.tick(59.999)
        assert h.open_players() == ["B"]
        h.tick(60)
        assert h.open_players() == [] and hand_of(h, "B") == F("5S 2C")

    def test_other_clocks_restart_from_where_they_stopped(self) -> None:
        """Inactivity had 20 s left at the Stop! (100 s): after the give-up at 150, at 170."""
        h = position(A="KD", B="QD", C="JD", stocks={"A": "2H", "B": "3H", "C": "4H"})
        do(h, 100, "A stop")
        h.tick(140)
        assert len(h.stocks["B"]) == 1
        do(h, 150, "A give_up")
        h.tick(169.999)
        assert len(h.stocks["B"]) == 1
        h.tick(170)
        assert len(h.stocks["B"]) == 0 and len(h.stocks["C"]) == 0
        assert len(h.stocks["A"]) == 1           # eliminated: no forced draw

    def test_the_caller_leaving_ends_the_freeze(self) -> None:
        h = position(A="KD", B="QD 2S", C="JD", stocks={"B": "2H"})
        do(h, 0, "A stop")
        do(h, 1, "A disconnect")
        h.tick(90.999)
        assert h.freeze is not None
        h.tick(91)
        assert h.freeze is None and statuses(h, "left") == ["A"]
        assert statuses(h, "eliminated") == []
        do(h, 91, "B draw")

    def test_the_caller_leaving_openly(self) -> None:
        h = position(A="KD", B="QD", C="JD")
        do(h, 0, "A stop", "A leave")
        assert h.freeze is None and statuses(h, "left") == ["A"]

    def test_the_callers_open_play_continues_without_its_40_seconds(self) -> None:
        """docs/rules.md 9.3 (choice): a play the caller had open goes on under the freeze."""
        h = position("5H 6H 7H 8H", A="5S KD", B="QD", C="JD")
        do(h, 0, "A stage 5S")
        do(h, 10, "A stop")
        h.tick(60)
        assert h.open_players() == ["A"] and staged(h, "A") == ["5S"]
        do(h, 61, "A unstage 5S")
        assert h.open_players() == [] and h.freeze is not None

    def test_the_caller_draws_only_with_an_empty_staging_area(self) -> None:
        """docs/rules.md 3.5 (choice)."""
        h = position(A="KD", B="QD", C="JD", stocks={"A": "2C"})
        do(h, 0, "A stop", "A stage KD")
        assert_refused(h, "A draw", "staging_not_empty", now=1)

    def test_give_up_is_for_the_caller(self) -> None:
        h = position(A="KD", B="QD", C="JD")
        assert_refused(h, "A give_up", "not_stop_caller")
        do(h, 0, "A stop")
        assert_refused(h, "B give_up", ("not_stop_caller", "frozen"), now=1)

    def test_an_invalid_going_out_in_a_freeze_eliminates_at_once(self) -> None:
        """§9: "if your going out is invalid, you are eliminated"; R15: at the moment they
        would have gone out. A has never drawn: laying out the last cards with the table in
        order eliminates A there and then; the valid lay stays (§9)."""
        h = position(A="7C 8C 9C", B="QD", C="JD", stocks={"A": "2D"}, drew="BC")
        do(h, 0, "A stop", "A stage 7C", "A stage 8C", "A stage 9C", "A lay 7C 8C 9C")
        assert statuses(h, "eliminated") == ["A"] and h.freeze is None
        assert table_of(h) == T("7C 8C 9C") and h.result is None
        do(h, 1, "B stage QD")

    def test_two_eliminations_leave_a_survivor(self) -> None:
        h = position(A="KD", B="QD", C="JD JS", stocks={"C": "2H"})
        do(h, 0, "A stop", "A give_up")
        do(h, 1, "B stop", "B give_up")
        assert h.result is not None and (h.result.end, h.result.winner) == ("survivor", "C")
        assert h.result.scores == {"A": -15, "B": -15, "C": 50 - 1 + 1 + 1}


class TestAbsence:
    """§11, R18: 90 s of absence is leaving; the count stops in a freeze and restarts from 0."""

    def test_ninety_seconds_away_is_leaving(self) -> None:
        h = position(A="KD", B="QD", C="JD")
        do(h, 0, "C disconnect")
        h.tick(89.999)
        assert statuses(h, "left") == []
        h.tick(90)
        assert statuses(h, "left") == ["C"] and h.result is None

    def test_coming_back_resets_the_count(self) -> None:
        h = position(A="KD", B="QD", C="JD")
        do(h, 0, "C disconnect")
        do(h, 80, "C reconnect")
        do(h, 100, "C disconnect")
        h.tick(189.999)
        assert statuses(h, "left") == []
        h.tick(190)
        assert statuses(h, "left") == ["C"]

    def test_a_dormant_players_play_expires_by_itself(self) -> None:
        h = position("4C 5C 6C | 9H 10H JH", A="2S 7C KD", B="QD", C="JD")
        do(h, 0, "A add 2S 2", "A add 7C 1", "A disconnect")
        h.tick(40)
        assert table_of(h) == T("4C 5C 6C 7C | 9H 10H JH") and hand_of(h, "A") == F("2S KD")
        do(h, 50, "A reconnect", "A stage KD")

    def test_the_count_stops_in_a_freeze_and_restarts_from_zero(self) -> None:
        h = position(A="KD", B="QD", C="JD")
        do(h, 0, "C disconnect")
        do(h, 50, "A stop")
        h.tick(95)
        assert statuses(h, "left") == []
        do(h, 100, "A give_up")
        h.tick(189.999)
        assert statuses(h, "left") == []
        h.tick(190)
        assert statuses(h, "left") == ["C"]

    def test_disconnected_is_checked_before_frozen(self) -> None:
        h = position(A="KD", B="QD", C="JD", stocks={"B": "2C"})
        do(h, 0, "A stop", "B disconnect")
        assert_refused(h, "B draw", "disconnected", now=1)
        assert_refused(h, "B disconnect", "disconnected", now=1)
        do(h, 2, "B reconnect")
        assert_refused(h, "B draw", "frozen", now=3)
        assert_refused(h, "B reconnect", "connected", now=3)

    def test_departed_players_may_come_and_go_to_watch(self) -> None:
        h = position(A="KD", B="QD", C="JD", stocks={"A": "2C"})
        do(h, 0, "A leave")
        do(h, 1, "A disconnect", "A reconnect")
        assert_refused(h, "A draw", "out_of_hand", now=2)
        assert statuses(h, "left") == ["A"]

    def test_leavings_at_the_same_instant_are_judged_together(self) -> None:
        """§11.2: A left openly; B and C vanish together: nobody survives, abandoned."""
        h = position(A="KD", B="QD", C="JD")
        do(h, 0, "B disconnect", "C disconnect")
        do(h, 5, "A leave")
        h.tick(90)
        assert h.result is not None and (h.result.end, h.result.winner) == ("abandoned", None)
        assert h.result.scores == {"A": -15, "B": -15, "C": -15}

    def test_two_leavings_at_different_times_leave_a_survivor(self) -> None:
        h = position(A="KS", B="QS QH", C="JS JH JD", stocks={"A": "2C"})
        do(h, 0, "C disconnect")
        do(h, 10, "B disconnect")
        h.tick(100)
        assert h.result is not None and (h.result.end, h.result.winner) == ("survivor", "A")
        assert h.result.scores == {"A": 50 - 1 + 2 + 3, "B": -15, "C": -15}

    def test_leaving_ends_the_open_play_keeping_its_valid_part(self) -> None:
        h = position("4C 5C 6C | 9H 10H JH", A="2S 7C KD", B="QD", C="JD")
        do(h, 0, "A add 2S 2", "A add 7C 1")
        do(h, 2, "A leave")
        assert table_of(h) == T("4C 5C 6C 7C | 9H 10H JH")
        assert hand_of(h, "A") == F("2S KD") and statuses(h, "left") == ["A"]

    def test_a_player_waiting_out_a_tiebreak_is_not_counted_absent(self) -> None:
        h = position(A="KS", B="QS", C="JS JH")
        h.tick(120)
        assert h.tiebreak is not None and h.tiebreak.players == ["A", "B"]
        do(h, 125, "C disconnect")
        h.tick(239)
        assert statuses(h, "left") == [] and h.result is None

    def test_a_tied_player_leaving_hands_the_tiebreak_to_the_other(self) -> None:
        h = position(A="KS", B="QS", C="JS JH")
        h.tick(120)
        do(h, 130, "B leave")
        assert h.result is not None and (h.result.end, h.result.winner) == ("tiebreak", "A")
        assert h.result.scores == {"A": 50 + 1 + 2, "B": -15, "C": 0}


class TestTiebreak:
    """§10, R19: a tie at the final silence opens a 2-minute tie-break over a shared pile."""

    def test_the_tied_players_play_from_one_pile_and_the_third_waits(self) -> None:
        h = position("9S 10S JS", A="KS", B="QS", C="JH JD")
        h.tick(120)
        assert h.tiebreak is not None and sorted(h.tiebreak.players) == ["A", "B"]
        assert_refused(h, "C add JH 1", "not_in_tiebreak", now=121)
        assert_refused(h, "A stop", "tiebreak", now=121)
        assert_refused(h, "C leave", "not_in_tiebreak", now=121)
        assert_refused(h, "C stop", ("tiebreak", "not_in_tiebreak"), now=121)
        do(h, 121, "C disconnect", "C reconnect")
        do(h, 122, "A add QS 1")                 # B's card, from the shared pile
        assert h.result is not None and (h.result.end, h.result.winner) == ("tiebreak", "A")
        # 50 + B's pile cards still in the pile (none) + C's two cards.
        assert h.result.scores == {"A": 52, "B": 0, "C": 0}

    def test_the_winner_scores_the_others_pile_cards_still_in_the_pile(self) -> None:
        h = position("9S 10S JS", A="KS", B="QS", C="JH JD")
        h.tick(120)
        do(h, 122, "B add QS 1")
        assert h.result is not None and h.result.winner == "B"
        assert h.result.scores == {"A": 0, "B": 50 + 1 + 2, "C": 0}

    def test_a_pile_card_goes_back_to_its_owner(self) -> None:
        h = position("9S 10S JS", A="KS 2D", B="QS 3D", C="JH JD JC")
        h.tick(120)
        do(h, 121, "A stage QS")
        assert staged(h, "A") == ["QS"] and hand_of(h, "B") == ["3D"]
        do(h, 122, "A unstage QS")
        assert hand_of(h, "B") == F("QS 3D") and hand_of(h, "A") == F("KS 2D")

    def test_nobody_places_a_card_and_it_is_a_draw(self) -> None:
        h = position(A="KS 2D", B="QS 3D", C="JH JD JC")
        h.tick(120)
        do(h, 130, "A stage QS")                 # staged at the end, it counts as B's card
        h.tick(239.999)
        assert h.result is None
        h.tick(240)
        assert h.result is not None and (h.result.end, h.result.winner) == ("draw", None)
        assert h.result.scores == {"A": 50 - 4, "B": 50 - 4, "C": 0}

    def test_a_draw_never_costs_more_than_leaving(self) -> None:
        faces = [f"{r}{s}" for s in "SHDC" for r in "A 2 3 4 5 6 7 8 9 10 J Q K".split()]
        deck = faces + faces
        a, b, c = deck[:33], deck[33:66], deck[66:102]
        h = position(A=" ".join(a), B=" ".join(b), C=" ".join(c), removed=" ".join(deck[102:]))
        h.tick(240)
        assert h.result is not None and h.result.end == "draw"
        assert h.result.scores == {"A": -15, "B": -15, "C": 0}    # max(-15, 50 - 66)

    def test_open_plays_end_first_at_the_silence(self) -> None:
        """R19: A's open play ends as at its 40 s (2S back, 7C stays), then the count ties."""
        h = position("4C 5C 6C | 9H 10H JH", A="2S 7C KD", B="QS QH", C="JS JH JD")
        do(h, 100, "A add 2S 2", "A add 7C 1")
        h.tick(120)
        assert table_of(h) == T("4C 5C 6C 7C | 9H 10H JH")
        assert h.tiebreak is not None and sorted(h.tiebreak.players) == ["A", "B"]

    def test_a_win_that_is_undone_is_no_win(self) -> None:
        h = position("9S 10S JS | 4C 5C 6C", A="KS 2D", B="QS 3D", C="JH JD JC")
        h.tick(120)
        do(h, 121, "B add 2D 2", "B add QS 1")   # B's play stays open (2D wounds meld 2)
        do(h, 122, "A add KS 1")                 # needs B's open QS: not final yet
        assert h.result is None
        do(h, 123, "B cancel")
        assert h.result is None and hand_of(h, "A") == F("KS 2D")
        assert meld(h, 1) == F("9S 10S JS")

    def test_a_win_made_final_at_the_120_seconds_still_counts(self) -> None:
        h = position("9S 10S JS | 4C 5C 6C", A="KS 2D", B="QS 3D", C="JH JD JC")
        h.tick(120)
        do(h, 230, "A add 2D 2", "A add QS 1")   # open (2D wounds meld 2)
        h.tick(240)                              # the tie-break ends: A's play ends first
        assert h.result is not None and (h.result.end, h.result.winner) == ("tiebreak", "A")
        assert meld(h, 1) == F("9S 10S JS QS") and hand_of(h, "A") == F("KS 2D")


class TestScores:
    """§12, R20."""

    def test_out_with_cards_left_in_the_stock(self) -> None:
        h = position("4C 5C 6C", A="7C", B="KD QD 2S", C="JD", stocks={"A": "2H 3H 4H"})
        do(h, 0, "B stage 2S")
        do(h, 1, "A add 7C 1")
        assert h.result is not None and h.result.scores == {"A": 50 - 3 + 3 + 1, "B": 0, "C": 0}
        assert h.result.scores == score_by_r20(h)

    def test_out_with_an_empty_stock_earns_10(self) -> None:
        h = position("4C 5C 6C", A="7C", B="KD QD", C="JD")
        do(h, 0, "A add 7C 1")
        assert h.result is not None and h.result.scores["A"] == 50 + 3 + 10

    def test_eliminated_and_departed_cards_count_for_the_winner(self) -> None:
        h = position(A="KD", B="KS KH", C="QS QH QC", stocks={"A": "2H"})
        do(h, 0, "C stop", "C give_up")          # C eliminated, holding 3 cards
        do(h, 1, "B leave")                      # B departed, holding 2
        assert h.result is not None and (h.result.end, h.result.winner) == ("survivor", "A")
        assert h.result.scores == {"A": 50 - 1 + 2 + 3, "B": -15, "C": -15}
        assert h.result.scores == score_by_r20(h)

    def test_silence_winner_gets_no_bonus(self) -> None:
        h = position(A="KS KH", B="QS", C="JS JH")
        h.tick(120)
        assert h.result is not None and h.result.scores == {"A": 0, "B": 50 + 2 + 2, "C": 0}

    def test_eliminated_player_scores_minus_15(self) -> None:
        h = position("4C 5C 6C", A="7C", B="8C", C="QD", drew="BC")
        do(h, 0, "A add 7C 1")                   # never drew: eliminated, the 7C stays
        do(h, 1, "B add 8C 1")
        assert h.result is not None and (h.result.end, h.result.winner) == ("out", "B")
        assert h.result.scores == {"A": -15, "B": 50 - 0 + 0 + 1 + 10, "C": 0}
        assert h.result.scores == score_by_r20(h)


class TestClockOrder:
    """R23: clocks due at one instant fire: hold, play, freeze, absence, tie-break, inactivity;
    plays in the order they opened. A command at that instant comes after the clocks."""

    def test_hold_before_play(self) -> None:
        h = position("5H 6H 7H 8H", A="5S KD")
        do(h, 0, "A stage 5S")
        do(h, 30, "A take 5H 1")                 # hold until 40, play until 40
        events(h)
        h.tick(40)
        evs = [e for e in events(h) if e["kind"] in ("hold_ended", "play_ended")]
        assert [e["kind"] for e in evs] == ["hold_ended", "play_ended"]
        assert evs[0]["reason"] == "expired"

    def test_hold_before_freeze(self) -> None:
        h = position("5H 6H 7H 8H", A="KD", B="QD", C="JD")
        do(h, 0, "A stop")
        do(h, 170, "A take 5H 1")                # hold until 180, freeze until 180
        events(h)
        h.tick(180)
        kinds = [e["kind"] for e in events(h)]
        assert kinds.index("hold_ended") < kinds.index("freeze_ended")

    def test_play_before_absence(self) -> None:
        quick = MACHIAVELOX.with_timers(absence=40)
        h = position("4C 5C 6C | 9H 10H JH", A="2S 7C KD", B="QD", C="JD", rules=quick)
        do(h, 0, "A add 2S 2", "A add 7C 1", "A disconnect")
        events(h)
        h.tick(40)
        evs = [e for e in events(h) if e["kind"] in ("play_ended", "left")]
        assert [e["kind"] for e in evs] == ["play_ended", "left"]
        assert evs[0]["reason"] == "timeout"
        assert table_of(h) == T("4C 5C 6C 7C | 9H 10H JH")

    def test_freeze_before_absence(self) -> None:
        """A (the caller) vanishes at 90: absence and freeze both due at 180; the freeze fails
        first, so A is eliminated, not listed as left."""
        h = position(A="KD", B="QD", C="JD")
        do(h, 0, "A stop")
        do(h, 90, "A disconnect")
        h.tick(180)
        assert statuses(h, "eliminated") == ["A"] and statuses(h, "left") == []

    def test_absence_before_tiebreak(self) -> None:
        """B vanishes at 150: absence and tie-break both due at 240; B leaves first, so A is
        the last one in the tie-break and wins it (R18), rather than a draw."""
        h = position(A="KS", B="QS", C="JS JH")
        h.tick(120)
        do(h, 150, "B disconnect")
        h.tick(240)
        assert h.result is not None and (h.result.end, h.result.winner) == ("tiebreak", "A")

    def test_absence_before_inactivity(self) -> None:
        h = position(A="KD", B="QD", C="JD", stocks={"A": "2H", "B": "3H", "C": "4H"})
        do(h, 30, "C disconnect")                # leaves at 120, the silence is due at 120
        h.tick(120)
        assert statuses(h, "left") == ["C"]
        assert len(h.stocks["C"]) == 1 and len(h.stocks["A"]) == 0

    def test_play_before_inactivity(self) -> None:
        """A's play ends at 120 keeping its 7C: the clock restarts, so no forced draw at 120."""
        h = position("4C 5C 6C | 9H 10H JH", A="2S 7C KD", B="QD", C="JD",
                     stocks={"A": "2H", "B": "3H", "C": "4H"})
        do(h, 80, "A add 2S 2", "A add 7C 1")
        h.tick(120)
        assert meld(h, 1) == F("4C 5C 6C 7C")
        assert [len(h.stocks[p]) for p in "ABC"] == [1, 1, 1]
        h.tick(240)
        assert [len(h.stocks[p]) for p in "ABC"] == [0, 0, 0]

    def test_plays_due_together_end_in_opening_order(self) -> None:
        """A and B open at 0 and each take an end card of 5H..8H into a set, each keeping a card
        staged; both end at 40: A first (opened first) keeps its set; B answers for 6H 7H."""
        h = position("5H 6H 7H 8H", A="5S 5D KC", B="8S 8D QC")
        do(h, 0, "A stage 5S", "A stage 5D", "A stage KC", "B stage 8S", "B stage 8D",
           "B stage QC")
        do(h, 1, "A move 5H 1 new", "B move 8H 1 new")
        do(h, 2, "A place 5S 2", "A place 5D 2", "B place 8S 3", "B place 8D 3")
        h.tick(40)
        assert table_of(h) == T("6H 7H 8H | 5H 5S 5D")
        assert hand_of(h, "A") == ["KC"] and hand_of(h, "B") == F("8S 8D QC")

    def test_a_command_at_the_deadline_comes_after_the_clock(self) -> None:
        h = position("5H 6H 7H 8H", A="5S 5D KC")
        do(h, 0, "A stage 5S", "A stage 5D", "A move 5H 1 new", "A place 5S 2")
        assert_refused(h, "A place 5D 2", "card_not_staged", now=40)
        assert table_of(h) == T("5H 6H 7H 8H")
