"""Tables: one asyncio task per table owns its game and is the only writer (STYLE 6).

Everything that changes a table goes through its inbox (an ``asyncio.Queue``), in arrival
order: seats joining (HTTP), connections attaching and detaching (websocket), commands. The
task (:meth:`Table._run`) takes one item at a time, passes the engine the loop's time as
seconds since the game began, and otherwise sleeps until ``game.next_deadline()`` or the next
item, whichever comes first, then calls ``game.tick(now)``.

After each call into the engine the task drains the events; a non-empty batch is appended to
the table's :class:`EventLog` (its index there is the *version* clients see) and to the
:attr:`Table.journal` *before* it is fanned out: every connection gets an ``update`` built
for its seat (``server.frames``), put into its bounded queue without waiting. The reply to a
command (``ack`` or ``refused``) goes out after the update it caused.

Seats: the first three players to join take the seats, under their display names made unique
(``Ada``, ``Ada 2``). The third seat deals the game (:class:`DealSpec`). A seat with no live
connection is disconnected in the game (absence, R18): when its last socket closes, and
``CONNECT_GRACE`` seconds after the deal if it has had none yet (the last player to join is
still opening the page: no notice about them at the deal); its first socket back reconnects it.
At an agora table a matched player who opens no socket within ``agora_no_show`` seconds of the
deal (20) has left the hand instead: −15, last place in the rating (issue 18, docs/rules.md 13.5).

The journal (deal spec plus ``(version, now, command)`` for every call that changed the game)
replays the game exactly (:func:`server.journal.replay`): tests use it to check every frame against the true
state, and the Redis store of the next issue can use it to restore tables.

Storage (``server.store``): frames do not go straight to the sockets. While the task handles
an item they wait in an outbox; then :meth:`Table._deliver` appends the item's batches to the
store (the table's log, ``log_id``) and only then sends the frames, in order. The in-memory
:class:`EventLog` stays the fast path for replay on reconnection. A store call is bounded by
``store_timeout`` (``server.store.guard``). A store that fails is logged and counted, and the
game goes on without waiting for it: the batches stay queued (at most ``log_size``) and are
tried again with backoff (0.25 s, doubling to 2 s; the task wakes up for it even when idle;
while the store is known to be down a try fails at once),
while frames are sent meanwhile; ``/readyz`` answers 503 and ``machiavelox_unsaved_batches``
counts them until the store has them all. That is for a store that is not durable. On Redis
(``Store.durable``) the table's log is the truth (``server.durable``): each item's batches go
with their journal entries in one fenced append (:meth:`Table._persist_durable`) before any
frame is sent or reply given; a failed append undoes the item and stops game time; another
process can rebuild the table from the log (``server.registry``, ``server.lease``).

Failures (a bug): one inbox item that raises never stalls the table. It is logged and counted
(``machiavelox_step_failures_total``), the connection that sent it is dropped, and the task
goes on with the next item. An engine exception inside a command (other than ``Refused``)
is answered ``internal_error``, and the game is rebuilt from its journal without that command
(:meth:`Table._rebuild`): whatever the failed call changed is gone, and nothing of it is sent.

When the game ends, its :class:`~server.store.FinishedGame` record is kept beside the log, and
an agora table (``agora=True``) adds the hand's points to the ranking (R22), once.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from engine.errors import Refused
from engine.hand import Command

from .connection import Connection
from .durable import (
    RESUME_POLL,
    STORE_DOWN,
    GameTime,
    Saved,
    entry_json,
    mark_saved,
    resume,
    roll_back,
    table_meta,
)
from .frames import replay_text
from .inbox import (
    Attach,
    Call,
    Detach,
    InboxItem,
    Join,
    Mode,
    Resync,
    SeatInfo,
    Stop,
    StoreDown,
    Submit,
    TableFull,
    TableMoved,
)
from .journal import (
    AnyCommand,
    DealOptions,
    DealSpec,
    EventLog,
    JournalEntry,
    TableGame,
    hand_result,
    replay,
    stored_event,
)
from .logs import TableLog
from .metrics import Metrics
from .protocol import (
    AckOut,
    AgainOut,
    CommandIn,
    RefusedOut,
    TableOut,
    TableSummary,
    WelcomeOut,
    dump,
    dump_reply,
)
from .replay import keep_record
from .sessions import Session
from .settings import Settings
from .store import Fenced, FinishedGame, HandScore, Store, StoreConflict
from .variant import command_for, feed_for, rules_summary

#: The server's own refusals, beside the engine's (``engine.errors.MESSAGES``).
#: Seconds before a failed store append is tried again, doubling while it fails.
STORE_BACKOFF_FIRST = 0.25
STORE_BACKOFF_MAX = 2.0

#: Close code of a table's sockets when another process took the table over (or it was
#: handed over): the client reconnects, and the proxy takes it to the new owner.
CLOSE_MOVED = 1012
TABLE_MOVED = "This table moved to another server process: try again in a moment."

#: Seconds (game time) a seat that has no socket at the deal has to open one before the game
#: is told it is disconnected (R18): the player who took the last seat over HTTP is still
#: opening the table's page; telling the others "lost the connection / is away / is back"
#: about them at every deal would be noise (issue 17).
CONNECT_GRACE = 10.0

SERVER_REFUSALS = {
    "not_seated": "You are watching: only the three seated players play.",
    "not_started": "The hand has not been dealt yet: waiting for three players.",
    "internal_error": "The server failed on that command; the failure is logged for the developers.",
}

#: Seat counts in words, for the sentences above at a table of 2–6 seats.
NUMBERS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}


def seat_sentence(code: str, size: int) -> str:
    """:data:`SERVER_REFUSALS`'s sentence of ``code`` for a table of ``size`` seats."""
    return SERVER_REFUSALS[code].replace("three", NUMBERS.get(size, str(size)))


