"""Cards on the table and where every card is (§1–§3, R1, R2): the moves of one card
and the queries on the table."""

from __future__ import annotations

from . import cards as C
from .errors import InvalidCommand
from .melds import display_order, layout
from .model import Loc, Play, PlayerState
from .state import HandState


class CardTable(HandState):
    """Card locations and moves (R1, R2), and queries on the table."""

    def table(self) -> dict[int, list[int]]:
        """Melds on the table: id → cards (physical ids), in id order."""
        return {m: cs for m, cs in self.melds.items() if cs}

    def open_players(self) -> list[str]:
        """The players whose play is open, in the order their plays opened."""
        return [self.plays[pid].player for pid in self._open]

    def open_plays(self) -> list[Play]:
        """The open plays (suspended ones included, R16), in the order they opened (R7)."""
        return [self.plays[pid] for pid in self._open]

    def unfinal_plays(self) -> list[Play]:
        """The confirmed plays not yet final, in confirmation order (R11)."""
        return [self.plays[pid] for pid in self.graph.unfinal]

    def melds_touched(self, play: Play) -> list[int]:
        """The melds ``play``'s standing actions took from, put into or created (R8)."""
        seen: dict[int, None] = {}
        for a in play.actions:
            if not a.undone:
                for m in a.touches():
                    seen[m] = None
        return list(seen)

    def active(self) -> list[str]:
        return [p for p in self.order if self.players[p].status == "active"]

    def count_in_hand(self, p: str) -> int:
        return len(self.hands[p]) + len(self.staging[p])

    def on_trial(self, card: int) -> bool:
        """True when the card's latest move belongs to a play still open (§5.4)."""
        st = self.card_stack.get(card)
        return st is not None and bool(st) and self.plays[st[-1].play].status == "open"

    def _new_meld(self) -> int:
        """A new, empty meld: its id is the next one, ids are never reused (R2)."""
        mid = self.next_meld
        self.next_meld += 1
        self.melds[mid] = []
        return mid

    def _draw_top(self, ps: PlayerState) -> int:
        """Move the top card of ``ps``'s stock to their hand (§4); returns it. The caller
        checks the stock is not empty and says what kind of draw it was."""
        card = self.stocks[ps.name][0]
        self._move_card(card, ("hand", ps.name))
        ps.drew = True
        return card

    def _put(self, card: int, loc: Loc) -> None:
        kind = loc[0]
        if kind == "hand":
            self.hands[loc[1]].append(card)
        elif kind == "staging":
            self.staging[loc[1]].append(card)
        elif kind == "stock":
            self.stocks[loc[1]].append(card)
        elif kind == "meld":
            meld = self.melds.setdefault(loc[1], [])
            self._lay_out(meld)
            meld.append(card)
        elif kind == "removed":
            self.removed.append(card)
        self.loc[card] = loc
        self._arrivals += 1
        self.arrival[card] = self._arrivals

    def _remove(self, card: int) -> None:
        loc = self.loc[card]
        kind = loc[0]
        if kind == "hand":
            self.hands[loc[1]].remove(card)
        elif kind == "staging":
            self.staging[loc[1]].remove(card)
        elif kind == "stock":
            self.stocks[loc[1]].remove(card)
        elif kind == "meld":
            meld = self.melds[loc[1]]
            self._lay_out(meld)
            meld.remove(card)
            if not meld:  # a meld that loses its last card is gone (R2)
                del self.melds[loc[1]]
        elif kind == "removed":
            self.removed.remove(card)

    def _lay_out(self, meld: list[int]) -> None:
        """Before a valid meld changes, lay its cards out as it is shown (R4's run order, sets
        by suit): a meld keeps that order while invalid, its new cards after it in the order
        they came, so an invalid meld is shown as it was built, not shuffled (issue 17).
        Only the order changes: validity, events and card identity do not depend on it."""
        if len(meld) >= 3:
            lies = tuple(meld)
            shown = layout(lies, self.rules)
            if shown is not None and shown != lies:
                meld[:] = shown

    def _move_card(self, card: int, loc: Loc) -> None:
        self._remove(card)
        self._put(card, loc)

    def _find(self, pool: list[int], face_text: str | None) -> int | None:
        """R1: the card of that face in ``pool`` that arrived there last."""
        if face_text is None:
            raise InvalidCommand("bad_card", "Name a card, like 10H or QS.")
        try:
            face = C.parse_face(face_text)
        except C.NotationError as e:
            raise InvalidCommand("bad_card", str(e)) from None
        best = None
        for c in pool:
            if C.face_of(c) == face and (best is None or self.arrival[c] > self.arrival[best]):
                best = c
        return best

    def _hand_pool(self, p: str) -> list[int]:
        """The cards ``p`` may play from: their hand, or in a tie-break the pile (R19)."""
        if self.tiebreak is not None and p in self.tiebreak.players:
            return [c for q in self.tiebreak.players for c in self.hands[q]]
        return self.hands[p]

    def _owner_of(self, card: int, default: str) -> str:
        loc = self.loc[card]
        if loc[0] == "hand":
            return str(loc[1])
        return self._pile_owner.get(card, default)

    def meld_view(self, mid: int) -> list[str]:
        """A meld's faces as the server shows them (runs in run order, R2)."""
        return C.names(display_order(self.melds.get(mid, []), self.rules))

    def _tied_players(self) -> list[str]:
        return list(self.tiebreak.players) if self.tiebreak else []

    def _pile_cards_of(self, p: str) -> list[int]:
        return [c for c in self.hands[p]] + [
            c for q in self.order for c in self.staging[q] if self._pile_owner.get(c) == p]
