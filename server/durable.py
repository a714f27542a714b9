"""Durable tables (issue 13): the table's log in Redis is the truth.

With a durable store (Redis, ``Store.durable``), a table writes, in one fenced script call per
inbox item (``Store.table_append``, ``server.store.owned``), everything a rebuild needs:

* its **meta** (:func:`table_meta`): deal options (seed, rule set, mode, stacked position),
  seats in join order, bot seats with their level and pace, the log id, agora or friendly, the
  creator, Play again (``server.again``); written when it changes (a seat taken, a bot
  seated, Play again asked or declined);
* every **journal entry** (``server.journal``: a command with its client id, a connection
  event, a clock tick, each with its game time in seconds), beside the events of its version.

Order (the *append before send* rule): the engine call is applied in memory first, its
frames wait in the table's outbox, and nothing of it is sent, acknowledged or resolved (a
seat taken over HTTP) until the append returned. When the append fails, the call is undone
(:func:`roll_back`): the table is put back as the store has it (seats, game replayed from the
saved journal, event log truncated), the commands of the item are refused with
``store_unavailable`` (and forgotten by the dedup cache, so that the same id sent again later
is carried out), every socket gets a fresh snapshot, and **game time stops**
(:meth:`GameTime.suspend`): no clock runs, no tick is applied and every command is refused with
``store_unavailable`` until the store answers again; then time resumes where it stopped, the
seats' connections are told to the game again, and every socket gets a snapshot (clients
resync their clocks). This is the *ownerless time* rule (docs/rules.md, R23): time in which no
process could record the game is not game time.

A rebuild (:func:`restore`, on a take-over by another process) replays the journal through
the engine (``server.journal.replay``): the same events, the same versions, the dedup cache
of every journalled command (so a command whose ack was lost with its process is acknowledged
again, not applied twice), and game time resumes at the last time the old owner confirmed
(its lease renewals carry it, ``server.lease``).
"""

from __future__ import annotations

import dataclasses
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

from engine.classic.model import Play
from engine.errors import Refused
from engine.hand import Command
from engine.rules import AceMode, CardValues, FreedJoker, MatchEnd, RuleSet, Scoring, StockOut

from .journal import SEATS, AnyCommand, DealOptions, JournalEntry
from .protocol import AckOut, RefusedOut, dump_reply

if TYPE_CHECKING:
    from .metrics import Metrics
    from .settings import Settings
    from .store import Store, TableRecord
    from .tables import Table

#: The sentence of ``store_unavailable`` refusals of commands (docs/errors.md).
STORE_DOWN = "The game store is not answering: nothing was played; try again in a moment."

#: Seconds between two checks whether a store that failed answers again.
RESUME_POLL = 0.25


# ---------------------------------------------------------------------------- encoding


#: The RuleSet fields that hold an enum (C1's choices), with their enum.
ENUM_FIELDS = {"ace_mode": AceMode, "freed_joker": FreedJoker, "scoring": Scoring,
               "values": CardValues, "match": MatchEnd, "stock_out": StockOut}


def rules_dict(rules: RuleSet) -> dict[str, Any]:
    d = dataclasses.asdict(rules)
    for name in ENUM_FIELDS:
        d[name] = str(getattr(rules, name).value)
    return d


def rules_from(d: dict[str, Any]) -> RuleSet:
    names = {f.name for f in dataclasses.fields(RuleSet)}
    kwargs = {k: v for k, v in d.items() if k in names}
    for name, enum in ENUM_FIELDS.items():
        if name in kwargs:
            kwargs[name] = enum(kwargs[name])
    kwargs["ace_mode"] = AceMode(kwargs.get("ace_mode", AceMode.WRAP.value))
    return RuleSet(**kwargs)


def command_dict(cmd: AnyCommand) -> dict[str, Any]:
    """A command as the journal keeps it; a classic one's ``as`` and ``from`` when set."""
    d: dict[str, Any] = {"p": cmd.player, "do": cmd.do}
    for name in ("card", "meld", "to"):
        value = getattr(cmd, name)
        if value is not None:
            d[name] = value
    if cmd.cards is not None:
        d["cards"] = list(cmd.cards)
    if isinstance(cmd, Play):
        d["classic"] = True
        if cmd.as_ is not None:
            d["as"] = cmd.as_
        if cmd.source is not None:
            d["from"] = cmd.source
    return d


