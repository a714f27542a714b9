"""What one seat may see: hidden information leaves through these functions only (§4, §6).

:func:`hand_view` and :func:`game_view` build plain dicts (strings, numbers,
lists, None) for a seat (a player name) or for a spectator (``seat=None``).
A seat sees its own hand; everybody sees every staging area (face up, §4),
counts of the other hands and of every stock, the removed cards (§1), the
table with the melds each open play is reworking, holds, reservations, the
plays not yet final, every clock as a deadline (seconds since the hand began),
and in a tie-break the shared pile (face up, §10.2). No stock order and no
other hand ever appear. :func:`event_view` filters one event the same way.

Shape of :func:`hand_view` (keys always present)::

    {"t": 12.5, "version": 40, "you": "A" | None, "rules": "machiavelox",
     "timers": {"play": 40.0, "hold": 10.0, ...},
     "players": [{"name", "status", "connected", "hand_count", "stock_count",
                  "staging": [faces], "open_play": id | None, "stop_used",
                  "drew", "laid", "absent_until": s | None, "pending_draws"}],
     "hand": [faces] | None,                # only your own
     "table": [{"id", "cards": [faces, run order], "valid", "reworked_by": [players],
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

from typing import Any, TypedDict

from . import cards as C
from .game import Game
from .hand import Hand
from .melds import is_valid
from .model import Event
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


def hand_view(hand: Hand, seat: str | None) -> HandView:
    """The hand as ``seat`` may see it (None: a spectator, who sees no hand)."""
    rules = hand.rules
    open_plays = hand.open_plays()
    reworking: dict[int, list[str]] = {}
    for play in open_plays:
        for m in hand.melds_touched(play):
            reworking.setdefault(m, [])
            if play.player not in reworking[m]:
                reworking[m].append(play.player)
    for h in hand.holds.values():
        reworking.setdefault(h.meld, [])
        if h.player not in reworking[h.meld]:
            reworking[h.meld].append(h.player)
    held_cards = {h.card for h in hand.holds.values()}
    table: list[MeldView] = []
    for mid, cards in hand.melds.items():
        if not cards:
            continue
        table.append({
            "id": mid,
            "cards": hand.meld_view(mid),
            "valid": is_valid(cards, rules),
            "reworked_by": reworking.get(mid, []),
            "on_trial": [C.name(c) for c in cards if hand.on_trial(c)],
            "held": [C.name(c) for c in cards if c in held_cards],
        })
    players: list[PlayerView] = []
    for p in hand.order:
        ps = hand.players[p]
        players.append({
            "name": p, "status": ps.status, "connected": ps.connected,
            "hand_count": len(hand.hands[p]), "stock_count": len(hand.stocks[p]),
            "staging": C.names(hand.staging[p]), "open_play": ps.play,
            "stop_used": ps.stop_used, "drew": ps.drew, "laid": ps.laid,
            "absent_until": _s(ps.absence_deadline_ms), "pending_draws": ps.pending_draws,
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
        "you": seat,
        "rules": rules.name,
        "timers": {"play": rules.play, "hold": rules.hold, "inactivity": rules.inactivity,
                   "freeze": rules.freeze, "absence": rules.absence, "tiebreak": rules.tiebreak,
                   "pause": rules.pause},
        "players": players,
        "hand": C.names(hand.hands[seat]) if seat in hand.players else None,
        "table": table,
        "removed": C.names(hand.removed),
        "plays": plays,
        "holds": [{"player": h.player, "card": C.name(h.card), "meld": h.meld,
                   "until": sec(h.deadline_ms)} for h in hand.holds.values()],
        "reserved": [{"card": C.name(c), "player": hand.plays[pid].player}
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
            "pile": {p: C.names(hand.hands[p]) for p in tb.players}},
        "result": None if res is None else {"end": res.end, "winner": res.winner,
                                            "scores": dict(res.scores), "reasons": dict(res.reasons),
                                            "breakdown": {p: dict(t) for p, t in res.breakdown.items()}},
    }


def game_view(game: Game, seat: str | None) -> GameView:
    """The game as ``seat`` may see it: phase, totals, the history of hands,
    the pause clock (seconds since the game began) and the current hand's view."""
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
        "hand": None if game.hand is None else hand_view(game.hand, seat),
    }


def event_view(event: Event, seat: str | None) -> dict[str, Any]:
    """One event as ``seat`` may see it: private fields only for the event's player."""
    return event.as_dict(with_private=seat is not None and seat == event.player)
