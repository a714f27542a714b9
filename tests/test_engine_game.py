"""Games of one or several hands (§13, R21): totals, the pause, ready, absence, leaving."""

from __future__ import annotations

import pytest

from engine.errors import Refused
from engine.game import Game
from engine.hand import Command, Hand
from engine.rules import MACHIAVELOX

PLAYERS = ["A", "B", "C"]


def quick_out(winner: str = "A") -> Hand:
    """A position where ``winner`` goes out with one add: 50 + 2 + 1 + 10 = 63 (R20)."""
    others = [p for p in PLAYERS if p != winner]
    return Hand.from_position(
        PLAYERS, table=[["4C", "5C", "6C"]],
        hands={winner: ["7C"], others[0]: ["2D", "3D"], others[1]: ["KD"]},
        drew=PLAYERS, laid=[winner])


def factory(winners: list[str]):
    def make(number: int, seed: int) -> Hand:
        return quick_out(winners[(number - 1) % len(winners)])
    return make


def win_hand(game: Game, now: float) -> None:
    hand = game.hand
    assert hand is not None
    winner = next(p for p in PLAYERS if [c for c in hand.hands[p]] and len(hand.hands[p]) == 1
                  and hand.players[p].laid)
    game.apply(Command(winner, "add", card="7C", meld=1), now)


class TestSingleGame:
    def test_one_hand_then_over(self) -> None:
        game = Game(PLAYERS, seed=1, first_hand=quick_out("B"))
        game.apply(Command("B", "add", card="7C", meld=1), 1.0)
        assert game.phase == "over"
        assert game.result is not None and game.result.winner == "B"
        assert game.totals == {"A": 0, "B": 63, "C": 0}
        with pytest.raises(Refused) as e:
            game.apply(Command("A", "draw"), 2.0)
        assert e.value.code == "game_over"

    def test_wrong_number_of_players(self) -> None:
        with pytest.raises(ValueError):
            Game(["A", "B"], seed=1)


