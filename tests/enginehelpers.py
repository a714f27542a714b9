"""Compact notation for engine tests (STYLE 12): positions, commands, assertions.

Positions are written the way a player reads the table::

    h = position("4C 5C 6C | 9H 10H JH", A="7C 2S", B="8C", stocks={"A": "9D"})

* ``table``: melds separated by ``|``; they get ids 1, 2, … in order and count
  as final (laid before the test starts);
* one keyword per player for their hand (``A="7C 2S"``);
* ``stocks``: top card first; ``removed``: out of play, face up;
* ``drew`` / ``laid``: the players who already meet the two going-out
  conditions (§8, R15). Both default to every player, so pass ``drew=""`` or
  ``laid=""`` when a test is about them.

Commands follow R6's grammar, player first::

    do(h, 1.0, "A add 7C 1")          # add, place: CARD MELD
    do(h, 1.5, "B move 8H 1 new")     # move: CARD MELD TO
    do(h, 2.0, "B lay 8S 8D 8C")      # lay: CARDS
    assert_refused(h, "B take 8H 1", "held", now=2.5)

``assert_refused`` checks the error code *and* that nothing changed: every card
location, meld, play, hold, clock and player state (a refused drop still ends
the hold, R12).
"""

from __future__ import annotations

import pickle
from collections import Counter
from collections.abc import Collection, Iterable
from dataclasses import fields, is_dataclass
from enum import Enum
from typing import Any

from engine import cards as C
from engine.commands import needs
from engine.errors import Refused
from engine.hand import Command, Hand
from engine.melds import is_valid
from engine.rules import MACHIAVELOX, RuleSet

PLAYERS = ("A", "B", "C")

# ---------------------------------------------------------------------------------- faces


def _split(text: str | Iterable[str]) -> list[str]:
    if isinstance(text, str):
        return text.split()
    return list(text)


def _face_key(face: str) -> tuple[int, int]:
    rank, suit = C.parse_face(face)
    return (suit, rank)


def F(text: str | Iterable[str]) -> list[str]:
    """Faces in a canonical order (suit, then rank), normalised (``TH`` → ``10H``).

    ``F("7C 4C")`` → ``["4C", "7C"]``; used to compare multisets of cards.
    """
    out = [C.format_face(C.parse_face(f)) for f in _split(text)]
    return sorted(out, key=_face_key)


def T(text: str) -> list[list[str]]:
    """A table written ``"4C 5C 6C | 9H 10H JH"`` as ``table_of`` returns it."""
    return sorted(F(m) for m in text.split("|") if m.strip())


def faces_of(cards: Iterable[int]) -> list[str]:
    """Physical card ids as canonically ordered faces."""
    return F(C.name(c) for c in cards)


def table_of(hand: Hand) -> list[list[str]]:
    """Every meld on the table as a sorted face list, the melds sorted too (ids ignored)."""
    return sorted(faces_of(cs) for cs in hand.melds.values() if cs)


def meld(hand: Hand, mid: int) -> list[str]:
    """Meld ``mid`` as sorted faces; ``[]`` when that id is gone."""
    return faces_of(hand.melds.get(mid, []))


def hand_of(hand: Hand, p: str) -> list[str]:
    """Player ``p``'s hand (staging not included) as sorted faces."""
    return faces_of(hand.hands[p])


def staged(hand: Hand, p: str) -> list[str]:
    """Player ``p``'s staging area as sorted faces."""
    return faces_of(hand.staging[p])


def ids_of(hand: Hand, face: str, where: tuple[Any, ...] | None = None) -> list[int]:
    """The physical ids of ``face`` (optionally only those at location ``where``)."""
    want = C.parse_face(face)
    return sorted(c for c, loc in hand.loc.items()
                  if C.face_of(c) == want and (where is None or loc == where))


# ---------------------------------------------------------------------------------- positions


def position(
    table: str = "",
    *,
    stocks: dict[str, str] | None = None,
    removed: str = "",
    drew: str | Iterable[str] = PLAYERS,
    laid: str | Iterable[str] = PLAYERS,
    rules: RuleSet = MACHIAVELOX,
    players: Iterable[str] = PLAYERS,
    **hands: str,
) -> Hand:
    """A hand built with :meth:`Hand.from_position` from compact notation (see module doc)."""
    return Hand.from_position(
        list(players),
        table=[m.split() for m in table.split("|") if m.strip()],
        hands={p: _split(fs) for p, fs in hands.items()},
        stocks={p: _split(fs) for p, fs in (stocks or {}).items()},
        removed=_split(removed),
        drew=list(drew),
        laid=list(laid),
        rules=rules,
    )


