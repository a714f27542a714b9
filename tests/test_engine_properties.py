"""Invariants as properties (STYLE 13), driven by Hypothesis.

(a) A rule-based state machine: three players send commands chosen from what the state
    allows (plus some nonsense), at random increasing times so that clocks fire, from a real
    seeded deal or from a busy position. After every step, from the raw ``loc`` and the
    containers: the 104 cards are each in exactly one place; a refused command changed
    nothing; a table card only moved by its mover's declared play (or the Stop! caller), a
    chain undo or an auto-split; with no play open, every meld on the table is valid.
(b) Complete hands from real deals, random players, shortened clocks: every hand ends, no card
    is lost or duplicated at any point, and the scores follow R20 recomputed independently.
(c) Replay: the seed and the timed command log give the same events and the same state.

The share of accepted commands is reported at the end of the module (terminal summary line,
with or without ``-s``) and through ``hypothesis.event``.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from functools import cache
from itertools import combinations
from typing import Any

import pytest
from enginehelpers import (
    PLAYERS,
    changed_since,
    check_cards,
    diff_snapshots,
    events,
    freeze_state,
    score_by_r20,
    snapshot,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import event as _hypothesis_event
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from engine import cards as C
from engine.errors import Refused
from engine.hand import Command, Hand
from engine.invariants import card_faults, hold_faults, play_faults
from engine.melds import is_valid
from engine.rules import MACHIAVELOX

STATS: Counter[str] = Counter()


def event(value: str) -> None:
    """``hypothesis.event`` inside a Hypothesis test, nothing outside one."""
    try:
        _hypothesis_event(value)
    except InvalidArgument:
        pass

QUICK = MACHIAVELOX.with_timers(play=4, hold=1, inactivity=6, freeze=10, absence=5, tiebreak=6)


@pytest.fixture(scope="module", autouse=True)
def _report_accepted_share(request: pytest.FixtureRequest) -> Iterator[None]:
    yield
    lines = []
    for who, what in (("machine", "state machine (a)"), ("hands", "complete hands (b)")):
        total = STATS[f"{who}_accepted"] + STATS[f"{who}_refused"]
        if total:
            lines.append(f"engine {what}: {STATS[f'{who}_accepted']}/{total} commands accepted "
                         f"({100 * STATS[f'{who}_accepted'] / total:.1f}%)")
    if STATS["hands_ended"]:
        lines.append(f"engine complete hands (b): {STATS['hands_ended']} played to the end "
                     f"({', '.join(f'{k[4:]} {v}' for k, v in sorted(STATS.items()) if k.startswith('end_'))})")
    for line in lines:
        print(line)
    reporter = request.config.pluginmanager.getplugin("terminalreporter")
    capman = request.config.pluginmanager.getplugin("capturemanager")
    if reporter is not None and capman is not None:
        with capman.global_and_fixture_disabled():
            reporter.write_line("")
            for line in lines:
                reporter.write_line(line)


# ---------------------------------------------------------------------------------- positions

BUSY_TABLE = [
    "4C 5C 6C 7C", "9H 10H JH", "10S JS QS KS", "5D 5S 5H", "8D 8C 8S 8H",
    "QD KD AD 2D", "2H 3H 4H 5H 6H", "AC 2C 3C", "JC QC KC", "9S 9D 9C", "6S 7S 8S",
]


def busy_position(seed: int) -> Hand:
    """A table of eleven melds; the other cards shuffled by ``seed`` into 2 removed, three
    hands of 8–13 and three stocks; everyone has drawn, laid at random."""
    rng = random.Random(seed)
    used = Counter(f for m in BUSY_TABLE for f in m.split())
    rest = [C.name(c) for c in C.full_deck()]
    for f, k in used.items():
        for _ in range(k):
            rest.remove(f)
    rng.shuffle(rest)
    removed, rest = rest[:2], rest[2:]
    hands = {}
    for p in PLAYERS:
        n = rng.randint(8, 13)
        hands[p], rest = rest[:n], rest[n:]
    stocks = {p: rest[i::3] for i, p in enumerate(PLAYERS)}
    laid = [p for p in PLAYERS if rng.random() < 0.7]
    return Hand.from_position(list(PLAYERS), table=[m.split() for m in BUSY_TABLE],
                              hands=hands, stocks=stocks, removed=removed,
                              drew=list(PLAYERS), laid=laid)


# ---------------------------------------------------------------------------------- commands


def _pool(h: Hand, p: str) -> list[int]:
    if h.tiebreak is not None and p in h.tiebreak.players:
        return [c for q in h.tiebreak.players for c in h.hands[q]]
    return list(h.hands[p])


@cache
def _fitting_faces(meld: tuple[tuple[int, int], ...]) -> frozenset[tuple[int, int]]:
    """The faces that would make a meld with these faces valid (Machiavelox rules). Only a
    face sharing a suit or a rank with the meld can, so only those are tried."""
    near = {(r, s) for (_, s) in meld for r in range(1, 14)} | {(r, s) for (r, _) in meld
                                                                for s in range(4)}
    cards = [C.card_id(f, 0) for f in meld]
    return frozenset(f for f in near if is_valid(cards + [C.card_id(f, 0)], MACHIAVELOX))


def _compatible(a: int, b: int) -> bool:
    """Two cards that could sit in one meld: same rank in two suits, or near in one suit."""
    if C.rank_of(a) == C.rank_of(b):
        return C.suit_of(a) != C.suit_of(b)
    d = (C.rank_of(a) - C.rank_of(b)) % 13
    return C.suit_of(a) == C.suit_of(b) and d in (1, 2, 11, 12)


def candidates(h: Hand) -> dict[str, list[Command]]:
    """Commands the state allows, by kind, plus nonsense ("garbage") that must be refused."""
    out: dict[str, list[Command]] = {}

    def put(kind: str, c: Command) -> None:
        out.setdefault(kind, []).append(c)

    table = h.table()
    caller = h.freeze.caller if h.freeze else None
    memo: dict[tuple[int, tuple[int, int]], bool] = {}
    keys = {m: tuple(sorted(C.face_of(c) for c in cs)) for m, cs in table.items()}

    def fits(m: int, c: int) -> bool:
        return C.face_of(c) in _fitting_faces(keys[m])

    for p in PLAYERS:
        ps = h.players[p]
        if not ps.connected:
            put("reconnect", Command(p, "reconnect"))
            continue
        put("disconnect", Command(p, "disconnect"))
        if ps.status != "active" or h.result is not None:
            continue
        staging = h.staging[p]
        holding = h.holds.get(p)
        pool = _pool(h, p)
        if not staging and h.stocks[p]:
            put("draw", Command(p, "draw"))
        for c in pool[:12]:
            put("stage", Command(p, "stage", card=C.name(c)))
        for meld in _melds_in(pool):
            for c in meld:
                put("stage_meld", Command(p, "stage", card=C.name(c)))
        for c in pool:
            if any(_compatible(c, s) for s in staging):
                put("stage_more", Command(p, "stage", card=C.name(c)))
        for c in staging:
            put("unstage", Command(p, "unstage", card=C.name(c)))
        for k in (3, 4):
            for combo in combinations(staging[:6], k):
                if is_valid(list(combo), h.rules):
                    put("lay", Command(p, "lay", cards=tuple(C.names(list(combo)))))
        if not staging:
            for c in pool:
                for m in table:
                    if fits(m, c):
                        put("add", Command(p, "add", card=C.name(c), meld=m))
            if pool and table:
                c = pool[len(pool) // 2]
                for m in list(table)[:4]:
                    put("add_any", Command(p, "add", card=C.name(c), meld=m))
        for c in staging:
            for m in table:
                if fits(m, c):
                    put("place", Command(p, "place", card=C.name(c), meld=m))
            for m in list(table)[:2]:
                put("place_any", Command(p, "place", card=C.name(c), meld=m))
        declared = bool(staging) or caller == p
        if declared and holding is None:
            for m, cs in table.items():
                for c in cs:
                    key = (-m, C.face_of(c))
                    if key not in memo:
                        rest = [x for x in cs if x != c]
                        memo[key] = not rest or len(cs) < 3 or is_valid(rest, h.rules)
                    if memo[key]:
                        put("take", Command(p, "take", card=C.name(c), meld=m))
                    for m2 in table:
                        if m2 != m and fits(m2, c):
                            put("move", Command(p, "move", card=C.name(c), meld=m, to=m2))
                put("move_any", Command(p, "move", card=C.name(cs[-1]), meld=m, to="new"))
        if holding is not None:
            put("drop", Command(p, "drop", to="new"))
            for m in table:
                if m != holding.meld and fits(m, holding.card):
                    put("drop", Command(p, "drop", to=m))
            put("drop_any", Command(p, "drop", to=next(iter(table), 1)))
        if ps.play is not None:
            put("end", Command(p, "end"))
            put("cancel", Command(p, "cancel"))
        if h.freeze is None and h.tiebreak is None:
            put("stop", Command(p, "stop"))
        if caller == p:
            put("give_up", Command(p, "give_up"))
        put("leave", Command(p, "leave"))
        # Real cards and melds, whatever the state allows: often refused for a state reason.
        put("stray", Command(p, "draw"))
        if pool and table:
            m = list(table)[len(table) // 2]
            put("stray", Command(p, "add", card=C.name(pool[0]), meld=m))
            put("stray", Command(p, "take", card=C.name(table[m][0]), meld=m))
            put("stray", Command(p, "move", card=C.name(table[m][-1]), meld=m, to="new"))
            put("stray", Command(p, "place", card=C.name(pool[0]), meld=m))
            put("stray", Command(p, "unstage", card=C.name(pool[-1])))
        if len(staging) >= 3:
            put("stray", Command(p, "lay", cards=tuple(C.names(staging[:3]))))
        put("stray", Command(p, "end"))
        put("stray", Command(p, "give_up"))
        put("stray", Command(p, "drop", to="new"))
        put("garbage", Command(p, "take", card="7C", meld=999))
        put("garbage", Command(p, "lay", cards=("2C", "3C")))
        put("garbage", Command(p, "stage", card="ZZ"))
        put("garbage", Command(p, "drop", to=77))
        put("garbage", Command(p, "place", card="KH", meld="new"))
    put("garbage", Command("D", "draw"))
    put("garbage", Command("A", "fly"))
    return out


# How often each kind is chosen when it is available (integer weights).
WEIGHTS = {
    "draw": 25, "stage": 15, "stage_meld": 40, "stage_more": 80, "unstage": 10, "lay": 60, "add": 40,
    "add_any": 15, "place": 30, "place_any": 10, "take": 10, "move": 30, "move_any": 10,
    "drop": 20, "drop_any": 5, "end": 10, "cancel": 5, "stop": 2, "give_up": 10,
    "disconnect": 2, "reconnect": 20, "leave": 1, "garbage": 10, "stray": 25,
}
BAG = [k for k, w in WEIGHTS.items() for _ in range(w)]
DTS = [0.0, 0.0, 0.1, 0.5, 1.0, 2.0, 4.0, 9.0, 15.0, 41.0]


# ---------------------------------------------------------------------------------- checks


class Step:
    """What one step (clock advance + command) looked like before it ran."""

    def __init__(self, h: Hand) -> None:
        self.loc = dict(h.loc)
        self.staged = {p: bool(h.staging[p]) for p in h.players}
        self.caller = h.freeze.caller if h.freeze else None


def check_moves(h: Hand, before: Step, evs: list[dict[str, Any]], cmd: Command | None,
                declared: Step | None) -> None:
    """A card that left a meld did so by an undo, an auto-split, or a move/drop of a player
    who had declared (or called Stop!) when the command came."""
    explained: Counter[str] = Counter()
    for e in evs:
        if e["kind"] == "undone":
            explained[e["card"]] += 1
        elif e["kind"] == "freeze_restored":  # R16: the table back as at the Stop!
            explained.update(x["card"] for x in e["cards"])
        elif e["kind"] == "split":
            for piece in e["cards"][1:]:
                explained.update(piece)
        elif e["kind"] == "moved":
            assert cmd is not None and cmd.do in ("move", "drop") and e["player"] == cmd.player, e
            assert declared is not None
            p = e["player"]
            assert declared.staged[p] or declared.caller == p, (
                f"{p} moved {e['card']} without a declared play or a freeze")
            explained[e["card"]] += 1
    for card, old in before.loc.items():
        new = h.loc[card]
        if old != new and old[0] == "meld":
            face = C.name(card)
            assert explained[face] > 0, f"{face} left meld {old[1]} for {new} unexplained: {evs}"
            explained[face] -= 1


def check_invariants(h: Hand) -> None:
    """Issue 26, item 2: the state's invariants by concern (``engine.invariants``)."""
    places = [(("hand", p), h.hands[p]) for p in h.order] + [
        (("staging", p), h.staging[p]) for p in h.order] + [
        (("stock", p), h.stocks[p]) for p in h.order] + [
        (("meld", m), cs) for m, cs in h.melds.items()] + [(("removed",), h.removed)]
    faults = (card_faults(C.full_deck(h.rules.packs, h.rules.jokers), h.loc, places)
              + hold_faults(h.holds, h.loc) + play_faults(h.plays, h._open, h.actions))
    assert not faults, faults


