"""What falls and the chain undo (§5.4–§5.5, R9–R11): undoing actions along the
dependency graph, the final sweep, finality and pruning."""

from __future__ import annotations

from typing import Literal

from . import cards as C
from .errors import EngineFault
from .judging import Judging
from .model import (
    Action,
    Loc,
    Play,
)


def _remove_newest(items: list[Action] | None, a: Action) -> None:
    """Remove ``a`` (by identity) from ``items``, searching from the newest end."""
    if not items:
        return
    for i in range(len(items) - 1, -1, -1):
        if items[i] is a:
            del items[i]
            return

class ChainUndo(Judging):
    """The chain undo of §5.5 (R9, R10) and finality (R11)."""

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
