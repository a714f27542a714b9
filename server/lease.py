"""One owner per durable table: a fenced lease in Redis (issue 13).

Each server process has an owner id (:func:`owner_id`: host, pid and a random part). A
durable table (``server.durable``) is owned by the process holding its lease
(``tbl:{code}:lease`` in ``server.store.owned``, ``lease_seconds`` long, 3 s by default).
The :class:`LeaseKeeper` of a process renews the leases of all its tables in one script call
every third of the lease, carrying each table's game time (a take-over resumes there: the
time after the last renewal is ownerless and is not game time, R23). The lease is lost
within ``lease_seconds`` of the owner's death.

Fencing: a take-over raises the table's epoch; every append checks it in the same script
(``Store.table_append``), so a process that was paused or cut off past its lease can never
write after another took over. It finds out at its next append or renewal (the renewal says
"lost"), or before it handles anything at all once it is unsure (a table's ``lease_until``
passed without a renewal: :meth:`LeaseKeeper.confirm`), and stops the table
(``Table.fence``): its sockets close with 1012, the clients reconnect.

Handover: a process that needs a table another live process owns (the proxy sent a client
there, ``server.registry``) asks for it (``Store.table_want``); the owner's next renewal
sees the request and hands the table over: stops it (1012), then releases the lease, which
the asker takes. At shutdown a process releases every lease it holds.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import socket
from collections.abc import Callable
from typing import TYPE_CHECKING

from .store import Store

if TYPE_CHECKING:
    from .tables import Table

log = logging.getLogger("machiavelox.lease")

#: Share of the lease a table counts as surely its own after a renewal was sent (the rest is
#: a margin for the renewal's own round trip and the clocks).
SURE_SHARE = 0.8


def owner_id() -> str:
    """This process's owner id: ``host:pid:random`` (the random part tells a restarted process
    with the same pid apart)."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"


class LeaseKeeper:
    """Renews the leases of this process's durable tables (see the module docstring)."""

    def __init__(self, store: Store, ttl: float, tables: Callable[[], list[Table]]) -> None:
        self.store = store
        self.ttl = ttl
        self.owner = owner_id()
        self._tables = tables
        self._task: asyncio.Task[None] | None = None
        self._handing: set[asyncio.Task[None]] = set()

    def sure_until(self, started: float) -> float:
        return started + self.ttl * SURE_SHARE

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name="lease-keeper")

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.ttl / 3)
            try:
                await self.renew(self._tables())
            except Exception:  # noqa: BLE001 - logged; the next round tries again
                log.exception("lease renewal failed")

    async def renew(self, tables: list[Table]) -> None:
        """Renew these tables' leases at once; fence the lost ones, hand over the asked ones.
        A store that does not answer renews nothing (the tables find out at their
        ``lease_until``)."""
        tables = [t for t in tables if t.epoch and not t._stopping]
        if not tables:
            return
        loop = asyncio.get_running_loop()
        started = loop.time()
        try:
            results = await self.store.table_renew(
                self.owner, self.ttl, [(t.code, t.epoch, t._now()) for t in tables])
        except Exception as e:  # noqa: BLE001 - StoreUnavailable and the like
            log.warning("lease renewal failed: %s", type(e).__name__)
            return
        for table, result in zip(tables, results):
            if result == 0:
                table.fence("lease lost")
                continue
            table.lease_until = self.sure_until(started)
            if result == 2:
                task = loop.create_task(self.hand_over(table), name=f"handover-{table.code}")
                self._handing.add(task)
                task.add_done_callback(self._handing.discard)

    async def confirm(self, table: Table) -> None:
        """Renew one table's lease now (it is past ``lease_until``): fenced when lost. When
        the store does not answer, game time stops until it does (``server.durable``)."""
        loop = asyncio.get_running_loop()
        started = loop.time()
        try:
            results = await self.store.table_renew(self.owner, self.ttl,
                                                   [(table.code, table.epoch, table._now())])
        except Exception as e:  # noqa: BLE001 - the store is down: nothing may happen
            log.warning("lease check failed for %s: %s", table.code, type(e).__name__)
            table.time.suspend()
            return
        if not results or results[0] == 0:
            table.fence("lease lost")
        else:
            table.lease_until = self.sure_until(started)

    async def hand_over(self, table: Table) -> None:
        """Another process asked for the table: stop it here, then give the lease up."""
        epoch = table.epoch
        table.tlog.info("table asked for by another process: handing it over")
        table.fence("handed over")
        await table.stop(1.0)
        with contextlib.suppress(Exception):
            await self.store.table_release(table.code, self.owner, epoch)

    async def release_all(self, tables: list[Table]) -> None:
        """Give up every lease (shutdown): another process may take each table at once."""
        await asyncio.gather(*(self.store.table_release(t.code, self.owner, t.epoch)
                               for t in tables if t.epoch), return_exceptions=True)

    async def close(self) -> None:
        for task in [self._task, *self._handing]:
            if task is not None and not task.done():
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task
