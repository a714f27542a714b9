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
from dataclasses import dataclass, field
from typing import Any, Literal

from . import cards as C
from . import judging as J
from .errors import EngineFault, Refused
from .melds import display_order, is_valid, run_order
from .rules import MACHIAVELOX, RuleSet

# Where a card is. ("hand", p) ("staging", p) ("stock", p) ("meld", id) ("removed",) ("out",)
Loc = tuple[Any, ...]

PlayStatus = Literal["open", "confirmed", "final", "fallen", "void"]
PlayerStatus = Literal["active", "eliminated", "left"]

COMMANDS = (
    "draw", "stage", "unstage", "lay", "add", "take", "drop", "move", "place",
    "end", "cancel", "stop", "give_up", "leave", "disconnect", "reconnect",
)


@dataclass(frozen=True)
class Command:
    """A player's command (R6). Cards are faces in R1 notation; melds are ids.

    ``to`` is a meld id or ``"new"`` (drop, move). Unused fields stay ``None``.
    """

    player: str
    do: str
    card: str | None = None
    cards: tuple[str, ...] | None = None
    meld: int | None = None
    to: int | str | None = None


@dataclass
class Event:
    """Something that happened, for the log and for the views.

    ``t`` is seconds since the hand began; ``seq`` counts events from 1 (the
    version number). ``data`` holds only strings, numbers, lists and None.
    ``private`` holds what only ``player`` may see (the card they drew).
    """

    seq: int
    t: float
    kind: str
    player: str | None
    data: dict[str, Any]
    private: dict[str, Any] = field(default_factory=dict)

    def as_dict(self, *, with_private: bool = True) -> dict[str, Any]:
        d: dict[str, Any] = {"seq": self.seq, "t": self.t, "kind": self.kind, "player": self.player}
        d.update(self.data)
        if with_private:
            d.update(self.private)
        return d


@dataclass(eq=False)
class Action:
    """One card changing place (R6)."""

    seq: int
    play: int
    player: str
    kind: Literal["own", "move", "split"]
    card: int
    src: Loc
    dst: int
    owner: str | None  # own cards: whose hand the card goes back to
    lay: bool = False
    undone: bool = False
    final: bool = False

    def touches(self) -> tuple[int, ...]:
        if self.src[0] == "meld":
            return (self.src[1], self.dst)
        return (self.dst,)


@dataclass(eq=False)
class Play:
    """A play (§5, R7): numbered from 1 in the order plays open."""

    id: int
    player: str
    opened_ms: int
    deadline_ms: int | None
    status: PlayStatus = "open"
    staged_ever: bool = False
    suspended_ms: int | None = None  # time left when a freeze suspended it
    in_freeze: bool = False  # the Stop! caller's play during their freeze
    actions: list[Action] = field(default_factory=list)
    deps: set[int] = field(default_factory=set)
    confirmed_ms: int | None = None
    confirmed_order: int | None = None  # 1, 2, … in the order plays were confirmed (R15)

    def standing(self) -> list[Action]:
        return [a for a in self.actions if not a.undone]

    def own_down(self) -> bool:
        return any(a.kind == "own" and not a.undone for a in self.actions)


@dataclass(eq=False)
class Hold:
    """A held table card (§6, R12)."""

    player: str
    card: int
    meld: int
    deadline_ms: int


@dataclass
class PlayerState:
    name: str
    status: PlayerStatus = "active"
    connected: bool = True
    absence_deadline_ms: int | None = None
    absence_waiting: bool = False  # disconnected, but the count does not run now (R18)
    drew: bool = False
    laid: bool = False  # met before the hand, or a surviving lay (R15)
    stop_used: bool = False
    play: int | None = None
    pending_draws: int = 0


@dataclass
class Freeze:
    """A Stop! freeze (§9, R16)."""

    caller: str
    started_ms: int
    deadline_ms: int
    marker: int  # first action seq of the freeze
    inactivity_left_ms: int | None


@dataclass
class Tiebreak:
    """A tie-break (§10.2, R19)."""

    players: list[str]
    deadline_ms: int
    candidates: list[int] = field(default_factory=list)  # plays, in confirmation order


@dataclass
class Result:
    """How the hand ended (§8–§12, R20).

    ``end``: ``out``, ``silence``, ``tiebreak``, ``draw``, ``survivor`` or
    ``abandoned``; ``winner`` is None for a draw or an abandoned hand.
    """

    end: str
    winner: str | None
    scores: dict[str, int]
    reasons: dict[str, str]
    #: Each score's terms, so a client can show and translate them: keys among
    #: ``base``, ``stock`` (negative), ``opponents``, ``bonus``, ``pile`` (negative,
    #: a draw), ``floor`` (what lifts a draw to −15), ``pile_from_others``, ``outside``
    #: (tie-break), ``penalty`` (negative). The terms add up to the score.
    breakdown: dict[str, dict[str, int]] = field(default_factory=dict)


def _remove_newest(items: list[Action] | None, a: Action) -> None:
    """Remove ``a`` (by identity) from ``items``, searching from the newest end."""
    if not items:
        return
    for i in range(len(items) - 1, -1, -1):
        if items[i] is a:
            del items[i]
            return


def _ms(seconds: float) -> int:
    return int(round(seconds * 1000))


def _sec(ms: int) -> float:
    return ms / 1000


# R23's order for clocks due at the same instant.
_HOLD, _PLAY, _FREEZE, _ABSENCE, _TIEBREAK, _INACTIVITY = range(6)


