"""The classic rulebook, hand by hand (C3, C21–C28, C31): deals, scores, the match's end,
absence and leaving. Outcomes worked out by hand; the comments give the sums."""

from __future__ import annotations

import pytest
from classichelpers import hand_of, play, position, refused

from engine.classic.match import ClassicMatch
from engine.classic.model import Play
from engine.classic.turn import card_value
from engine.errors import Refused
from engine.rules import CLASSIC, CLASSIC_DUTCH, CardValues, table_rules


class TestDeal:
    """C21."""

    def test_the_deal_moves_one_seat_a_hand(self) -> None:
        m = ClassicMatch.deal_first(["A", "B", "C"], 9, CLASSIC)
        assert (m.dealer, m.hand and m.hand.turn) == ("C", "A")  # hand 1: seat −1 deals
        for dealer, starter in (("A", "B"), ("B", "C"), ("C", "A")):
            _end_hand_dead(m)
            m.deal_next()
            assert (m.dealer, m.hand and m.hand.turn) == (dealer, starter)

    def test_the_same_seed_deals_the_same_hands(self) -> None:
        a = ClassicMatch.deal_first(["A", "B"], 5, CLASSIC)
        b = ClassicMatch.deal_first(["A", "B"], 5, CLASSIC)
        c = ClassicMatch.deal_first(["A", "B"], 6, CLASSIC)
        assert a.hand is not None and b.hand is not None and c.hand is not None
        assert a.hand.hands == b.hand.hands and a.hand.stock == b.hand.stock
        assert a.hand.hands != c.hand.hands

    def test_every_card_is_dealt_once(self) -> None:
        m = ClassicMatch.deal_first(list("ABCDEF"), 2, table_rules("classic", 6, {"jokers": 6,
                                                                              "packs": 3}))
        h = m.hand
        assert h is not None
        cards = h.stock + [c for p in h.seats for c in h.hands[p]]
        assert sorted(cards) == sorted(set(cards)) and len(cards) == 3 * 52 + 6


def _end_hand_dead(m: ClassicMatch) -> None:
    """Everyone passes: the stock is emptied first into the out-of-play pile."""
    h = m.hand
    assert h is not None
    h.out_of_play += h.stock
    h.stock = []
    for _ in range(len(h.in_hand())):
        assert h.turn is not None
        m.apply(Play(h.turn, "pass"), m.now_ms / 1000)


class TestScores:
    """C22–C26."""

    @pytest.mark.parametrize("face, high, low", [
        ("JK", 25, 25), ("AS", 11, 1), ("10D", 10, 10), ("KC", 10, 10), ("7H", 7, 7)])
    def test_card_values(self, face: str, high: int, low: int) -> None:
        from engine import cards as C

        card = C.card_id(C.parse_face(face), 0)
        assert card_value(card, CardValues.HIGH) == high
        assert card_value(card, CardValues.LOW) == low

    def test_a_stock_out_tie_has_no_winner(self) -> None:
        # C24: A 2H 3C (5) draws QS: 15; B AS 4D (5); C 5D (5): B and C tie at 5.
        m = position(rules="classic_dutch", players="ABC", A="2H 3C", B="AS 4D", C="5D",
                     stock="QS")
        play(m, "A draw")
        res = m.last_result
        assert res is not None and (res.end, res.winner) == ("stock_out", None)
        assert res.scores == {"A": 15, "B": 5, "C": 5}  # penalty: everyone their own hand

    def test_a_stock_out_without_winner_scores_nothing_under_winner_scoring(self) -> None:
        m = position(rules="classic_dutch", players="AB", options={"scoring": "winner",
                                                                   "match": "single"},
                     A="2H 3C", B="5D", stock="9S")
        play(m, "A draw")  # A 14, B 5: B wins and scores A's 14
        assert m.last_result is not None and m.last_result.scores == {"A": 0, "B": 14}
        m2 = position(rules="classic_dutch", players="AB", options={"scoring": "winner",
                                                                    "match": "single"},
                      A="2H", B="5D", stock="3C")
        play(m2, "A draw")  # 5 and 5: nobody
        assert m2.last_result is not None and m2.last_result.scores == {"A": 0, "B": 0}


