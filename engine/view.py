"""What one seat may see: hidden information leaves through these functions only (§4, §6).

:func:`hand_view` and :func:`game_view` build plain dicts (strings, numbers,
lists, None) for a seat (a player name) or for a spectator (``seat=None``).
A seat sees its own hand; everybody sees every staging area (face up, §4),
counts of the other hands and of every stock, the removed cards (§1), the
table with the melds each open play is reworking, holds, reservations, the
plays not yet final, every clock as a deadline (seconds since the hand began),
and in a tie-break the shared pile (face up, §10.2). No stock order and no
other hand ever appear. :func:`event_view` filters one event the same way.

A view is built in two parts (issue 19): :func:`shared_hand_view` / :func:`shared_game_view`,
the spectator's view, which holds nothing of any seat and is built once per batch for every
seat, and the seat's own hand (:func:`own_hand`), put in by :func:`seat_hand_view` /
:func:`seat_game_view`. A meld's view depends on its cards alone unless someone reworks it,
so it is cached per hand by its id and cards (display order R4, validity R3), and the same
dict comes back while the meld does not change: views share such parts, so never modify a
view (copy what you change).

Shape of :func:`hand_view` (keys always present)::

    {"t": 12.5, "version": 40, "you": "A" | None, "rules": "machiavelox",
     "timers": {"play": 40.0, "hold": 10.0, ...},
     "players": [{"name", "status", "connected", "hand_count", "stock_count",
                  "staging": [faces], "open_play": id | None, "stop_used",
                  "drew", "laid", "laid_final", "absent_until": s | None,
                  "pending_draws"}],   # laid: R15's lay condition holds (a lay in a play
                                       # confirmed and not fallen, or met before the hand);
                                       # laid_final: such a lay is in a final play (R11), so
                                       # it can no longer fall; laid and not laid_final is
                                       # "pending" (the going-out checklist, issue 17)
     "hand": [faces] | None,                # only your own
     "table": [{"id", "cards": [faces, run order; invalid: as built, docs/rules.md 2.6],
                "valid", "reworked_by": [players],
                "on_trial": [faces], "held": [faces]}],
     "removed": [faces],
     "plays": [{"id", "player", "status": "open" | "suspended" | "confirmed",
                "deadline": s | None, "suspended_left": s | None, "declared": bool,
                "melds": [ids]}],                # open plays and plays not yet final
     "holds": [{"player", "card", "meld", "until"}],
     "reserved": [{"card", "player"}],
     "clocks": {"inactivity": s | None, "freeze": {"caller", "until"} | None,
                "tiebreak": {"players", "until"} | None, "absences": {name: s}},
     "tiebreak": {"players", "until", "pile": {name: [faces]}} | None,
     "result": {"end", "winner", "scores", "reasons",
                "breakdown": {name: {"base": 50, "stock": -3, "opponents": 9, ...}}} | None}
"""

from __future__ import annotations

import weakref
from typing import Any, TypedDict

from . import cards as C
from .game import Game
from .hand import Hand
from .melds import display_order, is_valid
from .model import Event, Play
from .timeunits import sec


class PlayerView(TypedDict):
    name: str
    status: str
    connected: bool
    hand_count: int
    stock_count: int
    staging: list[str]
    open_play: int | None
    stop_used: bool
    drew: bool
    laid: bool
    laid_final: bool
    absent_until: float | None
    pending_draws: int


class MeldView(TypedDict):
    id: int
    cards: list[str]
    valid: bool
    reworked_by: list[str]
    on_trial: list[str]
    held: list[str]


class PlayView(TypedDict):
    id: int
    player: str
    status: str
    deadline: float | None
    suspended_left: float | None
    declared: bool
    melds: list[int]


class HoldView(TypedDict):
    player: str
    card: str
    meld: int
    until: float


class ReservedView(TypedDict):
    card: str
    player: str


class FreezeClock(TypedDict):
    caller: str
    until: float


class TiebreakClock(TypedDict):
    players: list[str]
    until: float


class ClocksView(TypedDict):
    inactivity: float | None
    freeze: FreezeClock | None
    tiebreak: TiebreakClock | None
    absences: dict[str, float]


