"""A classic match (C21, C26–C28, C31): hand after hand, the rotating deal, totals, its end.

Sans-I/O like the real-time flow (R23)::

    match = ClassicMatch.deal_first(["A", "B", "C"], seed=7, rules=CLASSIC)
    match.apply(ClassicCommand("A", "draw"), now=3.0)   # raises Refused; nothing changes then
    match.tick(now)                           # fire every clock due at or before now
    match.next_deadline()                     # seconds, or None when no clock runs
    events = match.drain_events()

``now`` is seconds since the match began, one scale across its hands; the engine never
reads a clock and draws randomness only from the seed (hand ``h`` is shuffled from
``seed`` and ``h``). Seats are numbered from 0 clockwise, seat 0 starting hand 1 (C21: the
cut happened when the match was made).
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

from .. import cards as C
from ..errors import EngineFault, IllegalCommand, InvalidCommand
from ..model import Event
from ..rules import MatchEnd, RuleSet, Scoring
from ..timeunits import ms, sec
from .absence import AbsenceRules
from .jokers import meld_ok, parse_joker, settled_faces
from .model import ClassicCommand, HandResult
from .turn import ClassicHand

TURN_COMMANDS = frozenset({"lay", "add", "move", "free", "swap", "reset", "end", "draw", "pass"})
MATCH_COMMANDS = frozenset({"disconnect", "reconnect", "leave", "leave_game", "ready", "deal"})


class ClassicMatch(AbsenceRules):
    """A match of classic Machiavelli under ``rules`` (a preset with its options, C1)."""

    def __init__(self, players: list[str], rules: RuleSet, seed: int = 0, *,
                 hand_no: int = 1, totals: dict[str, int] | None = None) -> None:
        """An empty match: call :meth:`deal_first` or :meth:`from_position` instead.
        Raises ``ValueError`` for repeated names or an unknown player in ``totals``."""
        if len(set(players)) != len(players) or not players:
            raise ValueError("players must be distinct names")
        self.players = list(players)
        self.rules = rules
        self.seed = seed
        self.hand_no = hand_no
        self.totals = {p: 0 for p in players}
        for p, v in (totals or {}).items():
            if p not in self.totals:
                raise ValueError(f"unknown player '{p}' in totals")
            self.totals[p] = int(v)
        self.connected = {p: True for p in players}
        self.absent_since_ms: dict[str, int | None] = {p: None for p in players}
        self.in_match = {p: True for p in players}
        self.ready: set[str] = set()
        self.absence_s = rules.absence
        self.now_ms = 0
        n = len(players)
        self.dealer = players[(hand_no - 2) % n]
        self.hand: ClassicHand | None = None
        self.last_result: HandResult | None = None
        self.pause_deadline_ms: int | None = None
        self.over = False
        self.winner: str | None = None
        self.version = 0
        self._events: list[Event] = []
        #: Stacked test deals (tests only): the top of hand h's deck, by hand number.
        self.stacked: dict[int, list[str]] = {}

    # ------------------------------------------------------------------ building
    @classmethod
    def deal_first(cls, players: list[str], seed: int, rules: RuleSet, *, hand_no: int = 1,
                   totals: dict[str, int] | None = None) -> ClassicMatch:
        """A match whose hand ``hand_no`` is dealt now from ``seed`` (C21)."""
        m = cls(players, rules, seed, hand_no=hand_no, totals=totals)
        m._start_hand(m.dealer, dealt=True)
        return m

    @classmethod
    def from_position(cls, players: list[str], rules: RuleSet, *, seed: int = 0,
                      hand_no: int = 1, totals: dict[str, int] | None = None,
                      table: Iterable[Iterable[str]] = (),
                      hands: dict[str, Iterable[str]] | None = None,
                      stock: Iterable[str] = (), turn: str | None = None,
                      first_turn: Iterable[str] = (), unopened: Iterable[str] = (),
                      passes: int = 0) -> ClassicMatch:
        """A match at a position of hand ``hand_no`` (the conformance format's classic
        ``start``): melds get ids 1, 2, … and must be valid; a run joker without a face takes
        C8's default; ``turn`` (default the first player) starts at t = 0. Raises
        ``ValueError`` for a face more than ``packs`` times, too many jokers, an invalid
        meld or an unknown player."""
        m = cls(players, rules, seed, hand_no=hand_no, totals=totals)
        hand = ClassicHand(rules, players, m._emit)
        copies: dict[int, int] = {}
        jokers = 0

        def take(text: str) -> tuple[int, int | None]:
            nonlocal jokers
            is_joker, face = parse_joker(text)
            if is_joker:
                if jokers >= rules.jokers:
                    raise ValueError(f"more jokers than the table's {rules.jokers}")
                jokers += 1
                return C.JOKER_BASE + jokers - 1, face
            if face is None:
                raise ValueError(f"'{text}' is not a card")
            n = copies.get(face, 0)
            if n >= rules.packs:
                raise ValueError(f"'{text}' appears more than {rules.packs} times")
            copies[face] = n + 1
            return n * C.PACK_SIZE + face, None

        if isinstance(table, str) or isinstance(stock, str) or not isinstance(hands or {}, dict) \
                or any(isinstance(h, str) for h in (hands or {}).values()) \
                or any(isinstance(t, str) for t in table):
            raise ValueError("table, hands and stock list cards (lists of cards, not text)")
        for meld in table:
            mid = hand.next_meld
            hand.next_meld += 1
            cards: list[int] = []
            for text in meld:
                card, face = take(text)
                cards.append(card)
                if C.is_joker(card):
                    hand.faces[card] = face
            if not meld_ok(cards, hand.faces, rules):
                raise ValueError(f"meld {mid} of the position is not valid: {list(meld)}")
            hand.melds[mid] = cards
            hand.faces.update(settled_faces(cards, hand.faces, rules))
        for p, texts in (hands or {}).items():
            if p not in hand.status:
                raise ValueError(f"unknown player '{p}' in hands")
            hand.hands[p] = [take(t)[0] for t in texts]
        hand.stock = [take(t)[0] for t in stock]
        named = {c for cs in hand.melds.values() for c in cs} | set(hand.stock) | {
            c for h in hand.hands.values() for c in h}
        hand.out_of_play = [c for c in C.full_deck(rules.packs, rules.jokers) if c not in named]
        for group, name in ((first_turn, "first_turn"), (unopened, "unopened")):
            for p in group:
                if p not in hand.status:
                    raise ValueError(f"unknown player '{p}' in {name}")
        hand.first_turn = set(first_turn)
        hand.unopened = set(unopened) if rules.opening > 0 else set()
        starter = players[0] if turn is None else turn
        if starter not in hand.status:
            raise ValueError(f"unknown player '{starter}' for the turn")
        if isinstance(passes, bool) or not isinstance(passes, int) or not 0 <= passes < len(
                players):
            raise ValueError(f"passes must be a whole number from 0 to {len(players) - 1}")
        hand.set_passes(passes, starter)
        m.hand = hand
        m._emit("hand_started", None, {"hand": hand_no, "dealer": m.dealer, "position": True})
        hand.begin_turn(starter, m.now_ms)
        return m

    def _next_in_match(self, after: str) -> str | None:
        n = len(self.players)
        i = self.players.index(after)
        for k in range(1, n + 1):
            p = self.players[(i + k) % n]
            if self.in_match[p]:
                return p
        return None

    def _start_hand(self, dealer: str, *, dealt: bool) -> None:
        """Deal hand ``hand_no`` (C21): ``dealer`` deals, the next seat in the match starts;
        each gets ``hand_size`` cards, the rest is the stock."""
        rules = self.rules
        seats = [p for p in self.players if self.in_match[p]]
        hand = ClassicHand(rules, seats, self._emit)
        deck = C.full_deck(rules.packs, rules.jokers)
        random.Random(f"classic:{self.seed}:{self.hand_no}").shuffle(deck)
        if self.hand_no in self.stacked:
            deck = stack_deck(deck, self.stacked[self.hand_no])
        starter = self._next_in_match(dealer) or seats[0]
        i0 = seats.index(starter)
        order = seats[i0:] + seats[:i0]
        pos = 0
        for p in order:
            hand.hands[p] = deck[pos:pos + rules.hand_size]
            pos += rules.hand_size
        hand.stock = deck[pos:]
        hand.first_turn = set(seats)
        hand.unopened = set(seats) if rules.opening > 0 else set()
        self.dealer = dealer
        self.hand = hand
        self.ready = set()
        self.pause_deadline_ms = None
        self._emit("hand_started", None, {"hand": self.hand_no, "dealer": dealer,
                                          "stock": len(hand.stock)})
        hand.begin_turn(starter, self.now_ms)

    # ------------------------------------------------------------------ the API
    def drain_events(self) -> list[Event]:
        """The events since the last drain, oldest first."""
        out, self._events = self._events, []
        return out

    def _emit(self, kind: str, player: str | None, data: dict[str, Any],
              private: dict[str, Any] | None = None) -> None:
        self.version += 1
        self._events.append(Event(self.version, sec(self.now_ms), kind, player, data,
                                  private or {}))

    def _hand_live(self) -> bool:
        return self.hand is not None and self.hand.result is None

    def turn_deadline_ms(self) -> int | None:
        """When the current turn's clock (C20) expires, or None without a clock or a turn."""
        hand = self.hand
        if hand is None or hand.result is not None or hand.turn is None:
            return None
        return hand.turn_deadline_ms

    def turn_ends_ms(self) -> int | None:
        """When the current turn ends by a clock: the earlier of the turn clock (C20) and the
        absence clock of its player (C31), or None."""
        best = self.turn_deadline_ms()
        hand = self.hand
        away = None if hand is None or hand.turn is None else self.leave_deadlines().get(hand.turn)
        if away is not None and (best is None or away < best):
            best = away
        return best

    def _next_clock(self) -> tuple[int, int] | None:
        """(when, kind): 0 the turn clock, 1 absences, 2 the pause."""
        best: tuple[int, int] | None = None
        hand = self.hand
        if hand is not None and hand.result is None and hand.turn_deadline_ms is not None:
            best = (hand.turn_deadline_ms, 0)
        aways = self.leave_deadlines()
        if aways:
            c = (min(aways.values()), 1)
            best = c if best is None or c < best else best
        if self.pause_deadline_ms is not None:
            c = (self.pause_deadline_ms, 2)
            best = c if best is None or c < best else best
        return best

    def next_deadline(self) -> float | None:
        """Seconds since the match began of the next clock to fire, or None."""
        due = self._next_clock()
        return None if due is None else sec(due[0])

    def tick(self, now: float) -> None:
        """Fire, earliest first, every clock due at or before ``now`` (seconds): a command at
        a deadline is too late. Time never goes back."""
        now_ms = max(ms(now), self.now_ms)
        for _ in range(10_000):
            due = self._next_clock()
            if due is None or due[0] > now_ms:
                break
            self.now_ms = max(self.now_ms, due[0])
            if due[1] == 0 and self.hand is not None:
                self._emit("turn_timeout", self.hand.turn, {})
                self.hand.expire(self.now_ms)
                self._after_hand_change()
            elif due[1] == 1:
                self._fire_absences(due[0])
            else:
                self._deal()
        self.now_ms = now_ms

    def apply(self, cmd: ClassicCommand, now: float) -> dict[str, int]:
        """Fire the clocks due by ``now``, then carry out ``cmd``: a turn command (C13–C15),
        a connection event or leaving (C31), ``ready`` or ``deal``. Returns what it made
        (``{"meld": id}`` for a new meld). Raises :class:`Refused` having changed nothing."""
        self.tick(now)
        if cmd.do not in TURN_COMMANDS and cmd.do not in MATCH_COMMANDS:
            raise InvalidCommand("bad_command", f"Unknown command '{cmd.do}'.")
        if cmd.do == "deal":
            self.deal_next()
            return {}
        if cmd.player not in self.totals:
            raise InvalidCommand("unknown_player", f"There is no player '{cmd.player}' at this table.")
        absent = self.in_match[cmd.player] and not self.connected[cmd.player]
        if cmd.do in MATCH_COMMANDS:
            if self.over and cmd.do in ("ready", "leave_game"):
                raise IllegalCommand("game_over")
            if absent and cmd.do not in ("reconnect", "disconnect"):
                # C31 (a), turn 3: an absent player's commands but reconnect are refused,
                # leave and leave_game included (absence leaves by its own clock).
                raise IllegalCommand("disconnected")
            getattr(self, "_cmd_" + cmd.do)(cmd)
            return {}
        hand = self.hand
        if hand is None or hand.result is not None:
            raise IllegalCommand("hand_over")
        if not self.in_match[cmd.player]:
            raise IllegalCommand("not_in_game")
        if absent:
            raise IllegalCommand("disconnected")
        made = hand.play(cmd, self.now_ms)
        self._after_hand_change()
        return made

    def deal_next(self) -> None:
        """Deal the next hand now (the scenario's ``deal`` step): refused with ``game_over``
        once the match is over, ``hand_not_over`` while a hand is played (C29)."""
        if self.over:
            raise IllegalCommand("game_over")
        if self._hand_live():
            raise IllegalCommand("hand_not_over")
        self._deal()

    def _deal(self) -> None:
        """The next hand (C21, C31): players absent now leave the match; the deal moves to the
        next seat still in it."""
        if self.over:
            self.pause_deadline_ms = None
            return
        for p in self.players:
            if self.in_match[p] and not self.connected[p]:
                self.in_match[p] = False
                self._emit("left_match", p, {"absent": True})
        if self._end_match_if_too_few():
            return
        dealer = self._next_in_match(self.dealer)
        if dealer is None:  # _end_match_if_too_few left two or more in the match
            raise EngineFault("no seat left in the match to deal")
        self.hand_no += 1
        self._start_hand(dealer, dealt=True)

    def _end_match_if_too_few(self) -> bool:
        left = [p for p in self.players if self.in_match[p]]
        if len(left) >= 2:
            return False
        self._match_over("left")
        return True

    # ------------------------------------------------------------------ hands and the match
    def _after_hand_change(self) -> None:
        """After a command or a clock: a hand that just ended is scored (C26) and the match's
        end is judged (C27); otherwise the pause starts (C31, R21)."""
        hand = self.hand
        if hand is None or hand.result is None or hand.result is self.last_result:
            return
        res = hand.result
        self.last_result = res
        for p, s in res.scores.items():
            self.totals[p] += s
        if self._match_ends(res):
            self._match_over("end")
        elif not self._end_match_if_too_few():
            self.pause_deadline_ms = self.now_ms + ms(self.rules.pause)
            self.ready = set()

    def _match_ends(self, res: HandResult) -> bool:
        """C27's conditions after hand ``hand_no``, over the players still in the match."""
        r = self.rules
        live = {p: v for p, v in self.totals.items() if self.in_match[p]}
        if r.max_hands is not None and self.hand_no >= r.max_hands:
            return True
        if r.match is MatchEnd.SINGLE:
            return True
        if r.match is MatchEnd.DEALS:
            return self.hand_no >= r.deals
        if r.match is MatchEnd.THRESHOLD:
            return any(v > r.threshold for v in live.values())
        top = max(live.values(), default=0)
        return top >= r.target and list(live.values()).count(top) == 1

    def _match_over(self, why: str) -> None:
        """C27, C28: the best total among those still in the match wins; a tie, nobody.
        Under ``single``, the hand's winner."""
        self.over = True
        self.pause_deadline_ms = None
        live = {p: v for p, v in self.totals.items() if self.in_match[p]}
        winner: str | None = None
        if self.rules.match is MatchEnd.SINGLE and why == "end" and self.last_result:
            winner = self.last_result.winner
        elif live:
            low = self.rules.scoring is Scoring.PENALTY
            best = min(live.values()) if low else max(live.values())
            tops = [p for p, v in live.items() if v == best]
            winner = tops[0] if len(tops) == 1 else None
        self.winner = winner
        self._emit("match_over", winner, {"totals": dict(self.totals), "why": why})


def stack_deck(deck: list[int], top: Iterable[str]) -> list[int]:
    """``deck`` with the cards named by ``top`` (faces, ``JK`` any joker) moved to its top in
    that order, the rest after them as shuffled (a stacked test deal of a later hand: dealt
    ``hand_size`` each from the starter on, the rest the stock). Raises ``ValueError`` for a
    face the deck no longer holds."""
    rest = list(deck)
    out: list[int] = []
    for text in top:
        is_joker, face = parse_joker(text)
        k = next((i for i, c in enumerate(rest)
                  if (C.is_joker(c) if is_joker else not C.is_joker(c) and c % C.PACK_SIZE == face)),
                 None)
        if k is None:
            raise ValueError(f"the deck holds no more '{text}'")
        out.append(rest.pop(k))
    return out + rest