def command_from(d: dict[str, Any]) -> AnyCommand:
    cards = d.get("cards")
    if d.get("classic"):
        return Play(str(d["p"]), str(d["do"]), card=d.get("card"),
                    cards=tuple(cards) if cards is not None else None, meld=d.get("meld"),
                    to=d.get("to"), as_=d.get("as"), source=d.get("from"))
    return Command(str(d["p"]), str(d["do"]), card=d.get("card"),
                   cards=tuple(cards) if cards is not None else None, meld=d.get("meld"),
                   to=d.get("to"))


def entry_json(entry: JournalEntry) -> dict[str, Any]:
    """A journal entry as the log keeps it: ``t`` (game seconds), ``c`` (the command; absent
    for a tick) and ``id`` (the client's command id, absent for the server's own calls)."""
    d: dict[str, Any] = {"t": entry.now}
    if entry.command is not None:
        d["c"] = command_dict(entry.command)
    if entry.ref is not None:
        d["id"] = entry.ref
    return d


def entry_from(version: int, d: dict[str, Any]) -> JournalEntry:
    c = d.get("c")
    return JournalEntry(version, float(d["t"]), None if c is None else command_from(c),
                        d.get("id"))


def options_dict(options: DealOptions) -> dict[str, Any]:
    return {"seed": options.seed, "rules": rules_dict(options.rules), "long": options.long,
            "position": options.position, "variant": options.variant, "size": options.size}


def options_from(d: dict[str, Any]) -> DealOptions:
    return DealOptions(seed=int(d["seed"]), rules=rules_from(d["rules"]), long=bool(d["long"]),
                       position=d.get("position"),
                       variant=str(d.get("variant", "machiavelox")),
                       size=int(d.get("size", SEATS)))


def table_meta(table: Table) -> dict[str, Any]:
    """What a rebuild needs besides the journal (see the module docstring)."""
    return {"v": 1, "code": table.code, "mode": table.mode, "log_id": table.log_id,
            "agora": table.agora, "creator": table.creator_id,
            "options": options_dict(table.options),
            "seats": [[s.player_id, s.name] for s in table.seats],
            "bots": {pid: list(v) for pid, v in table.bot_levels.items()},
            "again": table.again}


def reply_key(msg_id: int | str) -> str:
    """The dedup cache's key of a command id (an int 1 and a string "1" are two ids)."""
    return f"{type(msg_id).__name__}:{msg_id}"


# ---------------------------------------------------------------------------- game time


class GameTime:
    """Seconds since the game began, on a clock (seconds, any origin) that can stop.

    ``suspend()`` freezes it (a store outage, R23's ownerless time); ``resume()`` lets it run
    again from where it stopped; ``set(t)`` makes it read ``t`` now (a rebuild)."""

    def __init__(self, clock: Any) -> None:
        self.clock = clock
        self.t0 = clock()
        self.stopped_at: float | None = None

    def now(self) -> float:
        at = self.stopped_at if self.stopped_at is not None else self.clock()
        return float(at - self.t0)

    def start(self) -> None:
        self.t0 = self.clock()
        if self.stopped_at is not None:
            self.stopped_at = self.t0

    def set(self, t: float) -> None:
        c = self.clock()
        self.t0 = c - t
        if self.stopped_at is not None:
            self.stopped_at = c

    @property
    def stopped(self) -> bool:
        return self.stopped_at is not None

    def suspend(self) -> None:
        if self.stopped_at is None:
            self.stopped_at = self.clock()

    def resume(self) -> float:
        """Run again; the seconds it was stopped."""
        if self.stopped_at is None:
            return 0.0
        gap = self.clock() - self.stopped_at
        self.t0 += gap
        self.stopped_at = None
        return float(gap)


# ---------------------------------------------------------------------------- saving