class TiebreakView(TypedDict):
    players: list[str]
    until: float
    pile: dict[str, list[str]]


class ResultView(TypedDict):
    end: str
    winner: str | None
    scores: dict[str, int]
    reasons: dict[str, str]
    breakdown: dict[str, dict[str, int]]


class HandView(TypedDict):
    """The shape of :func:`hand_view` (checked by mypy here; validated in the tests only, so
    the hot path pays nothing)."""

    t: float
    version: int
    you: str | None
    rules: str
    timers: dict[str, float]
    players: list[PlayerView]
    hand: list[str] | None
    table: list[MeldView]
    removed: list[str]
    plays: list[PlayView]
    holds: list[HoldView]
    reserved: list[ReservedView]
    clocks: ClocksView
    tiebreak: TiebreakView | None
    result: ResultView | None


class SeatView(TypedDict):
    name: str
    connected: bool
    in_game: bool
    ready: bool


class HandRecordView(TypedDict):
    hand: int
    end: str
    winner: str | None
    scores: dict[str, int]
    reasons: dict[str, str]


class GameResultView(TypedDict):
    winner: str | None
    long_draw: bool
    totals: dict[str, int]
    reason: str


class GameView(TypedDict):
    """The shape of :func:`game_view`."""

    phase: str
    long: bool
    hand_no: int
    target: int | None
    totals: dict[str, int]
    seats: list[SeatView]
    history: list[HandRecordView]
    pause_until: float | None
    game_t: float
    hand_started: float
    result: GameResultView | None
    hand: HandView | None


def _s(ms: int | None) -> float | None:
    return None if ms is None else sec(ms)


#: Every card id's face (R1), looked up instead of written each time: views name many cards.
_NAME = [C.name(c) for c in range(C.JOKER_BASE + 64)]


def _names(cards: list[int] | tuple[int, ...]) -> list[str]:
    name = _NAME
    return [name[c] for c in cards]


class _HandParts:
    """Per hand, parts of its view that change rarely, kept while they stay the same so that
    the next view shares them (and a diff finds them unchanged at once): the timers (fixed
    for the hand) and the removed cards (§1)."""

    __slots__ = ("melds", "removed", "removed_key", "timers")

    def __init__(self, hand: Hand) -> None:
        rules = hand.rules
        self.melds: dict[tuple[int, ...], MeldView] = {}
        self.timers = {"play": rules.play, "hold": rules.hold, "inactivity": rules.inactivity,
                       "freeze": rules.freeze, "absence": rules.absence,
                       "tiebreak": rules.tiebreak, "pause": rules.pause}
        self.removed_key: tuple[int, ...] = ()
        self.removed: list[str] = []

    def removed_names(self, removed: list[int]) -> list[str]:
        key = tuple(removed)
        if key != self.removed_key:
            self.removed_key, self.removed = key, _names(removed)
        return self.removed


#: Per hand (keyed by the hand object's identity, never by the frozen RuleSet, whose hash
#: costs more than the view it would save; a hand's rules never change): its
#: :class:`_HandParts`, among them each meld's view by its id and cards (physical ids, as they
#: lie): names in display order and validity (R3, R4) change only when the cards do. The meld
#: cache is emptied past :data:`MELD_CACHE_SIZE` entries.
_PARTS: weakref.WeakKeyDictionary[Hand, _HandParts] = weakref.WeakKeyDictionary()
MELD_CACHE_SIZE = 4096


def _parts(hand: Hand) -> _HandParts:
    parts = _PARTS.get(hand)
    if parts is None:
        parts = _PARTS[hand] = _HandParts(hand)
    elif len(parts.melds) > MELD_CACHE_SIZE:
        parts.melds = {}
    return parts


def _quiet_meld(hand: Hand, mid: int, cards: list[int],
                cache: dict[tuple[int, ...], MeldView]) -> MeldView:
    """The view of a meld nobody is reworking (no open play on it, no hold): cached by its
    cards, so the same dict comes back while the meld does not change (do not modify it)."""
    key = (mid, *cards)
    view = cache.get(key)
    if view is None:
        view = {"id": mid, "cards": _names(display_order(cards, hand.rules)),
                "valid": is_valid(cards, hand.rules), "reworked_by": [], "on_trial": [],
                "held": []}
        cache[key] = view
    return view


