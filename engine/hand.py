"""One hand of Machiavelox: a pure, deterministic state machine (§1–§12, R1–R20, R23).

Sans-I/O: the caller passes the time and drains the events::

    hand = Hand.deal(["A", "B", "C"], seed=7)
    hand.apply(Command("A", "draw"), now=0.0)     # raises Refused; nothing changes then
    hand.tick(now)                                 # fire every clock due at or before now
    hand.next_deadline()                           # seconds, or None when no clock runs
    events = hand.drain_events()                   # what happened, in order

``now`` is always seconds since the hand began; internally every time is an
integer number of milliseconds, so 0.1 + 40 is exactly 40.1 (conformance
README). The engine never reads a clock and never draws a random number except
from the seed given to :meth:`Hand.deal`.

The model (R6–R13):

* an *action* is one card changing place, own (hand or staging → meld, by
  ``add``, ``place``, ``lay``) or a move (meld → meld, by ``move``/``drop``,
  and the auto-split, R4);
* a *play* groups one player's actions from its first ``stage``/``add`` until
  it is judged (R7, R8);
* the *dependency graph* (R10) has card edges (kept as each card's stack of
  actions still standing) and meld edges (``_dependents``: action → plays that
  needed it when judged). Undoing an action undoes everything after it on the
  same card, and makes every confirmed play that needed it fall whole: the
  chain undo of §5.5.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable
from typing import Any

from . import cards as C
from .clocks import _ABSENCE, _FREEZE, _HOLD, _INACTIVITY, _PLAY, _TIEBREAK
from .commands import COMMANDS
from .ending import EndingRules
from .errors import EngineFault, IllegalCommand, InvalidCommand
from .model import FROZEN, OVER, Command, Event
from .rules import MACHIAVELOX, RuleSet
from .timeunits import ms, sec

__all__ = ["COMMANDS", "Command", "Event", "Hand"]


class Hand(EndingRules):
    """One hand of Machiavelox. Build it with :meth:`deal` or :meth:`from_position`.

    The rules are stacked in layers, one module a section (``docs/rules.md``):
    ``state`` (what a hand holds) < ``table`` (R1, R2) < ``holds`` (R12, R13) <
    ``judging`` (R8) < ``chain`` (R9–R11) < ``clocks`` (R14, R18, R23) < ``plays``
    (R4, R6, R7, R9) < ``stop`` (R16) < ``ending`` (R15, R17–R20) < this class
    (building a hand, the public API, settling after every step).
    """

    @classmethod
    def deal(cls, players: list[str], seed: int, rules: RuleSet = MACHIAVELOX) -> Hand:
        """Deal from ``seed`` (§1): ``rules.removed_cards`` removed face up, one
        stock of ``rules.stock_size`` per player, empty hands. The same seed
        always gives the same deal."""
        hand = cls(players, rules)
        hand.seed = seed
        deck = C.full_deck(rules.packs, rules.jokers)
        random.Random(seed).shuffle(deck)
        pos = 0
        for c in deck[: rules.removed_cards]:
            hand._put(c, ("removed",))
        pos = rules.removed_cards
        for p in players:
            for c in deck[pos : pos + rules.stock_size]:
                hand._put(c, ("stock", p))
            pos += rules.stock_size
        for c in deck[pos:]:
            hand.loc[c] = ("out",)
        hand._emit("hand_started", None, {
            "players": list(players), "removed": C.names(hand.removed),
            "stocks": {p: len(hand.stocks[p]) for p in players}, "rules": rules.name,
        })
        return hand

    @classmethod
    def from_position(
        cls,
        players: list[str],
        *,
        table: Iterable[Iterable[str]] = (),
        hands: dict[str, Iterable[str]] | None = None,
        stocks: dict[str, Iterable[str]] | None = None,
        removed: Iterable[str] = (),
        drew: Iterable[str] = (),
        laid: Iterable[str] = (),
        rules: RuleSet = MACHIAVELOX,
    ) -> Hand:
        """A hand set up from a position, as conformance cases give it.

        Table melds get ids 1, 2, … and count as final; stocks list the top
        card first; cards not named are out of play. Raises ``ValueError``
        when a face appears more than twice (or a card is not a card)."""
        hand = cls(players, rules)
        copies: Counter[tuple[int, int]] = Counter()
        jokers = 0

        def take(face_text: str) -> int:
            nonlocal jokers
            face = C.parse_face(face_text)
            if face[0] == 0:
                jokers += 1
                if jokers > rules.jokers:
                    raise ValueError(f"too many jokers for rule set {rules.name}")
                return C.card_id(face, jokers - 1)
            copies[face] += 1
            if copies[face] > rules.packs:
                raise ValueError(f"'{face_text}' appears more than {rules.packs} times")
            return C.card_id(face, copies[face] - 1)

        for meld in table:
            mid = hand._new_meld()
            for f in meld:
                hand._put(take(f), ("meld", mid))
        for p, fs in (hands or {}).items():
            if p not in hand.players:
                raise ValueError(f"unknown player '{p}' in hands")
            for f in fs:
                hand._put(take(f), ("hand", p))
        for p, fs in (stocks or {}).items():
            if p not in hand.players:
                raise ValueError(f"unknown player '{p}' in stocks")
            for f in fs:
                hand._put(take(f), ("stock", p))
        for f in removed:
            hand._put(take(f), ("removed",))
        for c in C.full_deck(rules.packs, rules.jokers):
            hand.loc.setdefault(c, ("out",))
        for p in drew:
            hand.players[p].drew = True
        for p in laid:
            hand.players[p].laid = True
        hand._emit("hand_started", None, {
            "players": list(players), "removed": C.names(hand.removed),
            "stocks": {p: len(hand.stocks[p]) for p in players}, "rules": rules.name,
        })
        return hand

    def drain_events(self) -> list[Event]:
        """The events since the last drain, oldest first."""
        out, self._events = self._events, []
        return out

    def next_deadline(self) -> float | None:
        """Seconds since the hand began of the next clock to fire, or None."""
        due = self._next_clock()
        return None if due is None else sec(due[0])

    def tick(self, now: float) -> None:
        """Fire, earliest first and in R23's order, every clock due at or before
        ``now`` (seconds since the hand began). Time never goes back: a ``now``
        before the last one is treated as the last one."""
        now_ms = max(ms(now), self.now_ms)
        while self.phase is not OVER:
            due = self._next_clock()
            if due is None or due[0] > now_ms:
                break
            self.now_ms = max(self.now_ms, due[0])
            self._fire(due)
            self._settle()
        self.now_ms = now_ms

    def apply(self, cmd: Command, now: float) -> dict[str, int]:
        """Fire the clocks due by ``now``, then carry out ``cmd`` (R6).

        Returns what the command made, for the acknowledgement: ``{"meld": id}`` when it
        opened a new meld (``lay``, ``drop new``, ``move … new``), else ``{}``.
        Raises :class:`Refused` (code and sentence) when the rules do not allow
        it: then the command changed nothing (R6; a refused drop still ends the
        hold, R12). Clock events fired before the refusal stay in the outbox.
        """
        self.tick(now)
        if cmd.do not in COMMANDS:
            raise InvalidCommand("bad_command", f"Unknown command '{cmd.do}'.")
        if self.phase is OVER:
            raise IllegalCommand("hand_over")
        ps = self.players.get(cmd.player)
        if ps is None:
            raise InvalidCommand("unknown_player", f"There is no player '{cmd.player}' at this table.")
        made: dict[str, int] | None = getattr(self, "_cmd_" + cmd.do)(ps, cmd)
        self._settle()
        return made or {}

    def _settle(self) -> None:
        """After every command and clock event: direct plays in order end (R7),
        finality (R11), going out (R15), survivors (R17), tie-break wins (R19)."""
        steps = 0
        while self.phase is not OVER:
            steps += 1
            if steps > 1000:  # each step ends an open play: this is a bug, never a rule
                raise EngineFault("settling the hand did not end after 1,000 steps")
            progressed = False
            for pid in list(self._open):
                play = self.plays[pid]
                if play.status != "open" or play.staged_ever or play.deadline_ms is None and not play.in_freeze:
                    continue
                if self.phase is FROZEN and not play.in_freeze:
                    continue
                if play.player in self.holds:
                    continue
                wounded = self._judge(play)[0]
                if not wounded:
                    self._end_play(play, "auto")
                    progressed = True
                    break
            if progressed:
                continue
            self._update_finality()
            if self._check_out():
                return
            if self._check_survivor():
                return
            if self._check_tiebreak_win():
                return
            break

    def _fire(self, due: tuple[int, int, int, Any]) -> None:
        at, kind, _, key = due
        if kind == _HOLD:
            self._release(key, "expired")
        elif kind == _PLAY:
            self._end_play(self.plays[key], "timeout")
        elif kind == _FREEZE:
            self._fail_freeze("timeout")
        elif kind == _ABSENCE:
            leaving = [p for p in self.order
                       if self.players[p].status == "active"
                       and (d := self.players[p].absence_deadline_ms) is not None and d <= at]
            for p in leaving:
                self.players[p].absence_deadline_ms = None
            self._depart(leaving, "absence")
        elif kind == _TIEBREAK:
            self._end_tiebreak()
        elif kind == _INACTIVITY:
            self._inactivity()

    def _inactivity(self) -> None:
        """R14: forced draws, or the final silence."""
        drawers = [p for p in self.active() if self.stocks[p]]
        if not drawers:
            self.inactivity_deadline_ms = None
            self._emit("inactivity", None, {"forced": []})
            self._final_silence()
            return
        self.inactivity_deadline_ms = self.now_ms + ms(self.rules.inactivity)
        self._emit("inactivity", None, {"forced": drawers})
        for p in drawers:
            ps = self.players[p]
            if self.staging[p]:
                ps.pending_draws += 1
                self._emit("forced_draw", p, {"deferred": "pending"}, {})
                continue
            card = self._draw_top(ps)
            self._emit("forced_draw", p, {"deferred": False, "stock": len(self.stocks[p])},
                       {"card": C.name(card)})
