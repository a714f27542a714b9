"""Games of one or several hands (§13, R21), on top of :class:`~engine.hand.Hand`.

A :class:`Game` deals hand after hand from one seed, carries the scores, runs
the pause between hands (``ready``), applies the absence rule at its end and
ends with a winner, a long draw, or a player leaving the game. Sans-I/O like
the hand: ``now`` is seconds since the game began; each hand sees its own
time (seconds since that hand began).

Commands at game level (beside every hand command, R6):

* ``ready``: during the pause, this player is ready for the next hand;
* ``leave_game`` (or ``leave`` during the pause): leave the game (§13);
* ``disconnect`` / ``reconnect``: always accepted; passed on to the hand
  while one is being played (R18), tracked here for the pause rule (R21).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from .errors import IllegalCommand, InvalidCommand
from .hand import Hand
from .model import Command, Event
from .rules import MACHIAVELOX, RuleSet
from .timeunits import ms, sec


class GamePhase(StrEnum):
    """Where a game is, for both flows (``Game`` and ``ClassicGame``; issue 26, item 4): a hand
    is played, the pause between hands (R21, C31), or the game is over. A ``str``: it equals
    and serialises as its value (``"hand"``, ``"pause"``, ``"over"``), as frames have it. The
    hand's own phase (playing, frozen, tie-break, over) is ``engine.model.Phase``."""

    HAND = "hand"
    PAUSE = "pause"
    OVER = "over"


@dataclass
class GameResult:
    """How a game ended: ``winner`` (None for a long draw or nobody left),
    ``long_draw``, the totals, and why (``target``, ``single``, ``left``, ``abandoned``)."""

    winner: str | None
    long_draw: bool
    totals: dict[str, int]
    reason: str


@dataclass
class Seat:
    name: str
    connected: bool = True
    disconnected_ms: int | None = None  # game time the connection dropped
    in_game: bool = True
    ready: bool = False


@dataclass
class HandRecord:
    number: int
    seed: int
    end: str
    winner: str | None
    scores: dict[str, int]
    reasons: dict[str, str] = field(default_factory=dict)


