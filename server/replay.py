"""Replays: a finished hand made again from its table's log, frame by frame (issue 17, point 7).

A replay is built on the server by running the engine again (it is deterministic) from what
makes a table's game again (``server.journal``): the table's meta (``server.durable.table_meta``:
deal options, seats, bot seats) and its journal as ``(version, entries)``. Where that comes
from (:func:`load_source`):

* the table in this process (live or over, until it is forgotten): its meta and journal,
  read inside its task;
* a durable store (Redis): ``Store.table_load`` (the table's meta and the journal of its log,
  kept ``unfinished_ttl`` after the last change), read only: nothing is taken over;
* a memory store: the record the table leaves when its game ends (:func:`keep_record`,
  ``replay:{code}`` among the store's table records), for tables already forgotten.

:func:`build_replay` turns a source into the replay of hand ``n`` (1-based, as
``hand_dealt`` numbers it), or raises :class:`NoSuchHand` (404 ``no_such_hand``) or
:class:`HandNotOver` (409 ``hand_not_over``: nobody may see the cards of a hand being played).
Its shape (docs/protocol.md, "Replays")::

    {"code", "hand", "mode", "agora", "rules": {...RuleSet fields}, "seats": [names],
     "bots": [names], "dealt": {name: [faces]}, "stocks_dealt": {name: [faces]},
     "duration": s, "result": RESULT, "undos": [frame index, ...],
     "frames": [{"version", "t": s, "events": [EVENT, with private fields],
                 "undos": n, "view": HAND_VIEW (a spectator's), "hands": {name: [faces]},
                 "stocks": {name: [faces]}}]}

Times are seconds since the hand began (the hand view's ``t``). Every event keeps its private
fields (the hand is over: every card may be shown), each tagged with its ``hand``.

A classic hand (issue 35) has the same shape with ``"variant"`` its preset, frames whose
``view`` is the table as a spectator saw it (``{"t", "table": [{"id", "cards", "valid"}],
"players": [{"name", "status": "active" | "left", "staging": [], "opened", "hand_count"}],
"turn": name | None, "stock": n, "result"}``), ``"stocks": {}`` and ``"stock": [faces]``
(the one shared stock, top first), and ``"stock_dealt"`` instead of ``"stocks_dealt"``.
"""

from __future__ import annotations

import gzip
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import orjson

from engine import cards as C
from engine.classic.view import classic_view
from engine.view import shared_hand_view

from .durable import entry_from, entry_json, options_from, rules_dict, table_meta
from .inbox import TableError
from .journal import JournalEntry, is_classic, replay
from .store import Store

#: Replays kept built, by ``(log id, hand)`` (a finished hand never changes).
CACHE_SIZE = 32


class NoSuchHand(TableError):
    status = 404


class HandNotOver(TableError):
    status = 409


HAND_NOT_OVER = "This hand is still being played: its replay opens once it is over."


@dataclass(frozen=True)
class Source:
    """What makes a table's game again: its meta and journal ``(version, entries)``; for a
    table of this process also ``current``: its hand number and whether that hand is over
    (so that a hand in play is refused without replaying anything)."""

    meta: dict[str, Any]
    entries: list[tuple[int, list[dict[str, Any]]]]
    current: tuple[int, bool] | None = None


def table_source(table: Any) -> Source:
    """A table's source, read inside its task (``Table.call``)."""
    entries: list[tuple[int, list[dict[str, Any]]]] = []
    for e in table.journal:
        if entries and entries[-1][0] == e.version:
            entries[-1][1].append(entry_json(e))
        else:
            entries.append((e.version, [entry_json(e)]))
    game = table.game
    current = (0, False) if game is None else (
        game.hand_no, game.hand is not None and game.hand.result is not None)
    return Source(table_meta(table), entries, current)


def check_hand(code: str, source: Source, hand_no: int) -> None:
    """Refuse at once what :func:`build_replay` would refuse, when ``source.current`` tells."""
    if source.current is None:
        return
    number, over = source.current
    if hand_no > number and number > 0 or hand_no < 1:
        raise NoSuchHand("no_such_hand", f"Table {code} has no hand {hand_no}.")
    if number == 0 or (hand_no == number and not over):
        raise HandNotOver("hand_not_over", HAND_NOT_OVER)


def encode_replay(code: str, source: Source, hand_no: int) -> bytes:
    """:func:`build_replay` as gzipped compact JSON (what the API serves and caches)."""
    text = orjson.dumps(build_replay(code, source, hand_no))
    return gzip.compress(text, compresslevel=6)


def record_key(code: str) -> str:
    """The memory store's table-record key of a table's replay source."""
    return f"replay:{code.upper()}"


async def keep_record(store: Store, table: Any) -> None:
    """Leave a finished table's source among a memory store's table records (a durable store
    keeps it already). Called once, when the game ends."""
    source = table_source(table)
    await store.put_table(record_key(table.code),
                          {"meta": source.meta, "entries": [list(x) for x in source.entries]})


async def load_source(code: str, registry: Any, store: Store) -> Source | None:
    """The source of table ``code``: this process's table, else the store's (see the module
    docstring); None when there is none."""
    table = registry.get(code)
    if table is not None:
        got: Source = await table.call(lambda: table_source(table))
        return got
    if getattr(store, "durable", False):
        record = await store.table_load(code.upper())
        if record is None:
            return None
        return Source(record.meta, record.entries)
    kept = await store.get_table(record_key(code))
    if kept is None:
        return None
    return Source(kept["meta"], [(int(v), list(items)) for v, items in kept["entries"]])


