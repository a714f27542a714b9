"""The registry: all tables of this server process, by invite code."""

from __future__ import annotations

import asyncio
import secrets

from .journal import DealOptions
from .metrics import Metrics
from .sessions import Session
from .settings import Settings
from .store import MemoryStore, Store
from .tables import Mode, NoSuchTable, Table, TooManyTables, TooManyWaiting

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
        self.tables[table.code] = table
        table.start()
        seat = await table.join(creator)
        return table, seat

    def start(self) -> None:
        self._janitor = asyncio.get_running_loop().create_task(self._sweep_forever())

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
                table.tlog.info("table forgotten")

    async def close(self, timeout: float = 0.8) -> None:
        """Stop every table at once, within ``timeout`` seconds (see :meth:`Table.stop`)."""
        if self._janitor is not None:
            self._janitor.cancel()
        await asyncio.gather(*(t.stop(timeout) for t in list(self.tables.values())))