def _table_view(hand: Hand, open_plays: list[Play], parts: _HandParts) -> list[MeldView]:
    """The melds in the hand's order, each with who reworks it, its cards on trial (§5.4)
    and the held ones (§6)."""
    reworking: dict[int, list[str]] = {}
    trial: set[int] = set()
    stacks = hand.card_stack
    for play in open_plays:
        for m in hand.melds_touched(play):
            players = reworking.setdefault(m, [])
            if play.player not in players:
                players.append(play.player)
        for a in play.actions:
            # On trial: the card's latest live move is this open play's (Hand.on_trial).
            if not a.undone and (st := stacks.get(a.card)) and st[-1].play == play.id:
                trial.add(a.card)
    for h in hand.holds.values():
        players = reworking.setdefault(h.meld, [])
        if h.player not in players:
            players.append(h.player)
    held_cards = {h.card for h in hand.holds.values()}
    cache = parts.melds
    table: list[MeldView] = []
    for mid, cards in hand.melds.items():
        if not cards:
            continue
        by = reworking.get(mid)
        if by is None and not held_cards and not trial:
            table.append(_quiet_meld(hand, mid, cards, cache))
            continue
        quiet = _quiet_meld(hand, mid, cards, cache)
        on_trial = [_NAME[c] for c in cards if c in trial] if trial else []
        held = [_NAME[c] for c in cards if c in held_cards] if held_cards else []
        if by is None and not on_trial and not held:
            table.append(quiet)
            continue
        table.append({"id": mid, "cards": quiet["cards"], "valid": quiet["valid"],
                      "reworked_by": by or [], "on_trial": on_trial, "held": held})
    return table


def _pending_lays(hand: Hand, open_plays: list[Play]) -> set[str]:
    """The players with a standing ``lay`` in a play confirmed but not final, or in the Stop!
    caller's open play during the freeze (R15, R16): their lay counts for going out, but can
    still fall. A lay in a final play is already in ``PlayerState.laid`` (``engine.chain``)."""
    out: set[str] = set()
    plays = hand.unfinal_plays()
    if hand.freeze is not None:
        plays = plays + [pl for pl in open_plays if pl.in_freeze]
    for play in plays:
        if play.player not in out and any(a.lay and not a.undone for a in play.actions):
            out.add(play.player)
    return out


def shared_hand_view(hand: Hand) -> HandView:
    """The part of :func:`hand_view` every seat shares: the spectator's view (``you`` and
    ``hand`` None). Built once per batch (``server.frames``); nothing in it is a seat's own."""
    rules = hand.rules
    parts = _parts(hand)
    open_plays = hand.open_plays()
    pending = _pending_lays(hand, open_plays)
    players: list[PlayerView] = []
    for p in hand.order:
        ps = hand.players[p]
        players.append({
            "name": p, "status": ps.status, "connected": ps.connected,
            "hand_count": len(hand.hands[p]), "stock_count": len(hand.stocks[p]),
            "staging": _names(hand.staging[p]), "open_play": ps.play,
            "stop_used": ps.stop_used, "drew": ps.drew, "laid": ps.laid or p in pending,
            "laid_final": ps.laid, "absent_until": _s(ps.absence_deadline_ms), "pending_draws": ps.pending_draws,
        })
    plays: list[PlayView] = []
    for play in open_plays + [p for p in hand.unfinal_plays() if p not in open_plays]:
        status: str = play.status
        if status == "open" and play.suspended_ms is not None:
            status = "suspended"
        plays.append({
            "id": play.id, "player": play.player, "status": status,
            "deadline": _s(play.deadline_ms), "suspended_left": _s(play.suspended_ms),
            "declared": play.staged_ever, "melds": hand.melds_touched(play),
        })
    fr, tb = hand.freeze, hand.tiebreak
    res = hand.result
    return {
        "t": sec(hand.now_ms),
        "version": hand.version,
        "you": None,
        "rules": rules.name,
        "timers": parts.timers,
        "players": players,
        "hand": None,
        "table": _table_view(hand, open_plays, parts),
        "removed": parts.removed_names(hand.removed),
        "plays": plays,
        "holds": [{"player": h.player, "card": _NAME[h.card], "meld": h.meld,
                   "until": sec(h.deadline_ms)} for h in hand.holds.values()],
        "reserved": [{"card": _NAME[c], "player": hand.plays[pid].player}
                     for c, pid in hand.reserved.items()],
        "clocks": {
            "inactivity": _s(hand.inactivity_deadline_ms),
            "freeze": None if fr is None else {"caller": fr.caller, "until": sec(fr.deadline_ms)},
            "tiebreak": None if tb is None else {"players": list(tb.players), "until": sec(tb.deadline_ms)},
            "absences": {p: sec(d) for p in hand.order
                         if (d := hand.players[p].absence_deadline_ms) is not None},
        },
        "tiebreak": None if tb is None else {
            "players": list(tb.players), "until": sec(tb.deadline_ms),
            "pile": {p: _names(hand.hands[p]) for p in tb.players}},
        "result": None if res is None else {"end": res.end, "winner": res.winner,
                                            "scores": dict(res.scores), "reasons": dict(res.reasons),
                                            "breakdown": {p: dict(t) for p, t in res.breakdown.items()}},
    }