def check_state(h: Hand, now: float) -> None:
    check_cards(h)
    check_invariants(h)
    if not h.open_players():
        bad = [C.names(cs) for cs in h.melds.values() if cs and not is_valid(cs, h.rules)]
        assert not bad, f"no play is open but the table holds invalid melds {bad}"
    nd = h.next_deadline()
    assert nd is None or nd > now, (nd, now)
    if h.result is not None:
        assert h.open_players() == [] and h.freeze is None and h.tiebreak is None


def apply_checked(h: Hand, cmd: Command, now: float, evs_out: list[dict[str, Any]],
                  tally: str = "machine") -> bool:
    """Apply ``cmd`` at ``now`` (clocks already fired) and check the step. True if accepted."""
    before = Step(h)
    image = freeze_state(h)
    try:
        h.apply(cmd, now)
    except Refused as e:
        assert e.code and e.message
        changed = changed_since(h, image, dropped_hold=cmd.player if cmd.do == "drop" else None)
        assert not changed, f"refused {cmd} ({e.code}) changed {changed}"
        STATS[f"{tally}_refused"] += 1
        event(f"refused {cmd.do}: {e.code}")
        evs_out.extend(x.as_dict() for x in h.drain_events())
        return False
    STATS[f"{tally}_accepted"] += 1
    event(f"accepted {cmd.do}")
    evs = [x.as_dict() for x in h.drain_events()]
    evs_out.extend(evs)
    check_moves(h, before, evs, cmd, before)
    return True