class Saved:
    """What the store is known to hold of one table: the state a roll-back returns to."""

    def __init__(self) -> None:
        self.journal = 0  # journal entries stored
        self.head = 0  # the event log's version stored
        self.seats: list[tuple[str, str]] = []
        self.bots: dict[str, tuple[str, float | None]] = {}


def mark_saved(table: Table) -> None:
    s = table.saved
    s.journal = len(table.journal)
    s.head = table.events.head
    s.seats = [(x.player_id, x.name) for x in table.seats]
    s.bots = dict(table.bot_levels)


def roll_back(table: Table) -> None:
    """Undo everything since the last successful append (see the module docstring) and stop
    game time. The item's commands are not answered yet: whether a failed append was stored
    is unknown until the store answers (a timed-out write may land later), so
    :func:`resume` answers them then, from what the store holds."""
    from .inbox import SeatInfo, StoreDown

    s = table.saved
    table.journal = table.journal[:s.journal]
    live = {x.name: x.live for x in table.seats}
    table.seats = [SeatInfo(pid, name, live.get(name, 0)) for pid, name in s.seats]
    table.bot_levels = dict(s.bots)
    table.bot_ids = set(s.bots)
    if len(table.seats) == table.size:
        table.spec = table.options.resolve([x.name for x in table.seats])
        table.game = replay_game(table)
    else:
        table.spec, table.game = None, None
    table.events.truncate(s.head)
    table.meta_dirty = False
    table._unsaved = []
    table._outbox = []
    for conn, seat, key, msg_id in table.answered:
        table._replies.get(seat, OrderedDict()).pop(key, None)
        table.pending.append((conn, seat, key, msg_id))
    table.answered.clear()
    for fut, _ in table.joins:
        if not fut.done():
            fut.set_exception(StoreDown("store_unavailable", STORE_DOWN))
    table.joins.clear()
    table.time.suspend()
    table.tlog.warning("store append failed: the call is undone and game time stops",
                       head=table.events.head)
    send_snapshots(table)


def replay_game(table: Table) -> Any:
    """The game made again from the deal and the table's journal (made values kept for the
    replies, see :func:`restore`)."""
    assert table.spec is not None
    game = table.spec.new_game()
    game.drain_events()
    for e in table.journal:
        if e.command is None:
            game.tick(e.now)
        else:
            try:
                game.apply(e.command, e.now)
            except Refused:
                pass
        game.drain_events()
    return game


def send_snapshots(table: Table) -> None:
    """A snapshot to every connection, from a fresh view feed: the updates made since the last
    successful append were never sent, so the feed's base is not what the clients hold."""
    from .variant import feed_for

    head = table.events.head
    table.feed = feed_for(table.options)
    for conn in list(table.conns.values()):
        table._send(conn, table.feed.snapshot(head, table.game, conn.seat, table.summary()))


async def resume(table: Table) -> None:
    """While game time is stopped: once the store answers again, load the table as the store
    has it (a write that timed out may have landed), answer the commands whose append failed
    (their ack when the store has them, else ``store_unavailable``), run time again from where
    it stopped, tell the game the seats' connections, and send everyone a snapshot (clients
    resync their clocks). A table whose epoch moved on meanwhile is fenced."""
    if not table.time.stopped or not getattr(table.store, "available", True):
        return
    assert table.store is not None
    try:
        record = await table.store.table_load(table.code)
    except Exception:  # noqa: BLE001 - still down: try again at the next poll
        return
    if record is None or record.epoch != table.epoch:
        table.fence("taken over")
        return
    load_record(table, record)
    mark_saved(table)
    for conn, seat, key, msg_id in table.pending:
        cached = table._replies.get(seat, OrderedDict()).get(key)
        table._send(conn, cached or dump_reply(RefusedOut(id=msg_id, code="store_unavailable",
                                                          message=STORE_DOWN)))
    table.pending.clear()
    gap = table.time.resume()
    table.tlog.warning("store answers again: game time runs again", stopped=round(gap, 3),
                       version=table.events.head)
    reconcile_connections(table)
    send_snapshots(table)