class TestMatchEnd:
    """C3, C27, C28."""

    def test_single_hand_the_hands_winner(self) -> None:
        m = position(["4C 5C 6C"], options={"match": "single"}, A="7C", B="KD")
        play(m, "A add 7C 1")
        play(m, "A end")
        assert (m.over, m.winner, m.totals) == (True, "A", {"A": 10, "B": 0})

    def test_a_shared_top_at_the_target_goes_on(self) -> None:
        # C28: A 90 + 10 = 100 ties B at 100: no end.
        m = position(["4C 5C 6C"], A="7C", B="KD", totals={"A": 90, "B": 100}, hand_no=3)
        play(m, "A add 7C 1")
        play(m, "A end")
        assert m.totals == {"A": 100, "B": 100} and not m.over
        m.deal_next()
        assert m.hand_no == 4

    def test_threshold_itself_does_not_end_it(self) -> None:
        # C27: 004 "overschrijdt": 100 is not over 100.
        m = position(["4C 5C 6C"], rules="classic_dutch", A="7C", B="KD",
                     totals={"A": 0, "B": 90})
        play(m, "A add 7C 1")
        play(m, "A end")
        assert m.totals["B"] == 100 and not m.over

    def test_no_forty_hand_cap_in_the_italian_preset(self) -> None:
        # C3: the Italian and Dutch presets have no 40-hand cap.
        m = position(["4C 5C 6C"], rules="classic_italian", A="7C", B="KD", hand_no=40,
                     options={"match": "target"})
        play(m, "A add 7C 1")
        play(m, "A end")
        assert not m.over
        c = position(["4C 5C 6C"], A="7C", B="KD", hand_no=40)
        play(c, "A add 7C 1")
        play(c, "A end")
        assert c.over and c.winner == "A"