class Hand:
    """One hand of Machiavelox. Build it with :meth:`deal` or :meth:`from_position`."""

    def __init__(self, players: list[str], rules: RuleSet = MACHIAVELOX) -> None:
        if len(players) != len(set(players)) or not players:
            raise ValueError("players must be distinct names")
        self.rules = rules
        self.players: dict[str, PlayerState] = {p: PlayerState(p) for p in players}
        self.order = list(players)
        self.hands: dict[str, list[int]] = {p: [] for p in players}
        self.staging: dict[str, list[int]] = {p: [] for p in players}
        self.stocks: dict[str, list[int]] = {p: [] for p in players}
        self.melds: dict[int, list[int]] = {}
        self.removed: list[int] = []
        self.loc: dict[int, Loc] = {}
        self.arrival: dict[int, int] = {}
        self._arrivals = 0
        self.next_meld = 1
        self.plays: dict[int, Play] = {}
        self._open: list[int] = []  # open play ids in opening order
        self._unfinal: list[int] = []  # confirmed, not final, in confirmation order
        self.actions: list[Action] = []
        self._action_seq = 0
        self.card_stack: dict[int, list[Action]] = {}
        self.meld_log: dict[int, list[Action]] = {}
        self._dependents: dict[int, set[int]] = {}
        self.holds: dict[str, Hold] = {}
        self.reserved: dict[int, int] = {}  # card -> play id (ping-pong, R13)
        self._pp: dict[int, tuple[set[int], int, set[str]]] = {}  # card -> (melds, returns, movers)
        self.freeze: Freeze | None = None
        self.tiebreak: Tiebreak | None = None
        self.result: Result | None = None
        self.now_ms = 0
        self.inactivity_deadline_ms: int | None = _ms(rules.inactivity)
        self.seed: int | None = None
        self._events: list[Event] = []
        self.version = 0
        self._chain_touched = False
        # Whose hand a card in a staging area goes back to (the tie-break pile, R19).
        self._pile_owner: dict[int, str] = {}
        self._confirmations = 0

    # ------------------------------------------------------------------ building

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
            mid = hand.next_meld
            hand.next_meld += 1
            hand.melds[mid] = []
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

    # ------------------------------------------------------------------ public API

    def drain_events(self) -> list[Event]:
        """The events since the last drain, oldest first."""
        out, self._events = self._events, []
        return out

    def next_deadline(self) -> float | None:
        """Seconds since the hand began of the next clock to fire, or None."""
        due = self._next_clock()
        return None if due is None else _sec(due[0])

    def tick(self, now: float) -> None:
        """Fire, earliest first and in R23's order, every clock due at or before
        ``now`` (seconds since the hand began). Time never goes back: a ``now``
        before the last one is treated as the last one."""
        now_ms = max(_ms(now), self.now_ms)
        while self.result is None:
            due = self._next_clock()
            if due is None or due[0] > now_ms:
                break
            self.now_ms = max(self.now_ms, due[0])
            self._fire(due)
            self._settle()
        self.now_ms = now_ms

    def apply(self, cmd: Command, now: float) -> None:
        """Fire the clocks due by ``now``, then carry out ``cmd`` (R6).

        Raises :class:`Refused` (code and sentence) when the rules do not allow
        it: then the command changed nothing (R6; a refused drop still ends the
        hold, R12). Clock events fired before the refusal stay in the outbox.
        """
        self.tick(now)
        if cmd.do not in COMMANDS:
            raise Refused("bad_command", f"Unknown command '{cmd.do}'.")
        if self.result is not None:
            raise Refused("hand_over")
        ps = self.players.get(cmd.player)
        if ps is None:
            raise Refused("unknown_player", f"There is no player '{cmd.player}' at this table.")
        getattr(self, "_cmd_" + cmd.do)(ps, cmd)
        self._settle()

    # ------------------------------------------------------------------ queries

    def table(self) -> dict[int, list[int]]:
        """Melds on the table: id → cards (physical ids), in id order."""
        return {m: cs for m, cs in self.melds.items() if cs}

    def open_players(self) -> list[str]:
        return [self.plays[pid].player for pid in self._open]

    def active(self) -> list[str]:
        return [p for p in self.order if self.players[p].status == "active"]

    def count_in_hand(self, p: str) -> int:
        return len(self.hands[p]) + len(self.staging[p])

    def on_trial(self, card: int) -> bool:
        """True when the card's latest move belongs to a play still open (§5.4)."""
        st = self.card_stack.get(card)
        return st is not None and bool(st) and self.plays[st[-1].play].status == "open"

    # ------------------------------------------------------------------ card moves

    def _put(self, card: int, loc: Loc) -> None:
        kind = loc[0]
        if kind == "hand":
            self.hands[loc[1]].append(card)
        elif kind == "staging":
            self.staging[loc[1]].append(card)
        elif kind == "stock":
            self.stocks[loc[1]].append(card)
        elif kind == "meld":
            self.melds.setdefault(loc[1], []).append(card)
        elif kind == "removed":
            self.removed.append(card)
        self.loc[card] = loc
        self._arrivals += 1
        self.arrival[card] = self._arrivals

    def _remove(self, card: int) -> None:
        loc = self.loc[card]
        kind = loc[0]
        if kind == "hand":
            self.hands[loc[1]].remove(card)
        elif kind == "staging":
            self.staging[loc[1]].remove(card)
        elif kind == "stock":
            self.stocks[loc[1]].remove(card)
        elif kind == "meld":
            meld = self.melds[loc[1]]
            meld.remove(card)
            if not meld:  # a meld that loses its last card is gone (R2)
                del self.melds[loc[1]]
        elif kind == "removed":
            self.removed.remove(card)

    def _move_card(self, card: int, loc: Loc) -> None:
        self._remove(card)
        self._put(card, loc)

    def _find(self, pool: list[int], face_text: str | None) -> int | None:
        """R1: the card of that face in ``pool`` that arrived there last."""
        if face_text is None:
            raise Refused("bad_card", "Name a card, like 10H or QS.")
        try:
            face = C.parse_face(face_text)
        except C.NotationError as e:
            raise Refused("bad_card", str(e)) from None
        best = None
        for c in pool:
            if C.face_of(c) == face and (best is None or self.arrival[c] > self.arrival[best]):
                best = c
        return best

    def _hand_pool(self, p: str) -> list[int]:
        """The cards ``p`` may play from: their hand, or in a tie-break the pile (R19)."""
        if self.tiebreak is not None and p in self.tiebreak.players:
            return [c for q in self.tiebreak.players for c in self.hands[q]]
        return self.hands[p]

    def _owner_of(self, card: int, default: str) -> str:
        loc = self.loc[card]
        if loc[0] == "hand":
            return str(loc[1])
        return self._pile_owner.get(card, default)


    # ------------------------------------------------------------------ events

    def _emit(self, kind: str, player: str | None, data: dict[str, Any],
              private: dict[str, Any] | None = None) -> None:
        self.version += 1
        self._events.append(Event(self.version, _sec(self.now_ms), kind, player, data, private or {}))

    # ------------------------------------------------------------------ guards

    def _guard_player(self, ps: PlayerState, *, freeze_ok: bool = False) -> None:
        if ps.status != "active":
            raise Refused("out_of_hand")
        if not ps.connected:
            raise Refused("disconnected")
        if self.tiebreak is not None and ps.name not in self.tiebreak.players:
            raise Refused("not_in_tiebreak")
        if self.freeze is not None and self.freeze.caller != ps.name and not freeze_ok:
            raise Refused("frozen")

    def _is_caller(self, p: str) -> bool:
        return self.freeze is not None and self.freeze.caller == p

    def _meld(self, mid: int | None) -> list[int]:
        if not isinstance(mid, int) or isinstance(mid, bool) or not self.melds.get(mid):
            raise Refused("no_such_meld", f"There is no meld {mid} on the table.")
        return self.melds[mid]

    def _current_play(self, ps: PlayerState) -> Play | None:
        return self.plays[ps.play] if ps.play is not None else None

    def _open_play(self, ps: PlayerState) -> Play:
        play = self._current_play(ps)
        if play is not None:
            return play
        pid = len(self.plays) + 1
        in_freeze = self._is_caller(ps.name)
        deadline = None if in_freeze else self.now_ms + _ms(self.rules.play)
        play = Play(pid, ps.name, self.now_ms, deadline, in_freeze=in_freeze)
        self.plays[pid] = play
        self._open.append(pid)
        ps.play = pid
        self._emit("play_opened", ps.name, {
            "play": pid, "deadline": None if deadline is None else _sec(deadline)})
        return play

    # ------------------------------------------------------------------ commands

    def _cmd_draw(self, ps: PlayerState, cmd: Command) -> None:
        self._guard_player(ps)
        if self.staging[ps.name]:
            raise Refused("staging_not_empty", "You cannot draw while your staging area holds cards.")
        if not self.stocks[ps.name]:
            raise Refused("stock_empty")
        card = self.stocks[ps.name][0]
        self._move_card(card, ("hand", ps.name))
        ps.drew = True
        self._restart_inactivity()
        self._emit("drew", ps.name, {"stock": len(self.stocks[ps.name])}, {"card": C.name(card)})

    def _cmd_stage(self, ps: PlayerState, cmd: Command) -> None:
        self._guard_player(ps)
        card = self._find(self._hand_pool(ps.name), cmd.card)
        if card is None:
            raise Refused("card_not_in_hand", f"{cmd.card} is not in your hand.")
        owner = self._owner_of(card, ps.name)
        play = self._open_play(ps)
        play.staged_ever = True
        self._pile_owner[card] = owner
        self._move_card(card, ("staging", ps.name))
        self._emit("staged", ps.name, {"play": play.id, "card": C.name(card), "owner": owner})

    def _cmd_unstage(self, ps: PlayerState, cmd: Command) -> None:
        self._guard_player(ps)
        card = self._find(self.staging[ps.name], cmd.card)
        if card is None:
            raise Refused("card_not_staged", f"{cmd.card} is not in your staging area.")
        owner = self._pile_owner.pop(card, ps.name)
        self._move_card(card, ("hand", owner))
        self._emit("unstaged", ps.name, {"card": C.name(card), "owner": owner})
        play = self._current_play(ps)
        if play is not None and not self.staging[ps.name]:
            self._end_play(play, "staging_empty")

    def _cmd_lay(self, ps: PlayerState, cmd: Command) -> None:
        self._guard_player(ps)
        faces = list(cmd.cards or ())
        if len(faces) < 3:
            raise Refused("too_few_cards")
        pool = list(self.staging[ps.name])
        chosen: list[int] = []
        for f in faces:
            c = self._find(pool, f)
            if c is None:
                raise Refused("card_not_staged", f"{f} is not in your staging area.")
            pool.remove(c)
            chosen.append(c)
        if not is_valid(chosen, self.rules):
            raise Refused("invalid_meld", f"{' '.join(faces)} is not a valid run or set.")
        play = self._current_play(ps)
        assert play is not None
        mid = self.next_meld
        self.next_meld += 1
        self.melds[mid] = []
        for c in chosen:
            self._record(play, "own", c, ("staging", ps.name), mid,
                         owner=self._pile_owner.pop(c, ps.name), lay=True)
        self._emit("laid", ps.name, {"play": play.id, "meld": mid, "cards": C.names(chosen)})
        if not self.staging[ps.name]:
            self._end_play(play, "staging_empty")

    def _cmd_add(self, ps: PlayerState, cmd: Command) -> None:
        self._guard_player(ps)
        if self.staging[ps.name]:
            raise Refused("staging_not_empty",
                          "Your staging area holds cards: place them, or take them back, first.")
        card = self._find(self._hand_pool(ps.name), cmd.card)
        if card is None:
            raise Refused("card_not_in_hand", f"{cmd.card} is not in your hand.")
        self._meld(cmd.meld)
        assert cmd.meld is not None
        owner = self._owner_of(card, ps.name)
        play = self._open_play(ps)
        self._record(play, "own", card, ("hand", owner), cmd.meld, owner=owner)
        self._emit("added", ps.name, {"play": play.id, "card": C.name(card), "meld": cmd.meld})

    def _cmd_place(self, ps: PlayerState, cmd: Command) -> None:
        self._guard_player(ps)
        card = self._find(self.staging[ps.name], cmd.card)
        if card is None:
            raise Refused("card_not_staged", f"{cmd.card} is not in your staging area.")
        if cmd.meld == "new" or cmd.to == "new":  # type: ignore[comparison-overlap]
            raise Refused("place_needs_meld")
        self._meld(cmd.meld)
        assert cmd.meld is not None
        play = self._current_play(ps)
        assert play is not None
        self._record(play, "own", card, ("staging", ps.name), cmd.meld,
                     owner=self._pile_owner.pop(card, ps.name))
        self._emit("placed", ps.name, {"play": play.id, "card": C.name(card), "meld": cmd.meld})
        if not self.staging[ps.name]:
            self._end_play(play, "staging_empty")

    def _check_take(self, ps: PlayerState, face: str | None, mid: int | None) -> int:
        caller = self._is_caller(ps.name)
        if not caller and not self.staging[ps.name]:
            raise Refused("not_declared")
        if ps.name in self.holds:
            raise Refused("already_holding")
        meld = self._meld(mid)
        card = self._find(meld, face)
        if card is None:
            raise Refused("card_not_in_meld", f"{face} is not in meld {mid}.")
        for h in self.holds.values():
            if h.card == card:
                raise Refused("held")
        res = self.reserved.get(card)
        if res is not None and not caller and self.plays[res].player != ps.name:
            raise Refused("reserved")
        return card

    def _cmd_take(self, ps: PlayerState, cmd: Command) -> None:
        self._guard_player(ps)
        card = self._check_take(ps, cmd.card, cmd.meld)
        assert cmd.meld is not None
        play = self._open_play(ps)
        deadline = self.now_ms + _ms(self.rules.hold)
        self.holds[ps.name] = Hold(ps.name, card, cmd.meld, deadline)
        self._emit("took", ps.name, {"play": play.id, "card": C.name(card), "meld": cmd.meld,
                                      "until": _sec(deadline)})

    def _drop_target(self, to: int | str | None, src: int) -> int | None:
        if to == "new":
            return None
        if not isinstance(to, int) or isinstance(to, bool) or not self.melds.get(to):
            raise Refused("no_such_meld", f"There is no meld {to} on the table.")
        if to == src:
            raise Refused("same_meld")
        return to

    def _cmd_drop(self, ps: PlayerState, cmd: Command) -> None:
        self._guard_player(ps)
        hold = self.holds.get(ps.name)
        if hold is None:
            raise Refused("not_holding")
        try:
            dst = self._drop_target(cmd.to, hold.meld)
        except Refused:
            self._release(ps.name, "dropped_back")  # R12: it drops back by itself
            raise
        del self.holds[ps.name]
        play = self._current_play(ps)
        assert play is not None
        self._do_move(play, hold.card, hold.meld, dst)

    def _cmd_move(self, ps: PlayerState, cmd: Command) -> None:
        self._guard_player(ps)
        card = self._check_take(ps, cmd.card, cmd.meld)
        assert cmd.meld is not None
        dst = self._drop_target(cmd.to, cmd.meld)
        play = self._open_play(ps)
        self._do_move(play, card, cmd.meld, dst)

    def _do_move(self, play: Play, card: int, src: int, dst: int | None) -> None:
        if dst is None:
            dst = self.next_meld
            self.next_meld += 1
            self.melds[dst] = []
        self._record(play, "move", card, ("meld", src), dst, owner=None)
        self._emit("moved", play.player, {"play": play.id, "card": C.name(card), "from": src, "to": dst})
        self._ping_pong(play, card, src, dst)

    def _cmd_end(self, ps: PlayerState, cmd: Command) -> None:
        self._guard_player(ps)
        play = self._current_play(ps)
        if play is None:
            raise Refused("no_open_play")
        self._end_play(play, "end")

    def _cmd_cancel(self, ps: PlayerState, cmd: Command) -> None:
        self._guard_player(ps)
        play = self._current_play(ps)
        if play is None:
            raise Refused("no_open_play")
        self._end_play(play, "cancel")

    def _cmd_stop(self, ps: PlayerState, cmd: Command) -> None:
        if ps.status != "active":
            raise Refused("out_of_hand")
        if not ps.connected:
            raise Refused("disconnected")
        if self.tiebreak is not None:
            raise Refused("tiebreak")
        if self.freeze is not None:
            raise Refused("frozen" if self.freeze.caller != ps.name else "no_stop_now")
        if ps.stop_used:
            raise Refused("stop_used")
        ps.stop_used = True
        for p in list(self.holds):
            self._release(p, "stop")
        left = None
        if self.inactivity_deadline_ms is not None:
            left = max(0, self.inactivity_deadline_ms - self.now_ms)
        self.freeze = Freeze(ps.name, self.now_ms, self.now_ms + _ms(self.rules.freeze),
                             self._action_seq + 1, left)
        self.inactivity_deadline_ms = None
        for pid in self._open:
            play = self.plays[pid]
            if play.player == ps.name:
                play.in_freeze = True
                play.deadline_ms = None
            elif play.deadline_ms is not None:
                play.suspended_ms = play.deadline_ms - self.now_ms
                play.deadline_ms = None
        for q in self.players.values():
            if q.name != ps.name and q.absence_deadline_ms is not None:
                q.absence_deadline_ms = None
                q.absence_waiting = True
        self._emit("stop", ps.name, {"until": _sec(self.freeze.deadline_ms)})

    def _cmd_give_up(self, ps: PlayerState, cmd: Command) -> None:
        if ps.status != "active":
            raise Refused("out_of_hand")
        if not ps.connected:
            raise Refused("disconnected")
        if not self._is_caller(ps.name):
            raise Refused("not_stop_caller")
        self._fail_freeze("gave_up")

    def _cmd_leave(self, ps: PlayerState, cmd: Command) -> None:
        # R16, R19: frozen players and players outside a tie-break may only come and go.
        self._guard_player(ps)
        self._depart([ps.name], "leave")

    def _cmd_disconnect(self, ps: PlayerState, cmd: Command) -> None:
        if not ps.connected:
            raise Refused("disconnected")
        ps.connected = False
        self._emit("disconnected", ps.name, {})
        if ps.status == "active":
            self._start_absence(ps)

    def _cmd_reconnect(self, ps: PlayerState, cmd: Command) -> None:
        if ps.connected:
            raise Refused("connected")
        ps.connected = True
        ps.absence_deadline_ms = None
        ps.absence_waiting = False
        self._emit("reconnected", ps.name, {})

    # ------------------------------------------------------------------ absence (R18)

    def _absence_counts(self, p: str) -> bool:
        if self.freeze is not None and self.freeze.caller != p:
            return False
        if self.tiebreak is not None and p not in self.tiebreak.players:
            return False
        return True

    def _start_absence(self, ps: PlayerState) -> None:
        if self._absence_counts(ps.name):
            ps.absence_deadline_ms = self.now_ms + _ms(self.rules.absence)
            ps.absence_waiting = False
            self._emit("absence_started", ps.name, {"until": _sec(ps.absence_deadline_ms)})
        else:
            ps.absence_deadline_ms = None
            ps.absence_waiting = True

    def _restart_waiting_absences(self) -> None:
        for ps in self.players.values():
            if ps.status == "active" and not ps.connected and ps.absence_waiting:
                self._start_absence(ps)

    # ------------------------------------------------------------------ actions

    def _record(self, play: Play, kind: Literal["own", "move", "split"], card: int, src: Loc,
                dst: int, *, owner: str | None, lay: bool = False) -> Action:
        self._action_seq += 1
        a = Action(self._action_seq, play.id, play.player, kind, card, src, dst, owner, lay)
        self._move_card(card, ("meld", dst))
        play.actions.append(a)
        self.actions.append(a)
        self.card_stack.setdefault(card, []).append(a)
        for m in a.touches():
            self.meld_log.setdefault(m, []).append(a)
        return a

    def _undo(self, a: Action, cause: int, hits: dict[str, list[str]]) -> None:
        """Undo one action and, first, everything that depends on it (R10)."""
        if a.undone:
            return
        stack = self.card_stack[a.card]
        while stack and stack[-1] is not a:
            later = stack[-1]
            lp = self.plays[later.play]
            if lp.status in ("confirmed", "final"):
                self._fall(lp, cause, hits)
            else:
                self._undo(later, cause, hits)
            if a.undone:
                # Undoing what came later reached this action too (a meld edge back
                # into its own play): it is already done.
                return
            if stack and stack[-1] is later and not later.undone:
                raise EngineFault(f"undoing action {later.seq} left it standing")
        if stack and stack[-1] is a:
            stack.pop()
        a.undone = True
        self._chain_touched = True
        for m in a.touches():
            _remove_newest(self.meld_log.get(m), a)
        held_by = next((p for p, h in self.holds.items() if h.card == a.card), None)
        if a.kind == "own":
            if a.owner is None:
                raise EngineFault(f"own action {a.seq} has no owner")
            back: Loc = ("hand", a.owner)
            self._move_card(a.card, back)
            if a.owner != self.plays[cause].player or a.play != cause:
                hits.setdefault(a.owner, []).append(C.name(a.card))
        else:
            self._move_card(a.card, a.src)
        self._emit("undone", a.player, {
            "play": a.play, "card": C.name(a.card), "cause": cause,
            "to": "hand" if a.kind == "own" else a.src[1],
            "owner": a.owner if a.kind == "own" else None,
            "held_by": held_by if a.kind != "own" else None,
        })
        if held_by is not None:
            # R12: an undo that moves a held card to another meld leaves it held there;
            # one that sends it to a hand ends the hold.
            if a.kind == "own":
                self._release(held_by, "undone")
            else:
                self.holds[held_by].meld = a.src[1]
        for pid in sorted(self._dependents.pop(a.seq, ())):
            dp = self.plays[pid]
            if dp.status in ("confirmed", "final"):
                self._fall(dp, cause, hits)

    def _fall(self, play: Play, cause: int, hits: dict[str, list[str]]) -> None:
        """A confirmed play reached by a chain falls whole (R10)."""
        if play.status == "fallen":
            return
        play.status = "fallen"
        if play.id in self._unfinal:
            self._unfinal.remove(play.id)
        self._emit("play_fallen", play.player, {"play": play.id, "cause": cause})
        for a in reversed(play.actions):
            if not a.undone:
                self._undo(a, cause, hits)
        hits.setdefault(play.player, [])

    def _notify(self, cause: int, hits: dict[str, list[str]]) -> None:
        """§5.5's notice: which failed play sent which cards back to whom."""
        cp = self.plays[cause]
        for p, cards in hits.items():
            if p == cp.player and not cards:
                continue
            self._emit("chain_undo", p, {"cause": cause, "cause_player": cp.player,
                                         "cards_back": cards})

    # ------------------------------------------------------------------ judging (R8)

    def _judge_meld(self, mid: int, pid: int) -> tuple[bool, list[Action], list[Action]]:
        """Judge meld ``mid`` for play ``pid`` (R8), by the order of actions (``engine.judging``).

        Returns (in order, the actions it depends on, the actions it must wait for).
        The last are confirmed-but-not-final actions that hold the meld up only
        jointly (none needed alone, R8(b), but the meld falls without all of them):
        the play is not final until their plays are (R11), and if they fall the
        R10 sweep judges it again (``docs/rules.md`` 5.1).
        """
        log = self.meld_log.get(mid, ())
        others: list[Action] = []
        unsafe: list[Action] = []
        cands: dict[int, None] = dict.fromkeys(self.melds.get(mid, ()))
        for a in log:
            if a.undone:
                continue
            cands[a.card] = None
            if a.play == pid:
                continue
            status = self.plays[a.play].status
            if status == "open":
                others.append(a)
            elif status == "confirmed":
                unsafe.append(a)
        put_back = J.smallest_put_back(mid, cands, self.card_stack, self.loc, others, self.rules)
        if put_back is None:
            return False, [], []
        taken = set(others).difference(put_back)

        def valid_without(extra: Iterable[Action]) -> bool:
            cards = J.judged_cards(mid, cands, self.card_stack, self.loc, taken.union(extra))
            return J.valid_or_empty(cards, self.rules)

        deps: list[Action] = list(put_back)
        deps.extend(a for a in unsafe if not valid_without((a,)))
        waits: list[Action] = []
        if len(unsafe) > 1 and not valid_without(unsafe):
            waits = [a for a in unsafe if a not in deps]
        return True, deps, waits

    def _touched(self, play: Play) -> list[int]:
        seen: dict[int, None] = {}
        for a in play.actions:
            if not a.undone:
                for m in a.touches():
                    seen[m] = None
        return list(seen)

    def _judge(self, play: Play) -> tuple[list[int], list[Action], list[Action]]:
        """(wounded melds, actions depended on, actions waited for) of a play (R8)."""
        wounded: list[int] = []
        deps: list[Action] = []
        waits: list[Action] = []
        for m in self._touched(play):
            ok, d, w = self._judge_meld(m, play.id)
            if ok:
                deps.extend(d)
                waits.extend(w)
            else:
                wounded.append(m)
        return wounded, deps, waits

    # ------------------------------------------------------------------ ending a play

    def _end_play(self, play: Play, reason: str) -> None:
        """End and judge a play (R7–R10). ``reason``: staging_empty, end, cancel,
        timeout, auto (direct play in order), left, hand_end, eliminated."""
        if play.status != "open":
            return
        ps = self.players[play.player]
        while ps.pending_draws and self.stocks[ps.name]:
            ps.pending_draws -= 1
            card = self.stocks[ps.name][0]
            self._move_card(card, ("hand", ps.name))
            ps.drew = True
            self._emit("forced_draw", ps.name, {"deferred": True, "stock": len(self.stocks[ps.name])},
                       {"card": C.name(card)})
        ps.pending_draws = 0
        self._release(ps.name, "play_ended")
        hits: dict[str, list[str]] = {}
        fell: list[str] = []
        if reason == "cancel":
            for a in reversed(play.actions):
                if not a.undone:
                    fell.append(C.name(a.card))
                    self._undo(a, play.id, hits)
        else:
            while True:
                wounded = self._judge(play)[0]
                if not wounded:
                    break
                ws = set(wounded)
                for a in reversed(play.actions):
                    if not a.undone and ws.intersection(a.touches()):
                        fell.append(C.name(a.card))
                        self._undo(a, play.id, hits)
            if play.staged_ever and not play.in_freeze and not play.own_down():
                for a in reversed(play.actions):
                    if not a.undone:
                        fell.append(C.name(a.card))
                        self._undo(a, play.id, hits)
        staged_back = []
        for c in list(self.staging[ps.name]):
            owner = self._pile_owner.pop(c, ps.name)
            self._move_card(c, ("hand", owner))
            staged_back.append(C.name(c))
        self._open.remove(play.id)
        ps.play = None
        for card, pid in list(self.reserved.items()):
            if pid == play.id:
                del self.reserved[card]
        if len({self.plays[p].player for p in self._open}) < 2:
            self._pp.clear()
        _, deps, waits = self._judge(play)
        if play.standing():
            play.status = "confirmed"
            play.confirmed_ms = self.now_ms
            self._confirmations += 1
            play.confirmed_order = self._confirmations
            for a in deps:
                self._dependents.setdefault(a.seq, set()).add(play.id)
                play.deps.add(a.play)
            for a in waits:
                play.deps.add(a.play)  # for finality only: no meld edge (see _judge_meld)
            for a in play.standing():
                for b in self.card_stack.get(a.card, ()):
                    if b is a:
                        break
                    if b.play != play.id:
                        play.deps.add(b.play)
            play.deps.discard(play.id)
            self._unfinal.append(play.id)
            self._auto_split(play)
            if play.own_down():
                self._restart_inactivity()
                if self.tiebreak is not None:
                    self.tiebreak.candidates.append(play.id)
        else:
            play.status = "void"
        self._emit("play_ended", play.player, {
            "play": play.id, "reason": reason, "outcome": play.status,
            "fell": fell, "staged_back": staged_back,
            "depends_on": sorted(play.deps),
        })
        self._notify(play.id, hits)
        self._sweep()

    def _auto_split(self, play: Play) -> None:
        """R4: split each touched valid run longer than the limit with no card on trial."""
        limit = self.rules.longest_run
        if limit is None:
            return
        todo = [m for m in self._touched(play) if len(self.melds.get(m, ())) > limit]
        while todo:
            m = todo.pop(0)
            cards = self.melds.get(m, [])
            if len(cards) <= limit or any(self.on_trial(c) for c in cards):
                continue
            ordered = run_order(cards, self.rules)
            if ordered is None:
                continue
            # One halving at a time: the second half gets the next id now, and the halves are
            # split again in the order they were made (R4, R2).
            half = (len(ordered) + 1) // 2
            nm = self.next_meld
            self.next_meld += 1
            self.melds[nm] = []
            for c in ordered[half:]:
                self._record(play, "split", c, ("meld", m), nm, owner=None)
            todo[0:0] = [m, nm]
            self._emit("split", play.player, {
                "play": play.id, "meld": m, "into": [nm],
                "cards": [C.names(ordered[:half]), C.names(ordered[half:])]})

    def _sweep(self) -> None:
        """R10's final sweep: confirmed, not final plays now wounded fall too."""
        while self._chain_touched:
            self._chain_touched = False
            for pid in list(self._unfinal):
                play = self.plays[pid]
                if play.status != "confirmed":
                    continue
                wounded = self._judge(play)[0]
                if wounded:
                    hits: dict[str, list[str]] = {}
                    self._fall(play, pid, hits)
                    self._notify(pid, hits)
                    break

    def _update_finality(self) -> None:
        """R11: a confirmed play is final once every play it depends on is final.

        Plays that depend on one another (A needs B's card, B needs A's removal)
        become final together: the final ones are the greatest set of confirmed
        plays none of which depends, directly or through the others, on a play
        still open. Marked in confirmation order."""
        if not self._unfinal:
            return
        for pid in list(self._unfinal):
            if self.plays[pid].status != "confirmed":
                self._unfinal.remove(pid)
        candidates = set(self._unfinal)
        changed = True
        while changed:
            changed = False
            for pid in list(candidates):
                for d in self.plays[pid].deps:
                    if d in candidates or self.plays[d].status in ("final", "fallen", "void"):
                        continue
                    candidates.discard(pid)  # waits for an open play, or for one that does
                    changed = True
                    break
        for pid in [p for p in self._unfinal if p in candidates]:
            play = self.plays[pid]
            play.status = "final"
            self._unfinal.remove(pid)
            for a in play.actions:
                if not a.undone:
                    a.final = True
            if any(a.lay and not a.undone for a in play.actions):
                self.players[play.player].laid = True
            self._emit("play_final", play.player, {"play": pid})
        for pid in sorted(candidates):
            for a in self.plays[pid].actions:
                if not a.undone:
                    self._prune(a)

    def _prune(self, a: Action) -> None:
        """A final action can no longer be undone: drop it from the graph (R11)."""
        st = self.card_stack.get(a.card)
        if st and st[0] is a:
            st.pop(0)
            while st and st[0].final:
                st.pop(0)
        for m in a.touches():
            log = self.meld_log.get(m)
            if log and log[0] is a:
                log.pop(0)
            else:
                _remove_newest(log, a)

    # ------------------------------------------------------------------ holds, ping-pong

    def _release(self, p: str, reason: str) -> None:
        h = self.holds.pop(p, None)
        if h is not None:
            self._emit("hold_ended", p, {"card": C.name(h.card), "meld": h.meld, "reason": reason})

    def _ping_pong(self, play: Play, card: int, src: int, dst: int) -> None:
        """R13: count a card's returns while plays of two or more players are open."""
        if len({self.plays[p].player for p in self._open}) < 2 or self.freeze is not None:
            return
        melds, returns, movers = self._pp.get(card, ({src}, 0, set()))
        if dst in melds:
            returns += 1
        melds.add(dst)
        movers.add(play.player)
        self._pp[card] = (melds, returns, movers)
        if returns >= 3 and len(movers) >= 2 and card not in self.reserved:
            firsts = [pid for pid in self._open if self.plays[pid].player in movers]
            if firsts:
                self.reserved[card] = firsts[0]
                self._emit("reserved", self.plays[firsts[0]].player,
                           {"card": C.name(card), "play": firsts[0]})

    # ------------------------------------------------------------------ clocks

    def _restart_inactivity(self) -> None:
        """R14: a restart; during a freeze the clock then resumes from its full 120 s when
        the freeze ends (a restart stands even if its play is undone later)."""
        if self.tiebreak is not None:
            return
        if self.freeze is not None:
            self.freeze.inactivity_left_ms = _ms(self.rules.inactivity)
            return
        self.inactivity_deadline_ms = self.now_ms + _ms(self.rules.inactivity)

    def _next_clock(self) -> tuple[int, int, int, Any] | None:
        if self.result is not None:
            return None
        best: tuple[int, int, int, Any] | None = None

        def consider(c: tuple[int, int, int, Any]) -> None:
            nonlocal best
            if best is None or c[:3] < best[:3]:
                best = c

        for i, (p, h) in enumerate(self.holds.items()):
            consider((h.deadline_ms, _HOLD, i, p))
        for pid in self._open:
            d = self.plays[pid].deadline_ms
            if d is not None:
                consider((d, _PLAY, pid, pid))
        if self.freeze is not None:
            consider((self.freeze.deadline_ms, _FREEZE, 0, None))
        for p in self.order:  # all absences due at one instant fire together (§11.2)
            d = self.players[p].absence_deadline_ms
            if d is not None and self.players[p].status == "active":
                consider((d, _ABSENCE, 0, None))
        if self.tiebreak is not None:
            consider((self.tiebreak.deadline_ms, _TIEBREAK, 0, None))
        if self.inactivity_deadline_ms is not None and self.freeze is None and self.tiebreak is None:
            consider((self.inactivity_deadline_ms, _INACTIVITY, 0, None))
        return best

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
        self.inactivity_deadline_ms = self.now_ms + _ms(self.rules.inactivity)
        self._emit("inactivity", None, {"forced": drawers})
        for p in drawers:
            ps = self.players[p]
            if self.staging[p]:
                ps.pending_draws += 1
                self._emit("forced_draw", p, {"deferred": "pending"}, {})
                continue
            card = self.stocks[p][0]
            self._move_card(card, ("hand", p))
            ps.drew = True
            self._emit("forced_draw", p, {"deferred": False, "stock": len(self.stocks[p])},
                       {"card": C.name(card)})

    # ------------------------------------------------------------------ Stop! (R16)

    def _fail_freeze(self, how: str) -> None:
        fr = self.freeze
        assert fr is not None
        caller = fr.caller
        work = [a for a in self.actions[fr.marker - 1:] if a.player == caller and not a.undone]
        own_play = self.players[caller].play
        wounded = False
        touched = list(dict.fromkeys(m for a in work for m in a.touches()))
        for m in touched:
            ok = self._judge_meld(m, own_play if own_play is not None else -1)[0]
            if not ok:
                wounded = True
                break
        hits: dict[str, list[str]] = {}
        reopened: list[Play] = []
        if wounded:
            for a in reversed(work):
                if not a.undone:
                    self._undo(a, a.play, hits)
            for play in self.plays.values():
                if play.player != caller or play.status not in ("confirmed", "final"):
                    continue
                if not play.standing():
                    play.status = "fallen"
                    if play.id in self._unfinal:
                        self._unfinal.remove(play.id)
                elif play.confirmed_ms is not None and play.confirmed_ms >= fr.started_ms:
                    # Open at the Stop!, confirmed during the freeze: with the table back as
                    # it was at the Stop!, it is open again, and ends below as at its 40 s.
                    play.status = "open"
                    play.confirmed_ms = None
                    if play.id in self._unfinal:
                        self._unfinal.remove(play.id)
                    for a in play.actions:
                        a.final = False
                    reopened.append(play)
        self._emit("freeze_ended", caller, {"outcome": "failed", "how": how, "restored": wounded})
        self.freeze = None
        if fr.inactivity_left_ms is not None and self.tiebreak is None:
            # R14: the clock resumes (from 120 s if restarted in the freeze); a confirmation
            # below with an own card down restarts it again.
            self.inactivity_deadline_ms = self.now_ms + fr.inactivity_left_ms
        ps = self.players[caller]
        current = [self.plays[ps.play]] if ps.play is not None else []
        for play in current + reopened:
            if play.id not in self._open:  # reopened: open again, in opening order
                self._open.append(play.id)
                self._open.sort()
            ps.play = play.id
            # R16: the caller's play still open at the failure is judged by R8 alone (the
            # exemption of §5.3 lasts to the end of the freeze); a reopened play was open
            # at the Stop! and ends as at its 40 s, under the usual rules.
            play.in_freeze = play not in reopened
            self._end_play(play, "eliminated")
            play.in_freeze = False
        if how == "left":
            ps.status = "left"
            self._emit("left", caller, {"reason": "absence"})
        else:
            ps.status = "eliminated"
            self._emit("eliminated", caller, {"reason": "stop_failed"})
        ps.absence_deadline_ms = None
        for pid in self._open:
            play = self.plays[pid]
            play.deadline_ms = self.now_ms + _ms(self.rules.play)
            play.suspended_ms = None
            self._emit("play_resumed", play.player, {"play": pid, "deadline": _sec(play.deadline_ms)})
        self._restart_waiting_absences()

    # ------------------------------------------------------------------ leaving (R18)

    def _depart(self, players: list[str], reason: str) -> None:
        """Players leave at one instant, judged together (§11.2)."""
        for p in players:
            if self._is_caller(p):
                self._fail_freeze("left")
                continue
            ps = self.players[p]
            if ps.play is not None:
                self._end_play(self.plays[ps.play], "left")
            self._release(p, "left")
            ps.status = "left"
            ps.absence_deadline_ms = None
            self._emit("left", p, {"reason": reason})
        if self.tiebreak is not None:
            inside = [p for p in self.tiebreak.players if self.players[p].status == "active"]
            if len(inside) == 1:
                # R18: the last tied player wins the tie-break, even when also the last active.
                self._finish_hand("tiebreak", inside[0])

    # ------------------------------------------------------------------ settling

    def _settle(self) -> None:
        """After every command and clock event: direct plays in order end (R7),
        finality (R11), going out (R15), survivors (R17), tie-break wins (R19)."""
        steps = 0
        while self.result is None:
            steps += 1
            if steps > 1000:  # each step ends an open play: this is a bug, never a rule
                raise EngineFault("settling the hand did not end after 1,000 steps")
            progressed = False
            for pid in list(self._open):
                play = self.plays[pid]
                if play.status != "open" or play.staged_ever or play.deadline_ms is None and not play.in_freeze:
                    continue
                if self.freeze is not None and not play.in_freeze:
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

    def _check_out(self) -> bool:
        fr = self.freeze
        if fr is not None:
            p = fr.caller
            ps = self.players[p]
            if self.hands[p] or self.staging[p]:
                return False
            # Only a hand emptied by the caller's own cards goes out (or, without the
            # conditions, eliminates, §8): an empty hand never played from does neither.
            if not any(a.kind == "own" and not a.undone for pl in self.plays.values()
                       if pl.player == p for a in pl.actions):
                return False
            laid = ps.laid or any(
                a.lay and not a.undone for pl in self.plays.values()
                if pl.player == p and pl.status in ("open", "confirmed", "final") for a in pl.actions)
            if not all(is_valid(cs, self.rules) for cs in self.melds.values() if cs):
                return False
            if not (ps.drew and laid):
                # §9, R15: an invalid going out eliminates at the moment it would have happened.
                self._fail_freeze("invalid_out")
                return False
            self._emit("went_out", p, {"during_freeze": True})
            self._finish_hand("out", p, judge_open=False)
            return True
        if self.tiebreak is not None:
            return False
        ready: list[tuple[int, str]] = []
        for p in self.active():
            ps = self.players[p]
            if self.hands[p] or self.staging[p] or ps.play is not None or ps.pending_draws:
                continue
            mine = [pl for pl in self.plays.values() if pl.player == p]
            standing = [pl.confirmed_order or 0 for pl in mine if pl.status in ("confirmed", "final")]
            if not standing or any(pl.status == "confirmed" for pl in mine):
                continue
            ready.append((max(standing), p))
        # R15: of two going-out plays final at one instant, the one confirmed first goes out.
        for _, p in sorted(ready):
            ps = self.players[p]
            if ps.drew and ps.laid:
                self._emit("went_out", p, {"during_freeze": False})
                self._finish_hand("out", p)
                return True
            ps.status = "eliminated"
            self._emit("eliminated", p, {"reason": "invalid_out"})
        return False

    def _check_survivor(self) -> bool:
        active = self.active()
        if len(active) == 1:
            self._finish_hand("survivor", active[0])
            return True
        if not active:
            self._finish_hand("abandoned", None)
            return True
        return False

    def _check_tiebreak_win(self) -> bool:
        tb = self.tiebreak
        if tb is None:
            return False
        while tb.candidates:
            play = self.plays[tb.candidates[0]]
            if play.status == "final" and play.own_down():
                self._finish_hand("tiebreak", play.player)
                return True
            if play.status in ("fallen", "void") or (play.status == "final" and not play.own_down()):
                tb.candidates.pop(0)
                continue
            return False
        return False

    # ------------------------------------------------------------------ the end of a hand

    def _close_open_plays(self) -> None:
        for pid in list(self._open):
            if self.plays[pid].status == "open":
                self._end_play(self.plays[pid], "hand_end")
        self._update_finality()

    def _final_silence(self) -> None:
        """R19: open plays end first, then the count; a tie opens the tie-break."""
        self._close_open_plays()
        if self.result is not None:
            return
        active = self.active()
        if not active:
            self._finish_hand("abandoned", None)
            return
        fewest = min(self.count_in_hand(p) for p in active)
        tied = [p for p in active if self.count_in_hand(p) == fewest]
        if len(tied) == 1:
            self._finish_hand("silence", tied[0])
            return
        for p in list(self.holds):
            self._release(p, "tiebreak")
        self.tiebreak = Tiebreak(tied, self.now_ms + _ms(self.rules.tiebreak))
        for p in tied:
            for c in self.hands[p]:
                self._pile_owner[c] = p
        for ps in self.players.values():
            if ps.name not in tied and ps.absence_deadline_ms is not None:
                ps.absence_deadline_ms = None
                ps.absence_waiting = True
        self._emit("tiebreak_started", None, {
            "players": tied, "until": _sec(self.tiebreak.deadline_ms),
            "pile": {p: C.names(self.hands[p]) for p in tied}})

    def _end_tiebreak(self) -> None:
        tb = self.tiebreak
        assert tb is not None
        self._close_open_plays()
        if self.result is not None:
            return
        if self._check_tiebreak_win():
            return
        self._finish_hand("draw", None)

    def _finish_hand(self, end: str, winner: str | None, *, judge_open: bool = True) -> None:
        if self.result is not None:
            return
        if judge_open:
            # R15/R7: the other open plays end as at their 40 s, in opening order.
            for pid in list(self._open):
                if self.plays[pid].status == "open":
                    self._end_play(self.plays[pid], "hand_end")
        for p in list(self.holds):
            self._release(p, "hand_end")
        scores, reasons = self._score(end, winner)
        self.result = Result(end, winner, scores, reasons, self._breakdown(end, winner))
        self.freeze = None
        self.tiebreak = None
        self._open = []
        for ps in self.players.values():
            ps.play = None
            ps.absence_deadline_ms = None
        self.inactivity_deadline_ms = None
        self._emit("hand_ended", winner, {"end": end, "winner": winner, "scores": scores,
                                          "reasons": reasons})

    def _score(self, end: str, winner: str | None) -> tuple[dict[str, int], dict[str, str]]:
        """R20."""
        r = self.rules
        scores: dict[str, int] = {}
        reasons: dict[str, str] = {}
        for p in self.order:
            st = self.players[p].status
            if st == "eliminated":
                scores[p], reasons[p] = -r.penalty, "eliminated"
            elif st == "left":
                scores[p], reasons[p] = -r.penalty, "left"
            else:
                scores[p], reasons[p] = 0, "lost"
        if end == "abandoned":
            return scores, reasons
        if end == "draw":
            tied = self._tied_players()
            pile = sum(self.count_in_hand(p) for p in tied)
            for p in tied:
                if self.players[p].status == "active":
                    scores[p] = max(-r.penalty, r.win_base - pile)
                    reasons[p] = f"draw: {r.win_base} - {pile} pile cards"
            return scores, reasons
        assert winner is not None
        if end == "tiebreak":
            tied = self._tied_players()
            from_others = sum(1 for q in tied if q != winner for _ in self._pile_cards_of(q))
            outside = sum(self.count_in_hand(q) for q in self.order if q not in tied)
            scores[winner] = r.win_base + from_others + outside
            reasons[winner] = (f"tie-break: {r.win_base} + {from_others} pile cards of the others"
                               f" + {outside} cards outside")
            return scores, reasons
        others = sum(self.count_in_hand(q) for q in self.order if q != winner)
        stock = len(self.stocks[winner])
        bonus = r.empty_stock_bonus if end == "out" and stock == 0 else 0
        scores[winner] = r.win_base - stock + others + bonus
        reasons[winner] = (f"{r.win_base} - {stock} in stock + {others} in opponents' hands"
                           + (f" + {bonus} for an empty stock" if bonus else ""))
        return scores, reasons

    def _breakdown(self, end: str, winner: str | None) -> dict[str, dict[str, int]]:
        """The terms of each score (R20), in the shape of :attr:`Result.breakdown`."""
        r = self.rules
        out: dict[str, dict[str, int]] = {}
        for p in self.order:
            st = self.players[p].status
            out[p] = {"penalty": -r.penalty} if st in ("eliminated", "left") else {}
        if end == "draw":
            tied = self._tied_players()
            pile = sum(self.count_in_hand(p) for p in tied)
            for p in tied:
                if self.players[p].status == "active":
                    out[p] = {"base": r.win_base, "pile": -pile}
                    if r.win_base - pile < -r.penalty:  # §12: staying never costs more than leaving
                        out[p]["floor"] = -r.penalty - (r.win_base - pile)
        elif end == "tiebreak" and winner is not None:
            tied = self._tied_players()
            out[winner] = {
                "base": r.win_base,
                "pile_from_others": sum(len(self._pile_cards_of(q)) for q in tied if q != winner),
                "outside": sum(self.count_in_hand(q) for q in self.order if q not in tied)}
        elif winner is not None and end != "abandoned":
            stock = len(self.stocks[winner])
            terms = {"base": r.win_base, "stock": -stock,
                     "opponents": sum(self.count_in_hand(q) for q in self.order if q != winner)}
            if end == "out" and stock == 0:
                terms["bonus"] = r.empty_stock_bonus
            out[winner] = terms
        return out

    def _tied_players(self) -> list[str]:
        return list(self.tiebreak.players) if self.tiebreak else []

    def _pile_cards_of(self, p: str) -> list[int]:
        return [c for c in self.hands[p]] + [
            c for q in self.order for c in self.staging[q] if self._pile_owner.get(c) == p]

    # ------------------------------------------------------------------ snapshot helpers

    def meld_view(self, mid: int) -> list[str]:
        """A meld's faces as the server shows them (runs in run order, R2)."""
        return C.names(display_order(self.melds.get(mid, []), self.rules))
