"""What one seat of a classic table may see (C13–C31): hidden information leaves only here.

:func:`classic_view` builds plain dicts (strings, numbers, lists, None) for a seat (a player
name) or a spectator (``seat=None``); :func:`classic_event_view` filters one event the same
way, through :func:`engine.view.event_view` (a drawn or penalty card only for its player).
A seat sees its own hand, the others' counts, the table with each joker's face, whose turn it
is and when its clock ends (seconds since the match began), the loose jokers, who has opened,
the passes in a row, the last hand's result and the match. No stock order, no other hand.

Shape (keys always present)::

    {"t": 12.5, "version": 40, "you": "A" | None, "rules": "classic",
     "options": {"packs": 2, "jokers": 4, "hand": 13, "ace": "low_or_high", ...},  # C1
     "players": [{"name", "connected", "in_match", "in_hand": bool, "hand_count",
                  "opened": bool, "first_turn": bool, "absent_until": s | None}],
     "hand": [faces] | None,                       # only your own; jokers "JK"
     "table": [{"id", "cards": [faces, run order, jokers "JK=7H" / "JK"], "valid",
                "changed": bool}],                 # changed this turn (not yet judged)
     "stock": n, "loose": n, "passes": n,
     "turn": {"player", "started": s, "deadline": s | None,   # the turn clock (C20)
              "ends": s | None} | None,             # with its player's absence (C31)
     "result": {"end", "winner", "scores", "values"} | None,   # the LAST hand that ended,
                                                  # kept through the next (turn says who plays)
     "match": {"hand", "dealer", "totals", "over", "winner", "pause_until": s | None}}
"""

from __future__ import annotations

from typing import Any

from .. import cards as C
from ..model import Event
from ..rules import OPTION_FIELDS, RuleSet
from ..timeunits import sec
from ..view import event_view
from .jokers import display, meld_ok
from .match import ClassicMatch


def _plain(value: Any) -> Any:
    return value.value if hasattr(value, "value") else value


def options_of(rules: RuleSet) -> dict[str, Any]:
    """The table's C1 options by their names (what the lobby shows)."""
    return {opt: _plain(getattr(rules, field)) for opt, field in OPTION_FIELDS.items()}


def classic_view(match: ClassicMatch, seat: str | None) -> dict[str, Any]:
    """The match as ``seat`` may see it (None: a spectator, who sees no hand)."""
    hand = match.hand
    rules = match.rules
    aways = match.leave_deadlines()
    players = []
    for p in match.players:
        in_hand = hand is not None and hand.status.get(p) == "in"
        players.append({
            "name": p, "connected": match.connected[p], "in_match": match.in_match[p],
            "in_hand": in_hand,
            "hand_count": len(hand.hands.get(p, [])) if hand is not None else 0,
            "opened": hand is not None and (rules.opening <= 0 or p not in hand.unopened),
            "first_turn": hand is not None and p in hand.first_turn,
            "absent_until": sec(aways[p]) if p in aways else None,
        })
    own = None
    table: list[dict[str, Any]] = []
    turn = None
    if hand is not None:
        if seat is not None and seat in hand.hands:
            own = C.names(hand.hands[seat])
        for mid, cards in hand.melds.items():
            table.append({"id": mid, "cards": display(cards, hand.faces, rules),
                          "valid": meld_ok(cards, hand.faces, rules),
                          "changed": mid in hand.touched})
        if hand.turn is not None and hand.result is None:
            d, e = match.turn_deadline_ms(), match.turn_ends_ms()
            turn = {"player": hand.turn, "started": sec(hand.turn_started_ms),
                    "deadline": None if d is None else sec(d),
                    "ends": None if e is None else sec(e)}
    res = match.last_result
    return {
        "t": sec(match.now_ms), "version": match.version, "you": seat, "rules": rules.name,
        "options": options_of(rules),
        "players": players,
        "hand": own,
        "table": table,
        "stock": len(hand.stock) if hand is not None else 0,
        "loose": len(hand.loose) if hand is not None else 0,
        "passes": hand.passes if hand is not None else 0,
        "turn": turn,
        "result": None if res is None else {"end": res.end, "winner": res.winner,
                                            "scores": dict(res.scores),
                                            "values": dict(res.values)},
        "match": {"hand": match.hand_no, "dealer": match.dealer, "totals": dict(match.totals),
                  "over": match.over, "winner": match.winner,
                  "pause_until": None if match.pause_deadline_ms is None
                  else sec(match.pause_deadline_ms)},
    }


def classic_event_view(event: Event, seat: str | None) -> dict[str, Any]:
    """One classic event as ``seat`` may see it (:func:`engine.view.event_view`)."""
    return event_view(event, seat)