# ---------------------------------------------------------------------------------- commands


def cmd(text: str) -> Command:
    """``"A move 8H 1 new"`` → ``Command("A", "move", card="8H", meld=1, to="new")`` (R6)."""
    words = text.split()
    if len(words) < 2:
        raise ValueError(f"a command is 'PLAYER DO ...', not {text!r}")
    p, do, args = words[0], words[1], words[2:]

    fields = needs(do)
    if do == "lay":
        return Command(p, do, cards=tuple(args))
    if len(args) > len(fields):
        raise ValueError(f"{do} takes {', '.join(fields) or 'nothing'}, not {text!r}")
    # The schema's fields, in its order (engine.commands): card, meld (an id), to (an id or new).
    values: dict[str, Any] = {}
    for f, w in zip(fields, args):
        values[f] = w if f == "card" else (w if w == "new" else int(w))
    return Command(p, do, **values)


def _as_cmd(command: str | Command) -> Command:
    return cmd(command) if isinstance(command, str) else command


def do(hand: Hand, now: float, *commands: str | Command) -> None:
    """Apply each command at ``now`` (seconds); a refusal fails the test with its reason."""
    for c in commands:
        command = _as_cmd(c)
        try:
            hand.apply(command, now)
        except Refused as e:  # pragma: no cover - the message is the point
            raise AssertionError(f"{command} was refused at t={now}: {e.code}: {e.message}") from None


def replayed_place(stack: Iterable[Any], start: tuple[Any, ...], back: Collection[Any]) -> tuple[Any, ...]:
    """R8 by its letter, for the brute forces: a card replayed forward from ``start`` over
    its live actions ``stack`` (oldest first), skipping those in ``back`` and, R8's turn 3,
    a play's later actions of the card once one of its actions on it is skipped."""
    place = start
    cut: set[int] = set()
    for a in stack:
        if a in back or a.play in cut:
            cut.add(a.play)
        else:
            place = ("meld", a.dst)
    return place


def events(hand: Hand, kind: str | None = None) -> list[dict[str, Any]]:
    """Drain the hand's events as dicts, keeping only ``kind`` when given."""
    out = [e.as_dict() for e in hand.drain_events()]
    return [e for e in out if kind is None or e["kind"] == kind]


# ---------------------------------------------------------------------------------- state


