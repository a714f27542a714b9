"""A table's storage (``server.store``), a part of :class:`server.tables.Table`.

Storage (``server.store``): frames do not go straight to the sockets. While the task handles
an item they wait in an outbox; then :func:`deliver` appends the item's batches to the
store (the table's log, ``log_id``) and only then sends the frames, in order. The in-memory
:class:`EventLog` stays the fast path for replay on reconnection. A store call is bounded by
``store_timeout`` (``server.store.guard``). A store that fails is logged and counted, and the
game goes on without waiting for it: the batches stay queued (at most ``log_size``) and are
tried again with backoff (0.25 s, doubling to 2 s; the task wakes up for it even when idle;
while the store is known to be down a try fails at once),
while frames are sent meanwhile; ``/readyz`` answers 503 and ``machiavelox_unsaved_batches``
counts them until the store has them all. That is for a store that is not durable. On Redis
(``Store.durable``) the table's log is the truth (``server.durable``): each item's batches go
with their journal entries in one fenced append (:func:`persist_durable`) before any
frame is sent or reply given; a failed append undoes the item and stops game time; another
process can rebuild the table from the log (``server.registry``, ``server.lease``).

When the game ends, its :class:`~server.store.FinishedGame` record is kept beside the log, and
an agora table (``agora=True``) adds the hand's points to the ranking (R22), once. A classic
table's record is friendly (no ranking): its ``scores`` are the hand's points (one hand) or the
match totals, ``extra`` names its ``variant`` and the rules' ``options``.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING

from .durable import mark_saved, roll_back, table_meta
from .inbox import InboxItem, TableMoved
from .journal import hand_result, is_classic
from .replay import keep_record
from .store import Fenced, FinishedGame, HandScore, StoreConflict
from .variant import rules_summary

if TYPE_CHECKING:
    from .tables import Table

#: Seconds before a failed store append is tried again, doubling while it fails.
STORE_BACKOFF_FIRST = 0.25
STORE_BACKOFF_MAX = 2.0

#: Close code of a table's sockets when another process took the table over (or it was
#: handed over): the client reconnects, and the proxy takes it to the new owner.
CLOSE_MOVED = 1012
TABLE_MOVED = "This table moved to another server process: try again in a moment."


async def deliver(t: Table) -> None:
    """Store the batches of the item just handled, then send its frames in order; detach
    the connections that could not take them (which may log more: loop). Batches a failed
    store kept are tried again here too once their backoff is over, idle or not."""
    if t._failed and not t._unsaved and (
            t._retry_at <= asyncio.get_running_loop().time()):
        await persist(t)
    while t._unsaved or t.meta_dirty or t._outbox or t._drops:
        if t._unsaved or t.meta_dirty:
            await persist(t)
        outbox, t._outbox = t._outbox, []
        for conn, text in outbox:
            if not conn.send(text):
                # Dropped (queue full): detached once the fan-out is done (not in the
                # middle of it, which would send a later version before an earlier one).
                t._drops.append(conn)
        t._settle_drops()
    if t._finish_pending:
        t._finish_pending = False
        await record_finish(t)
        await keep_replay(t)


async def persist(t: Table) -> None:
    if t.epoch:
        await persist_durable(t)
        return
    batches = t._failed + t._unsaved
    t._unsaved, t._failed = [], []
    if t.store is None or not batches:
        return
    loop = asyncio.get_running_loop()
    if t._retry_at > loop.time():
        # The store failed a moment ago: play on, try again once the backoff is over.
        t._failed = batches[-t.settings.log_size:]
        return
    try:
        await t.store.append_batches(t.log_id, [(v, ev) for v, ev, _ in batches])
    except StoreConflict:
        t.tlog.exception("store refused batches", first=batches[0][0], last=batches[-1][0])
        count_store_error(t, "append")
    except Exception as e:  # noqa: BLE001 - a store down must not stop the game
        # Try again later with the next batches (in order), keeping at most log_size.
        t._failed = batches[-t.settings.log_size:]
        if t._backoff == STORE_BACKOFF_FIRST:
            t.tlog.warning("store append failed: the table plays on, unsaved",
                           first=batches[0][0], last=batches[-1][0],
                           error=type(e).__name__)
        t._retry_at = loop.time() + t._backoff
        t._backoff = min(STORE_BACKOFF_MAX, t._backoff * 2)
        count_store_error(t, "append")
    else:
        if t._backoff != STORE_BACKOFF_FIRST:
            t.tlog.warning("store caught up", first=batches[0][0], last=batches[-1][0])
        t._backoff = STORE_BACKOFF_FIRST
        t._retry_at = 0.0


async def persist_durable(t: Table) -> None:
    """One fenced append of the item's batches and journal entries (and the meta when it
    changed); then the item's replies and seats may go out. A failure undoes the item
    (``server.durable.roll_back``); a fence stops the table (:meth:`fence`)."""
    assert t.store is not None
    batches, t._unsaved = t._unsaved, []
    meta = table_meta(t) if t.meta_dirty else None
    t.meta_dirty = False
    try:
        await t.store.table_append(t.code, t.epoch, t.log_id, meta,
                                   t._now(), batches)
    except (Fenced, StoreConflict) as e:
        t.tlog.warning("table taken over by another process: stopping it",
                       error=type(e).__name__)
        fence(t, "taken over")
        return
    except Exception as e:  # noqa: BLE001 - undo the item, stop game time
        t.tlog.warning("store append failed", error=type(e).__name__)
        count_store_error(t, "append")
        roll_back(t)
        return
    mark_saved(t)
    t.answered.clear()
    for fut, name in t.joins:
        if not fut.done():
            fut.set_result(name)
    t.joins.clear()


def fence(t: Table, reason: str) -> None:
    """Another process owns the table now (or it was handed over): send nothing more,
    close every socket with 1012 (clients reconnect, and reach the new owner), stop."""
    if t._stopping:
        return
    t._stopping = True
    t._outbox, t._unsaved = [], []
    for conn in list(t.conns.values()):
        conn.close_with(CLOSE_MOVED, reason)
    for fut, _ in t.joins:
        if not fut.done():
            fut.set_exception(TableMoved("table_moved", TABLE_MOVED))
    t.joins.clear()
    t.tlog.warning("table stopped here", reason=reason)
    if t.on_fenced is not None:
        t.on_fenced(t)


def refuse_moved(t: Table, item: InboxItem) -> None:
    fut = getattr(item, "future", None)
    if isinstance(fut, asyncio.Future) and not fut.done():
        fut.set_exception(TableMoved("table_moved", TABLE_MOVED))


def count_store_error(t: Table, op: str) -> None:
    if t.metrics is not None:
        t.metrics.store_errors.labels(op).inc()


async def record_finish(t: Table) -> None:
    """The finished game's record beside its log; an agora hand's points to the ranking."""
    game, spec = t.game, t.spec
    if game is None or game.result is None or spec is None or t.recorded:
        return
    t.recorded = True
    last = game.history[-1] if game.history else None
    single = last is not None and not game.long
    scores = dict(last.scores) if single and last else dict(game.result.totals)
    at = time.time()
    record = FinishedGame(
        log_id=t.log_id, code=t.code, mode=t.mode,
        players=[s.name for s in t.seats], player_ids=[s.player_id for s in t.seats],
        scores=scores, winner=game.result.winner,
        end=last.end if single and last else game.result.reason, head=t.events.head,
        finished_at=at, agora=t.agora,
        extra={"seed": spec.seed, "rules": spec.rules.name, "hands": len(game.history),
               "variant": spec.variant, **({"options": rules_summary(t.options)}
                                           if is_classic(spec.variant) else {})})
    if t.metrics is not None:
        t.metrics.games_finished.labels("agora" if t.agora else "friendly").inc()
    if t.store is None:
        return
    try:
        if t._failed:
            await persist(t)
        await t.store.finish_game(record)
        if t.agora:
            reasons = last.reasons if last else {}
            results = [HandScore(s.player_id, s.name, scores.get(s.name, 0),
                                 hand_result(s.name, game.result.winner, reasons))
                       for s in t.seats]
            counted = await t.store.add_hand_points(t.log_id, results, at, t.code)
            t.tlog.info("ranking updated", counted=counted,
                        points=",".join(f"{r.name}:{r.points}" for r in results))
        if t.epoch:
            await t.store.table_end(t.code)
    except Exception:  # noqa: BLE001 - logged and counted; the game is over anyway
        t.tlog.exception("store finish failed")
        count_store_error(t, "finish")


async def keep_replay(t: Table) -> None:
    """A memory store keeps the finished game's replay source (``server.replay``) past
    the table's life here; a durable store has it already (the table's log)."""
    if t.store is None or getattr(t.store, "durable", False) or t.game is None:
        return
    try:
        await keep_record(t.store, t)
    except Exception:  # noqa: BLE001 - logged and counted; the game is over anyway
        t.tlog.exception("store replay record failed")
        count_store_error(t, "finish")
