"""The shark plans for going out (§8, R15: a draw and a lay of its own), and the hint's advice
says why it keeps cards back. Positions are carried out on a real engine, as in
``test_bots_brain.py`` (the brain sees only the seat's view)."""

from __future__ import annotations

from test_bots_brain import apply, dos, position, run

from bots.brain import Brain, suggest
from bots.plans import ADVICE, keep_for_meld
from bots.position import position as read_position
from engine.hand import Hand
from engine.view import hand_view
from server.bots import lay_pending

# A has laid nothing yet. 9S and KC fit melds as they are; 5H would fit the heart run. What
# A needs for going out is a meld of its own: 5H 5D and the 5S at the bottom of its stock.
TABLE = [["6H", "7H", "8H"], ["10S", "JS", "QS"], ["KH", "KS", "KD"]]


def not_laid(hand_a: list[str], stock: list[str]) -> Hand:
    return position(TABLE, hand_a, stock_a=stock)


def test_a_shark_on_two_cards_without_a_meld_of_its_own_draws_and_goes_out() -> None:
    hand = not_laid(["5H", "5D"], ["9S", "KC", "5S"])
    log = run(hand, Brain("shark"), limit=60)
    # It never sat: every decision was a command until the hand ended with it going out.
    assert hand.result is not None, dos(log)
    assert hand.result.end == "out" and hand.result.winner == "A", (hand.result, dos(log))
    assert all(r["type"] == "ack" for _, r in log), log
    # It kept 5H 5D for its own meld (5H never went onto the heart run) and laid 5H 5D 5S.
    lays = [sorted(c["cards"]) for c, _ in log if c["do"] == "lay"]
    assert lays == [["5D", "5H", "5S"]], dos(log)
    assert dos(log).count("draw") == 3
    assert not any(c.get("card") == "5H" for c, _ in log if c["do"] == "add")


def test_a_shark_that_has_laid_plays_its_last_cards_and_goes_out() -> None:
    hand = position(TABLE, ["9S", "KC"], stock_a=["2D"], laid=["A"])
    log = run(hand, Brain("shark"))
    assert hand.result is not None and hand.result.winner == "A", dos(log)
    assert dos(log)[0] == "stop" and "draw" not in dos(log)


def test_with_its_stock_empty_the_shark_plays_all_but_one_card_instead_of_keeping_a_pair() -> None:
    hand = not_laid(["5H", "5D", "9S"], [])
    log = run(hand, Brain("shark"))
    assert hand_view(hand, "A")["hand"] in (["5D"], ["5H"]), dos(log)
    assert hand.result is None  # emptying the hand without a lay would cost −15


def test_the_kept_pair_is_the_one_with_most_cards_left_to_complete_it() -> None:
    # 5H 5D: completed by 5S or 5C (four copies unseen); 2C 3C: by AC or 4C (four), but one
    # 4C is on the table and both ACs are in A's removed cards... here: a 4C on the table.
    hand = position([["4C", "4D", "4S"]], ["5H", "5D", "2C", "3C", "KH"], stock_a=["9S"])
    pos = read_position(hand_view(hand, "A"))
    assert pos is not None
    assert keep_for_meld(pos, hand.rules) == ["5D", "5H"]


def test_hint_advice_codes() -> None:
    # lay_first: a meld in hand, none laid yet.
    hint = suggest(hand_view(not_laid(["5H", "5D", "5S", "2C"], ["9H"]), "A"))
    assert hint["advice"]["code"] == "lay_first", hint
    assert sorted(hint["advice"]["cards"]) == ["5D", "5H", "5S"] == sorted(hint["cards"])
    assert [s["do"] for s in hint["steps"]] == ["stage", "stage", "stage", "lay"]
    # hold_back: no meld in hand; 9S goes down, the pair stays for a meld of its own.
    hint = suggest(hand_view(not_laid(["5H", "5D", "9S"], ["2D"]), "A"))
    assert hint["advice"] == {"code": "hold_back", "cards": ["5D", "5H"]}, hint
    assert hint["cards"] == ["9S"]
    # ... and with nothing else to play, draw while keeping them.
    hint = suggest(hand_view(not_laid(["5H", "5D"], ["2D"]), "A"))
    assert hint["steps"] == [{"do": "draw"}] and hint["advice"]["code"] == "hold_back"
    # need_draw: laid, but never drew: the last card stays.
    undrawn = Hand.from_position(["A", "B", "C"], table=TABLE, hands={"A": ["9S"], "B": ["2S"],
                                 "C": ["3S"]}, stocks={"A": ["2D"], "B": [], "C": []},
                                 removed=[], drew=["B", "C"], laid=["A"])
    hint = suggest(hand_view(undrawn, "A"))
    assert hint["advice"] == {"code": "need_draw", "cards": ["9S"]}, hint
    assert hint["steps"] == [{"do": "draw"}]
    # go_out: the play empties the hand, conditions met.
    hint = suggest(hand_view(position(TABLE, ["9S"], laid=["A"]), "A"))
    assert hint["advice"] == {"code": "go_out", "cards": ["9S"]}, hint
    # A lay confirmed but not final counts: no lay_first, the last card may go.
    hint = suggest(hand_view(not_laid(["9S"], ["2D"]), "A"), lay_pending=True)
    assert hint["advice"] == {"code": "go_out", "cards": ["9S"]}, hint
    # Nothing to say: no advice.
    hint = suggest(hand_view(position(TABLE, ["9S", "2C"], stock_a=["3D"], laid=["A"]), "A"))
    assert hint["advice"] is None and hint["cards"] == ["9S"]
    assert set(ADVICE) == {"lay_first", "hold_back", "need_draw", "go_out"}


def test_the_server_reads_a_lay_not_yet_final_from_the_engine() -> None:
    hand = not_laid(["5H", "5D", "5S", "9S"], ["2D"])
    assert not lay_pending(hand, "A")
    for card in ("5H", "5D", "5S", "9S"):
        assert apply(hand, "A", {"do": "stage", "card": card}, 1.0)[0]["type"] == "ack"
    reply, _ = apply(hand, "A", {"do": "lay", "cards": ["5H", "5D", "5S"]}, 1.1)
    assert reply["type"] == "ack"
    # The play is still open (9S staged): the lay counts once final, the view says not yet.
    assert lay_pending(hand, "A") and not lay_pending(hand, "B")
    assert not hand_view(hand, "A")["players"][0]["laid"]
    reply, _ = apply(hand, "A", {"do": "place", "card": "9S", "meld": 2}, 1.2)
    assert reply["type"] == "ack" and hand_view(hand, "A")["players"][0]["laid"]
    assert not lay_pending(hand, "A")  # final now: the view's "laid" says it
