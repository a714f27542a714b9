"""Stop! (§9, R16): the freeze, and a freeze that fails."""

from __future__ import annotations

from .errors import Refused
from .model import (
    Command,
    Freeze,
    Phase,
    Play,
    PlayerState,
)
from .plays import PlayRules
from .timeunits import ms, sec


class StopRules(PlayRules):
    """Calling Stop!, giving up, and the failed freeze's judging and restore (R16)."""

    def _cmd_stop(self, ps: PlayerState, cmd: Command) -> None:
        if ps.status != "active":
            raise Refused("out_of_hand")
        if not ps.connected:
            raise Refused("disconnected")
        if self.phase is Phase.TIEBREAK:
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
        self.phase = Phase.FROZEN
        self.freeze = Freeze(ps.name, self.now_ms, self.now_ms + ms(self.rules.freeze),
                             self.graph.last_seq + 1, left)
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
        self._emit("stop", ps.name, {"until": sec(self.freeze.deadline_ms)})

    def _cmd_give_up(self, ps: PlayerState, cmd: Command) -> None:
        if ps.status != "active":
            raise Refused("out_of_hand")
        if not ps.connected:
            raise Refused("disconnected")
        if not self._is_caller(ps.name):
            raise Refused("not_stop_caller")
        self._fail_freeze("gave_up")

    def _fail_freeze(self, how: str) -> None:
        fr = self.freeze
        assert fr is not None
        caller = fr.caller
        work = [a for a in self.graph.since(fr.marker) if a.player == caller and not a.undone]
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
                    self.graph.forget(play.id)
                elif play.confirmed_ms is not None and play.confirmed_ms >= fr.started_ms:
                    # Open at the Stop!, confirmed during the freeze: with the table back as
                    # it was at the Stop!, it is open again, and ends below as at its 40 s.
                    play.status = "open"
                    play.confirmed_ms = None
                    self.graph.forget(play.id)
                    for a in play.actions:
                        a.final = False
                    reopened.append(play)
        self._emit("freeze_ended", caller, {"outcome": "failed", "how": how, "restored": wounded})
        self.freeze = None
        self.phase = Phase.PLAYING
        if fr.inactivity_left_ms is not None and self.phase is Phase.PLAYING:
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
            play.deadline_ms = self.now_ms + ms(self.rules.play)
            play.suspended_ms = None
            self._emit("play_resumed", play.player, {"play": pid, "deadline": sec(play.deadline_ms)})
        self._restart_waiting_absences()
