"""C31's turn 3, each point pinned (issue 24): (a) an absent player's `leave` and
`leave_game` are refused `disconnected`; (b) leaving on one's own turn ends it exactly as at
C20 first; (c) at one instant the turn clock fires, then absence clocks in seat order, all
before a command; (d) "all ready" counts the connected players only."""

from __future__ import annotations

from classichelpers import hand_of, play, position, refused


def kinds(m, *wanted: str) -> list[tuple[str, str | None]]:  # type: ignore[no-untyped-def]
    return [(e.kind, e.player) for e in m.drain_events() if e.kind in wanted]


class TestAbsentCommands:
    """(a): absence leads to leaving by its own clock, not by a command."""

    def test_an_absent_players_leave_and_leave_game_are_refused(self) -> None:
        m = position(players="ABC", A="KS", B="9D", C="2H", stock="3S")
        play(m, "C disconnect", t=1)
        refused(m, "C leave", "disconnected", t=2)
        refused(m, "C leave_game", "disconnected", t=2)
        play(m, "C reconnect", t=3)
        play(m, "C leave", t=4)
        assert m.hand is not None and m.hand.status["C"] == "left"

    def test_a_seat_that_left_the_hand_is_refused_not_in_hand_before_the_turn_order(self) -> None:
        m = position(players="ABC", A="KS", B="9D", C="2H", stock="3S 4S")
        play(m, "B leave")
        refused(m, "B end", "not_in_hand")      # not_your_turn would come later (C29)
        refused(m, "B lay 9D", "not_in_hand")


class TestLeavingOnTurn:
    """(b): the turn ends as at C20 (restore, penalty card or pass), then the leaving."""

    def test_the_turn_is_put_back_and_the_penalty_card_drawn_then_the_next_seat_plays(self) -> None:
        m = position(["4C 5C 6C"], players="ABC", A="7C KS", B="9D", C="2H", stock="3S 4S")
        play(m, "A add 7C 1")
        m.drain_events()
        play(m, "A leave", t=1)
        assert hand_of(m, "A") == ["3S", "7C", "KS"] and m.hand is not None
        assert m.hand.melds == {1: m.hand.melds[1]} and len(m.hand.melds[1]) == 3
        assert m.hand.turn == "B"

    def test_with_no_stock_it_is_a_pass_before_the_leaving(self) -> None:
        m = position(["4C 5C 6C"], players="ABC", A="KS", B="9D", C="2H", stock="")
        m.drain_events()
        play(m, "A leave", t=1)
        assert kinds(m, "passed", "left_hand") == [("passed", "A"), ("left_hand", "A")]
        assert m.hand is not None and m.hand.turn == "B"

    def test_when_one_player_is_left_the_penalty_card_counts_in_the_survivors_score(self) -> None:
        m = position(["4C 5C 6C"], A="KS QS", B="2D 9H", stock="3S 4S")
        play(m, "A leave", t=1)
        res = m.last_result
        assert res is not None and (res.end, res.winner) == ("survivor", "B")
        assert res.scores == {"A": 0, "B": 10 + 10 + 3}   # KS QS and the penalty 3S


class TestOneInstant:
    """(c): clocks before leavings and commands; the turn clock, then absence in seat order."""

    def test_the_turn_clock_fires_before_an_absence_due_at_the_same_instant(self) -> None:
        # A's turn clock (120 s) and B's absence (dropped at 30 s: 90 s) fall due at 120 s:
        # A takes C20's penalty card first; the turn passes to B, whose absence then fires:
        # B leaves on turn, so B's turn too ends as at C20 (4S) before the leaving; C plays.
        m = position(players="ABC", options={"clock": 120}, A="KS", B="9D", C="2H",
                     stock="3S 4S")
        play(m, "B disconnect", t=30)
        m.drain_events()
        m.tick(120)
        assert kinds(m, "penalty_card", "absent_left", "left_hand") == [
            ("penalty_card", "A"), ("absent_left", "B"), ("penalty_card", "B"), ("left_hand", "B")]
        assert hand_of(m, "A") == ["3S", "KS"] and m.hand is not None and m.hand.turn == "C"

    def test_absences_due_together_leave_together_in_seat_order_before_a_command(self) -> None:
        m = position(players="ABCD", A="KS", B="9D", C="2H", D="5C", stock="3S 4S")
        play(m, "D disconnect", t=10)
        play(m, "C disconnect", t=10)
        m.drain_events()
        play(m, "A draw", t=100)   # both absences (due at 100 s) fire first
        assert kinds(m, "absent_left") == [("absent_left", "C"), ("absent_left", "D")]
        assert m.hand is not None and m.hand.turn == "B"


class TestReady:
    """(d): the pause ends when every connected player still in the match is ready."""

    def test_an_absent_player_is_not_waited_for(self) -> None:
        m = position(["4C 5C 6C"], players="ABC", A="7C", B="KD", C="QD", seed=3)
        play(m, "A add 7C 1")
        play(m, "A end", t=1)
        play(m, "C disconnect", t=2)
        refused(m, "C ready", "disconnected", t=3)
        play(m, "A ready", t=3)
        assert m.hand_no == 1
        play(m, "B ready", t=4)
        assert m.hand_no == 2