class TestLongGame:
    def test_totals_carry_and_pause_with_ready(self) -> None:
        game = Game(PLAYERS, seed=3, long=True, hand_factory=factory(["A", "B"]))
        win_hand(game, 5.0)
        assert game.phase == "pause" and game.totals["A"] == 63
        assert game.next_deadline() == pytest.approx(65.0)  # the pause: 60 s (R21)
        with pytest.raises(Refused) as e:
            game.apply(Command("A", "draw"), 6.0)
        assert e.value.code == "not_in_hand"
        game.apply(Command("A", "ready"), 6.0)
        game.apply(Command("B", "ready"), 7.0)
        assert game.phase == "pause" and game.hand_no == 1
        game.apply(Command("C", "ready"), 8.0)  # all three ready: the pause ends sooner
        assert game.phase == "hand" and game.hand_no == 2
        win_hand(game, 9.0)
        assert game.totals == {"A": 63, "B": 63, "C": 0}

    def test_pause_runs_out_at_60_s(self) -> None:
        game = Game(PLAYERS, seed=3, long=True, hand_factory=factory(["A"]))
        win_hand(game, 1.0)
        game.tick(60.9)
        assert game.phase == "pause"
        game.tick(61.0)
        assert game.phase == "hand" and game.hand_no == 2
        # the new hand's clocks count from its own start
        assert game.hand is not None and game.hand.now_ms == 0

    def test_target_reached_wins(self) -> None:
        game = Game(PLAYERS, seed=3, long=True, hand_factory=factory(["A", "A", "A"]))
        for i in range(3):
            win_hand(game, 100.0 * i + 1)
            if game.phase == "pause":
                game.tick(100.0 * i + 61)  # the pause runs out, the next hand is dealt
        # 63 + 63 + 63 = 189 >= 150 with more than anyone else (§13)
        assert game.phase == "over"
        assert game.result is not None
        assert game.result.winner == "A" and game.result.reason == "target"
        assert game.totals["A"] == 189

    def test_tie_at_the_top_is_a_long_draw(self) -> None:
        game = Game(PLAYERS, seed=3, long=True, hand_factory=factory(["B"]))
        game.totals.update({"A": 150, "B": 87})  # carried totals, as a position
        win_hand(game, 1.0)  # B: 87 + 63 = 150, level with A
        assert game.result is not None
        assert game.result.long_draw and game.result.winner is None

    def test_leaving_the_game_in_the_pause(self) -> None:
        game = Game(PLAYERS, seed=3, long=True, hand_factory=factory(["A"]))
        win_hand(game, 1.0)
        game.apply(Command("A", "leave_game"), 2.0)
        # A led with 63, but whoever leaves never wins; B and C level at 0: long draw (§13)
        assert game.result is not None
        assert game.result.winner is None and game.result.long_draw
        assert game.result.reason == "left"

    def test_leave_game_refused_during_a_hand(self) -> None:
        game = Game(PLAYERS, seed=3, long=True, hand_factory=factory(["A"]))
        with pytest.raises(Refused) as e:
            game.apply(Command("B", "leave_game"), 1.0)
        assert e.value.code == "not_in_pause"
        assert game.phase == "hand"

    def test_absent_90_s_when_the_pause_ends_leaves_the_game(self) -> None:
        game = Game(PLAYERS, seed=3, long=True, hand_factory=factory(["A"]))
        game.apply(Command("C", "disconnect"), 20.0)
        win_hand(game, 50.0)  # C absent 30 s so far: still in the hand (R18 needs 90 s)
        assert game.hand is not None and game.hand.players["C"].status == "active"
        game.tick(110.0)  # pause ends at 110: C absent 90 s -> out of the game (R21)
        assert game.phase == "over"
        assert game.result is not None and game.result.winner == "A"

    def test_absent_less_starts_the_next_hand_dormant(self) -> None:
        game = Game(PLAYERS, seed=3, long=True, hand_factory=factory(["A"]))
        win_hand(game, 1.0)
        game.apply(Command("C", "disconnect"), 30.0)
        game.tick(61.0)  # pause over; C absent 31 s
        assert game.phase == "hand" and game.hand is not None
        c = game.hand.players["C"]
        assert not c.connected and c.absence_deadline_ms == 90_000
        game.apply(Command("C", "reconnect"), 70.0)
        assert game.hand.players["C"].connected


class TestDeterminism:
    def test_same_seed_same_hands(self) -> None:
        a = Game(PLAYERS, seed=42, long=True)
        b = Game(PLAYERS, seed=42, long=True)
        assert a.hand is not None and b.hand is not None
        assert a.hand.stocks == b.hand.stocks and a.hand.removed == b.hand.removed
        assert a.hand_seed(2) != a.hand_seed(1)
        c = Game(PLAYERS, seed=43, rules=MACHIAVELOX)
        assert c.hand is not None and c.hand.stocks != a.hand.stocks


class TestScoreBreakdown:
    """R20: each score comes with its terms, and the terms add up to it."""

    def test_going_out_terms(self) -> None:
        hand = quick_out("A")
        hand.apply(Command("A", "add", card="7C", meld=1), 0.0)
        assert hand.result is not None
        assert hand.result.breakdown["A"] == {"base": 50, "stock": 0, "opponents": 3, "bonus": 10}
        for p, terms in hand.result.breakdown.items():
            assert sum(terms.values()) == hand.result.scores[p]

    def test_leaver_and_survivor_terms(self) -> None:
        hand = Hand.from_position(PLAYERS, hands={"A": ["KS"], "B": ["QS", "QH"], "C": ["JS"]},
                                  stocks={"A": ["2C"]})
        hand.apply(Command("B", "leave"), 1.0)
        hand.apply(Command("C", "leave"), 2.0)
        assert hand.result is not None and hand.result.end == "survivor"
        assert hand.result.breakdown["B"] == {"penalty": -15}
        assert hand.result.breakdown["A"] == {"base": 50, "stock": -1, "opponents": 3}
        for p, terms in hand.result.breakdown.items():
            assert sum(terms.values()) == hand.result.scores[p]