class Game:
    """A single game (one hand) or a long game to ``rules.target`` (§13, R21)."""

    def __init__(self, players: list[str], seed: int, rules: RuleSet = MACHIAVELOX,
                 *, long: bool = False, first_hand: Hand | None = None,
                 hand_factory: Callable[[int, int], Hand] | None = None) -> None:
        """``hand_factory(number, seed)`` builds each hand (stacked deals in tests);
        by default hands are dealt from :meth:`hand_seed`. Raises ``ValueError``
        for a wrong number of players."""
        if len(players) != rules.players:
            raise ValueError(f"Machiavelox is played by {rules.players}, not {len(players)}")
        self.players = list(players)
        self.seed = seed
        self.rules = rules
        self.long = long
        self.seats = {p: Seat(p) for p in players}
        self.totals = {p: 0 for p in players}
        self.history: list[HandRecord] = []
        self.phase = GamePhase.HAND
        self.hand_no = 0
        self.hand: Hand | None = None
        self.hand_started_ms = 0
        self.pause_deadline_ms: int | None = None
        self.result: GameResult | None = None
        self.now_ms = 0
        self._events: list[tuple[int | None, Event]] = []
        self.version = 0
        self.hand_factory = hand_factory
        self._start_hand(first_hand)

    # ------------------------------------------------------------------ API

    def hand_seed(self, number: int) -> int:
        """The seed of hand ``number`` (1-based): derived from the game's seed."""
        return self.seed * 1009 + number

    def drain_events(self) -> list[tuple[int | None, Event]]:
        """``(hand number or None, event)`` pairs since the last drain. Game
        events (pause, ready, game over) carry None and their own kinds."""
        self._pull()
        out, self._events = self._events, []
        return out

    def next_deadline(self) -> float | None:
        """Seconds since the game began of the next clock, or None."""
        if self.phase == GamePhase.HAND and self.hand is not None:
            d = self.hand.next_deadline()
            return None if d is None else sec(self.hand_started_ms + ms(d))
        if self.phase == GamePhase.PAUSE and self.pause_deadline_ms is not None:
            return sec(self.pause_deadline_ms)
        return None

    def hand_time(self, now: float) -> float:
        """Game time ``now`` as seconds since the current hand began."""
        return sec(max(0, ms(now) - self.hand_started_ms))

    def tick(self, now: float) -> None:
        """Fire every clock due by ``now`` (seconds since the game began)."""
        now_ms = max(self.now_ms, ms(now))
        while True:
            if self.phase == GamePhase.HAND and self.hand is not None:
                self.hand.tick(sec(now_ms - self.hand_started_ms))
                self.now_ms = now_ms
                self._pull()
                if self.hand.result is not None:
                    self._after_hand()
                    continue
                break
            if self.phase == GamePhase.PAUSE and self.pause_deadline_ms is not None \
                    and self.pause_deadline_ms <= now_ms:
                self.now_ms = self.pause_deadline_ms
                self._end_pause()
                continue
            break
        self.now_ms = now_ms

    def apply(self, cmd: Command, now: float) -> dict[str, int]:
        """Carry out ``cmd`` at ``now`` (seconds since the game began).

        Returns what it made (:meth:`Hand.apply`; ``{}`` for game commands). Raises
        :class:`~engine.errors.Refused` when not allowed; nothing changes then.
        """
        self.tick(now)
        if self.phase == GamePhase.OVER:
            raise IllegalCommand("game_over", "This game is over.")
        seat = self.seats.get(cmd.player)
        if seat is None:
            raise InvalidCommand("unknown_player", f"There is no player '{cmd.player}' at this table.")
        if cmd.do in ("disconnect", "reconnect"):
            self._connection(seat, cmd)
            return {}
        if cmd.do == "leave_game" or (cmd.do == "leave" and self.phase == GamePhase.PAUSE):
            if self.phase != GamePhase.PAUSE:
                raise IllegalCommand("not_in_pause", "You can leave the game during the pause between hands;"
                                              " during a hand, Leave leaves the hand.")
            if not seat.connected:
                raise IllegalCommand("disconnected")
            self._leave_game([seat.name], "leave")
            return {}
        if cmd.do == "ready":
            if self.phase != GamePhase.PAUSE:
                raise IllegalCommand("not_in_pause", "Ready is for the pause between hands.")
            if not seat.connected:
                raise IllegalCommand("disconnected")
            if not seat.ready:
                seat.ready = True
                self._emit("ready", seat.name, {})
            if all(s.ready for s in self.seats.values() if s.in_game):
                self._end_pause()
            return {}
        if self.phase != GamePhase.HAND or self.hand is None:
            raise IllegalCommand("not_in_hand", "No hand is being played: wait for the next one.")
        made = self.hand.apply(cmd, self.hand_time(sec(self.now_ms)))
        self._pull()
        if self.hand.result is not None:
            self._after_hand()
        return made

    # ------------------------------------------------------------------ internals

    def _emit(self, kind: str, player: str | None, data: dict[str, Any]) -> None:
        self.version += 1
        self._events.append((None, Event(self.version, sec(self.now_ms), kind, player, data)))

    def _pull(self) -> None:
        if self.hand is not None:
            for e in self.hand.drain_events():
                self._events.append((self.hand_no, e))

    def _connection(self, seat: Seat, cmd: Command) -> None:
        if cmd.do == "disconnect":
            if not seat.connected:
                raise IllegalCommand("disconnected")
        elif seat.connected:
            raise IllegalCommand("connected")
        if self.phase == GamePhase.HAND and self.hand is not None and seat.name in self.hand.players:
            self.hand.apply(cmd, self.hand_time(sec(self.now_ms)))
            self._pull()
        if cmd.do == "disconnect":
            seat.connected = False
            seat.disconnected_ms = self.now_ms
        else:
            seat.connected = True
            seat.disconnected_ms = None
        if self.phase != GamePhase.HAND:
            self._emit("disconnected" if cmd.do == "disconnect" else "reconnected", seat.name, {})
        if self.hand is not None and self.hand.result is not None and self.phase == GamePhase.HAND:
            self._after_hand()

    def _start_hand(self, hand: Hand | None = None) -> None:
        self.hand_no += 1
        seed = self.hand_seed(self.hand_no)
        if hand is None and self.hand_factory is not None:
            hand = self.hand_factory(self.hand_no, seed)
        self.hand = hand or Hand.deal(self.players, seed, self.rules)
        self.hand_started_ms = self.now_ms
        self.phase = GamePhase.HAND
        for s in self.seats.values():
            s.ready = False
        self._emit("hand_dealt", None, {"hand": self.hand_no, "totals": dict(self.totals)})
        self._pull()
        # R21: a player absent for less than the limit starts the next hand dormant.
        for s in self.seats.values():
            if not s.connected:
                self.hand.apply(Command(s.name, "disconnect"), 0.0)
        self._pull()

    def _after_hand(self) -> None:
        hand = self.hand
        assert hand is not None and hand.result is not None
        res = hand.result
        for p, s in res.scores.items():
            self.totals[p] += s
        self.history.append(HandRecord(self.hand_no, hand.seed if hand.seed is not None else -1,
                                       res.end, res.winner, dict(res.scores), dict(res.reasons)))
        if not self.long:
            self._finish(res.winner, False, "single")
            return
        top = max(self.totals.values())
        if top >= self.rules.target:
            leaders = [p for p, v in self.totals.items() if v == top]
            if len(leaders) == 1:
                self._finish(leaders[0], False, "target")
            else:
                self._finish(None, True, "target")
            return
        self.phase = GamePhase.PAUSE
        self.pause_deadline_ms = self.now_ms + ms(self.rules.pause)
        self._emit("pause_started", None, {"until": sec(self.pause_deadline_ms),
                                           "totals": dict(self.totals)})

    def _end_pause(self) -> None:
        if self.phase != GamePhase.PAUSE:
            return
        self.pause_deadline_ms = None
        limit = ms(self.rules.absence)
        gone = [s.name for s in self.seats.values() if s.in_game and not s.connected
                and s.disconnected_ms is not None and self.now_ms - s.disconnected_ms >= limit]
        if gone:
            self._leave_game(gone, "absence")
            return
        self._start_hand()

    def _leave_game(self, names: list[str], reason: str) -> None:
        """§13: whoever leaves ends the game; the leader of those remaining wins."""
        for n in names:
            self.seats[n].in_game = False
            self._emit("left_game", n, {"reason": reason})
        remaining = [p for p in self.players if self.seats[p].in_game]
        if not remaining:
            self._finish(None, False, "abandoned")
            return
        top = max(self.totals[p] for p in remaining)
        leaders = [p for p in remaining if self.totals[p] == top]
        if len(leaders) == 1:
            self._finish(leaders[0], False, "left")
        else:
            self._finish(None, True, "left")

    def _finish(self, winner: str | None, long_draw: bool, reason: str) -> None:
        self.phase = GamePhase.OVER
        self.pause_deadline_ms = None
        self.result = GameResult(winner, long_draw, dict(self.totals), reason)
        self._emit("game_ended", winner, {"winner": winner, "long_draw": long_draw,
                                          "totals": dict(self.totals), "reason": reason})
