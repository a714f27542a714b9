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

The journal (deal spec plus ``(version, now, command)`` for every call that changed the game)
replays the game exactly (:func:`server.journal.replay`): tests use it to check every frame against the true
state, and the Redis store of the next issue can use it to restore tables.

Storage: ``server.table_store`` (the outbox, appends before sends, the finished game's
record); seats and connections: ``server.seating``.

Failures (a bug): one inbox item that raises never stalls the table. It is logged and counted
(``machiavelox_step_failures_total``), the connection that sent it is dropped, and the task
goes on with the next item. An engine exception inside a command (other than ``Refused``)
is answered ``internal_error``, and the game is rebuilt from its journal without that command
(``server.table_commands.rebuild``): whatever the failed call changed is gone, and nothing of it is sent.

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

from .connection import Connection
from .durable import (
    RESUME_POLL,
    GameTime,
    Saved,
    entry_json,
    resume,
)
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
    Submit,
)
from .journal import (
    AnyCommand,
    DealOptions,
    DealSpec,
    EventLog,
    JournalEntry,
    TableGame,
    stored_event,
)
from .logs import TableLog
from .metrics import Metrics
from .protocol import (
    AgainOut,
    TableOut,
    TableSummary,
    dump,
)
from .seating import (
    attach,
    connection_command,
    grace_over,
    join_seat,
    send_state,
    unregister,
)
from .sessions import Session
from .settings import Settings
from .store import Store
from .table_commands import SERVER_REFUSALS as SERVER_REFUSALS  # its importers look here
from .table_commands import engine_failed, submit
from .table_store import (
    STORE_BACKOFF_FIRST,
    deliver,
    fence,
    refuse_moved,
)
from .variant import feed_for, rules_summary

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
        # The plain value, not the GamePhase member: pydantic's oldest allowed release (2.2)
        # refuses a str enum member for a Literal field (TableSummary.phase).
        phase: Literal["hand", "pause", "over"] = self.game.phase.value
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
                            refuse_moved(self, item)
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
                    await deliver(self)
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
            submit(self, item.conn, item.msg)
        elif isinstance(item, Attach):
            attach(self, item.conn, item.last_version)
        elif isinstance(item, Resync):
            if item.conn.id in self.conns:
                send_state(self, item.conn, item.last_version)
        elif isinstance(item, Detach):
            unregister(self, item.conn)
        elif isinstance(item, Join):
            join_seat(self, item)
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
        except Exception as e:  # noqa: BLE001 - an engine bug: undo it (table_commands.rebuild)
            engine_failed(self, now, None, e)
            return
        self._flush(now, None)
        grace_over(self, now)

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

    def _settle_drops(self) -> None:
        """Detach the connections dropped while handling the last item; the game then hears
        of the absence (which may drop more)."""
        while self._drops:
            unregister(self, self._drops.pop(0))

    def _broadcast_table(self) -> None:
        text = dump(TableOut(table=self.summary()))
        for conn in list(self.conns.values()):
            self._send(conn, text)

    # ------------------------------------------------------------ parts kept elsewhere

    async def _deliver(self) -> None:
        """``server.table_store.deliver``."""
        await deliver(self)

    def fence(self, reason: str) -> None:
        """``server.table_store.fence``: another process owns the table now."""
        fence(self, reason)

    def _join(self, item: Join) -> None:
        """``server.seating.join_seat``."""
        join_seat(self, item)

    def _connection_command(self, seat: str, do: str, now: float | None = None) -> None:
        """``server.seating.connection_command``."""
        connection_command(self, seat, do, now)
