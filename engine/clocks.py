"""Clocks (§7, §11, R14, R18, R23): which clock fires next, inactivity restarts, and the
absence count of disconnected players."""

from __future__ import annotations

from typing import Any

from .chain import ChainUndo
from .errors import IllegalCommand
from .model import (
    OVER,
    PLAYING,
    TIEBREAK,
    Command,
    PlayerState,
)
from .timeunits import ms, sec

# R23's order for clocks due at the same instant.
_HOLD, _PLAY, _FREEZE, _ABSENCE, _TIEBREAK, _INACTIVITY = range(6)

class ClockRules(ChainUndo):
    """Deadlines in R23's order, inactivity (R14) and absence (R18)."""

    def _restart_inactivity(self) -> None:
        """R14: a restart; during a freeze the clock then resumes from its full 120 s when
        the freeze ends (a restart stands even if its play is undone later)."""
        if self.phase is TIEBREAK:
            return
        if self.freeze is not None:
            self.freeze.inactivity_left_ms = ms(self.rules.inactivity)
            return
        self.inactivity_deadline_ms = self.now_ms + ms(self.rules.inactivity)

    def _next_clock(self) -> tuple[int, int, int, Any] | None:
        if self.phase is OVER:
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
        if self.inactivity_deadline_ms is not None and self.phase is PLAYING:
            consider((self.inactivity_deadline_ms, _INACTIVITY, 0, None))
        return best

    def _absence_counts(self, p: str) -> bool:
        if self.freeze is not None and self.freeze.caller != p:
            return False
        if self.tiebreak is not None and p not in self.tiebreak.players:
            return False
        return True

    def _start_absence(self, ps: PlayerState) -> None:
        if self._absence_counts(ps.name):
            ps.absence_deadline_ms = self.now_ms + ms(self.rules.absence)
            ps.absence_waiting = False
            self._emit("absence_started", ps.name, {"until": sec(ps.absence_deadline_ms)})
        else:
            ps.absence_deadline_ms = None
            ps.absence_waiting = True

    def _restart_waiting_absences(self) -> None:
        for ps in self.players.values():
            if ps.status == "active" and not ps.connected and ps.absence_waiting:
                self._start_absence(ps)

    def _cmd_disconnect(self, ps: PlayerState, cmd: Command) -> None:
        if not ps.connected:
            raise IllegalCommand("disconnected")
        ps.connected = False
        self._emit("disconnected", ps.name, {})
        if ps.status == "active":
            self._start_absence(ps)

    def _cmd_reconnect(self, ps: PlayerState, cmd: Command) -> None:
        if ps.connected:
            raise IllegalCommand("connected")
        ps.connected = True
        ps.absence_deadline_ms = None
        ps.absence_waiting = False
        self._emit("reconnected", ps.name, {})