def tick_checked(h: Hand, now: float, evs_out: list[dict[str, Any]]) -> None:
    before = Step(h)
    h.tick(now)
    evs = [x.as_dict() for x in h.drain_events()]
    evs_out.extend(evs)
    check_moves(h, before, evs, None, None)
    check_state(h, now)


def check_open_plays_explain_invalid_melds(h: Hand) -> None:
    """R8 and R10: every meld is valid or empty, or becomes so once the plays still at risk are
    taken back: the open plays, and the confirmed ones not yet final that depend on one of them
    (R8's (a) and (b): a play confirmed because an open action was put back in its judged meld
    falls with that action; R11). Each card of such a play goes back to where it was before the
    first of those actions moved it: every later action of it, anyone's, falls too (R10's card
    edge). A meld still invalid then was wounded by a play that stands. Raises AssertionError
    naming the meld."""
    at_risk = {pid for pid, pl in h.plays.items() if pl.status == "open"}
    grew = True
    while grew:
        more = {pid for pid, pl in h.plays.items()
                if pl.status == "confirmed" and pid not in at_risk and pl.deps & at_risk}
        at_risk |= more
        grew = bool(more)
    for mid, now_in in h.melds.items():
        if not now_in or is_valid(now_in, h.rules):
            continue
        log = [a for a in h.meld_log.get(mid, ()) if not a.undone]
        judged = []
        for c in dict.fromkeys([*now_in, *(a.card for a in log)]):
            stack = [a for a in h.card_stack.get(c, []) if not a.undone]
            place = stack[0].src if stack else h.loc[c]
            for a in stack:
                if a.play in at_risk:
                    break
                place = ("meld", a.dst)
            if place == ("meld", mid):
                judged.append(c)
        assert not judged or is_valid(judged, h.rules), (  # a play that stands wounded it
            f"meld {mid} {C.names(now_in)} is {C.names(judged)} with the plays at risk taken back")