class TestAbsence:
    """C31."""

    def test_a_reconnect_stops_the_clock_and_a_new_drop_starts_it_at_90(self) -> None:
        m = position(players="ABC", A="2C", B="3C", C="4C", stock="9S 8S 7S", turn="B")
        m.apply(Play("A", "disconnect"), 10)
        m.apply(Play("A", "reconnect"), 50)
        m.apply(Play("A", "disconnect"), 60)
        m.tick(149.999)
        assert m.hand is not None and m.hand.status["A"] == "in"
        m.tick(150)
        assert m.hand.status["A"] == "left"

    def test_the_row_of_passes_counts_only_players_still_in_the_hand(self) -> None:
        # C31: A passes, B leaves on turn (empty stock: as a pass, C20), C still to pass. The
        # row counts A only: the hand goes on; C's pass makes it A, C: dead.
        m = position(["4H 5H 6H"], players="ABC", A="2C", B="5D", C="9S KH")
        play(m, "A pass")
        play(m, "B leave")
        h = m.hand
        assert h is not None and h.passes == 1 and h.turn == "C" and m.last_result is None
        play(m, "C pass")
        assert m.last_result is not None and m.last_result.end == "dead"

    def test_a_positions_passes_are_the_seats_before_the_turn(self) -> None:
        m = position(["4H 5H 6H"], players="ABC", A="2C", B="5D", C="9S", passes=2, turn="C")
        play(m, "C pass")
        assert m.last_result is not None and m.last_result.end == "dead"
        m2 = position(["4H 5H 6H"], players="ABC", A="2C", B="5D", C="9S", passes=2, turn="C")
        play(m2, "A leave")  # A was one of the two before C: one pass left in the row
        assert m2.hand is not None and m2.hand.passes == 1

    def test_commands_of_a_disconnected_or_departed_player(self) -> None:
        m = position(players="ABC", A="2C", B="3C", C="4C", stock="9S 8S")
        play(m, "A disconnect")
        refused(m, "A draw", "disconnected")
        play(m, "A reconnect")
        play(m, "C leave")
        play(m, "A draw")
        play(m, "B leave_game")  # A alone in the hand: survivor
        assert m.last_result is not None and m.last_result.end == "survivor"

    def test_a_player_who_left_the_hand(self) -> None:
        m = position(players="ABC", A="2C", B="3C", C="4C", stock="9S 8S")
        play(m, "B leave")
        refused(m, "B draw", "not_in_hand")
        refused(m, "B leave", "not_in_hand")
        play(m, "B leave_game")
        refused(m, "B draw", "not_in_game")

    def test_a_survivors_unfinished_turn_is_put_back(self) -> None:
        # B lays 2C (not yet judged); A leaves: B survives, 2C goes back to B's hand.
        m = position(A="KD", B="2C 3C", stock="9S 8S", turn="B")
        play(m, "B lay 2C")
        play(m, "A leave")
        res = m.last_result
        assert res is not None and (res.end, res.winner) == ("survivor", "B")
        assert m.hand is not None and m.hand.melds == {} and hand_of(m, "B") == ["2C", "3C"]
        assert res.scores == {"A": 0, "B": 10}  # winner scoring: A's KD

    def test_connection_codes(self) -> None:
        m = position(A="2C", B="3C", stock="9S")
        refused(m, "A reconnect", "not_disconnected")
        play(m, "A disconnect")
        refused(m, "A disconnect", "already_disconnected")
        refused(m, "B ready", "hand_not_over")

    def test_everyone_leaving_at_once_abandons_the_hand(self) -> None:
        # C31: leavings at one instant are judged together; nobody left: abandoned, scored
        # as a stock-out without a winner (winner scoring: nobody scores).
        m = position(A="2C", B="3C KD", stock="9S")
        m.apply(Play("A", "disconnect"), 5)
        m.apply(Play("B", "disconnect"), 5)
        m.tick(95)
        res = m.last_result
        assert res is not None and (res.end, res.winner) == ("abandoned", None)
        assert res.scores == {"A": 0, "B": 0}

    def test_leave_game_during_a_hand_leaves_the_hand_and_the_match(self) -> None:
        m = position(players="ABC", A="2C", B="3C", C="4C KD", stock="9S 8S")
        play(m, "B leave_game")
        assert m.hand is not None and m.hand.status["B"] == "left" and not m.in_match["B"]
        refused(m, "B leave_game", "not_in_game")
        play(m, "A draw")
        assert m.hand.turn == "C"
        play(m, "C leave")  # on turn: C20 first, 8S to C; one left: A wins, C 4+10+8, B 3
        res = m.last_result
        assert res is not None and (res.end, res.winner) == ("survivor", "A")
        assert res.scores["A"] == 25
        refused(m, "C leave", "hand_over")

    def test_the_pause_deals_the_next_hand_when_all_are_ready(self) -> None:
        m = position(["4C 5C 6C"], A="7C", B="KD", seed=3)
        play(m, "A add 7C 1")
        play(m, "A end", t=1)
        assert m.next_deadline() == 61  # the pause (C31: 60 s)
        play(m, "A ready", t=2)
        assert m.hand_no == 1
        play(m, "B ready", t=3)
        assert m.hand_no == 2 and m.hand is not None and len(hand_of(m, "A")) == 13

    def test_the_pause_runs_out(self) -> None:
        m = position(["4C 5C 6C"], A="7C", B="KD", seed=3)
        play(m, "A add 7C 1")
        play(m, "A end", t=1)
        m.tick(60.999)
        assert m.hand_no == 1
        m.tick(61)
        assert m.hand_no == 2

    def test_a_match_left_by_all_but_one_is_over(self) -> None:
        m = position(["4C 5C 6C"], rules="classic_dutch", A="7C", B="KD")
        play(m, "A add 7C 1")
        play(m, "A end", t=1)
        play(m, "A leave_game", t=2)  # A's 0 beats B's 10, but a leaver never wins
        assert m.over and m.winner == "B"
        with pytest.raises(Refused) as e:
            m.deal_next()
        assert e.value.code == "game_over"


def test_presets_give_the_turn_clock_only_to_dutch() -> None:
    assert CLASSIC.clock is None and CLASSIC_DUTCH.clock == 120