def reconcile_connections(table: Table) -> None:
    """Tell the game of every seat whose connection differs from what it believes (R18)."""
    if table.game is None:
        return
    for seat in table.seats:
        connected = table.game.seats[seat.name].connected
        if connected and seat.live == 0:
            table._connection_command(seat.name, "disconnect")
        elif not connected and seat.live > 0:
            table._connection_command(seat.name, "reconnect")


# ---------------------------------------------------------------------------- rebuilding


def restore(record: TableRecord, settings: Settings, store: Store | None,
            metrics: Metrics | None) -> Table:
    """A table made again from its record (``Store.table_load``): see :func:`load_record`;
    game time resumes at the last time the old owner confirmed. Not started; its epoch is
    ``record.epoch``."""
    from .tables import Table

    meta = record.meta
    table = Table(str(meta["code"]), meta["mode"], options_from(meta["options"]), settings,
                  store=store, metrics=metrics, agora=bool(meta.get("agora")))
    table.creator_id = meta.get("creator")
    table.again = meta.get("again")
    table.epoch = record.epoch
    last_time = load_record(table, record)
    if table.game is not None and table.game.phase == "over":
        # Its record may have died with the old owner: keep it again (the ranking counts a
        # hand once, by its log id).
        table._finish_pending = True
    table.time.set(max(last_time, record.game_time))
    if table.game is not None and table.game.phase != "over" and not table.agora:
        # Nobody has a socket here yet: a seat none comes back to within the grace is told
        # disconnected (R18, C31), so that the absence clock runs and nobody waits for it
        # (at an agora table the grace is the no-show rule: not for a take-over).
        from .seating import CONNECT_GRACE

        until = table.time.now() + CONNECT_GRACE
        table.grace = {s.name: until for s in table.seats if table.game.seats[s.name].connected}
    mark_saved(table)
    table.tlog.info("table rebuilt from the store", entries=len(table.journal),
                    version=table.events.head, game_time=round(table.time.now(), 3),
                    epoch=record.epoch)
    return table


def load_record(table: Table, record: TableRecord) -> float:
    """Make the table's state what the store holds: seats (their open connections kept),
    bot seats, the game replayed through the engine from the deal and the journal, the event
    log, and the dedup cache of every journalled command (a command whose ack was lost is
    acknowledged again, not applied twice). The last journalled game time."""
    from .inbox import SeatInfo
    from .journal import EventLog

    meta = record.meta
    table.log_id = str(meta["log_id"])
    live = {x.name: x.live for x in table.seats}
    table.seats = [SeatInfo(str(pid), str(name), live.get(str(name), 0))
                   for pid, name in meta["seats"]]
    table.bot_levels = {pid: (str(v[0]), None if v[1] is None else float(v[1]))
                        for pid, v in (meta.get("bots") or {}).items()}
    table.bot_ids = set(table.bot_levels)
    table.journal = []
    table.events = EventLog(table.settings.log_size)
    table._replies = {}
    table.spec, table.game = None, None
    last_time = 0.0
    if len(table.seats) != table.size:
        return last_time
    table.spec = table.options.resolve([s.name for s in table.seats])
    game = table.spec.new_game()
    table.game = game
    table.events.append(game.drain_events())
    for version, items in record.entries:
        for d in items:
            entry = entry_from(version, d)
            made: dict[str, int] = {}
            if entry.command is None:
                game.tick(entry.now)
            else:
                try:
                    made = game.apply(entry.command, entry.now)
                except Refused:
                    pass
            table.journal.append(entry)
            last_time = max(last_time, entry.now)
            if entry.ref is not None and entry.command is not None:
                replies = table._replies.setdefault(entry.command.player, OrderedDict())
                replies[reply_key(entry.ref)] = dump_reply(
                    AckOut(id=entry.ref, version=version, made=made))
        batch = game.drain_events()
        if version == 1:
            continue  # the deal (already logged above)
        got = table.events.append(batch)
        if got != version:
            raise ValueError(f"table {table.code}: replay made version {got}, "
                             f"the log has {version}")
    return last_time
