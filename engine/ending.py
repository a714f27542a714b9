"""The end of a hand (§8, §10, §11, R15, R17–R20): leaving, going out, survivors, the
final silence and tie-break, and the count."""

from __future__ import annotations

from . import cards as C
from . import scoring
from .melds import is_valid
from .model import (
    OVER,
    TIEBREAK,
    Command,
    PlayerState,
    Result,
    Tiebreak,
)
from .stop import StopRules
from .timeunits import ms, sec


class EndingRules(StopRules):
    """Leaving (R18), going out (R15), survivors (R17), silence and tie-break (R19), scores (R20)."""

    def _cmd_leave(self, ps: PlayerState, cmd: Command) -> None:
        # R16, R19: frozen players and players outside a tie-break may only come and go.
        self._guard_player(ps)
        self._depart([ps.name], "leave")

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
        if self.phase is TIEBREAK:
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

    def _close_open_plays(self) -> None:
        for pid in list(self._open):
            if self.plays[pid].status == "open":
                self._end_play(self.plays[pid], "hand_end")
        self._update_finality()

    def _final_silence(self) -> None:
        """R19: open plays end first, then the count; a tie opens the tie-break."""
        self._close_open_plays()
        if self.phase is OVER:
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
        self.tiebreak = Tiebreak(tied, self.now_ms + ms(self.rules.tiebreak))
        self.phase = TIEBREAK
        for p in tied:
            for c in self.hands[p]:
                self._pile_owner[c] = p
        for ps in self.players.values():
            if ps.name not in tied and ps.absence_deadline_ms is not None:
                ps.absence_deadline_ms = None
                ps.absence_waiting = True
        self._emit("tiebreak_started", None, {
            "players": tied, "until": sec(self.tiebreak.deadline_ms),
            "pile": {p: C.names(self.hands[p]) for p in tied}})

    def _end_tiebreak(self) -> None:
        tb = self.tiebreak
        assert tb is not None
        self._close_open_plays()
        if self.phase is OVER:
            return
        if self._check_tiebreak_win():
            return
        self._finish_hand("draw", None)

    def _finish_hand(self, end: str, winner: str | None, *, judge_open: bool = True) -> None:
        if self.phase is OVER:
            return
        if judge_open:
            # R15/R7: the other open plays end as at their 40 s, in opening order.
            for pid in list(self._open):
                if self.plays[pid].status == "open":
                    self._end_play(self.plays[pid], "hand_end")
        for p in list(self.holds):
            self._release(p, "hand_end")
        terms = self._count(end, winner)
        scores = {p: sum(t.values()) for p, t in terms.items()}
        reasons = {p: scoring.reason(self.players[p].status, end, t) for p, t in terms.items()}
        self.result = Result(end, winner, scores, reasons, terms)
        self.phase = OVER
        self.freeze = None
        self.tiebreak = None
        self._open = []
        for ps in self.players.values():
            ps.play = None
            ps.absence_deadline_ms = None
        self.inactivity_deadline_ms = None
        self._emit("hand_ended", winner, {"end": end, "winner": winner, "scores": scores,
                                          "reasons": reasons})

    def _count(self, end: str, winner: str | None) -> dict[str, dict[str, int]]:
        """Each player's score as its terms (R20, ``engine.scoring``)."""
        tied = self._tied_players()
        return scoring.count(scoring.Counted(
            order=self.order, status={p: self.players[p].status for p in self.order},
            in_hand={p: self.count_in_hand(p) for p in self.order},
            stock={p: len(self.stocks[p]) for p in self.order}, tied=tied,
            pile_from={p: len(self._pile_cards_of(p)) for p in tied}), end, winner, self.rules)
