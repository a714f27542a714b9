"""The end of a hand (§8, §10, §11, R15, R17–R20): leaving, going out, survivors, the
final silence and tie-break, and the count."""

from __future__ import annotations

from . import cards as C
from .melds import is_valid
from .model import (
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
        self.tiebreak = Tiebreak(tied, self.now_ms + ms(self.rules.tiebreak))
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