def _faces(cards: list[int]) -> list[str]:
    return [C.name(c) for c in cards]


def _frame(hand: Any) -> dict[str, Any]:
    """A Machiavelox frame's state: the spectator's hand view and every hand and stock."""
    view = shared_hand_view(hand)
    return {"t": view["t"], "view": view,
            "hands": {p: _faces(hand.hands[p]) for p in hand.order},
            "stocks": {p: _faces(hand.stocks[p]) for p in hand.order}}


def _classic_frame(game: Any, t0: float | None) -> dict[str, Any]:
    """A classic frame's state (issue 35): the table with each joker's face, whose turn it is,
    every hand and the one shared stock, in the players' shape of a Machiavelox frame (a
    ``status`` of ``active`` or ``left``, no staging); times from ``t0``, the hand's start in
    the match's seconds (None: this is the hand's first frame, at 0)."""
    match, hand = game.match, game.hand
    spectator = classic_view(match, None)
    if t0 is None:
        t0 = float(spectator["t"])
    res = hand.result
    view = {
        "t": round(spectator["t"] - t0, 3),
        "table": [{"id": m["id"], "cards": m["cards"], "valid": m["valid"]}
                  for m in spectator["table"]],
        "players": [{"name": p["name"], "status": "active" if p["in_hand"] else "left",
                     "staging": [], "opened": p["opened"], "hand_count": p["hand_count"]}
                    for p in spectator["players"]],
        "turn": None if res is not None else hand.turn,
        "stock": len(hand.stock),
        "result": None if res is None else {"end": res.end, "winner": res.winner,
                                            "scores": dict(res.scores),
                                            "values": dict(res.values)},
    }
    return {"t": view["t"], "t0": t0, "view": view,
            "hands": {p: _faces(cards) for p, cards in hand.hands.items()},
            "stocks": {}, "stock": _faces(hand.stock)}


def build_replay(code: str, source: Source, hand_no: int) -> dict[str, Any]:
    """The replay of hand ``hand_no`` (see the module docstring) of a Machiavelox or a classic
    table. Raises :class:`NoSuchHand` (no such hand, or the seats never filled) and
    :class:`HandNotOver`."""
    meta = source.meta
    options = options_from(meta["options"])
    classic = is_classic(options.variant)
    seats = [str(name) for _, name in meta["seats"]]
    missing = NoSuchHand("no_such_hand", f"Table {code} has no hand {hand_no}.")
    if hand_no < 1:
        raise missing
    if len(seats) != options.size:
        if hand_no == 1:
            raise HandNotOver("hand_not_over", HAND_NOT_OVER)
        raise missing
    spec = options.resolve(seats)
    journal: list[JournalEntry] = [entry_from(v, d) for v, items in source.entries
                                   for d in items]
    bot_ids = set(meta.get("bots") or {})
    frames: list[dict[str, Any]] = []
    dealt: dict[str, list[str]] = {}
    stocks_dealt: dict[str, list[str]] = {}
    stock_dealt: list[str] = []
    t0: float | None = None  # a classic hand's start, in the match's seconds
    over = False
    for version, game, batch in replay(spec, journal):
        if game.hand_no < hand_no:
            continue
        if game.hand_no > hand_no or game.hand is None:
            break
        hand = game.hand
        if not frames:
            if classic:
                dealt = {p: _faces(cards) for p, cards in hand.hands.items()}
                stock_dealt = _faces(hand.stock)
            else:
                dealt = {p: _faces(hand.hands[p]) for p in hand.order}
                stocks_dealt = {p: _faces(hand.stocks[p]) for p in hand.order}
        events = []
        for h, event in batch:
            d = event.as_dict(with_private=True)
            d.setdefault("hand", h)
            events.append(d)
        if classic:
            state = _classic_frame(game, t0)
            t0 = state.pop("t0")
        else:
            state = _frame(hand)
        frames.append({"version": version, "t": state.pop("t"), "events": events,
                       "undos": sum(1 for e in events if e["kind"] == "chain_undo"), **state})
        if hand.result is not None:
            over = True
            break
    if not frames:
        raise missing
    if not over:
        raise HandNotOver("hand_not_over", HAND_NOT_OVER)
    return {
        "code": str(meta.get("code", code)), "hand": hand_no, "mode": meta.get("mode"),
        "variant": options.variant, "agora": bool(meta.get("agora")),
        "rules": rules_dict(options.rules), "seats": seats,
        "bots": [str(name) for pid, name in meta["seats"] if pid in bot_ids],
        "dealt": dealt, "stocks_dealt": stocks_dealt, "stock_dealt": stock_dealt,
        "duration": frames[-1]["t"], "result": frames[-1]["view"]["result"],
        "undos": [i for i, f in enumerate(frames) if f["undos"]],
        "frames": frames,
    }


class ReplayCache:
    """The last :data:`CACHE_SIZE` replays built (gzipped JSON, :func:`encode_replay`: tens of
    KiB each, against a few MiB as text), by ``(log id, hand)``."""

    def __init__(self, size: int = CACHE_SIZE) -> None:
        self.size = size
        self._items: OrderedDict[tuple[str, int], bytes] = OrderedDict()

    def get(self, key: tuple[str, int]) -> bytes | None:
        got = self._items.get(key)
        if got is not None:
            self._items.move_to_end(key)
        return got

    def put(self, key: tuple[str, int], value: bytes) -> None:
        self._items[key] = value
        self._items.move_to_end(key)
        while len(self._items) > self.size:
            self._items.popitem(last=False)
