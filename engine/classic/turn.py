"""One classic hand, turn by turn (C13–C20, C22–C24): a turn is a transaction.

:class:`ClassicHand` holds the table (melds by id, each a list of card ids in arrival order),
the jokers' faces, the hands, the one shared stock, whose turn it is and the position at the
turn's start. :meth:`ClassicHand.play` carries out a turn command or raises
:class:`~engine.errors.Refused` having changed nothing (C29); the match
(:class:`~engine.classic.match.ClassicMatch`) owns time, connections and the hands around it.
Times are integer milliseconds on the match's clock.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

from .. import cards as C
from ..errors import IllegalCommand, InvalidCommand
from ..rules import CardValues, RuleSet, Scoring, StockOut
from ..timeunits import ms
from .checks import end_refusal, settle
from .jokers import face_text, joker_place, parse_joker
from .model import ClassicCommand, HandResult, Snapshot

Emit = Callable[[str, "str | None", dict[str, Any], "dict[str, Any] | None"], None]

#: C29's order of refusal codes for one command (``card_not_in_hand`` and
#: ``card_not_in_meld`` share a rank).
ORDER = ("hand_over", "not_your_turn", "swap_not_allowed", "no_loose_joker", "no_such_meld",
         "same_meld", "not_opened", "card_not_in_hand", "not_joker_place")


def card_value(card: int, values: CardValues) -> int:
    """C25: ``high``: joker 25, ace 11, 10 J Q K 10, others face; ``low``: ace 1."""
    if C.is_joker(card):
        return 25
    rank = C.rank_of(card)
    if rank == 1:
        return 11 if values is CardValues.HIGH else 1
    return min(rank, 10)


class ClassicHand:
    """One hand of classic Machiavelli among ``seats`` (clockwise), under ``rules``."""

    def __init__(self, rules: RuleSet, seats: list[str], emit: Emit) -> None:
        self.rules = rules
        self.seats = list(seats)
        self.status: dict[str, str] = {p: "in" for p in seats}  # in, left
        self.hands: dict[str, list[int]] = {p: [] for p in seats}
        self.stock: list[int] = []  # top card first
        self.melds: dict[int, list[int]] = {}
        self.faces: dict[int, int | None] = {}  # jokers on the table → face (C8)
        self.loose: list[int] = []  # freed jokers of this turn (C11)
        self.next_meld = 1
        self.turn: str | None = None
        self.turn_started_ms = 0
        self.turn_deadline_ms: int | None = None  # C20
        self.snapshot = Snapshot({}, {}, [], 1)
        self.touched: set[int] = set()
        self.swaps = 0
        self.first_turn: set[str] = set()
        self.unopened: set[str] = set()
        #: C23: who passed, in a row (any other turn end clears it); only those still in the
        #: hand count (C31).
        self.pass_row: list[str] = []
        self.result: HandResult | None = None
        self.out_of_play: list[int] = []  # cards a position leaves out
        self._emit = emit

    # ------------------------------------------------------------------ turns
    @property
    def passes(self) -> int:
        """Passes in a row by players still in the hand (C23, C31)."""
        return sum(1 for p in self.pass_row if self.status[p] == "in")

    def set_passes(self, n: int, before: str) -> None:
        """A position's ``passes``: the ``n`` seats before ``before`` passed, in turn."""
        i = self.seats.index(before)
        k = len(self.seats)
        self.pass_row = [self.seats[(i - j) % k] for j in range(n, 0, -1)]

    def in_hand(self) -> list[str]:
        """The players still in the hand, clockwise."""
        return [p for p in self.seats if self.status[p] == "in"]

    def begin_turn(self, player: str, now_ms: int) -> None:
        """``player``'s turn starts now (C13, C20): the snapshot is taken, the clock set."""
        self.turn = player
        self.turn_started_ms = now_ms
        clock = self.rules.clock
        self.turn_deadline_ms = None if clock is None else now_ms + ms(clock)
        self.snapshot = Snapshot({m: list(cs) for m, cs in self.melds.items()}, dict(self.faces),
                                 list(self.hands[player]), self.next_meld)
        self.touched = set()
        self.swaps = 0
        self.loose = []
        self._emit("turn_started", player, {"deadline": None if self.turn_deadline_ms is None
                                            else self.turn_deadline_ms / 1000}, None)

    def _next_seat(self, after: str) -> str | None:
        n = len(self.seats)
        i = self.seats.index(after)
        for k in range(1, n + 1):
            p = self.seats[(i + k) % n]
            if self.status[p] == "in":
                return p
        return None

    def restore(self) -> None:
        """C18: the table, meld ids and the next id, joker faces, the hand, no loose joker."""
        snap = self.snapshot
        if self.turn is None:
            return
        self.melds = {m: list(cs) for m, cs in snap.melds.items()}
        self.faces = dict(snap.faces)
        self.hands[self.turn] = list(snap.hand)
        self.next_meld = snap.next_meld
        self.loose = []
        self.touched = set()
        self.swaps = 0

    def changed(self) -> bool:
        """C14: whether the table or the hand differs from the turn's start (faces compared, so
        two copies of a face are alike), or a joker is loose."""
        if self.loose or self.turn is None:
            return bool(self.loose)
        snap = self.snapshot
        if set(self.melds) != set(snap.melds):
            return True

        def key(cards: list[int], faces: dict[int, int | None]) -> Counter[Any]:
            return Counter(("JK", faces.get(c)) if C.is_joker(c) else c % 52 for c in cards)

        for mid in self.touched:
            if mid in self.melds and key(self.melds[mid], self.faces) != key(
                    snap.melds[mid], snap.faces):
                return True
        return key(self.hands[self.turn], {}) != key(snap.hand, {})

    def end_turn(self, now_ms: int) -> None:
        """The turn ends (C14–C16, C20): first-turn flag, stock-out (C24), dead hand (C23),
        else the next player still in the hand starts."""
        p = self.turn
        if p is None:
            return
        self.first_turn.discard(p)
        self.loose = []
        if self.result is not None:
            return
        if not self.stock and self.rules.stock_out is StockOut.FEWEST:
            self.finish_stock_out()
            return
        if self.passes >= len(self.in_hand()):
            self.finish("dead", None)
            return
        nxt = self._next_seat(p)
        if nxt is None:
            self.finish("abandoned", None)
            return
        self.begin_turn(nxt, now_ms)

    def expire(self, now_ms: int) -> None:
        """C20 (and C31's absence): put back as by ``reset``, one penalty card from the stock
        (with none, the turn counts as a pass), the turn ends."""
        if self.turn is None:
            return
        self._penalty()
        self.end_turn(now_ms)

    def _penalty(self) -> None:
        """C20's put-back and penalty of the turn player, without ending the turn: restore,
        then one card from the stock, or with none a pass that joins C23's row."""
        p = self.turn
        assert p is not None
        self.restore()
        if self.stock:
            card = self.stock.pop(0)
            self.hands[p].append(card)
            self.pass_row = []
            self._emit("penalty_card", p, {"stock": len(self.stock)}, {"card": C.name(card)})
        else:
            self.pass_row.append(p)
            self._emit("passed", p, {"passes": self.passes, "by": "clock"}, None)

    # ------------------------------------------------------------------ the end of a hand
    def values(self) -> dict[str, int]:
        """C25: each hand's worth in cards."""
        return {p: sum(card_value(c, self.rules.values) for c in self.hands[p])
                for p in self.seats}

    def finish(self, end: str, winner: str | None) -> None:
        """The hand ends (C22–C26, C31): ``end`` as :class:`HandResult` names it."""
        vals = self.values()
        penalty = self.rules.scoring is Scoring.PENALTY
        if end == "dead" or (winner is None and not penalty):
            scores = {p: 0 for p in self.seats}
        elif winner is None:
            scores = dict(vals)
        elif penalty:
            scores = {p: 0 if p == winner else vals[p] for p in self.seats}
        else:
            scores = {p: 0 for p in self.seats}
            scores[winner] = sum(v for p, v in vals.items() if p != winner)
        self.result = HandResult(end, winner, scores, vals)
        self.turn = None
        self.turn_deadline_ms = None
        self.loose = []
        self._emit("hand_ended", winner, {"end": end, "scores": dict(scores),
                                          "values": dict(vals)}, None)

    def finish_stock_out(self) -> None:
        """C24: the fewest points in hand among the players still in it win; a tie, nobody."""
        vals = self.values()
        live = self.in_hand()
        low = min(vals[p] for p in live)
        best = [p for p in live if vals[p] == low]
        self.finish("stock_out", best[0] if len(best) == 1 else None)

    def leave(self, players: list[str], now_ms: int) -> None:
        """C31: ``players`` leave the hand together. One on turn first ends that turn exactly
        as at C20 (restore, penalty card or a pass counting toward C23's row; turn 3's (b)),
        and only then are the leavings judged: one left wins it (``survivor``, the penalty
        card in their count), none left: ``abandoned``. A turn in progress of a player who
        stays (the survivor's own) is put back first, as never ended (**Choice**)."""
        on_turn = self.turn in players
        if on_turn:
            self._penalty()
        for p in players:
            self.status[p] = "left"
            self._emit("left_hand", p, {}, None)
        live = self.in_hand()
        if len(live) <= 1:
            if not on_turn:
                self.restore()  # a survivor's turn in progress was never ended: it is void
            self.finish("survivor" if live else "abandoned", live[0] if live else None)
            return
        if on_turn:
            self.end_turn(now_ms)

    # ------------------------------------------------------------------ commands
    def play(self, cmd: ClassicCommand, now_ms: int) -> dict[str, int]:
        """Carry out a turn command (C13–C16, C18) or raise :class:`Refused` (C29) having
        changed nothing. Returns ``{"meld": id}`` when a new meld was made, else ``{}``."""
        if self.result is not None:
            raise IllegalCommand("hand_over")
        if self.status.get(cmd.player) != "in":
            raise IllegalCommand("not_in_hand")
        if cmd.player != self.turn:
            raise IllegalCommand("not_your_turn")
        handler: Callable[[ClassicCommand, int], dict[str, int] | None] = getattr(
            self, "_cmd_" + cmd.do)
        return handler(cmd, now_ms) or {}

    def _opened(self, p: str) -> bool:
        return self.rules.opening <= 0 or p not in self.unopened

    def _old(self, mid: int) -> bool:
        """A meld there at the turn's start (C17's limit for an unopened player)."""
        return mid < self.snapshot.next_meld

    def _meld_id(self, value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise InvalidCommand("no_such_meld", f"There is no meld {value!r} on the table.")
        if value not in self.melds:
            raise IllegalCommand("no_such_meld", f"There is no meld {value!r} on the table.")
        return value

    def _read(self, text: Any) -> tuple[bool, int | None]:
        try:
            return parse_joker(text)
        except C.NotationError as e:
            raise InvalidCommand("bad_card", str(e)) from None

    def _from_hand(self, p: str, texts: list[Any]) -> list[tuple[int, int | None]]:
        """The hand's cards for these faces (the last to arrive of a face first), each with the
        face a joker is put down as. Raises ``bad_card`` or ``card_not_in_hand``."""
        hand = self.hands[p]
        taken: set[int] = set()
        out: list[tuple[int, int | None]] = []
        for text in texts:
            joker, face = self._read(text)
            found = None
            for c in reversed(hand):
                if c in taken:
                    continue
                if (C.is_joker(c) if joker else (not C.is_joker(c) and c % 52 == face)):
                    found = c
                    break
            if found is None:
                raise IllegalCommand("card_not_in_hand", f"{text} is not in your hand.")
            taken.add(found)
            out.append((found, face if joker else None))
        return out

    def _in_meld(self, mid: int, text: Any) -> int:
        """The card of meld ``mid`` named ``text`` (R1: the last to arrive; ``JK=7H`` the
        joker standing for 7H, ``JK`` the last joker). Raises ``card_not_in_meld``."""
        joker, face = self._read(text)
        for c in reversed(self.melds[mid]):
            if joker and C.is_joker(c) and (face is None or self.faces.get(c) == face):
                return c
            if not joker and not C.is_joker(c) and c % 52 == face:
                return c
        raise IllegalCommand("card_not_in_meld", f"{text} is not in meld {mid}.")

    def _put(self, card: int, mid: int, face: int | None) -> None:
        self.melds.setdefault(mid, []).append(card)
        if C.is_joker(card):
            self.faces[card] = face
        self.touched.add(mid)

    def _lift(self, card: int, mid: int) -> None:
        cards = self.melds[mid]
        cards.remove(card)
        self.faces.pop(card, None)
        self.touched.add(mid)
        if not cards:
            del self.melds[mid]  # an emptied meld is gone (R2)

    def _new_meld(self) -> int:
        mid = self.next_meld
        self.next_meld += 1
        return mid

    def _cmd_lay(self, cmd: ClassicCommand, now_ms: int) -> dict[str, int]:
        """C13: hand → a new meld, any cards (judged only at ``end``)."""
        texts = list(cmd.cards or ())
        if not texts:
            raise InvalidCommand("bad_command", "Lay at least one card.")
        picked = self._from_hand(cmd.player, texts)
        mid = self._new_meld()
        for card, face in picked:
            self.hands[cmd.player].remove(card)
            self._put(card, mid, face)
        self._emit("laid", cmd.player, {"meld": mid, "cards": [str(t) for t in texts]}, None)
        return {"meld": mid}

    def _cmd_add(self, cmd: ClassicCommand, now_ms: int) -> None:
        """C13: hand → an existing meld."""
        mid = self._meld_id(cmd.meld)
        if not self._opened(cmd.player) and self._old(mid):
            raise IllegalCommand("not_opened")
        ((card, face),) = self._from_hand(cmd.player, [cmd.card])
        self.hands[cmd.player].remove(card)
        self._put(card, mid, face)
        self._emit("added", cmd.player, {"meld": mid, "card": str(cmd.card)}, None)

    def _cmd_move(self, cmd: ClassicCommand, now_ms: int) -> dict[str, int]:
        """C10, C13: a table card or a loose joker → a meld (its own included) or a new one;
        a joker takes the face ``as`` names, or none until ``end`` (C8)."""
        loose = cmd.meld == "loose"
        if loose and not self.loose:
            raise IllegalCommand("no_loose_joker")
        src = None if loose else self._meld_id(cmd.meld)
        dst = None if cmd.to == "new" else self._meld_id(cmd.to)
        as_face: int | None = None
        if cmd.as_ is not None:
            joker, as_face = self._read(cmd.as_)
            if joker:
                raise InvalidCommand("bad_card", f"'as' names the face a joker stands for, like 7H, "
                                          f"not {cmd.as_}.")
        if src is not None and src == dst and not (as_face is not None and self._jokerish(cmd)):
            raise IllegalCommand("same_meld")
        if not self._opened(cmd.player) and any(m is not None and self._old(m)
                                                 for m in (src, dst)):
            raise IllegalCommand("not_opened")
        if src is None:
            joker, _ = self._read(cmd.card)
            if not joker:
                raise IllegalCommand("card_not_in_meld", f"{cmd.card} is not a loose joker.")
            card = self.loose[-1]
        else:
            card = self._in_meld(src, cmd.card)
        if as_face is not None and not C.is_joker(card):
            raise InvalidCommand("bad_card", "Only a joker takes a face with 'as'.")
        if src is None:
            self.loose.remove(card)
        else:
            self._lift(card, src)
        made = dst is None
        target = self._new_meld() if dst is None else dst
        self._put(card, target, as_face)
        self._emit("moved", cmd.player, {"card": str(cmd.card), "from": cmd.meld, "to": target,
                                         "as": None if as_face is None else face_text(as_face)},
                   None)
        return {"meld": target} if made else {}

    def _jokerish(self, cmd: ClassicCommand) -> bool:
        try:
            return parse_joker(cmd.card or "")[0]
        except C.NotationError:
            return False

    def _joker_for(self, mid: int, card: int) -> int:
        j = joker_place(self.melds[mid], self.faces, card % 52)
        if j is None:
            raise IllegalCommand("not_joker_place", f"{C.name(card)} cannot take the place of a "
                                             f"joker in meld {mid}.")
        return j

    def _cmd_free(self, cmd: ClassicCommand, now_ms: int) -> None:
        """C11: a real card from the hand (or from meld ``source``) takes the place of a joker
        it can stand for; the joker is loose until it goes down again this turn."""
        mid = self._meld_id(cmd.meld)
        src = None if cmd.source is None else self._meld_id(cmd.source)
        if src == mid:
            raise IllegalCommand("same_meld")
        if not self._opened(cmd.player) and (self._old(mid) or (src is not None
                                                                and self._old(src))):
            raise IllegalCommand("not_opened")
        if src is None:
            ((card, _),) = self._from_hand(cmd.player, [cmd.card])
        else:
            card = self._in_meld(src, cmd.card)
        if C.is_joker(card):
            raise IllegalCommand("not_joker_place", "A joker cannot free a joker.")
        joker = self._joker_for(mid, card)
        if src is None:
            self.hands[cmd.player].remove(card)
        else:
            self._lift(card, src)
        cards = self.melds[mid]
        cards.remove(joker)
        cards.append(card)  # the card arrives now (R1's "the last to arrive")
        self.faces.pop(joker, None)
        self.touched.add(mid)
        self.loose.append(joker)
        self._emit("freed", cmd.player, {"meld": mid, "card": str(cmd.card), "from": src}, None)

    def _cmd_swap(self, cmd: ClassicCommand, now_ms: int) -> None:
        """C12 (``freed_joker: keep``): a hand card takes a joker's place, the joker goes into
        the hand. Needs an opened player; counts as a card from the hand."""
        if self.rules.freed_joker.value != "keep":
            raise IllegalCommand("swap_not_allowed")
        mid = self._meld_id(cmd.meld)
        if not self._opened(cmd.player):
            raise IllegalCommand("not_opened")
        ((card, _),) = self._from_hand(cmd.player, [cmd.card])
        if C.is_joker(card):
            raise IllegalCommand("not_joker_place", "A joker cannot free a joker.")
        joker = self._joker_for(mid, card)
        hand = self.hands[cmd.player]
        hand.remove(card)
        cards = self.melds[mid]
        cards.remove(joker)
        cards.append(card)
        self.faces.pop(joker, None)
        hand.append(joker)
        self.touched.add(mid)
        self.swaps += 1
        self._emit("swapped", cmd.player, {"meld": mid, "card": str(cmd.card)}, None)

    def _cmd_reset(self, cmd: ClassicCommand, now_ms: int) -> None:
        """C18: everything back as at the turn's start; the turn and its clock go on."""
        self.restore()
        self._emit("reset", cmd.player, {}, None)

    def _cmd_end(self, cmd: ClassicCommand, now_ms: int) -> None:
        """C16: the checks in order; accepted, faces settle, an empty hand wins (C22)."""
        code = end_refusal(self, cmd.player)
        if code is not None:
            raise IllegalCommand(code)
        settle(self)
        self.unopened.discard(cmd.player)
        self.pass_row = []
        self._emit("ended", cmd.player, {"cards_left": len(self.hands[cmd.player])}, None)
        if not self.hands[cmd.player]:
            self.first_turn.discard(cmd.player)
            self.finish("out", cmd.player)
            return
        self.end_turn(now_ms)

    def _cmd_draw(self, cmd: ClassicCommand, now_ms: int) -> None:
        """C14: the stock's top card, only with nothing changed; the turn ends."""
        if not self.stock:
            raise IllegalCommand("stock_empty", "There is nothing left to draw.")
        if self.changed():
            raise IllegalCommand("turn_changed")
        self.restore()  # R2 as amended: the next id goes back too
        card = self.stock.pop(0)
        self.hands[cmd.player].append(card)
        self.pass_row = []
        self._emit("drew", cmd.player, {"stock": len(self.stock)}, {"card": C.name(card)})
        self.end_turn(now_ms)

    def _cmd_pass(self, cmd: ClassicCommand, now_ms: int) -> None:
        """C15: only with an empty stock and nothing changed; the turn ends."""
        if self.stock:
            raise IllegalCommand("stock_not_empty")
        if self.changed():
            raise IllegalCommand("turn_changed")
        self.restore()
        self.pass_row.append(cmd.player)
        self._emit("passed", cmd.player, {"passes": self.passes}, None)
        self.end_turn(now_ms)
