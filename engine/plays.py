"""Plays (§4–§5, R6, R7, R9): the players' commands, opening a play, ending and judging it,
and the auto-split of long runs (R4)."""

from __future__ import annotations

from typing import Any

from . import cards as C
from .clocks import ClockRules
from .errors import IllegalCommand, InvalidCommand, Refused
from .melds import is_valid, run_order
from .model import (
    Action,
    Command,
    Hold,
    Play,
    PlayerState,
)
from .timeunits import ms, sec


class PlayRules(ClockRules):
    """Commands (R6), plays (R7), what falls when a play ends (R9) and the auto-split (R4)."""

    def _guard_player(self, ps: PlayerState, *, freeze_ok: bool = False) -> None:
        if ps.status != "active":
            raise IllegalCommand("out_of_hand")
        if not ps.connected:
            raise IllegalCommand("disconnected")
        if self.tiebreak is not None and ps.name not in self.tiebreak.players:
            raise IllegalCommand("not_in_tiebreak")
        if self.freeze is not None and self.freeze.caller != ps.name and not freeze_ok:
            raise IllegalCommand("frozen")

    def _is_caller(self, p: str) -> bool:
        return self.freeze is not None and self.freeze.caller == p

    def _meld(self, mid: int | None) -> list[int]:
        if not isinstance(mid, int) or isinstance(mid, bool):
            raise InvalidCommand("no_such_meld", f"There is no meld {mid} on the table.")
        if not self.melds.get(mid):
            raise IllegalCommand("no_such_meld", f"There is no meld {mid} on the table.")
        return self.melds[mid]

    def _current_play(self, ps: PlayerState) -> Play | None:
        return self.plays[ps.play] if ps.play is not None else None

    def _open_play(self, ps: PlayerState) -> Play:
        play = self._current_play(ps)
        if play is not None:
            return play
        pid = len(self.plays) + 1
        in_freeze = self._is_caller(ps.name)
        deadline = None if in_freeze else self.now_ms + ms(self.rules.play)
        play = Play(pid, ps.name, self.now_ms, deadline, in_freeze=in_freeze)
        self.plays[pid] = play
        self._open.append(pid)
        ps.play = pid
        self._emit("play_opened", ps.name, {
            "play": pid, "deadline": None if deadline is None else sec(deadline)})
        return play

    def _cmd_draw(self, ps: PlayerState, cmd: Command) -> None:
        self._guard_player(ps)
        if self.staging[ps.name]:
            raise IllegalCommand("staging_not_empty", "You cannot draw while your staging area holds cards.")
        if not self.stocks[ps.name]:
            raise IllegalCommand("stock_empty")
        card = self._draw_top(ps)
        self._restart_inactivity()
        self._emit("drew", ps.name, {"stock": len(self.stocks[ps.name])}, {"card": C.name(card)})

    def _cmd_stage(self, ps: PlayerState, cmd: Command) -> None:
        self._guard_player(ps)
        card = self._find(self._hand_pool(ps.name), cmd.card)
        if card is None:
            raise IllegalCommand("card_not_in_hand", f"{cmd.card} is not in your hand.")
        owner = self._owner_of(card, ps.name)
        play = self._open_play(ps)
        play.staged_ever = True
        self._pile_owner[card] = owner
        self._move_card(card, ("staging", ps.name))
        self._emit("staged", ps.name, {"play": play.id, "card": C.name(card), "owner": owner})

    def _cmd_unstage(self, ps: PlayerState, cmd: Command) -> None:
        self._guard_player(ps)
        card = self._find(self.staging[ps.name], cmd.card)
        if card is None:
            raise IllegalCommand("card_not_staged", f"{cmd.card} is not in your staging area.")
        owner = self._pile_owner.pop(card, ps.name)
        self._move_card(card, ("hand", owner))
        self._emit("unstaged", ps.name, {"card": C.name(card), "owner": owner})
        play = self._current_play(ps)
        if play is not None and not self.staging[ps.name]:
            self._end_play(play, "staging_empty")

    def _cmd_lay(self, ps: PlayerState, cmd: Command) -> dict[str, int]:
        self._guard_player(ps)
        faces = list(cmd.cards or ())
        if len(faces) < 3:
            raise IllegalCommand("too_few_cards")
        pool = list(self.staging[ps.name])
        chosen: list[int] = []
        for f in faces:
            c = self._find(pool, f)
            if c is None:
                raise IllegalCommand("card_not_staged", f"{f} is not in your staging area.")
            pool.remove(c)
            chosen.append(c)
        if not is_valid(chosen, self.rules):
            raise IllegalCommand("invalid_meld", f"{' '.join(faces)} is not a valid run or set.")
        play = self._current_play(ps)
        assert play is not None
        mid = self._new_meld()
        for c in chosen:
            self._record(play, "own", c, ("staging", ps.name), mid,
                         owner=self._pile_owner.pop(c, ps.name), lay=True)
        self._emit("laid", ps.name, {"play": play.id, "meld": mid, "cards": C.names(chosen)})
        if not self.staging[ps.name]:
            self._end_play(play, "staging_empty")
        return {"meld": mid}

    def _cmd_add(self, ps: PlayerState, cmd: Command) -> None:
        self._guard_player(ps)
        if self.staging[ps.name]:
            raise IllegalCommand("staging_not_empty",
                          "Your staging area holds cards: place them, or take them back, first.")
        card = self._find(self._hand_pool(ps.name), cmd.card)
        if card is None:
            raise IllegalCommand("card_not_in_hand", f"{cmd.card} is not in your hand.")
        self._meld(cmd.meld)
        assert cmd.meld is not None
        owner = self._owner_of(card, ps.name)
        play = self._open_play(ps)
        self._record(play, "own", card, ("hand", owner), cmd.meld, owner=owner)
        self._emit("added", ps.name, {"play": play.id, "card": C.name(card), "meld": cmd.meld})

    def _cmd_place(self, ps: PlayerState, cmd: Command) -> None:
        self._guard_player(ps)
        card = self._find(self.staging[ps.name], cmd.card)
        if card is None:
            raise IllegalCommand("card_not_staged", f"{cmd.card} is not in your staging area.")
        if cmd.meld == "new" or cmd.to == "new":  # type: ignore[comparison-overlap]
            raise IllegalCommand("place_needs_meld")
        self._meld(cmd.meld)
        assert cmd.meld is not None
        play = self._current_play(ps)
        assert play is not None
        self._record(play, "own", card, ("staging", ps.name), cmd.meld,
                     owner=self._pile_owner.pop(card, ps.name))
        self._emit("placed", ps.name, {"play": play.id, "card": C.name(card), "meld": cmd.meld})
        if not self.staging[ps.name]:
            self._end_play(play, "staging_empty")

    def _check_take(self, ps: PlayerState, face: str | None, mid: int | None) -> int:
        caller = self._is_caller(ps.name)
        if not caller and not self.staging[ps.name]:
            raise IllegalCommand("not_declared")
        if ps.name in self.holds:
            raise IllegalCommand("already_holding")
        meld = self._meld(mid)
        card = self._find(meld, face)
        if card is None:
            raise IllegalCommand("card_not_in_meld", f"{face} is not in meld {mid}.")
        for h in self.holds.values():
            if h.card == card:
                raise IllegalCommand("held")
        res = self.reserved.get(card)
        if res is not None and not caller and self.plays[res].player != ps.name:
            raise IllegalCommand("reserved")
        return card

    def _cmd_take(self, ps: PlayerState, cmd: Command) -> None:
        self._guard_player(ps)
        card = self._check_take(ps, cmd.card, cmd.meld)
        assert cmd.meld is not None
        play = self._open_play(ps)
        deadline = self.now_ms + ms(self.rules.hold)
        self.holds[ps.name] = Hold(ps.name, card, cmd.meld, deadline)
        self._emit("took", ps.name, {"play": play.id, "card": C.name(card), "meld": cmd.meld,
                                      "until": sec(deadline)})

    def _drop_target(self, to: int | str | None, src: int) -> int | None:
        if to == "new":
            return None
        if not isinstance(to, int) or isinstance(to, bool):
            raise InvalidCommand("no_such_meld", f"There is no meld {to} on the table.")
        if not self.melds.get(to):
            raise IllegalCommand("no_such_meld", f"There is no meld {to} on the table.")
        if to == src:
            raise IllegalCommand("same_meld")
        return to

    def _cmd_drop(self, ps: PlayerState, cmd: Command) -> dict[str, int] | None:
        self._guard_player(ps)
        hold = self.holds.get(ps.name)
        if hold is None:
            raise IllegalCommand("not_holding")
        try:
            dst = self._drop_target(cmd.to, hold.meld)
        except Refused:
            self._release(ps.name, "dropped_back")  # R12: it drops back by itself
            raise
        del self.holds[ps.name]
        play = self._current_play(ps)
        assert play is not None
        return self._do_move(play, hold.card, hold.meld, dst)

    def _cmd_move(self, ps: PlayerState, cmd: Command) -> dict[str, int] | None:
        self._guard_player(ps)
        card = self._check_take(ps, cmd.card, cmd.meld)
        assert cmd.meld is not None
        dst = self._drop_target(cmd.to, cmd.meld)
        play = self._open_play(ps)
        return self._do_move(play, card, cmd.meld, dst)

    def _do_move(self, play: Play, card: int, src: int, dst: int | None) -> dict[str, int] | None:
        """Move a table card (R6); ``dst`` None opens a new meld, whose id is returned."""
        made = None
        if dst is None:
            dst = self._new_meld()
            made = {"meld": dst}
        self._record(play, "move", card, ("meld", src), dst, owner=None)
        self._emit("moved", play.player, {"play": play.id, "card": C.name(card), "from": src, "to": dst})
        self._ping_pong(play, card, src, dst)
        return made

    def _cmd_end(self, ps: PlayerState, cmd: Command) -> None:
        self._guard_player(ps)
        play = self._current_play(ps)
        if play is None:
            raise IllegalCommand("no_open_play")
        self._end_play(play, "end")

    def _cmd_cancel(self, ps: PlayerState, cmd: Command) -> None:
        self._guard_player(ps)
        play = self._current_play(ps)
        if play is None:
            raise IllegalCommand("no_open_play")
        self._end_play(play, "cancel")

    def _end_play(self, play: Play, reason: str) -> None:
        """End and judge a play (R7–R10). ``reason``: staging_empty, end, cancel,
        timeout, auto (direct play in order), left, hand_end, eliminated."""
        if play.status != "open":
            return
        ps = self.players[play.player]
        while ps.pending_draws and self.stocks[ps.name]:
            ps.pending_draws -= 1
            card = self._draw_top(ps)
            self._emit("forced_draw", ps.name, {"deferred": True, "stock": len(self.stocks[ps.name])},
                       {"card": C.name(card)})
        ps.pending_draws = 0
        self._release(ps.name, "play_ended")
        hits: dict[str, list[str]] = {}
        fell: list[str] = []
        fell_hand: list[str] = []  # own cards back to a hand
        fell_table: list[str] = []  # table cards back to the meld they came from
        wounds: list[dict[str, Any]] = []

        def undo(a: Action) -> None:
            fell.append(C.name(a.card))
            (fell_hand if a.kind == "own" else fell_table).append(C.name(a.card))
            self._undo(a, play.id, hits)

        if reason == "cancel":
            for a in reversed(play.actions):
                if not a.undone:
                    undo(a)
        else:
            while True:
                wounded = self._judge(play)[0]
                if not wounded:
                    break
                wounds.extend(self._wounds(wounded, play.id))
                ws = set(wounded)
                for a in reversed(play.actions):
                    if not a.undone and ws.intersection(a.touches()):
                        undo(a)
            if play.staged_ever and not play.in_freeze and not play.own_down():
                if any(not a.undone for a in play.actions):
                    # R9, §5.3: a declared play that brought none of its own cards down.
                    wounds.append({"meld": None, "cards": [], "why": "no_own_card"})
                for a in reversed(play.actions):
                    if not a.undone:
                        undo(a)
        staged_back = []
        for c in list(self.staging[ps.name]):
            owner = self._pile_owner.pop(c, ps.name)
            self._move_card(c, ("hand", owner))
            staged_back.append(C.name(c))
        self._open.remove(play.id)
        ps.play = None
        for card, pid in list(self.reserved.items()):
            if pid == play.id:
                del self.reserved[card]
        if len({self.plays[p].player for p in self._open}) < 2:
            self._pp.clear()
        _, deps, waits = self._judge(play)
        if play.standing():
            play.status = "confirmed"
            play.confirmed_ms = self.now_ms
            self._confirmations += 1
            play.confirmed_order = self._confirmations
            for a in deps:
                play.deps.add(a.play)
            for a in waits:
                play.deps.add(a.play)  # for finality only: no meld edge (see _judge_meld)
            for a in play.standing():
                play.deps.update(b.play for b in self.graph.earlier_on_card(a) if b.play != play.id)
            play.deps.discard(play.id)
            self.graph.confirm(play, deps)
            self._auto_split(play)
            if play.own_down():
                self._restart_inactivity()
                if self.tiebreak is not None:
                    self.tiebreak.candidates.append(play.id)
        else:
            play.status = "void"
        self._emit("play_ended", play.player, {
            "play": play.id, "reason": reason, "outcome": play.status,
            "fell": fell, "staged_back": staged_back,
            "depends_on": sorted(play.deps),
            "fell_hand": fell_hand, "fell_table": fell_table, "wounds": wounds,
        })
        self._notify(play.id, hits, wounds, reason)
        self._sweep()

    def _auto_split(self, play: Play) -> None:
        """R4: split each touched valid run longer than the limit with no card on trial."""
        limit = self.rules.longest_run
        if limit is None:
            return
        todo = [m for m in self._touched(play) if len(self.melds.get(m, ())) > limit]
        while todo:
            m = todo.pop(0)
            cards = self.melds.get(m, [])
            if len(cards) <= limit or any(self.on_trial(c) for c in cards):
                continue
            ordered = run_order(cards, self.rules)
            if ordered is None:
                continue
            # One halving at a time: the second half gets the next id now, and the halves are
            # split again in the order they were made (R4, R2).
            half = (len(ordered) + 1) // 2
            nm = self._new_meld()
            for c in ordered[half:]:
                self._record(play, "split", c, ("meld", m), nm, owner=None)
            todo[0:0] = [m, nm]
            self._emit("split", play.player, {
                "play": play.id, "meld": m, "into": [nm],
                "cards": [C.names(ordered[:half]), C.names(ordered[half:])]})
