"""The dependency graph over actions (§5.5, R9–R11), and the chain undo that walks it.

* **Card edges** (R10): each card's stack of live actions, oldest first; an action depends on
  every earlier one on its card, so undoing one first undoes every later action on that card.
* **Meld edges** (R8, R10): action → the plays that needed it when they were judged; undoing
  it makes each of those plays, if confirmed, fall whole.
* **Finality** (R11): the confirmed plays not yet final, in confirmation order; a play is final
  once every play it depends on is; final actions are pruned, so no chain reaches them and the
  cost of a command does not grow with the log.

The graph knows plays by id (it is handed the hand's ``plays``) and does nothing physical:
moving a card back, events and notices are the caller's, through the callbacks of
:meth:`DependencyGraph.undo`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from .errors import EngineFault
from .model import Action, Play


def _remove_newest(items: list[Action] | None, a: Action) -> None:
    """Remove ``a`` (by identity) from ``items``, searching from the newest end."""
    if not items:
        return
    for i in range(len(items) - 1, -1, -1):
        if items[i] is a:
            del items[i]
            return


class DependencyGraph:
    """Actions, their card and meld edges, and the confirmed plays waiting to be final."""

    def __init__(self, plays: dict[int, Play]) -> None:
        self.plays = plays
        self.actions: list[Action] = []
        self.card_stack: dict[int, list[Action]] = {}
        self.meld_log: dict[int, list[Action]] = {}
        self.dependents: dict[int, set[int]] = {}  # action seq -> plays that needed it
        self.unfinal: list[int] = []  # confirmed, not final, in confirmation order

    # ------------------------------------------------------------------ building

    @property
    def last_seq(self) -> int:
        """The number of the newest action (0 before any)."""
        return len(self.actions)

    def add(self, a: Action) -> None:
        """Link a new action: its card edge and the melds it touches."""
        if a.seq != len(self.actions) + 1:
            raise EngineFault(f"action {a.seq} out of order")
        self.actions.append(a)
        self.card_stack.setdefault(a.card, []).append(a)
        for m in a.touches():
            self.meld_log.setdefault(m, []).append(a)

    def since(self, seq: int) -> list[Action]:
        """The actions numbered ``seq`` and after, oldest first."""
        return self.actions[seq - 1:]

    def on_meld(self, mid: int) -> list[Action]:
        """The live actions that touch meld ``mid``, oldest first (pruned ones excluded)."""
        return self.meld_log.get(mid, [])

    def earlier_on_card(self, a: Action) -> Iterator[Action]:
        """The live actions on ``a``'s card before ``a`` (its card edges)."""
        for b in self.card_stack.get(a.card, ()):
            if b is a:
                return
            yield b

    def confirm(self, play: Play, needed: list[Action]) -> None:
        """A play was confirmed needing ``needed`` (its meld edges); it waits to be final."""
        for a in needed:
            self.dependents.setdefault(a.seq, set()).add(play.id)
        self.unfinal.append(play.id)

    def forget(self, pid: int) -> None:
        """A play is no longer waiting to be final (it fell, or is open again)."""
        if pid in self.unfinal:
            self.unfinal.remove(pid)

    # ------------------------------------------------------------------ the chain undo (R10)

    def undo(self, a: Action, effect: Callable[[Action], None],
             fell: Callable[[Play, bool], None]) -> None:
        """Undo ``a`` and, first, everything that depends on it (R10).

        ``effect(a)`` does the physical undo of one action (the card goes back, events);
        ``fell(play, done)`` is told when a confirmed play falls whole, before its actions
        are undone (``done`` False) and after (True). Raises :class:`EngineFault` if the
        graph is inconsistent."""
        if a.undone:
            return
        stack = self.card_stack[a.card]
        while stack and stack[-1] is not a:
            later = stack[-1]
            lp = self.plays[later.play]
            if lp.status in ("confirmed", "final"):
                self.fall(lp, effect, fell)
            else:
                self.undo(later, effect, fell)
            if a.undone:
                # Undoing what came later reached this action too (a meld edge back
                # into its own play): it is already done.
                return
            if stack and stack[-1] is later and not later.undone:
                raise EngineFault(f"undoing action {later.seq} left it standing")
        if stack and stack[-1] is a:
            stack.pop()
        a.undone = True
        for m in a.touches():
            _remove_newest(self.meld_log.get(m), a)
        effect(a)
        for pid in sorted(self.dependents.pop(a.seq, ())):
            dp = self.plays[pid]
            if dp.status in ("confirmed", "final"):
                self.fall(dp, effect, fell)

    def fall(self, play: Play, effect: Callable[[Action], None],
             fell: Callable[[Play, bool], None]) -> None:
        """A confirmed play reached by a chain falls whole (R10), newest action first."""
        if play.status == "fallen":
            return
        play.status = "fallen"
        self.forget(play.id)
        fell(play, False)
        for a in reversed(play.actions):
            if not a.undone:
                self.undo(a, effect, fell)
        fell(play, True)

    # ------------------------------------------------------------------ finality (R11)

    def newly_final(self) -> list[int]:
        """The plays that are final now, in confirmation order; they leave the graph.

        Plays that depend on one another (A needs B's card, B needs A's removal) become final
        together: the final ones are the greatest set of confirmed plays none of which
        depends, directly or through the others, on a play still open."""
        if not self.unfinal:
            return []
        for pid in list(self.unfinal):
            if self.plays[pid].status != "confirmed":
                self.unfinal.remove(pid)
        candidates = set(self.unfinal)
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
        done = [p for p in self.unfinal if p in candidates]
        for pid in done:
            self.unfinal.remove(pid)
        return done

    def prune(self, a: Action) -> None:
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
