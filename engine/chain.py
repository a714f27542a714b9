"""What falls and the chain undo (§5.4–§5.5, R9–R11): undoing actions along the
dependency graph, the final sweep, finality and pruning."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

from . import cards as C
from .errors import EngineFault
from .holds import HoldRules
from .model import (
    Action,
    Loc,
    Play,
)
from .wounds import explain_wounds, judge_meld, judge_play, touched


class Judging(HoldRules):
    """R8 on a hand: the melds a play touched, each judged by :mod:`engine.wounds`."""

    def _status(self, pid: int) -> str:
        return self.plays[pid].status

    def _judge_meld(self, mid: int, pid: int) -> tuple[bool, list[Action], list[Action]]:
        """Judge meld ``mid`` for play ``pid`` (R8): ``engine.wounds.judge_meld``.

        Returns (in order, the actions it depends on, the actions it must wait for)."""
        return judge_meld(mid, pid, self.graph.meld_log, self.graph.card_stack, self.melds,
                          self.loc, self._status, self.rules)

    def _wounds(self, mids: Iterable[int], pid: int) -> list[dict[str, Any]]:
        """Why each wounded meld of play ``pid`` is not valid: ``engine.wounds.explain_wounds``."""
        return explain_wounds(mids, pid, self.graph.meld_log, self.graph.card_stack,
                              self.melds, self.loc, self._status, self.rules)

    def _touched(self, play: Play) -> list[int]:
        return touched(play.actions)

    def _judge(self, play: Play) -> tuple[list[int], list[Action], list[Action]]:
        """(wounded melds, actions depended on, actions waited for) of a play (R8):
        ``engine.wounds.judge_play``."""
        return judge_play(play.id, touched(play.actions), self.graph.meld_log,
                          self.graph.card_stack, self.melds, self.loc, self._status, self.rules)


class ChainUndo(Judging):
    """The chain undo of §5.5 (R9, R10) and finality (R11)."""

    def _record(self, play: Play, kind: Literal["own", "move", "split"], card: int, src: Loc,
                dst: int, *, owner: str | None, lay: bool = False) -> Action:
        """One card changing place (R6): moved now, and linked into the graph (R10)."""
        a = Action(self.graph.last_seq + 1, play.id, play.player, kind, card, src, dst, owner, lay)
        self._move_card(card, ("meld", dst))
        play.actions.append(a)
        self.graph.add(a)
        return a

    def _undo(self, a: Action, cause: int, hits: dict[str, list[str]]) -> None:
        """Undo one action and, first, everything that depends on it (R10): the graph walks
        the chain; here each action's card goes back (own cards to their hand, table cards
        to the meld they came from) and ``hits`` collects whose cards went back (§5.5)."""
        self.graph.undo(a, lambda x: self._undo_effect(x, cause, hits),
                        lambda play, done: self._fell(play, done, cause, hits))

    def _fall(self, play: Play, cause: int, hits: dict[str, list[str]],
              wounds: list[dict[str, Any]] | None = None) -> None:
        """A confirmed play reached by a chain falls whole (R10); ``wounds``: why, when it falls
        for its own wounded melds (R10's sweep)."""
        self.graph.fall(play, lambda x: self._undo_effect(x, cause, hits),
                        lambda pl, done: self._fell(pl, done, cause, hits,
                                                    wounds if pl.id == cause else None))

    def _fell(self, play: Play, done: bool, cause: int, hits: dict[str, list[str]],
              wounds: list[dict[str, Any]] | None = None) -> None:
        """A play falls: said before its cards go back; its player is notified after (§5.5).
        ``play_fallen`` carries ``wounds`` (as ``play_ended``'s) when the play fell for its own
        wounded melds (``cause`` is the play itself), else ``[]``: the cause's are in
        ``chain_undo``."""
        if not done:
            self._emit("play_fallen", play.player, {"play": play.id, "cause": cause,
                                                     "wounds": wounds or []})
        else:
            hits.setdefault(play.player, [])

    def _undo_effect(self, a: Action, cause: int, hits: dict[str, list[str]]) -> None:
        """The physical undo of one action, once the graph has unlinked it (R9, R12)."""
        self._chain_touched = True
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

    def _notify(self, cause: int, hits: dict[str, list[str]],
                wounds: list[dict[str, Any]] | None = None, reason: str = "wounded") -> None:
        """§5.5's notice: which failed play sent which cards back to whom, and why it failed
        (``wounds``, as in ``play_ended``: ``engine.wounds.explain_wounds``; ``reason``,
        ``cause_reason`` in the event, how the cause play ended: ``cancel`` when its player
        cancelled it (R8: a play that leaned on it falls with it), otherwise the
        ``play_ended`` reason, or ``wounded`` when R10's sweep brought it down)."""
        cp = self.plays[cause]
        for p, cards in hits.items():
            if p == cp.player and not cards:
                continue
            self._emit("chain_undo", p, {"cause": cause, "cause_player": cp.player,
                                         "cards_back": cards, "wounds": wounds or [],
                                         "cause_reason": reason})

    def _sweep(self) -> None:
        """R10's final sweep: confirmed, not final plays now wounded fall too."""
        while self._chain_touched:
            self._chain_touched = False
            for pid in list(self.graph.unfinal):
                play = self.plays[pid]
                if play.status != "confirmed":
                    continue
                wounded = self._judge(play)[0]
                if wounded:
                    hits: dict[str, list[str]] = {}
                    wounds = self._wounds(wounded, pid)
                    self._fall(play, pid, hits, wounds)
                    self._notify(pid, hits, wounds)
                    break

    def _update_finality(self) -> None:
        """R11: mark the plays the graph finds final (in confirmation order), then prune
        their actions from it."""
        done = self.graph.newly_final()
        for pid in done:
            play = self.plays[pid]
            play.status = "final"
            for a in play.actions:
                if not a.undone:
                    a.final = True
            if any(a.lay and not a.undone for a in play.actions):
                self.players[play.player].laid = True
            self._emit("play_final", play.player, {"play": pid})
        for pid in sorted(done):
            for a in self.plays[pid].actions:
                if not a.undone:
                    self.graph.prune(a)
