"""Stop! (§9, R16): the freeze, and a freeze that fails."""

from __future__ import annotations

import copy
from typing import Any

from . import cards as C
from .errors import IllegalCommand
from .model import (
    FROZEN,
    PLAYING,
    TIEBREAK,
    Command,
    Freeze,
    PlayerState,
)
from .plays import PlayRules
from .timeunits import ms, sec


class StopRules(PlayRules):
    """Calling Stop!, giving up, and the failed freeze's judging and restore (R16)."""

    def _cmd_stop(self, ps: PlayerState, cmd: Command) -> None:
        if ps.status != "active":
            raise IllegalCommand("out_of_hand")
        if not ps.connected:
            raise IllegalCommand("disconnected")
        if self.phase is TIEBREAK:
            raise IllegalCommand("tiebreak")
        if self.freeze is not None:
            raise IllegalCommand("frozen" if self.freeze.caller != ps.name else "no_stop_now")
        if ps.stop_used:
            raise IllegalCommand("stop_used")
        ps.stop_used = True
        at_stop = self._capture()
        for p in list(self.holds):
            self._release(p, "stop")
        left = None
        if self.inactivity_deadline_ms is not None:
            left = max(0, self.inactivity_deadline_ms - self.now_ms)
        self.phase = FROZEN
        self.freeze = Freeze(ps.name, self.now_ms, self.now_ms + ms(self.rules.freeze),
                             self.graph.last_seq + 1, left, at_stop)
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
            raise IllegalCommand("out_of_hand")
        if not ps.connected:
            raise IllegalCommand("disconnected")
        if not self._is_caller(ps.name):
            raise IllegalCommand("not_stop_caller")
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
        open_at_failure = self.players[caller].play
        if wounded:
            self._restore(fr)
        self._emit("freeze_ended", caller, {"outcome": "failed", "how": how, "restored": wounded})
        self.freeze = None
        self.phase = PLAYING
        if fr.inactivity_left_ms is not None and self.phase is PLAYING:
            # R14: the clock resumes (from 120 s if restarted in the freeze); a confirmation
            # below with an own card down restarts it again.
            self.inactivity_deadline_ms = self.now_ms + fr.inactivity_left_ms
        ps = self.players[caller]
        if ps.play is not None:
            # R16: with no restore, the caller's play still open at the failure is judged with
            # the freeze, by R8 alone (§5.3's exemption covers work in the freeze). After a
            # restore the play open now is the one open at the Stop!: an ordinary play again,
            # judged as at its 40 s, §5.3 included (no own card down: undone whole; turn 3).
            play = self.plays[ps.play]
            play.in_freeze = not wounded and play.id == open_at_failure
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

    # ------------------------------------------------------------------ the table at the Stop!

    def _capture(self) -> tuple[Any, ...]:
        """Everything a failed freeze's restore gives back (§9: "the table goes back exactly
        to how it was at the instant you called «Stop!»"): cards and where they are, melds,
        plays and the dependency graph, reservations, each player's play and conditions.
        Not clocks, connections or absences: those are never rewound (R14, R18)."""
        return copy.deepcopy((
            self.hands, self.staging, self.stocks, self.melds, self.removed, self.loc,
            self.arrival, self._arrivals, self.next_meld, self.plays, self.graph, self._open,
            self._pile_owner, self.reserved, self._pp,
            {p: (ps.play, ps.laid, ps.pending_draws) for p, ps in self.players.items()}))

    def _restore(self, fr: Freeze) -> None:
        """The table goes back to the instant of the Stop! (R16): all of the caller's work
        since then is undone, and so is everything it undid (a play the caller cancelled, or
        plays that fell, during the freeze, stand again as they stood). The caller's draws
        stand (draws are never undone, R10); play and action numbers are never reused."""
        (hands, staging, stocks, melds, removed, loc, arrival, arrivals, next_meld, plays,
         graph, open_ids, pile_owner, reserved, pp, players) = fr.at_stop
        caller = fr.caller
        drawn = len(stocks[caller]) - len(self.stocks[caller])
        before = dict(self.loc)
        for pid, play in self.plays.items():  # plays opened during the freeze: void
            if pid not in plays:
                play.status = "void"
                for a in play.actions:
                    a.undone = True
                plays[pid] = play
        for a in self.graph.actions[graph.last_seq:]:  # the freeze's actions keep their numbers
            a.undone = True
            graph.actions.append(a)
        graph.plays = plays
        self.hands, self.staging, self.stocks, self.melds = hands, staging, stocks, melds
        self.removed, self.loc, self.arrival, self._arrivals = removed, loc, arrival, arrivals
        self.next_meld, self.plays, self.graph, self._open = max(next_meld, self.next_meld), \
            plays, graph, open_ids
        self._pile_owner, self.reserved, self._pp = pile_owner, reserved, pp
        for p, (play_id, laid, pending) in players.items():
            ps = self.players[p]
            ps.play, ps.laid, ps.pending_draws = play_id, laid, pending
        for p in list(self.holds):
            self._release(p, "stop_failed")
        for _ in range(max(0, drawn)):
            self._draw_top(self.players[caller])
        moved = []
        for c in sorted(self.loc):
            if self.loc[c] != before.get(c):
                to = self.loc[c]
                moved.append({"card": C.name(c), "to": to[1] if to[0] == "meld" else to[0],
                              "owner": to[1] if to[0] in ("hand", "staging") else None})
        self._emit("freeze_restored", caller, {"cards": moved})
