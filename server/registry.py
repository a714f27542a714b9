"""The registry: all tables of this server process, by invite code.

With a durable store (Redis, ``server.durable``) a table is recorded in the store when it is
created (:meth:`TableRegistry.create`: a code no other process has, and this process's lease
on it), and a code this process does not hold is looked up there (:meth:`TableRegistry.open`):
when its lease is free (its owner died, was paused past its lease, or shut down) this process
takes it over, rebuilds it from its log and restarts its bot seats (``on_restore``); when a
live process holds it, this one asks for it and waits (``server.lease``: handover) up to twice
the lease, then gives up with :class:`TableBusy` (the client tries again). A sweeper
(:meth:`TableRegistry.adopt_orphans`, every 5 s or so) takes over the unowned tables whose bot
seats would otherwise wait for a person to come back.
"""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
from collections.abc import Callable

from .durable import mark_saved, restore, table_meta
from .inbox import Mode, NoSuchTable, TableError, TooManyTables, TooManyWaiting
from .journal import DealOptions
from .lease import LeaseKeeper
from .metrics import Metrics
from .sessions import Session
from .settings import Settings
from .store import MemoryStore, Store
from .tables import Table


class TableBusy(TableError):
    """Another live process holds the table and did not hand it over in time (503)."""

    status = 503


#: Seconds between two tries to take a lease another process holds.
ACQUIRE_POLL = 0.2
#: Seconds (about) between two looks for tables with bot seats that no process owns.
ADOPT_EVERY = 5.0

log = logging.getLogger("machiavelox.registry")

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I
CODE_LENGTH = 6


# ---------------------------------------------------------------------------- the registry


