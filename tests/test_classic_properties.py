"""Whole classic hands as a Hypothesis state machine (issue 15): 2–6 players, every preset,
random options (C1), seeded deals, commands chosen from what the position allows (valid
melds found in the hand, table cards to move, jokers to free) plus nonsense, at increasing
times so that the turn clock and the absence clocks fire, hand after hand.

After every step: every card (jokers included) is in exactly one place; a refused command
changed nothing; ``reset`` and the clock's restore give back exactly the position at the
turn's start; between turns every meld on the table is valid (C16, C18, C20, C29).
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations
from typing import Any

from classichelpers import state
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from engine import cards as C
from engine.classic.jokers import meld_ok
from engine.classic.match import ClassicMatch
from engine.classic.model import Play
from engine.errors import Refused
from engine.melds import is_valid
from engine.rules import OptionsRefused, table_rules

PRESETS = ("classic", "classic_italian", "classic_dutch")
STATS: Counter[str] = Counter()


@st.composite
def tables(draw: st.DrawFn) -> tuple[str, int, dict[str, Any]]:
    """A preset, a number of players and options C1 allows for them."""
    preset = draw(st.sampled_from(PRESETS))
    packs = draw(st.sampled_from((2, 3)))
    players = draw(st.integers(2, 6 if packs == 3 or preset != "classic_dutch" else 5))
    opts: dict[str, Any] = {"packs": packs}
    if draw(st.booleans()):
        opts["jokers"] = draw(st.sampled_from([j for j in (0, 2, 4, 6) if j <= 2 * packs]))
    opts["hand"] = draw(st.sampled_from((5, 5, 5, 7, 10, 13, 15)))  # small hands go out
    for key, values in (("ace", ("low_or_high", "low")), ("max_jokers", (None, 1, 2)),
                        ("min_real", (2, 3)), ("freed_joker", ("replay", "keep")),
                        ("opening", (0, 0, 15, 36)), ("clock", (None, 30, 120)),
                        ("first_turn_out", (True, False)), ("stock_out", ("pass", "fewest")),
                        ("values", ("high", "low"))):
        if draw(st.booleans()):
            opts[key] = draw(st.sampled_from(values))
    if draw(st.booleans()):
        opts["match"] = draw(st.sampled_from(("deals", "threshold", "single")))
        opts["scoring"] = draw(st.sampled_from(("winner", "penalty")))
    return preset, players, opts


class ClassicMachine(RuleBasedStateMachine):
    """One match, command by command."""

    def __init__(self) -> None:
        super().__init__()
        self.m: ClassicMatch | None = None
        self.t = 0.0
        self.deck: list[int] = []
        self.turn_key: Any = None  # (hand no, turn player, turn start): whose start we hold
        self.start: Any = None  # the position at that turn's start
        self.seen_result: Any = None
        self.totals: dict[str, int] = {}

    @initialize(table=tables(), seed=st.integers(0, 10**6), near_out=st.booleans(),
                data=st.data())
    def deal(self, table: tuple[str, int, dict[str, Any]], seed: int, near_out: bool,
             data: st.DataObject) -> None:
        """A seeded deal, or (``near_out``) a position near its end: runs on the table and in
        each hand a card or two that extend them, so that hands are won by going out."""
        preset, n, opts = table
        try:
            rules = table_rules(preset, n, opts)
        except OptionsRefused:
            rules = table_rules(preset, n, {})
        names = [f"P{i}" for i in range(n)]
        if not near_out:
            self.m = ClassicMatch.deal_first(names, seed, rules)
        else:
            used: Counter[str] = Counter()
            melds: list[list[str]] = []
            hands: dict[str, list[str]] = {p: [] for p in names}
            for p in names:
                for _ in range(data.draw(st.integers(1, 2))):
                    suit = data.draw(st.integers(0, 3))
                    lo = data.draw(st.integers(2, 9))
                    faces = [C.format_face((r, suit)) for r in range(lo, lo + 4)]
                    if all(used[f] < rules.packs for f in faces):
                        used.update(faces)
                        melds.append(faces[:3])
                        hands[p].append(faces[3])
            stock = [f for f in ("KS", "KH", "QD") if used[f] < rules.packs][
                :data.draw(st.integers(0, 3))]
            self.m = ClassicMatch.from_position(names, rules, seed=seed, table=melds,
                                                hands=hands, stock=stock)
        self.deck = sorted(C.full_deck(rules.packs, rules.jokers))
        STATS["preset " + preset] += 1
        self.totals = dict(self.m.totals)
        self._note_turn()

    # ------------------------------------------------------------------ helpers
    @property
    def match(self) -> ClassicMatch:
        assert self.m is not None
        return self.m

    def _position(self) -> Any:
        h = self.match.hand
        assert h is not None and h.turn is not None
        return ({m: sorted(cs) for m, cs in h.melds.items()}, dict(h.faces),
                sorted(h.hands[h.turn]), h.next_meld)

    def _note_turn(self, ended_by: str | None = None) -> None:
        """At every new turn: the melds are valid (between turns, C16), and unless the turn
        before ended by an accepted ``end`` the table is exactly as at that turn's start
        (``draw``, ``pass``, the clock's restore and leaving put it back, C14, C15, C20, C31)."""
        h = self.match.hand
        if h is None:
            return
        self._check_scores()
        key = (self.match.hand_no, h.turn, h.turn_started_ms)
        if key == self.turn_key:
            return
        if self.start is not None and self.turn_key[0] == self.match.hand_no and ended_by != "end":
            melds, faces, hand, next_meld = self.start
            assert {m: sorted(cs) for m, cs in h.melds.items()} == melds
            assert h.faces == faces and h.next_meld == next_meld
            player = self.turn_key[1]
            got = sorted(h.hands[player])
            extra = list(got)
            for c in hand:
                extra.remove(c)  # raises if a card of the start hand is gone
            assert len(extra) <= 1  # a drawn or penalty card
            STATS["restored " + (ended_by or "by a clock or leaving")] += 1
        if h.turn is None:
            self.turn_key, self.start = None, None
            return
        for cards in h.melds.values():
            assert meld_ok(cards, h.faces, self.match.rules), cards
        self.turn_key = key
        self.start = self._position()

    def _check_scores(self) -> None:
        """A hand just ended: its scores are C25/C26 recomputed here, and they add up."""
        m = self.match
        res = m.last_result
        if res is None or res is self.seen_result:
            return
        self.seen_result = res
        h = m.hand
        assert h is not None and h.result is res
        low = m.rules.values.value == "low"

        def worth(c: int) -> int:
            if C.is_joker(c):
                return 25
            r = C.rank_of(c)
            return (1 if low else 11) if r == 1 else 10 if r >= 10 else r

        vals = {p: sum(worth(c) for c in h.hands[p]) for p in h.seats}
        penalty = m.rules.scoring.value == "penalty"
        if res.end == "dead":
            want = {p: 0 for p in h.seats}
        elif res.winner is None:
            want = dict(vals) if penalty else {p: 0 for p in h.seats}
        elif penalty:
            want = {p: 0 if p == res.winner else v for p, v in vals.items()}
        else:
            want = {p: 0 for p in h.seats}
            want[res.winner] = sum(v for p, v in vals.items() if p != res.winner)
        assert res.scores == want, (res.end, res.scores, want)
        if res.end == "out":
            assert res.winner is not None and not h.hands[res.winner]
        for p, v in want.items():
            self.totals[p] += v
        assert m.totals == self.totals
        STATS["scored " + res.end] += 1

    def _send(self, cmd: Play, dt: float = 0.0) -> bool:
        """Send ``cmd`` after ``dt`` seconds; a refusal must change nothing."""
        self._wait(dt)
        before = state(self.match)
        try:
            self.match.apply(cmd, self.t)
        except Refused:
            assert state(self.match) == before, f"refused {cmd} changed the match"
            STATS["refused"] += 1
            STATS[f"refused {cmd.do}"] += 1
            return False
        STATS[cmd.do] += 1
        self._note_turn(cmd.do if cmd.do in ("end", "draw", "pass") else None)
        return True

    def _wait(self, dt: float) -> None:
        """Let ``dt`` seconds pass, one clock at a time, so that every turn a clock ends is
        seen."""
        target = self.t + dt
        for _ in range(1000):
            nd = self.match.next_deadline()
            self.t = target if nd is None or nd > target else nd
            self.match.tick(self.t)
            for e in self.match.drain_events():
                if e.kind in ("turn_timeout", "hand_ended", "match_over", "absent_left"):
                    STATS[e.kind] += 1
            self._note_turn()
            if self.t >= target:
                break

    def _on_turn(self) -> str | None:
        h = self.match.hand
        return None if h is None else h.turn

    # ------------------------------------------------------------------ rules
    @rule(data=st.data())
    def lay_a_meld(self, data: st.DataObject) -> None:
        """Lay a valid meld found in the hand, then maybe end (a turn that goes somewhere)."""
        p = self._on_turn()
        if p is None:
            return
        h = self.match.hand
        assert h is not None
        rules = self.match.rules
        cards = list(dict.fromkeys(h.hands[p]))[:15]
        found = [combo for k in (3, 4) for combo in combinations(cards, k)
                 if is_valid(list(combo), rules)]
        if found:
            combo = data.draw(st.sampled_from(found[:40]))
            self._send(Play(p, "lay", cards=tuple(C.name(c) for c in combo)), 0.5)
        if data.draw(st.booleans()):
            self._send(Play(p, "end"), 0.5)

    @rule(data=st.data())
    def rework(self, data: st.DataObject) -> None:
        """Add, move, free or swap something on the table (may well be refused)."""
        p = self._on_turn()
        h = self.match.hand
        if p is None or h is None or not h.melds:
            return
        mids = sorted(h.melds)
        mid = data.draw(st.sampled_from(mids))
        kind = data.draw(st.sampled_from(("add", "move", "free", "swap", "loose")))
        if kind == "loose" and h.loose:
            to = data.draw(st.sampled_from([*mids, "new"]))
            self._send(Play(p, "move", card="JK", meld="loose", to=to), 0.3)
        elif kind == "move":
            card = data.draw(st.sampled_from(h.melds[mid]))
            to = data.draw(st.sampled_from([*mids, "new"]))
            as_ = None
            if C.is_joker(card) and data.draw(st.booleans()):
                as_ = C.name(data.draw(st.integers(0, 51)))
            text = "JK" if C.is_joker(card) else C.name(card)
            self._send(Play(p, "move", card=text, meld=mid, to=to, as_=as_), 0.3)
        elif h.hands[p]:
            card = data.draw(st.sampled_from(h.hands[p]))
            self._send(Play(p, kind if kind != "loose" else "add", card=C.name(card),
                            meld=mid), 0.3)

    @rule(do=st.sampled_from(("end", "draw", "pass", "reset")), dt=st.sampled_from((0, 1, 30)))
    def turn_command(self, do: str, dt: float) -> None:
        p = self._on_turn()
        if p is None:
            return
        if do == "reset":
            if self._send(Play(p, "reset"), dt) and self._on_turn() == p and self.start is not None:
                assert self._position() == self.start  # C18
            return
        self._send(Play(p, do), dt)

    @rule(who=st.integers(0, 5), do=st.sampled_from(
        ("draw", "end", "lay", "disconnect", "reconnect", "leave", "ready", "fly")))
    def anybody(self, who: int, do: str) -> None:
        """Commands from any seat, nonsense included."""
        players = self.match.players
        p = players[who % len(players)]
        self._send(Play(p, do, cards=("2C",) if do == "lay" else None), 0.2)

    @rule(data=st.data())
    def go_out(self, data: st.DataObject) -> None:
        """Lay every valid meld the hand holds, then end: small hands go out this way."""
        p = self._on_turn()
        h = self.match.hand
        if p is None or h is None:
            return
        rules = self.match.rules
        for _ in range(5):
            cards = h.hands[p][:15]
            combo = next((c for k in (3, 4) for c in combinations(cards, k)
                          if is_valid(list(c), rules)), None)
            if combo is None:
                break
            self._send(Play(p, "lay", cards=tuple(C.name(c) for c in combo)))
        for card in list(h.hands[p]):
            mid = next((m for m, cs in h.melds.items() if m < h.snapshot.next_meld
                        and not C.is_joker(card) and is_valid([*cs, card], rules)), None)
            if mid is not None:
                self._send(Play(p, "add", card=C.name(card), meld=mid))
        if not self._send(Play(p, "end"), 0.1) and data.draw(st.booleans()):
            self._send(Play(p, "leave"))

    @rule(dt=st.sampled_from((5, 60, 125)))
    def wait(self, dt: float) -> None:
        """Let clocks run: turn clocks, absences, the pause between hands."""
        self._wait(dt)

    @rule()
    def deal_next(self) -> None:
        self._send(Play("", "deal"))

    # ------------------------------------------------------------------ invariants
    @invariant()
    def every_card_once(self) -> None:
        if self.m is None:
            return
        h = self.m.hand
        assert h is not None
        cards = h.stock + h.loose + h.out_of_play + [c for cs in h.melds.values() for c in cs] + [
            c for p in h.seats for c in h.hands[p]]
        assert sorted(cards) == self.deck
        assert set(h.faces) <= {c for cs in h.melds.values() for c in cs if C.is_joker(c)}


ClassicMachine.TestCase.settings = settings(
    max_examples=100, stateful_step_count=50, deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
TestClassicMachine = ClassicMachine.TestCase


def test_the_machine_reached_every_kind_of_step() -> None:
    """Run after the machine (file order), or runs it first: it was not idle. Every preset was dealt, turns
    ended each way, hands ended and positions were restored."""
    if not STATS:  # run on its own (or on another worker than the machine): run it here
        TestClassicMachine().runTest()
    for key in ("preset classic", "preset classic_italian", "preset classic_dutch", "end", "draw",
                "turn_timeout", "hand_ended", "restored draw", "restored by a clock or leaving",
                "scored out", "scored survivor"):
        assert STATS[key] > 0, (key, sorted(STATS.items()))
