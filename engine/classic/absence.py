"""C31: absence and leaving, as commands and clocks of the match (all **Choice**, after R18
and R21).

A player without a live connection is absent. While they are in a hand being played, 90 s
(``absence``) absent in a row is leaving the hand; a turn of theirs ends at that instant as at
C20 (so the absence clock of a turn that starts while its player is absent, or whose player
drops during it, is this same deadline: the drop came first). ``leave`` leaves the hand at
once; ``leave_game`` (or being absent when a hand is dealt) leaves the match. Leavings due at
one instant are judged together. ``ready`` ends the pause between hands once every connected
player still in the match is ready.
"""

from __future__ import annotations

from typing import Any

from ..errors import IllegalCommand
from ..timeunits import ms
from .model import ClassicCommand
from .turn import ClassicHand


class AbsenceRules:
    """The connection commands and the absence clocks of :class:`ClassicMatch`."""

    # Provided by ClassicMatch.
    hand: ClassicHand | None
    now_ms: int
    connected: dict[str, bool]
    absent_since_ms: dict[str, int | None]
    in_match: dict[str, bool]
    ready: set[str]
    absence_s: float

    def _emit(self, kind: str, player: str | None, data: dict[str, Any],
              private: dict[str, Any] | None = None) -> None:
        raise NotImplementedError

    def _hand_live(self) -> bool:
        raise NotImplementedError

    def _after_hand_change(self) -> None:
        raise NotImplementedError

    def _deal(self) -> None:
        raise NotImplementedError

    def _end_match_if_too_few(self) -> bool:
        raise NotImplementedError

    def leave_deadlines(self) -> dict[str, int]:
        """When each absent player still in the hand being played leaves it (ms)."""
        hand = self.hand
        if hand is None or hand.result is not None:
            return {}
        out: dict[str, int] = {}
        for p in hand.seats:
            since = self.absent_since_ms.get(p)
            if since is not None and hand.status[p] == "in":
                out[p] = since + ms(self.absence_s)
        return out

    def _fire_absences(self, at_ms: int) -> None:
        """Everyone whose absence is due at ``at_ms`` leaves the hand, together (C31)."""
        due = [p for p, d in self.leave_deadlines().items() if d <= at_ms]
        if due and self.hand is not None:
            for p in due:
                self._emit("absent_left", p, {})
            self.hand.leave(due, self.now_ms)
            self._after_hand_change()

    def _cmd_disconnect(self, cmd: ClassicCommand) -> None:
        p = cmd.player
        if not self.connected[p]:
            raise IllegalCommand("already_disconnected")
        self.connected[p] = False
        self.absent_since_ms[p] = self.now_ms
        self._emit("disconnected", p, {})

    def _cmd_reconnect(self, cmd: ClassicCommand) -> None:
        p = cmd.player
        if self.connected[p]:
            raise IllegalCommand("not_disconnected")
        self.connected[p] = True
        self.absent_since_ms[p] = None
        self._emit("reconnected", p, {})

    def _cmd_leave(self, cmd: ClassicCommand) -> None:
        """Leave the hand (C31): the seat is skipped until the hand ends."""
        p = cmd.player
        if not self.in_match[p]:
            raise IllegalCommand("not_in_game")
        hand = self.hand
        if hand is None or not self._hand_live():
            raise IllegalCommand("hand_over")
        if hand.status.get(p) != "in":
            raise IllegalCommand("not_in_hand")
        hand.leave([p], self.now_ms)
        self._after_hand_change()

    def _cmd_leave_game(self, cmd: ClassicCommand) -> None:
        """Leave the match (C31), and the hand being played with it."""
        p = cmd.player
        if not self.in_match[p]:
            raise IllegalCommand("not_in_game")
        self.in_match[p] = False
        self.ready.discard(p)
        self._emit("left_match", p, {})
        hand = self.hand
        if hand is not None and self._hand_live() and hand.status.get(p) == "in":
            hand.leave([p], self.now_ms)
            self._after_hand_change()
        elif not self._hand_live():
            self._end_match_if_too_few()

    def _cmd_ready(self, cmd: ClassicCommand) -> None:
        """Ready for the next hand (R21): once every connected player in the match is."""
        p = cmd.player
        if not self.in_match[p]:
            raise IllegalCommand("not_in_game")
        if self._hand_live():
            raise IllegalCommand("hand_not_over")
        self.ready.add(p)
        self._emit("ready", p, {})
        waiting = [q for q, inside in self.in_match.items()
                   if inside and self.connected[q] and q not in self.ready]
        if not waiting:
            self._deal()
