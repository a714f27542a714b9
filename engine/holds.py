"""Holds and ping-pong (§6, R12, R13)."""

from __future__ import annotations

from . import cards as C
from .model import FROZEN, Play
from .table import CardTable


class HoldRules(CardTable):
    """A held card stays where it is (R12); a card going back and forth is reserved (R13)."""

    def _release(self, p: str, reason: str) -> None:
        h = self.holds.pop(p, None)
        if h is not None:
            self._emit("hold_ended", p, {"card": C.name(h.card), "meld": h.meld, "reason": reason})

    def _ping_pong(self, play: Play, card: int, src: int, dst: int) -> None:
        """R13: count a card's returns while plays of two or more players are open."""
        if len({self.plays[p].player for p in self._open}) < 2 or self.phase is FROZEN:
            return
        melds, returns, movers = self._pp.get(card, ({src}, 0, set()))
        if dst in melds:
            returns += 1
        melds.add(dst)
        movers.add(play.player)
        self._pp[card] = (melds, returns, movers)
        if returns >= 3 and len(movers) >= 2 and card not in self.reserved:
            firsts = [pid for pid in self._open if self.plays[pid].player in movers]
            if firsts:
                self.reserved[card] = firsts[0]
                self._emit("reserved", self.plays[firsts[0]].player,
                           {"card": C.name(card), "play": firsts[0]})