def _plain(obj: Any) -> Any:
    """A deep, comparable copy: dataclasses (whatever their ``eq``) become tuples of fields."""
    if is_dataclass(obj) and not isinstance(obj, type):
        return (type(obj).__name__, tuple(_plain(getattr(obj, f.name)) for f in fields(obj)))
    if isinstance(obj, dict):
        return {k: _plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return tuple(_plain(x) for x in obj)
    if isinstance(obj, (set, frozenset)):
        return frozenset(_plain(x) for x in obj)
    if isinstance(obj, Enum):
        return obj.value
    if hasattr(obj, "__dict__") and not callable(obj):  # an engine object (the graph)
        return (type(obj).__name__, _plain(vars(obj)))
    return obj


def snapshot(hand: Hand) -> dict[str, Any]:
    """A deep copy of everything the hand holds except its outbox of events.

    Generic (every attribute), so it keeps up with changes to ``Hand``: card
    locations, containers, melds, plays and their actions, holds, reservations,
    clocks, players, freeze, tie-break and result.
    """
    state = {k: _plain(v) for k, v in vars(hand).items() if k != "_events"}
    state["next_deadline()"] = hand.next_deadline()
    return state


def diff_snapshots(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """The names of the parts that differ (empty when equal)."""
    keys = set(before) | set(after)
    return sorted(k for k in keys if before.get(k, "<absent>") != after.get(k, "<absent>"))


def _raw_state(hand: Hand) -> bytes:
    state = {k: v for k, v in vars(hand).items() if k != "_events"}
    state["next_deadline()"] = hand.next_deadline()
    return pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)


def freeze_state(hand: Hand) -> bytes:
    """A cheap exact image of the hand's state (everything but the outbox), to compare later."""
    return _raw_state(hand)


def changed_since(hand: Hand, image: bytes, *, dropped_hold: str | None = None) -> list[str]:
    """The parts of the hand that changed since ``freeze_state`` gave ``image``.

    ``dropped_hold``: the player whose refused drop ended their hold (R12); that hold, its
    event and the next deadline may change.
    """
    if dropped_hold is None and _raw_state(hand) == image:
        return []
    before = {k: _plain(v) for k, v in pickle.loads(image).items()}
    after = snapshot(hand)
    if dropped_hold is not None and dropped_hold in before["holds"]:
        before["holds"] = {p: v for p, v in before["holds"].items() if p != dropped_hold}
        before["version"] = after["version"]
        before["next_deadline()"] = after["next_deadline()"]
    return diff_snapshots(before, after)


def assert_refused(hand: Hand, command: str | Command, code: str | Iterable[str],
                   now: float | None = None) -> Refused:
    """Apply ``command`` expecting a refusal with ``code`` (or one of several codes) and
    check that it changed nothing (R6). A refused ``drop`` ends the hold (R12): only that
    and its event are allowed to change. Clocks due by ``now`` fire first, as in ``apply``.
    """
    command = _as_cmd(command)
    t = _sec(hand.now_ms) if now is None else now
    hand.tick(t)
    image = freeze_state(hand)
    try:
        hand.apply(command, t)
    except Refused as e:
        codes = {code} if isinstance(code, str) else set(code)
        assert e.code in codes, f"{command} refused with {e.code} ({e.message}), expected {codes}"
        assert e.message, "a refusal says why"
        changed = changed_since(hand, image,
                                dropped_hold=command.player if command.do == "drop" else None)
        assert not changed, f"refused {command} changed {changed}"
        return e
    raise AssertionError(f"{command} was accepted, expected a refusal ({code})")


def _sec(ms: int) -> float:
    return ms / 1000


def check_cards(hand: Hand) -> None:
    """Every physical card is in exactly one place and the containers agree with ``loc``."""
    deck = C.full_deck(hand.rules.packs, hand.rules.jokers)
    assert sorted(hand.loc) == deck, "loc must name every card of the deck exactly once"
    seen: Counter[int] = Counter()
    where: dict[int, tuple[Any, ...]] = {}

    def note(cards: Iterable[int], loc: tuple[Any, ...]) -> None:
        for c in cards:
            seen[c] += 1
            where[c] = loc

    for p in hand.players:
        note(hand.hands[p], ("hand", p))
        note(hand.staging[p], ("staging", p))
        note(hand.stocks[p], ("stock", p))
    for m, cs in hand.melds.items():
        note(cs, ("meld", m))
    note(hand.removed, ("removed",))
    dup = [C.name(c) for c, k in seen.items() if k > 1]
    assert not dup, f"cards in two places at once: {dup}"
    for c in deck:
        loc = hand.loc[c]
        if loc == ("out",):
            assert c not in where, f"{C.name(c)} is out of play but sits in {where[c]}"
        else:
            assert where.get(c) == loc, f"{C.name(c)}: loc says {loc}, containers say {where.get(c)}"


def table_is_valid(hand: Hand) -> bool:
    """True when every meld on the table, as it literally stands, is valid (§3)."""
    return all(is_valid(cs, hand.rules) for cs in hand.melds.values() if cs)


def score_by_r20(hand: Hand, tied: Iterable[str] = ()) -> dict[str, int]:
    """R20's scores recomputed from a finished hand's state, independently of the engine.

    ``tied`` lists the tie-break players (needed for ``tiebreak`` and ``draw``).
    """
    res = hand.result
    assert res is not None
    r = hand.rules
    count = {p: len(hand.hands[p]) + len(hand.staging[p]) for p in hand.players}
    scores = {p: (-r.penalty if ps.status in ("eliminated", "left") else 0)
              for p, ps in hand.players.items()}
    tied = list(tied)
    if res.end == "abandoned":
        return scores
    if res.end == "draw":
        pile = sum(count[p] for p in tied)
        for p in tied:
            if hand.players[p].status == "active":
                scores[p] = max(-r.penalty, r.win_base - pile)
        return scores
    w = res.winner
    assert w is not None
    if res.end == "tiebreak":
        pile_from_others = sum(count[q] for q in tied if q != w)
        outside = sum(count[q] for q in hand.players if q not in tied)
        scores[w] = r.win_base + pile_from_others + outside
        return scores
    others = sum(count[q] for q in hand.players if q != w)
    stock = len(hand.stocks[w])
    bonus = r.empty_stock_bonus if res.end == "out" and stock == 0 else 0
    scores[w] = r.win_base - stock + others + bonus
    return scores