# ---------------------------------------------------------------------------------- (a)


class EngineMachine(RuleBasedStateMachine):
    """Three players, commands from what the state allows, at random increasing times."""

    hand: Hand
    t: float

    @initialize(start=st.sampled_from(["deal", "busy", "busy"]), seed=st.integers(0, 2**20),
                warm=st.integers(0, 14))
    def start(self, start: str, seed: int, warm: int) -> None:
        if start == "deal":
            self.hand = Hand.deal(list(PLAYERS), seed)
            for _i in range(warm):                       # everyone draws a few cards first
                for p in PLAYERS:
                    self.hand.apply(Command(p, "draw"), 0.0)
        else:
            self.hand = busy_position(seed)
        self.hand.drain_events()
        self.t = 0.0
        self.events: list[dict[str, Any]] = []
        check_state(self.hand, self.t)

    @rule(data=st.data())
    def step(self, data: st.DataObject) -> None:
        h = self.hand
        if h.result is not None:
            event("hand over")
            return
        self.t = round(self.t + data.draw(st.sampled_from(DTS), label="dt"), 3)
        tick_checked(h, self.t, self.events)
        if h.result is not None:
            return
        cands = candidates(h)
        bag = [k for k in BAG if k in cands]
        kind = data.draw(st.sampled_from(bag), label="kind")
        cmd = data.draw(st.sampled_from(cands[kind]), label="command")
        STATS["steps"] += 1
        apply_checked(h, cmd, self.t, self.events)
        check_state(h, self.t)

    @invariant()
    def cards_are_all_somewhere_once(self) -> None:
        if hasattr(self, "hand"):
            check_cards(self.hand)

    @invariant()
    def a_held_card_is_in_the_meld_its_hold_names(self) -> None:
        """R12: a hold follows its card when an undo moves it to another meld."""
        if hasattr(self, "hand"):
            for p, x in self.hand.holds.items():
                assert self.hand.loc[x.card] == ("meld", x.meld), (p, C.name(x.card), x.meld)


    @invariant()
    def every_meld_is_valid_once_the_open_plays_are_taken_back(self) -> None:
        h = getattr(self, "hand", None)
        if h is not None and h.result is None:
            check_open_plays_explain_invalid_melds(h)