class TableRegistry:
    """All tables of this server, in memory, by invite code. Tables log to ``store`` (default:
    a :class:`~server.store.MemoryStore`) and count in ``metrics`` (optional)."""

    def __init__(self, settings: Settings, store: Store | None = None,
                 metrics: Metrics | None = None) -> None:
        self.settings = settings
        self.store: Store = store if store is not None else MemoryStore()
        self.metrics = metrics
        self.tables: dict[str, Table] = {}
        self._janitor: asyncio.Task[None] | None = None
        #: Durable tables: the lease keeper (None with a memory store).
        self.keeper: LeaseKeeper | None = None
        if getattr(self.store, "durable", False):
            self.keeper = LeaseKeeper(self.store, settings.lease_seconds,
                                      lambda: list(self.tables.values()))
        #: Called with each table rebuilt by a take-over (the app restarts its bot seats).
        self.on_restore: Callable[[Table], None] | None = None
        self._locks: dict[str, asyncio.Lock] = {}
        self._adopter: asyncio.Task[None] | None = None
        if metrics is not None:
            metrics.watch_tables(
                lambda: sum(1 for t in self.tables.values() if t.phase == "hand"),
                lambda: len(self.tables))

    def get(self, code: str) -> Table | None:
        return self.tables.get(code.upper())

    def require(self, code: str) -> Table:
        table = self.get(code)
        if table is None:
            raise NoSuchTable("no_such_table", f"There is no table {code}.")
        return table

    async def open(self, code: str) -> Table | None:
        """The table ``code`` in this process, taken over from the store when it is durable
        and not here (see the module docstring); None when there is none. Raises
        :class:`TableBusy`, and ``StoreUnavailable`` when the store does not answer."""
        code = code.upper()
        table = self.tables.get(code)
        if table is not None or self.keeper is None:
            return table
        lock = self._locks.setdefault(code, asyncio.Lock())
        try:
            async with lock:
                table = self.tables.get(code)
                if table is None:
                    table = await self._take_over(code)
                return table
        finally:
            if not lock.locked():
                self._locks.pop(code, None)

    async def open_required(self, code: str) -> Table:
        table = await self.open(code)
        if table is None:
            raise NoSuchTable("no_such_table", f"There is no table {code}.")
        return table

    async def _take_over(self, code: str, *, wait: bool = True) -> Table | None:
        assert self.keeper is not None
        keeper = self.keeper
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 2 * keeper.ttl + 1.0
        asked = False
        while True:
            started = loop.time()
            epoch = await self.store.table_acquire(code, keeper.owner, keeper.ttl)
            if epoch is None:
                return None
            if epoch > 0:
                break
            if not wait:
                return None
            if not asked:
                await self.store.table_want(code, keeper.owner)
                asked = True
            if loop.time() > deadline:
                raise TableBusy("table_busy", "This table is busy moving between server "
                                "processes: try again in a moment.")
            await asyncio.sleep(ACQUIRE_POLL)
        record = await self.store.table_load(code)
        if record is None:
            return None
        table = restore(record, self.settings, self.store, self.metrics)
        table.epoch = epoch
        self._own(table, keeper.sure_until(started))
        self.tables[code] = table
        table.start()
        table.tlog.info("table taken over", epoch=epoch, owner=keeper.owner)
        if self.on_restore is not None:
            self.on_restore(table)
        return table

    def _own(self, table: Table, sure_until: float) -> None:
        assert self.keeper is not None
        table.lease_until = sure_until
        table.confirm_lease = self.keeper.confirm
        table.on_fenced = self._forget

    def _forget(self, table: Table) -> None:
        if self.tables.get(table.code) is table:
            del self.tables[table.code]

    def _new_code(self) -> str:
        while True:
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            if code not in self.tables:
                return code

    async def create(self, mode: Mode, creator: Session, options: DealOptions,
                     *, agora: bool = False) -> tuple[Table, str]:
        """A new table with ``creator`` in the first seat: ``(table, seat name)``. ``agora``:
        matched by the agora, its finished hand counts in the ranking."""
        if len(self.tables) >= self.settings.max_tables:
            raise TooManyTables("too_many_tables", "The server is full: try again later.")
        waiting = sum(1 for t in self.tables.values()
                      if t.phase == "waiting" and t.creator_id == creator.player_id)
        if not agora and waiting >= self.settings.max_waiting_tables_per_player:
            raise TooManyWaiting(
                "too_many_waiting_tables",
                f"You already have {waiting} tables waiting for players: play or leave one first.")
        table = Table(self._new_code(), mode, options, self.settings, store=self.store,
                      metrics=self.metrics, agora=agora)
        table.creator_id = creator.player_id
        if self.keeper is not None:
            await self._record_new(table)
        self.tables[table.code] = table
        table.start()
        seat = await table.join(creator)
        return table, seat

    async def _record_new(self, table: Table) -> None:
        """Record a new durable table under a code no process has, with this process's lease."""
        assert self.keeper is not None
        loop = asyncio.get_running_loop()
        for _ in range(20):
            started = loop.time()
            epoch = await self.store.table_create(table.code, self.keeper.owner,
                                                  table_meta(table), self.keeper.ttl)
            if epoch > 0:
                table.epoch = epoch
                mark_saved(table)
                self._own(table, self.keeper.sure_until(started))
                return
            table.code = self._new_code()  # taken by another process: draw again
            table.tlog.code = table.code
            table.log_id = f"{table.code}-{secrets.token_hex(4)}"
        raise TooManyTables("too_many_tables", "The server is full: try again later.")

    def start(self) -> None:
        self._janitor = asyncio.get_running_loop().create_task(self._sweep_forever())
        if self.keeper is not None:
            self.keeper.start()
            self._adopter = asyncio.get_running_loop().create_task(self._adopt_forever())

    async def adopt_orphans(self) -> None:
        """Take over the durable tables that no process owns and whose bot seats would
        otherwise wait for a person to come back (the sweeper: tables of people only wait,
        their time does not run). One try each, no waiting: another process may be quicker."""
        if self.keeper is None:
            return
        for code, owner in await self.store.tables_live():
            if owner is not None or code in self.tables:
                continue
            record = await self.store.table_load(code)
            size = int((record.meta.get("options") or {}).get("size", 3)) if record else 3
            if record is None or not record.meta.get("bots") or len(record.meta["seats"]) < size:
                continue
            table = await self.open_orphan(code)
            if table is not None and table.phase == "over":
                await self.store.table_end(code)

    async def open_orphan(self, code: str) -> Table | None:
        lock = self._locks.setdefault(code, asyncio.Lock())
        async with lock:
            if code in self.tables:
                return self.tables[code]
            return await self._take_over(code, wait=False)

    async def _adopt_forever(self) -> None:
        while True:
            await asyncio.sleep(ADOPT_EVERY * random.uniform(0.8, 1.2))
            try:
                await self.adopt_orphans()
            except Exception:  # noqa: BLE001 - the store is down: next round
                log.warning("orphan sweep failed", exc_info=True)

    async def _sweep_forever(self) -> None:
        interval = min(60.0, self.settings.table_idle_ttl / 2)
        while True:
            await asyncio.sleep(interval)
            await self.sweep()

    async def sweep(self) -> None:
        """Forget waiting or finished tables that nobody has used for ``table_idle_ttl``."""
        now = asyncio.get_running_loop().time()
        for code, table in list(self.tables.items()):
            if table.phase in ("waiting", "over") and table.idle_for(now) > self.settings.table_idle_ttl:
                del self.tables[code]
                await table.stop()
                if self.keeper is not None:
                    await self.keeper.release_all([table])
                table.tlog.info("table forgotten")

    async def close(self, timeout: float = 0.8) -> None:
        """Stop every table at once, within ``timeout`` seconds (see :meth:`Table.stop`)."""
        if self._janitor is not None:
            self._janitor.cancel()
        if self._adopter is not None:
            self._adopter.cancel()
        tables = list(self.tables.values())
        if self.keeper is not None:
            await self.keeper.close()
        await asyncio.gather(*(t.stop(timeout) for t in tables))
        if self.keeper is not None:
            # Another process may take each table at once (a deploy costs a reconnection).
            await asyncio.wait_for(self.keeper.release_all(tables), timeout)
