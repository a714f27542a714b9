"""The bots' decisions on hand-built positions, carried out on a real engine.

Every test builds a position (``Hand.from_position``), gives the brain only the seat's view
(``engine.view.hand_view``, what the server sends), applies the brain's commands to the real
hand and feeds back the events and the engine's answer, as the protocol client does.
"""

from __future__ import annotations

from typing import Any

import pytest

from bots.brain import Brain, suggest
from engine.errors import Refused
from engine.game import Game
from engine.hand import Command, Hand
from engine.melds import is_valid
from engine.view import game_view, hand_view

PLAYERS = ["A", "B", "C"]


def position(table: list[list[str]], a: list[str], *, stock_a: list[str] | None = None,
             b: list[str] | None = None, laid: list[str] | None = None) -> Hand:
    return Hand.from_position(
        PLAYERS, table=table, hands={"A": a, "B": b or ["2S"], "C": ["3S"]},
        stocks={"A": stock_a or [], "B": [], "C": []}, removed=[], drew=PLAYERS,
        laid=laid or [])


def command(player: str, d: dict[str, Any]) -> Command:
    cards = d.get("cards")
    return Command(player, d["do"], card=d.get("card"),
                   cards=tuple(cards) if cards is not None else None,
                   meld=d.get("meld"), to=d.get("to"))


def apply(hand: Hand, who: str, d: dict[str, Any], now: float) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    try:
        made = hand.apply(command(who, d), now)
        reply: dict[str, Any] = {"type": "ack", **({"made": made} if made else {})}
    except Refused as e:
        reply = {"type": "refused", "code": e.code}
    events = [e.as_dict(with_private=e.player == who) for e in hand.drain_events()]
    return reply, events


def one(hand: Hand, brain: Brain, who: str, now: float = 1.0,
        elapsed: float = 0.0) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """One decision of ``brain`` for ``who``, carried out: (command, reply)."""
    cmd = brain.decide(hand_view(hand, who), elapsed)
    if cmd is None:
        return None, None
    reply, events = apply(hand, who, cmd, now)
    brain.result(cmd, reply)
    return cmd, reply