EngineMachine.TestCase.settings = settings(
    max_examples=200, stateful_step_count=30, deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
TestEngineStateMachine = EngineMachine.TestCase


# ---------------------------------------------------------------------------------- (b), (c)


def _melds_in(cards: list[int]) -> list[list[int]]:
    """Some valid melds of three cards that a hand holds (sets, then runs)."""
    found: list[list[int]] = []
    by_rank: dict[int, dict[int, int]] = {}
    by_suit: dict[int, dict[int, int]] = {}
    for c in cards:
        by_rank.setdefault(C.rank_of(c), {}).setdefault(C.suit_of(c), c)
        by_suit.setdefault(C.suit_of(c), {}).setdefault(C.rank_of(c), c)
    for suits in by_rank.values():
        if len(suits) >= 3:
            found.append(list(suits.values())[:3])
    for ranks in by_suit.values():
        for r in range(1, 14):
            seq = [(r - 1 + i) % 13 + 1 for i in range(3)]
            if all(x in ranks for x in seq):
                found.append([ranks[x] for x in seq])
    return found


class Bot:
    """A random but purposeful player: lays what it can, adds what fits, draws, sometimes
    meddles (moves, wounds, Stop!, absence)."""

    def __init__(self, name: str, rng: random.Random) -> None:
        self.p = name
        self.rng = rng
        self.plan: list[Command] = []

    def next(self, h: Hand) -> Command:
        p, rng = self.p, self.rng
        ps = h.players[p]
        if not ps.connected:
            return Command(p, "reconnect")
        if self.plan:
            return self.plan.pop(0)
        pool = _pool(h, p)
        table = h.table()
        staging = h.staging[p]
        roll = rng.random()
        if staging:
            for m, cs in table.items():
                for c in staging:
                    if is_valid(cs + [c], h.rules):
                        return Command(p, "place", card=C.name(c), meld=m)
            if len(staging) >= 3 and is_valid(staging, h.rules):
                return Command(p, "lay", cards=tuple(C.names(staging)))
            if roll < 0.3 and h.holds.get(p) is None and table:
                m = rng.choice(list(table))
                c = rng.choice(table[m])
                return Command(p, "move", card=C.name(c), meld=m, to="new")
            return Command(p, rng.choice(["end", "cancel", "end"]))
        if roll < 0.004 and h.freeze is None and h.tiebreak is None:
            return Command(p, "stop")
        if roll < 0.007:
            return Command(p, "disconnect")
        if h.freeze is not None and h.freeze.caller == p and roll < 0.1:
            return Command(p, "give_up")
        melds = _melds_in(pool)
        if melds and roll < 0.9:
            meld = rng.choice(melds)
            names = C.names(meld)
            self.plan = [Command(p, "stage", card=n) for n in names[1:]]
            self.plan.append(Command(p, "lay", cards=tuple(names)))
            return Command(p, "stage", card=names[0])
        fits = [(c, m) for c in pool for m, cs in table.items() if is_valid(cs + [c], h.rules)]
        if fits and roll < 0.85:
            c, m = rng.choice(fits)
            return Command(p, "add", card=C.name(c), meld=m)
        if h.stocks[p] and roll < 0.8:
            return Command(p, "draw")
        if pool and table and roll < 0.9:
            return Command(p, "add", card=C.name(rng.choice(pool)), meld=rng.choice(list(table)))
        if pool and table:
            # Declare a card and try to make room for it by moving a table card.
            c = rng.choice(pool)
            m = rng.choice(list(table))
            self.plan = [Command(p, "move", card=C.name(table[m][0]), meld=m, to="new"),
                         Command(p, "place", card=C.name(c), meld=m)]
            return Command(p, "stage", card=C.name(c))
        return Command(p, "draw")


Log = list[tuple[str, float, Command | None]]


def play_hand(seed: int, max_steps: int = 3000) -> tuple[Hand, Log, list[dict[str, Any]]]:
    """Play one complete hand from ``Hand.deal(seed)`` with three bots on QUICK clocks."""
    rng = random.Random(seed)
    h = Hand.deal(list(PLAYERS), seed, QUICK)
    bots = {p: Bot(p, rng) for p in PLAYERS}
    log: Log = []
    evs: list[dict[str, Any]] = [e.as_dict() for e in h.drain_events()]
    t = 0.0
    steps = 0
    while h.result is None and steps < max_steps:
        steps += 1
        t = round(t + rng.choice([0.0, 0.05, 0.2, 0.2, 0.5, 1.0]), 3)
        log.append(("tick", t, None))
        tick_checked(h, t, evs)
        if h.result is not None:
            break
        movers = [p for p in PLAYERS if h.players[p].status == "active" or
                  not h.players[p].connected]
        if not movers:
            break
        cmd = bots[rng.choice(movers)].next(h)
        log.append(("cmd", t, cmd))
        if not apply_checked(h, cmd, t, evs, tally="hands"):
            bots[cmd.player].plan = []
        check_state(h, t)
    # Whatever is left: let the clocks run, driven by next_deadline (every hand must end).
    for _ in range(500):
        if h.result is not None:
            break
        nd = h.next_deadline()
        assert nd is not None, "a hand in progress always has a clock running"
        t = max(t, nd)
        log.append(("tick", t, None))
        tick_checked(h, t, evs)
    assert h.result is not None, f"seed {seed}: the hand did not end"
    return h, log, evs


def replay(seed: int, log: Log) -> tuple[Hand, list[dict[str, Any]]]:
    h = Hand.deal(list(PLAYERS), seed, QUICK)
    evs = [e.as_dict() for e in h.drain_events()]
    for kind, t, cmd in log:
        if kind == "tick":
            h.tick(t)
        else:
            assert cmd is not None
            try:
                h.apply(cmd, t)
            except Refused:
                pass
        evs.extend(e.as_dict() for e in h.drain_events())
    return h, evs


HAND_SEEDS = [0, 1, 2, 5, 6, 8, 18, 19, 22]  # survivor, silence, tiebreak, draw, out


@pytest.mark.parametrize("seed", HAND_SEEDS)
def test_complete_hands_end_keep_every_card_and_score_by_r20(seed: int) -> None:
    h, log, evs = play_hand(seed)
    STATS["hands_ended"] += 1
    STATS[f"end_{h.result.end}"] += 1
    assert h.result is not None
    tied: list[str] = []
    for e in evs:
        if e["kind"] == "tiebreak_started":
            tied = list(e["players"])
    assert h.result.scores == score_by_r20(h, tied), (h.result, tied)
    (ended,) = [e for e in evs if e["kind"] == "hand_ended"]
    assert ended["scores"] == h.result.scores and ended["end"] == h.result.end
    event(f"hand ended by {h.result.end}")
    # (c) the seed and the timed log replay to the same events and the same state.
    h2, evs2 = replay(seed, log)
    assert evs2 == evs
    assert diff_snapshots(snapshot(h), snapshot(h2)) == []


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1), cut=st.integers(20, 400))
def test_replaying_any_prefix_of_a_hand_gives_the_same_state(seed: int, cut: int) -> None:
    """(c) mid-hand: replaying the first ``cut`` log entries gives the live state then."""
    rng = random.Random(seed)
    h = Hand.deal(list(PLAYERS), seed, QUICK)
    bots = {p: Bot(p, rng) for p in PLAYERS}
    log: Log = []
    live: list[dict[str, Any]] = [e.as_dict() for e in h.drain_events()]
    t = 0.0
    for _ in range(cut):
        if h.result is not None:
            break
        t = round(t + rng.choice([0.0, 0.1, 0.5, 1.0, 2.0]), 3)
        h.tick(t)
        log.append(("tick", t, None))
        movers = [p for p in PLAYERS if h.players[p].status == "active"]
        if movers:
            cmd = bots[rng.choice(movers)].next(h)
            log.append(("cmd", t, cmd))
            try:
                h.apply(cmd, t)
            except Refused:
                bots[cmd.player].plan = []
        live.extend(e.as_dict() for e in h.drain_events())
    h2, evs2 = replay(seed, log)
    assert evs2 == live
    assert diff_snapshots(snapshot(h), snapshot(h2)) == []


