"""Exact clocks, per variant (issue 24, R23): times are whole milliseconds, so a clock due
at 16.283 + 120 s fires before a step at 136.283 s, and not at 136.282 s. In floating point
16.283 + 120 is 136.28300000000002, which a seconds-based comparison would miss."""

from __future__ import annotations

from classichelpers import hand_of, play
from classichelpers import position as classic_position
from enginehelpers import do, events, position

START = 16.283
DUE = 136.283


def test_machiavelox_inactivity_due_at_16_283_plus_120_fires_before_a_step_at_136_283() -> None:
    """R14: every draw restarts the 120 s inactivity clock; its expiry forces draws (§7)."""
    assert START + 120 != DUE  # the float trap this test guards against
    h = position("4C 5C 6C", A="KD", B="KS", C="KH",
                 stocks={"A": "2D 3D 4D", "B": "2S 3S 4S", "C": "2H 3H 4H"})
    do(h, START, "A draw")
    assert h.inactivity_deadline_ms == 136_283
    events(h)
    h.tick(DUE - 0.001)
    assert events(h, "forced_draw") == []
    do(h, DUE, "B draw")
    kinds = [e["kind"] for e in events(h) if e["kind"] in ("forced_draw", "drew")]
    assert kinds and kinds[0] == "forced_draw", kinds


def test_classic_turn_clock_due_at_16_283_plus_120_fires_before_a_step_at_136_283() -> None:
    """C20: the turn clock of a turn that starts at 16.283 s expires at 136.283 s; a
    command by the next player at that instant finds the turn already theirs."""
    m = classic_position(rules="classic_dutch", options={"clock": 120}, A="KS 2C", B="9D 3C",
                         stock="3S 4S 5S 6S")
    play(m, "A draw", t=START)           # B's turn starts at 16.283 s
    assert m.hand is not None and m.hand.turn == "B"
    m.tick(DUE - 0.001)
    assert m.hand.turn == "B"
    play(m, "A draw", t=DUE)             # B's clock fired first: A is on turn again
    assert hand_of(m, "B") == ["3C", "4S", "9D"]   # C20's penalty card, at 136.283 s
    assert m.hand.turn == "B"