def own_hand(hand: Hand, seat: str | None) -> list[str] | None:
    """The seat's own hand (faces, as they lie), the only private part of a hand view; None
    for a spectator or a name not playing this hand."""
    return _names(hand.hands[seat]) if seat is not None and seat in hand.players else None


def seat_hand_view(shared: HandView, seat: str | None, own: list[str] | None) -> HandView:
    """:func:`hand_view` from its shared part and the seat's own hand."""
    if seat is None:
        return shared
    view = shared.copy()
    view["you"] = seat
    view["hand"] = own
    return view


def hand_view(hand: Hand, seat: str | None) -> HandView:
    """The hand as ``seat`` may see it (None: a spectator, who sees no hand)."""
    return seat_hand_view(shared_hand_view(hand), seat, own_hand(hand, seat))


def shared_game_view(game: Game) -> GameView:
    """The part of :func:`game_view` every seat shares (the spectator's game view)."""
    return {
        "phase": game.phase,
        "long": game.long,
        "hand_no": game.hand_no,
        "target": game.rules.target if game.long else None,
        "totals": dict(game.totals),
        "seats": [{"name": s.name, "connected": s.connected, "in_game": s.in_game, "ready": s.ready}
                  for s in game.seats.values()],
        "history": [{"hand": h.number, "end": h.end, "winner": h.winner, "scores": h.scores,
                     "reasons": h.reasons} for h in game.history],
        "pause_until": _s(game.pause_deadline_ms),
        "game_t": sec(game.now_ms),
        "hand_started": sec(game.hand_started_ms),
        "result": None if game.result is None else {
            "winner": game.result.winner, "long_draw": game.result.long_draw,
            "totals": game.result.totals, "reason": game.result.reason},
        "hand": None if game.hand is None else shared_hand_view(game.hand),
    }


def seat_game_view(shared: GameView, game: Game, seat: str | None) -> GameView:
    """:func:`game_view` for ``seat`` from the shared part (:func:`shared_game_view`)."""
    if seat is None or shared["hand"] is None or game.hand is None:
        return shared
    view = shared.copy()
    view["hand"] = seat_hand_view(shared["hand"], seat, own_hand(game.hand, seat))
    return view


def game_view(game: Game, seat: str | None) -> GameView:
    """The game as ``seat`` may see it: phase, totals, the history of hands,
    the pause clock (seconds since the game began) and the current hand's view."""
    return seat_game_view(shared_game_view(game), game, seat)


def event_view(event: Event, seat: str | None) -> dict[str, Any]:
    """One event as ``seat`` may see it: private fields only for the event's player."""
    return event.as_dict(with_private=seat is not None and seat == event.player)