# ---------------------------------------------------------------------------- the table


@dataclass
class Table:
    """One table: up to three seats, then one game (single hand or long), and its task."""

    code: str
    mode: Mode
    options: DealOptions
    settings: Settings
    seats: list[SeatInfo] = field(default_factory=list)
    game: TableGame | None = None
    spec: DealSpec | None = None
    store: Store | None = None
    metrics: Metrics | None = None
    #: An agora table: its finished hand's points go to the ranking (R22).
    agora: bool = False
    #: The player id of whoever created it (a per-player limit on waiting tables).
    creator_id: str | None = None
    #: The player ids of the bots seated here (shown in the summary).
    bot_ids: set[str] = field(default_factory=set)
    #: Bot seats' ``(level, reaction)`` by player id: a take-over restarts them.
    bot_levels: dict[str, tuple[str, float | None]] = field(default_factory=dict)
    #: The table's clock in seconds (any origin); None: the event loop's. Tests inject a
    #: fake one to replay a game from its seed, whatever the machine's timing.
    clock: Callable[[], float] | None = None

    def __post_init__(self) -> None:
        self.tlog = TableLog(self.code)
        #: The store's name for this game's event log (a code may come back after a restart).
        self.log_id = f"{self.code}-{secrets.token_hex(4)}"
        self._outbox: list[tuple[Connection, str]] = []
        #: ``(version, stored events, journal entries as JSON)`` not yet in the store.
        self._unsaved: list[tuple[int, list[dict[str, Any]], list[dict[str, Any]]]] = []
        self._failed: list[tuple[int, list[dict[str, Any]], list[dict[str, Any]]]] = []
        self._retry_at = 0.0  # loop time of the next append after a failure
        self._backoff = STORE_BACKOFF_FIRST
        self._stopping = False
        self._finish_pending = False
        #: True once the finished game's record (and ranking points) went to the store.
        self.recorded = False
        self.events = EventLog(self.settings.log_size)
        self.journal: list[JournalEntry] = []
        #: The views as last sent (``server.frames``): updates carry changes from them.
        self.feed = feed_for(self.options)
        self.inbox: asyncio.Queue[InboxItem] = asyncio.Queue(self.settings.inbox_size)
        self.conns: dict[int, Connection] = {}
        self._replies: dict[str, OrderedDict[str, str]] = {}
        #: Game time: seconds since the deal, stopped while the store fails (server.durable).
        self.time = GameTime(self._clock)
        # Durable tables (a Redis store, server.durable): the ownership epoch (0: not
        # durable), what the store holds, and what waits for the next append.
        self.epoch = 0
        self.saved = Saved()
        self.meta_dirty = False
        self.answered: list[tuple[Connection, str, str, int | str]] = []
        #: Commands whose append failed: answered once the store says (server.durable).
        self.pending: list[tuple[Connection, str, str, int | str]] = []
        self.joins: list[tuple[asyncio.Future[str], str]] = []
        self._ref: int | str | None = None
        #: Loop time until which the lease is known to be ours (server.lease).
        self.lease_until = float("inf")
        #: Called once when another process took the table over (server.registry).
        self.on_fenced: Callable[[Table], None] | None = None
        self.confirm_lease: Callable[[Table], Awaitable[None]] | None = None
        self._drops: list[Connection] = []
        #: Play again (``server.again``): the fields of its AgainOut, None until asked.
        self.again: dict[str, Any] | None = None
        #: Seats with no socket at the deal, by name: the game time (seconds) at which the
        #: game is told they are disconnected unless a socket attaches first (CONNECT_GRACE).
        self.grace: dict[str, float] = {}
        #: Commands the engine failed on with an exception other than Refused (a bug):
        #: ``(now, command, error)``, for the logs and the engine's owner.
        self.failures: list[tuple[float, AnyCommand, str]] = []
        self._task: asyncio.Task[None] | None = None
        self.last_activity = asyncio.get_running_loop().time()

    # ------------------------------------------------------------ from outside the task

    @property
    def url(self) -> str:
        return f"/t/{self.code}"

    @property
    def phase(self) -> Literal["waiting", "hand", "pause", "over"]:
        if self.game is None:
            return "waiting"
        phase: Literal["hand", "pause", "over"] = self.game.phase
        return phase

    @property
    def size(self) -> int:
        """The number of seats (3 at Machiavelox, 2–6 classic)."""
        return self.options.size

    def summary(self) -> TableSummary:
        return TableSummary(code=self.code, mode=self.mode, url=self.url,
                            seats=[s.name for s in self.seats],
                            online=[s.name for s in self.seats if s.live > 0], phase=self.phase,
                            agora=self.agora,
                            bots=[s.name for s in self.seats if s.player_id in self.bot_ids],
                            again=None if self.again is None else AgainOut(**self.again),
                            variant=self.options.variant, size=self.size,
                            rules=rules_summary(self.options))

    def set_again(self, again: dict[str, Any]) -> None:
        """Play again (``server.again``; call inside the task): keep ``again`` (the fields of
        :class:`AgainOut`) and send it to every connection."""
        self.again = again
        if self.epoch:
            self.meta_dirty = True
        text = dump(AgainOut(**again))
        for conn in list(self.conns.values()):
            self._send(conn, text)

    def add_bot(self, player_id: str, level: str, reaction: float | None) -> None:
        """Mark a player as a bot seat (call inside the task, before its join): a take-over
        restarts it with this level and pace."""
        self.bot_ids.add(player_id)
        self.bot_levels[player_id] = (level, reaction)
        if self.epoch:
            self.meta_dirty = True

    def seat_of(self, player_id: str | None) -> str | None:
        for s in self.seats:
            if s.player_id == player_id:
                return s.name
        return None

    def idle_for(self, now: float) -> float:
        """Seconds since the last inbox item, or 0 while anyone is connected."""
        return 0.0 if self.conns else now - self.last_activity

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name=f"table-{self.code}")

    async def stop(self, timeout: float = 2.0) -> None:
        """End the task, within ``timeout`` seconds whatever it awaits. A cancellation that
        something below swallows (a Redis client in the middle of a call was seen to) is
        repeated, and the task also ends at its next turn of the loop (``_stopping``)."""
        task = self._task
        if task is None or task.done():
            return
        self._stopping = True
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not task.done():
            task.cancel()
            left = deadline - loop.time()
            if left <= 0:
                self.tlog.warning("table task did not stop")
                return
            await asyncio.wait({task}, timeout=min(0.25, left))
        with contextlib.suppress(BaseException):
            task.result()

    async def put(self, item: InboxItem) -> None:
        await self.inbox.put(item)

    async def join(self, session: Session) -> str:
        """Take a seat (or get back the one this player has); raises :class:`TableFull`."""
        fut: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        await self.put(Join(session, fut))
        return await fut

    async def call(self, fn: Callable[[], Any]) -> Any:
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        await self.put(Call(fn, fut))
        return await fut

    # ------------------------------------------------------------ the task

    def _clock(self) -> float:
        return asyncio.get_running_loop().time() if self.clock is None else self.clock()

    def _now(self) -> float:
        """Seconds since the game began, by the table's clock (stopped while the store fails)."""
        return self.time.now()

    def _timeout(self) -> float | None:
        """Seconds until the task must wake up without an item: the game's next deadline, or
        the next store retry (None: neither)."""
        wait: float | None = None
        if self.time.stopped:
            return RESUME_POLL  # no clock runs: only look whether the store is back
        if self.game is not None:
            deadline = self.game.next_deadline()
            if self.grace:
                first = min(self.grace.values())
                deadline = first if deadline is None else min(deadline, first)
            wait = None if deadline is None else max(0.0, deadline - self._now())
        if self._failed:
            retry = max(0.0, self._retry_at - asyncio.get_running_loop().time())
            wait = retry if wait is None else min(wait, retry)
        return wait

    async def _run(self) -> None:
        getter: asyncio.Future[InboxItem] | None = None
        self.tlog.info("table task started", mode=self.mode)
        try:
            while not self._stopping:
                if getter is None:
                    getter = asyncio.ensure_future(self.inbox.get())
                done, _ = await asyncio.wait({getter}, timeout=self._timeout())
                item: InboxItem | None = None
                if getter in done:
                    item = getter.result()
                    getter = None
                    if isinstance(item, Stop):
                        return
                    self.last_activity = asyncio.get_running_loop().time()
                if (self.confirm_lease is not None
                        and asyncio.get_running_loop().time() > self.lease_until):
                    # Not sure the table is still ours (a pause longer than the lease):
                    # find out before anything is sent.
                    await self.confirm_lease(self)
                    if self._stopping:
                        if item is not None:
                            self._refuse_moved(item)
                        return
                if self.time.stopped:
                    await resume(self)  # the store may answer again (server.durable)
                    if self._stopping:
                        return
                try:
                    if item is None:
                        self._tick()
                    else:
                        self._handle(item)
                    await self._deliver()
                    if isinstance(item, Submit) and item.received and self.metrics is not None:
                        self.metrics.latency.observe(time.perf_counter() - item.received)
                except Exception:  # noqa: BLE001
                    # A bug: count it, drop the connection whose item it was, serve the next
                    # item (no sleep: one bad item must never delay the others).
                    self._step_failed(item)
        finally:
            if getter is not None:
                getter.cancel()
            self.tlog.info("table task ended")

    def _step_failed(self, item: InboxItem | None) -> None:
        kind = type(item).__name__ if item is not None else "tick"
        self.tlog.exception("table step failed", item=kind)
        if self.metrics is not None:
            self.metrics.step_failures.labels(kind).inc()
        conn = getattr(item, "conn", None)
        if isinstance(conn, Connection) and not isinstance(item, Detach):
            conn.drop("internal_error")
            self._drops.append(conn)
        # What the failed step queued may be half made: send nothing of it.
        self._outbox = [(c, t) for c, t in self._outbox if c is not conn]
        try:
            self._settle_drops()
        except Exception:  # noqa: BLE001 - logged above; the next item comes anyway
            self.tlog.exception("table step failed", item="settle")

    def _handle(self, item: InboxItem) -> None:
        if isinstance(item, Submit):
            self._submit(item.conn, item.msg)
        elif isinstance(item, Attach):
            self._attach(item.conn, item.last_version)
        elif isinstance(item, Resync):
            if item.conn.id in self.conns:
                self._send_state(item.conn, item.last_version)
        elif isinstance(item, Detach):
            self._unregister(item.conn)
        elif isinstance(item, Join):
            self._join(item)
        elif isinstance(item, Call):
            try:
                item.future.set_result(item.fn())
            except Exception as e:  # noqa: BLE001 - handed to the caller
                item.future.set_exception(e)

    def _tick(self) -> None:
        if self.time.stopped:
            return  # no clock runs (server.durable)
        if self.game is None:
            return
        now = self._now()
        try:
            self.game.tick(now)
        except Exception as e:  # noqa: BLE001 - an engine bug: undo it, see _rebuild
            self._engine_failed(now, None, e)
            return
        self._flush(now, None)
        self._grace_over(now)

    def _grace_over(self, now: float) -> None:
        """Tell the game of the seats whose CONNECT_GRACE ran out without a socket (R18); at an
        agora table, the seats that never opened one have left the hand (13.5, a no-show)."""
        for name, until in list(self.grace.items()):
            if until > now:
                continue
            del self.grace[name]
            seat = self._seat(name)
            if seat is None or seat.live > 0 or self.game is None or name not in self.game.seats:
                continue
            if self.agora:
                self.tlog.info("agora no-show: left the hand", name)
                self._connection_command(name, "leave", now)
            elif self.game.seats[name].connected:
                self._connection_command(name, "disconnect", now)

    def _flush(self, now: float, command: AnyCommand | None, *, journal: bool = True
               ) -> int | None:
        """Log, journal and fan out the events of the last engine call; their version.
        (The deal's own events are not journalled: the deal spec makes them again.)"""
        assert self.game is not None
        batch = self.game.drain_events()
        if not batch:
            return None
        version = self.events.append(batch)
        entry = JournalEntry(version, now, command, self._ref) if journal else None
        if entry is not None:
            self.journal.append(entry)
        self._unsaved.append((version, [stored_event(h, e) for h, e in batch],
                              [] if entry is None else [entry_json(entry)]))
        self.tlog.hand = self.game.hand_no
        if self.metrics is not None:
            undos = sum(1 for _, e in batch if e.kind == "chain_undo")
            if undos:
                self.metrics.chain_undos.inc(undos)
        if self.game.phase == "over" and not self.recorded:
            self._finish_pending = True
        conns = list(self.conns.values())
        texts = self.feed.updates(version, batch, self.game, {c.seat for c in conns})
        for conn in conns:
            self._send(conn, texts[conn.seat])
        for kind in {e.kind for _, e in batch} & {"hand_ended", "pause_started", "game_ended"}:
            self.tlog.info(kind, version=version)
        return version

    def _send(self, conn: Connection, text: str) -> None:
        # Into the outbox: sent by _deliver once this item's batches are stored.
        self._outbox.append((conn, text))

    async def _deliver(self) -> None:
        """Store the batches of the item just handled, then send its frames in order; detach
        the connections that could not take them (which may log more: loop). Batches a failed
        store kept are tried again here too once their backoff is over, idle or not."""
        if self._failed and not self._unsaved and (
                self._retry_at <= asyncio.get_running_loop().time()):
            await self._persist()
        while self._unsaved or self.meta_dirty or self._outbox or self._drops:
            if self._unsaved or self.meta_dirty:
                await self._persist()
            outbox, self._outbox = self._outbox, []
            for conn, text in outbox:
                if not conn.send(text):
                    # Dropped (queue full): detached once the fan-out is done (not in the
                    # middle of it, which would send a later version before an earlier one).
                    self._drops.append(conn)
            self._settle_drops()
        if self._finish_pending:
            self._finish_pending = False
            await self._record_finish()
            await self._keep_replay()

    async def _persist(self) -> None:
        if self.epoch:
            await self._persist_durable()
            return
        batches = self._failed + self._unsaved
        self._unsaved, self._failed = [], []
        if self.store is None or not batches:
            return
        loop = asyncio.get_running_loop()
        if self._retry_at > loop.time():
            # The store failed a moment ago: play on, try again once the backoff is over.
            self._failed = batches[-self.settings.log_size:]
            return
        try:
            await self.store.append_batches(self.log_id, [(v, ev) for v, ev, _ in batches])
        except StoreConflict:
            self.tlog.exception("store refused batches", first=batches[0][0], last=batches[-1][0])
            self._count_store_error("append")
        except Exception as e:  # noqa: BLE001 - a store down must not stop the game
            # Try again later with the next batches (in order), keeping at most log_size.
            self._failed = batches[-self.settings.log_size:]
            if self._backoff == STORE_BACKOFF_FIRST:
                self.tlog.warning("store append failed: the table plays on, unsaved",
                                  first=batches[0][0], last=batches[-1][0],
                                  error=type(e).__name__)
            self._retry_at = loop.time() + self._backoff
            self._backoff = min(STORE_BACKOFF_MAX, self._backoff * 2)
            self._count_store_error("append")
        else:
            if self._backoff != STORE_BACKOFF_FIRST:
                self.tlog.warning("store caught up", first=batches[0][0], last=batches[-1][0])
            self._backoff = STORE_BACKOFF_FIRST
            self._retry_at = 0.0

    async def _persist_durable(self) -> None:
        """One fenced append of the item's batches and journal entries (and the meta when it
        changed); then the item's replies and seats may go out. A failure undoes the item
        (``server.durable.roll_back``); a fence stops the table (:meth:`fence`)."""
        assert self.store is not None
        batches, self._unsaved = self._unsaved, []
        meta = table_meta(self) if self.meta_dirty else None
        self.meta_dirty = False
        try:
            await self.store.table_append(self.code, self.epoch, self.log_id, meta,
                                          self._now(), batches)
        except (Fenced, StoreConflict) as e:
            self.tlog.warning("table taken over by another process: stopping it",
                              error=type(e).__name__)
            self.fence("taken over")
            return
        except Exception as e:  # noqa: BLE001 - undo the item, stop game time
            self.tlog.warning("store append failed", error=type(e).__name__)
            self._count_store_error("append")
            roll_back(self)
            return
        mark_saved(self)
        self.answered.clear()
        for fut, name in self.joins:
            if not fut.done():
                fut.set_result(name)
        self.joins.clear()

    def fence(self, reason: str) -> None:
        """Another process owns the table now (or it was handed over): send nothing more,
        close every socket with 1012 (clients reconnect, and reach the new owner), stop."""
        if self._stopping:
            return
        self._stopping = True
        self._outbox, self._unsaved = [], []
        for conn in list(self.conns.values()):
            conn.close_with(CLOSE_MOVED, reason)
        for fut, _ in self.joins:
            if not fut.done():
                fut.set_exception(TableMoved("table_moved", TABLE_MOVED))
        self.joins.clear()
        self.tlog.warning("table stopped here", reason=reason)
        if self.on_fenced is not None:
            self.on_fenced(self)

    def _refuse_moved(self, item: InboxItem) -> None:
        fut = getattr(item, "future", None)
        if isinstance(fut, asyncio.Future) and not fut.done():
            fut.set_exception(TableMoved("table_moved", TABLE_MOVED))

    def _count_store_error(self, op: str) -> None:
        if self.metrics is not None:
            self.metrics.store_errors.labels(op).inc()

    async def _record_finish(self) -> None:
        """The finished game's record beside its log; an agora hand's points to the ranking."""
        game, spec = self.game, self.spec
        if game is None or game.result is None or spec is None or self.recorded:
            return
        self.recorded = True
        last = game.history[-1] if game.history else None
        single = last is not None and not game.long
        scores = dict(last.scores) if single and last else dict(game.result.totals)
        at = time.time()
        record = FinishedGame(
            log_id=self.log_id, code=self.code, mode=self.mode,
            players=[s.name for s in self.seats], player_ids=[s.player_id for s in self.seats],
            scores=scores, winner=game.result.winner,
            end=last.end if single and last else game.result.reason, head=self.events.head,
            finished_at=at, agora=self.agora,
            extra={"seed": spec.seed, "rules": spec.rules.name, "hands": len(game.history)})
        if self.metrics is not None:
            self.metrics.games_finished.labels("agora" if self.agora else "friendly").inc()
        if self.store is None:
            return
        try:
            if self._failed:
                await self._persist()
            await self.store.finish_game(record)
            if self.agora:
                reasons = last.reasons if last else {}
                results = [HandScore(s.player_id, s.name, scores.get(s.name, 0),
                                     hand_result(s.name, game.result.winner, reasons))
                           for s in self.seats]
                counted = await self.store.add_hand_points(self.log_id, results, at, self.code)
                self.tlog.info("ranking updated", counted=counted,
                               points=",".join(f"{r.name}:{r.points}" for r in results))
            if self.epoch:
                await self.store.table_end(self.code)
        except Exception:  # noqa: BLE001 - logged and counted; the game is over anyway
            self.tlog.exception("store finish failed")
            self._count_store_error("finish")

    async def _keep_replay(self) -> None:
        """A memory store keeps the finished game's replay source (``server.replay``) past
        the table's life here; a durable store has it already (the table's log)."""
        if self.store is None or getattr(self.store, "durable", False) or self.game is None:
            return
        try:
            await keep_record(self.store, self)
        except Exception:  # noqa: BLE001 - logged and counted; the game is over anyway
            self.tlog.exception("store replay record failed")
            self._count_store_error("finish")

    def _settle_drops(self) -> None:
        """Detach the connections dropped while handling the last item; the game then hears
        of the absence (which may drop more)."""
        while self._drops:
            self._unregister(self._drops.pop(0))

    def _broadcast_table(self) -> None:
        text = dump(TableOut(table=self.summary()))
        for conn in list(self.conns.values()):
            self._send(conn, text)

    # ------------------------------------------------------------ seats

    def _seat(self, name: str | None) -> SeatInfo | None:
        for s in self.seats:
            if s.name == name:
                return s
        return None

    def _join(self, item: Join) -> None:
        fut, session = item.future, item.session
        if fut.done():
            return
        mine = self.seat_of(session.player_id)
        if mine is not None:
            fut.set_result(mine)
            return
        if len(self.seats) >= self.size:
            fut.set_exception(TableFull("table_full", f"The {NUMBERS.get(self.size, self.size)}"
                                        " seats of this table are taken."))
            return
        if self.time.stopped:
            fut.set_exception(StoreDown("store_unavailable", STORE_DOWN))
            return
        taken = {s.name for s in self.seats}
        name = session.name
        n = 2
        while name in taken:
            name = f"{session.name} {n}"
            n += 1
        self.seats.append(SeatInfo(session.player_id, name))
        self.tlog.info("seat taken", name, seats=len(self.seats))
        if self.epoch:
            self.joins.append((fut, name))  # resolved once the store has the seat
            self.meta_dirty = True
        else:
            fut.set_result(name)
        if len(self.seats) == self.size:
            self._deal()
        else:
            self._broadcast_table()

    def _deal(self) -> None:
        self.spec = self.options.resolve([s.name for s in self.seats])
        self.game = self.spec.new_game()
        self.time.start()
        self.tlog.info("game dealt", long=self.spec.long, rules=self.spec.rules.name)
        self._broadcast_table()
        self._flush(0.0, None, journal=False)
        # A seat with no socket yet (its player joined over HTTP a moment ago and is opening
        # the page, or a bot is starting) is told disconnected only if none comes in time.
        grace = self.settings.agora_no_show if self.agora else CONNECT_GRACE
        self.grace = {s.name: grace for s in self.seats if s.live == 0}

    def _engine_failed(self, now: float, cmd: AnyCommand | None, error: Exception) -> None:
        """The engine raised (not ``Refused``) in ``apply(cmd)`` or, ``cmd`` None, in
        ``tick``: log it, keep it in :attr:`failures`, and undo whatever it did."""
        self.tlog.exception("engine failed", cmd.player if cmd else None,
                            do=cmd.do if cmd else "tick")
        if cmd is not None:
            self.failures.append((now, cmd, repr(error)))
        self._rebuild()

    def _rebuild(self) -> None:
        """Make the game again from the deal and the journal, leaving out the call that just
        failed (it was not journalled): what it changed, and the events it queued, are gone.
        The clocks are those of the last journalled call; the next tick brings them to now."""
        assert self.spec is not None
        game: TableGame | None = None
        for _, rebuilt, _ in replay(self.spec, self.journal):
            game = rebuilt
        assert game is not None
        game.drain_events()
        self.game = game
        self.tlog.warning("game rebuilt from its journal", entries=len(self.journal))

    def _connection_command(self, seat: str, do: str, now: float | None = None) -> None:
        """Tell the game a seat's connection dropped or came back (R18). Not while game time
        is stopped: the game is told when it runs again (``server.durable``)."""
        if self.game is None or self.time.stopped:
            return
        now = self._now() if now is None else now
        cmd = Command(seat, do)
        try:
            self.game.apply(cmd, now)
        except Refused as e:
            self.tlog.debug("connection event refused", seat, do=do, code=e.code)
        except Exception as e:  # noqa: BLE001 - an engine bug: undo it, see _rebuild
            self._engine_failed(now, cmd, e)
            return
        self.tlog.info("seat " + do + "ed", seat)
        self._flush(now, cmd)

    # ------------------------------------------------------------ connections

    def _attach(self, conn: Connection, last_version: int | None) -> None:
        if conn.dropped:
            return
        self.conns[conn.id] = conn
        seat = self._seat(conn.seat)
        if seat is not None:
            seat.live += 1
        self.tlog.info("connection attached", conn.seat, conn=conn.id, last_version=last_version)
        self._send_state(conn, last_version)
        if seat is not None and seat.live == 1:
            self.grace.pop(seat.name, None)
            if self.game is None:
                self._broadcast_table()
            elif not self.game.seats[seat.name].connected:
                self._connection_command(seat.name, "reconnect")

    def _send_state(self, conn: Connection, last_version: int | None) -> None:
        """welcome, the missed events when they are still kept, then a snapshot."""
        # Bring the clocks to now first, so the snapshot's times (view ``t``) are fresh:
        # a spectator arriving mid-hand must not see countdowns from the last command.
        self._tick()
        head = self.events.head
        self._send(conn, dump(WelcomeOut(seat=conn.seat, code=self.code, version=head)))
        if last_version is not None and 0 <= last_version < head and self.game is not None:
            missed = self.events.since(last_version)
            if missed is not None:
                self._send(conn, replay_text(head, missed, conn.seat))
        self._send(conn, self.feed.snapshot(head, self.game, conn.seat, self.summary()))

    def _unregister(self, conn: Connection) -> None:
        if self.conns.pop(conn.id, None) is None:
            return
        self.tlog.info("connection detached", conn.seat, conn=conn.id,
                      reason=conn.drop_reason or "closed")
        seat = self._seat(conn.seat)
        if seat is None:
            return
        seat.live -= 1
        if seat.live == 0:
            if self.game is None:
                self._broadcast_table()
            elif self.game.seats[seat.name].connected:
                self._connection_command(seat.name, "disconnect")

    # ------------------------------------------------------------ commands

    def _reply(self, conn: Connection, text: str) -> None:
        if conn.id in self.conns:
            self._send(conn, text)

    def _submit(self, conn: Connection, msg: CommandIn) -> None:
        if conn.id not in self.conns:
            return  # dropped meanwhile: the client resends after resyncing
        seat = conn.seat
        if seat is None:
            self._reply(conn, dump(RefusedOut(id=msg.id, code="not_seated",
                                              message=seat_sentence("not_seated", self.size))))
            return
        key = f"{type(msg.id).__name__}:{msg.id}"
        replies = self._replies.setdefault(seat, OrderedDict())
        cached = replies.get(key)
        if cached is not None:
            self.tlog.debug("command repeated", seat, id=msg.id)
            self._reply(conn, cached)
            return
        if self.game is None:
            self._reply(conn, dump(RefusedOut(id=msg.id, code="not_started",
                                              message=seat_sentence("not_started", self.size))))
            return
        if self.time.stopped:  # the store fails: nothing may change (server.durable)
            self._reply(conn, dump(RefusedOut(id=msg.id, code="store_unavailable",
                                              message=STORE_DOWN)))
            return
        now = self._now()
        text: str
        failed = False
        made: dict[str, int] = {}
        cmd: AnyCommand | None = None
        try:
            cmd = command_for(self.options, seat, msg)  # the variant's commands only
            made = self.game.apply(cmd, now)
        except Refused as e:
            text = dump_reply(RefusedOut(id=msg.id, code=e.code, message=e.message))
            self.tlog.debug("command", seat, do=msg.do, outcome="refused", code=e.code)
        except Exception as e:  # noqa: BLE001 - an engine bug must not kill the table
            self._engine_failed(now, cmd, e)
            failed = True
            text = dump_reply(RefusedOut(id=msg.id, code="internal_error",
                                         message=SERVER_REFUSALS["internal_error"]))
        else:
            text = ""
        self._ref = msg.id
        try:
            version = None if failed else self._flush(now, cmd)
        finally:
            self._ref = None
        if version is not None and self.epoch:
            self.answered.append((conn, seat, key, msg.id))
        if self.metrics is not None:
            self.metrics.command_outcomes[
                "internal_error" if failed else "refused" if text else "ack"].inc()
        if not text:
            text = dump_reply(AckOut(id=msg.id, version=self.events.head, made=made))
            self.tlog.debug("command", seat, do=msg.do, outcome="ack", version=version)
        replies[key] = text
        while len(replies) > self.settings.replies_kept:
            replies.popitem(last=False)
        self._reply(conn, text)