def run(hand: Hand, brain: Brain, who: str = "A", limit: int = 40) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Decisions until the brain waits (or the hand ends): [(command, reply)]."""
    out = []
    for i in range(limit):
        if hand.result is not None:
            break
        cmd, reply = one(hand, brain, who, now=1.0 + i * 0.1)
        if cmd is None:
            break
        assert reply is not None
        out.append((cmd, reply))
    return out


def dos(log: list[tuple[dict[str, Any], dict[str, Any]]]) -> list[str]:
    return [c["do"] for c, _ in log]


def table_faces(hand: Hand) -> list[list[str]]:
    v = hand_view(hand, None)
    return [sorted(m["cards"]) for m in v["table"]]


def assert_table_valid(hand: Hand) -> None:
    for mid, cards in hand.table().items():
        assert is_valid(cards, hand.rules), (mid, table_faces(hand))


# ---------------------------------------------------------------------------- casual


def test_casual_lays_a_meld_it_holds() -> None:
    hand = position([], ["4C", "5C", "6C", "KD"])
    log = run(hand, Brain("casual"))
    assert dos(log) == ["stage", "stage", "stage", "lay"]
    assert all(r["type"] == "ack" for _, r in log)
    assert sorted(log[-1][0]["cards"]) == ["4C", "5C", "6C"]
    assert hand_view(hand, "A")["hand"] == ["KD"]
    assert table_faces(hand) == [["4C", "5C", "6C"]]
    assert hand.players["A"].play is None  # the play ended when its staging area emptied


def test_casual_adds_a_single_card_that_fits() -> None:
    hand = position([["4C", "5C", "6C"]], ["7C", "KD"])
    log = run(hand, Brain("casual"))
    assert log == [({"do": "add", "card": "7C", "meld": 1}, {"type": "ack"})]
    assert table_faces(hand) == [["4C", "5C", "6C", "7C"]]


def test_casual_never_rearranges_it_draws_instead() -> None:
    # Only a rearrangement puts 4D 4H down (4C out of the run): the casual bot draws.
    hand = position([["4C", "5C", "6C", "7C"]], ["4D", "4H", "KD"], stock_a=["QS"])
    log = run(hand, Brain("casual"))
    assert dos(log) == ["draw"]
    assert run(hand, Brain("casual")) == []  # nothing to play, nothing to draw: it waits


def test_a_bot_never_empties_its_hand_without_a_laid_meld() -> None:
    # Adding 7C would empty the hand without a meld laid: an invalid going out (−15).
    for level in ("casual", "shark"):
        hand = position([["4C", "5C", "6C"]], ["7C"])
        assert run(hand, Brain(level)) == []
        hand = position([["4C", "5C", "6C"]], ["7C"], stock_a=["QS"])
        log = run(hand, Brain(level))
        assert dos(log) == ["draw", "add"]  # then 7C goes, QS stays
        assert hand_view(hand, "A")["hand"] == ["QS"] and hand.players["A"].status == "active"
        hand = position([["4C", "5C", "6C"]], ["7C"], laid=["A"])
        log = run(hand, Brain(level))
        assert "add" in dos(log) or "place" in dos(log)
        assert hand.result is not None and hand.result.winner == "A"


# ---------------------------------------------------------------------------- shark


def test_shark_carries_out_a_rearrangement_as_a_declared_play() -> None:
    hand = position([["4C", "5C", "6C", "7C"], ["9H", "10H", "JH"]], ["4D", "4H", "KD"])
    log = run(hand, Brain("shark"))
    assert all(r["type"] == "ack" for _, r in log), log
    assert dos(log) == ["stage", "stage", "move", "place", "place"]
    move = log[2][0]
    assert move == {"do": "move", "card": "4C", "meld": 1, "to": "new"}
    new_id = max(hand.table())
    assert [c["meld"] for c, _ in log[3:]] == [new_id, new_id]  # learnt from its own event
    assert sorted(map(sorted, table_faces(hand))) == sorted(
        [["5C", "6C", "7C"], ["10H", "9H", "JH"], ["4C", "4D", "4H"]])
    assert_table_valid(hand)
    assert hand_view(hand, "A")["hand"] == ["KD"]
    assert not hand._open  # the play is over, confirmed
    assert any(p.player == "A" and p.status == "final" for p in hand.plays.values())


def test_shark_calls_stop_when_it_can_go_out_alone() -> None:
    hand = position([["4C", "5C", "6C", "7C"]], ["4D", "4H"], laid=["A"])
    brain = Brain("shark")
    log = run(hand, brain)
    assert dos(log)[0] == "stop"
    assert dos(log)[1:] == ["stage", "stage", "move", "place", "place"]
    assert hand.result is not None and hand.result.winner == "A" and hand.result.end == "out"
    assert_table_valid(hand)


def test_in_its_own_stop_the_shark_uses_the_whole_table_and_mends_wounds() -> None:
    hand = position([["4C", "5C", "6C", "7C"]], ["4D", "4H"], b=["KD", "QD"], laid=["A"])
    # B's open declared play: 7C moved out alone (a wound, on trial).
    for d in ({"do": "stage", "card": "KD"}, {"do": "move", "card": "7C", "meld": 1, "to": "new"}):
        assert apply(hand, "B", d, 0.5)[0]["type"] == "ack"
    brain = Brain("shark")
    assert run(hand, brain) == []  # nothing it may touch outside a Stop!: it waits
    assert apply(hand, "A", {"do": "stop"}, 1.0)[0] == {"type": "ack"}
    log = run(hand, brain)
    assert all(r["type"] == "ack" for _, r in log), log
    assert "give_up" not in dos(log)
    assert hand.result is not None and hand.result.winner == "A" and hand.result.end == "out"
    assert_table_valid(hand)


def test_shark_cancels_when_the_table_changes_under_its_play() -> None:
    hand = position([["4C", "5C", "6C", "7C"]], ["4D", "4H", "KD"], b=["9S"])
    brain = Brain("shark")
    assert one(hand, brain, "A")[0] == {"do": "stage", "card": "4D"}
    # B takes the 4C that A's plan needs (B's own declared play).
    for d in ({"do": "stage", "card": "9S"}, {"do": "move", "card": "4C", "meld": 1, "to": "new"}):
        assert apply(hand, "B", d, 1.1)[0]["type"] == "ack"
    log = run(hand, brain)
    assert "move" not in dos(log)
    assert dos(log)[-1] == "cancel" and log[-1][1] == {"type": "ack"}
    assert hand.staging["A"] == [] and hand.players["A"].play is None
    assert sorted(hand_view(hand, "A")["hand"]) == ["4D", "4H", "KD"]


def test_a_refused_step_ends_the_plan_with_cancel() -> None:
    hand = position([["4C", "5C", "6C", "7C"]], ["4D", "4H", "KD"])
    brain = Brain("shark")
    one(hand, brain, "A")  # stage 4D
    cmd = brain.decide(hand_view(hand, "A"))
    assert cmd == {"do": "stage", "card": "4H"}
    brain.result(cmd, {"type": "refused", "code": "card_not_in_hand"})  # as if refused
    assert brain.decide(hand_view(hand, "A")) == {"do": "cancel"}
    assert brain.stats["refused"] == 1


def test_a_plan_that_would_overrun_the_40_s_is_cancelled() -> None:
    hand = position([["4C", "5C", "6C", "7C"]], ["4D", "4H", "KD"])
    brain = Brain("shark", step_time=1.0)
    one(hand, brain, "A", now=0.0)  # stage 4D: the play's 40 s start
    # 38.5 s later, four steps at 1 s each no longer fit in what is left.
    cmd = brain.decide(hand_view(hand, "A"), elapsed=38.5)
    assert cmd == {"do": "cancel"}
    assert apply(hand, "A", cmd, 38.5)[0] == {"type": "ack"}


def test_ready_is_sent_once_in_the_pause() -> None:
    first = position([], ["4C", "5C", "6C"], laid=["A"])
    game = Game(PLAYERS, 5, long=True, first_hand=first)
    for d in ({"do": "stage", "card": f} for f in ("4C", "5C", "6C")):
        game.apply(command("A", d), 1.0)
    game.apply(command("A", {"do": "lay", "cards": ["4C", "5C", "6C"]}), 1.0)
    assert game.phase == "pause"
    brain = Brain("casual")
    cmd = brain.decide(game_view(game, "B"))
    assert cmd == {"do": "ready"}
    game.apply(command("B", cmd), 2.0)
    brain.result(cmd, {"type": "ack"})
    assert brain.decide(game_view(game, "B")) is None


# ---------------------------------------------------------------------------- whole hands


@pytest.mark.parametrize("levels", [("shark", "casual", "casual"), ("casual", "shark", "shark")])
def test_bots_play_whole_hands_to_their_end(levels: tuple[str, str, str]) -> None:
    """Three bots on a dealt hand, taking turns command by command, with the clocks firing
    when nobody acts: every hand ends, and the engine refuses nothing."""
    for seed in (11, 12):
        hand = Hand.deal(PLAYERS, seed)
        brains = {p: Brain(lvl) for p, lvl in zip(PLAYERS, levels)}
        now, refused = 0.0, 0
        for _ in range(3000):
            if hand.result is not None:
                break
            acted = False
            for p in PLAYERS:
                if hand.result is not None:
                    break
                cmd = brains[p].decide(hand_view(hand, p))
                if cmd is None:
                    continue
                acted = True
                reply, events = apply(hand, p, cmd, now)
                refused += reply["type"] != "ack"
                brains[p].result(cmd, reply)
            now += 0.05
            if not acted:
                deadline = hand.next_deadline()
                assert deadline is not None
                now = max(now, deadline)
                hand.tick(now)
                hand.drain_events()
        assert hand.result is not None, f"seed {seed}: not over"
        assert refused == 0


# ---------------------------------------------------------------------------- hints


def test_suggest_gives_steps_the_engine_accepts() -> None:
    hand = position([["4C", "5C", "6C", "7C"], ["9H", "10H", "JH"]], ["4D", "4H", "KD"],
                    stock_a=["QS"], laid=["A"])
    hint = suggest(hand_view(hand, "A"))
    assert hint["cards"] == ["4D", "4H"] and hint["melds"] == [1] and hint["moved"] == 1
    made: dict[str, int] = {}
    for step in hint["steps"]:
        d = {k: made.get(v, v) if k in ("meld", "to") else v for k, v in step.items() if k != "creates"}
        reply, events = apply(hand, "A", d, 1.0)
        assert reply["type"] == "ack", (step, reply)
        if "creates" in step:  # the ack names the new meld (issue 14)
            made[step["creates"]] = reply["made"]["meld"]
    assert_table_valid(hand)
    assert hand_view(hand, "A")["hand"] == ["KD"]
    # Nothing left to put down: the hint is to draw; with an empty stock, nothing.
    assert suggest(hand_view(hand, "A"))["steps"] == [{"do": "draw"}]
    assert suggest(hand_view(hand, "B"))["steps"] == []
    assert suggest(hand_view(hand, None))["steps"] == []