def test_a_card_moved_on_by_another_open_play_is_home_once_the_first_is_taken_back() -> None:
    """Shrunk from a fresh seed (3570068274): A moves 9S out of the nines, C moves it on from the
    spades run to 6S 7S 8S; both plays open, the nines are 9D 9C. Taken back, A's move takes C's
    with it (R10's card edge), so the check finds the nines whole, and A's cancel does just that."""
    h = busy_position(1)
    for cmd in (Command("A", "add", card="7H", meld=7), Command("A", "stage", card="10D"),
                Command("C", "stage", card="10C"),
                Command("A", "move", card="9S", meld=10, to=3), Command("C", "move", card="9S", meld=3, to=11)):
        h.apply(cmd, 0.0)
    assert C.names(h.melds[10]) == ["9D", "9C"] and C.names(h.melds[11]) == ["6S", "7S", "8S", "9S"]
    check_open_plays_explain_invalid_melds(h)
    h.drain_events()
    h.apply(Command("A", "cancel"), 0.1)
    undone = [(e["player"], e["card"], e["to"]) for e in events(h, "undone")]
    assert undone == [("C", "9S", 3), ("A", "9S", 10)]
    assert sorted(C.names(h.melds[10])) == ["9C", "9D", "9S"]
    check_open_plays_explain_invalid_melds(h)
