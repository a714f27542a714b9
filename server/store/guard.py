"""``GuardedStore``: every store call bounded in time, and a store that is down failing fast.

Wraps any :class:`~server.store.base.Store` (the app wraps the one it makes). Each call gets
``timeout`` seconds (``MACHIAVELOX_STORE_TIMEOUT``, default 1 s); one that takes longer, or
fails to reach the store (a Redis stopped, killed or unreachable), raises
:class:`StoreUnavailable` and opens the breaker: from then on every call raises
:class:`StoreUnavailable` at once, so that neither a table nor a request waits for a store
that is known not to answer, and a probe task pings the store (every 0.25 s, backing off to
2 s) until it answers, which closes the breaker. So an outage costs the calls in flight when
it begins one ``timeout`` each, and nothing after. :class:`StoreConflict` and :class:`Fenced` are
the store answering (no failure) and pass through.

``available`` says whether the last call succeeded (``/readyz``, the
``machiavelox_store_up`` gauge). Callers: the HTTP endpoints answer 503 ``store_unavailable``
(``server.errors``), the agora socket gets an ``error`` frame with that code, and a table keeps
its unsaved batches and tries again later without waiting (``server.tables``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, TypeVar

from ..rating import Rating
from .base import (
    AgoraState,
    EventDicts,
    Fenced,
    FinishedGame,
    HandScore,
    HistoryEntry,
    LoggedBatch,
    QueueEntry,
    RankEntry,
    RatedEntry,
    Store,
    StoreConflict,
    StoreError,
    TableRecord,
)

T = TypeVar("T")
log = logging.getLogger("machiavelox.store")

BACKOFF_FIRST = 0.25
BACKOFF_MAX = 2.0


class StoreUnavailable(StoreError):
    """The store did not answer in time, could not be reached, or is known to be down."""


class GuardedStore(Store):
    """``inner`` with a time bound on every call and a breaker (see the module docstring)."""

    def __init__(self, inner: Store, timeout: float = 1.0,
                 on_change: Callable[[bool], None] | None = None) -> None:
        self.inner = inner
        self.kind = inner.kind
        self.durable = inner.durable
        self.timeout = timeout
        self.available = True
        self.failures = 0
        self._on_change = on_change
        self._probe: asyncio.Task[None] | None = None

    def _set(self, up: bool) -> None:
        if up != self.available:
            self.available = up
            log.warning("store %s %s", self.kind, "answers again" if up else
                        "unavailable: calls fail fast until it answers")
            if self._on_change is not None:
                self._on_change(up)
        if not up and (self._probe is None or self._probe.done()):
            self._probe = asyncio.get_running_loop().create_task(self._probe_until_up(),
                                                                 name="store-probe")

    async def _probe_until_up(self) -> None:
        backoff = BACKOFF_FIRST
        while not self.available:
            await asyncio.sleep(backoff)
            backoff = min(BACKOFF_MAX, backoff * 2)
            try:
                async with asyncio.timeout(self.timeout):
                    ok = await self.inner.ping()
            except (Exception, TimeoutError):  # noqa: BLE001 - still down
                continue
            if ok:
                self._set(True)

    async def _call(self, op: str, make: Callable[[], Awaitable[T]]) -> T:
        if not self.available:
            raise StoreUnavailable(f"store {self.kind} is down ({op} not tried)")
        try:
            async with asyncio.timeout(self.timeout):
                result = await make()
        except (StoreConflict, Fenced):
            raise
        except (Exception, TimeoutError) as e:  # noqa: BLE001 - any failure to answer
            self.failures += 1
            if self.available:
                log.warning("store %s: %s failed (%s)", self.kind, op, type(e).__name__)
            self._set(False)
            raise StoreUnavailable(f"store {self.kind}: {op}: {type(e).__name__}") from e
        return result

    # ------------------------------------------------------------ the interface

    async def append_batches(self, log_id: str, batches: Sequence[tuple[int, EventDicts]]) -> None:
        await self._call("append", lambda: self.inner.append_batches(log_id, batches))

    async def read_after(self, log_id: str, version: int = 0,
                         limit: int | None = None) -> list[LoggedBatch]:
        return await self._call("read", lambda: self.inner.read_after(log_id, version, limit))

    async def log_head(self, log_id: str) -> int:
        return await self._call("head", lambda: self.inner.log_head(log_id))

    async def finish_game(self, record: FinishedGame) -> None:
        await self._call("finish", lambda: self.inner.finish_game(record))

    async def finished(self, limit: int = 50) -> list[FinishedGame]:
        return await self._call("finished", lambda: self.inner.finished(limit))

    async def finished_game(self, log_id: str) -> FinishedGame | None:
        return await self._call("finished", lambda: self.inner.finished_game(log_id))

    async def add_hand_points(self, hand_id: str, scores: Sequence[HandScore], at: float,
                              code: str = "") -> bool:
        return await self._call("rank", lambda: self.inner.add_hand_points(hand_id, scores, at,
                                                                           code))

    async def top(self, n: int = 20, offset: int = 0) -> list[RankEntry]:
        return await self._call("rank", lambda: self.inner.top(n, offset))

    async def rank_of(self, player_id: str) -> RankEntry | None:
        return await self._call("rank", lambda: self.inner.rank_of(player_id))

    async def ranked_players(self) -> int:
        return await self._call("rank", lambda: self.inner.ranked_players())

    async def history(self, player_id: str, limit: int = 50) -> list[HistoryEntry]:
        return await self._call("history", lambda: self.inner.history(player_id, limit))

    async def queue_join(self, player_id: str, name: str, alive: float = 5.0,
                         since: float = 0.0) -> bool:
        return await self._call("queue", lambda: self.inner.queue_join(player_id, name, alive,
                                                                       since))

    async def queue_touch(self, player_ids: Sequence[str], alive: float = 5.0) -> None:
        await self._call("queue", lambda: self.inner.queue_touch(player_ids, alive))

    async def agora_post(self, player_id: str, text: str) -> None:
        await self._call("queue", lambda: self.inner.agora_post(player_id, text))

    async def agora_take(self, player_ids: Sequence[str]) -> dict[str, str]:
        return await self._call("queue", lambda: self.inner.agora_take(player_ids))

    async def queue_leave(self, player_id: str) -> bool:
        return await self._call("queue", lambda: self.inner.queue_leave(player_id))

    async def queue_pop(self, n: int = 3) -> list[QueueEntry] | None:
        return await self._call("queue", lambda: self.inner.queue_pop(n))

    async def queue_members(self) -> list[QueueEntry]:
        return await self._call("queue", lambda: self.inner.queue_members())

    async def queue_position(self, player_id: str) -> int | None:
        return await self._call("queue", lambda: self.inner.queue_position(player_id))

    async def queue_clear(self) -> None:
        await self._call("queue", lambda: self.inner.queue_clear())

    # -- ratings and agora bookkeeping (server.rating, server.agora)

    async def rating_top(self, n: int = 20, offset: int = 0) -> list[RatedEntry]:
        return await self._call("rank", lambda: self.inner.rating_top(n, offset))

    async def rating_of(self, player_id: str) -> RatedEntry | None:
        return await self._call("rank", lambda: self.inner.rating_of(player_id))

    async def rated_players(self) -> int:
        return await self._call("rank", lambda: self.inner.rated_players())

    async def ratings(self, player_ids: Sequence[str]) -> dict[str, Rating]:
        return await self._call("rank", lambda: self.inner.ratings(player_ids))

    async def queue_take(self, player_ids: Sequence[str]) -> list[QueueEntry] | None:
        return await self._call("queue", lambda: self.inner.queue_take(player_ids))

    async def agora_seated(self, player_ids: Sequence[str], code: str | None,
                           matched: Mapping[str, str] | None = None) -> None:
        await self._call("queue", lambda: self.inner.agora_seated(player_ids, code, matched))

    async def agora_state(self, player_ids: Sequence[str]) -> dict[str, AgoraState]:
        return await self._call("queue", lambda: self.inner.agora_state(player_ids))

    async def put_table(self, code: str, record: dict[str, Any]) -> None:
        await self._call("table", lambda: self.inner.put_table(code, record))

    async def get_table(self, code: str) -> dict[str, Any] | None:
        return await self._call("table", lambda: self.inner.get_table(code))

    async def delete_table(self, code: str) -> None:
        await self._call("table", lambda: self.inner.delete_table(code))

    async def table_create(self, code: str, owner: str, meta: dict[str, Any],
                           ttl: float) -> int:
        return await self._call("table", lambda: self.inner.table_create(code, owner, meta, ttl))

    async def table_acquire(self, code: str, owner: str, ttl: float) -> int | None:
        return await self._call("lease", lambda: self.inner.table_acquire(code, owner, ttl))

    async def table_renew(self, owner: str, ttl: float,
                          leases: Sequence[tuple[str, int, float]]) -> list[int]:
        return await self._call("lease", lambda: self.inner.table_renew(owner, ttl, leases))

    async def table_append(self, code: str, epoch: int, log_id: str,
                           meta: dict[str, Any] | None, game_time: float,
                           batches: Sequence[tuple[int, EventDicts, list[dict[str, Any]]]]
                           ) -> None:
        await self._call("append", lambda: self.inner.table_append(code, epoch, log_id, meta,
                                                                   game_time, batches))

    async def table_load(self, code: str) -> TableRecord | None:
        return await self._call("read", lambda: self.inner.table_load(code))

    async def table_release(self, code: str, owner: str, epoch: int) -> None:
        await self._call("lease", lambda: self.inner.table_release(code, owner, epoch))

    async def table_want(self, code: str, owner: str) -> None:
        await self._call("lease", lambda: self.inner.table_want(code, owner))

    async def table_end(self, code: str) -> None:
        await self._call("table", lambda: self.inner.table_end(code))

    async def tables_live(self) -> list[tuple[str, str | None]]:
        return await self._call("table", lambda: self.inner.tables_live())

    async def ping(self) -> bool:
        """True when the store answers within the timeout (never raises; ``/readyz``). Tried
        even while the breaker is open, and closes it on success."""
        try:
            async with asyncio.timeout(self.timeout):
                ok = await self.inner.ping()
        except (Exception, TimeoutError):  # noqa: BLE001
            self._set(False)
            return False
        if ok:
            self._set(True)
        return bool(ok)

    async def close(self) -> None:
        if self._probe is not None:
            self._probe.cancel()
            with contextlib.suppress(BaseException):
                await self._probe
        try:
            async with asyncio.timeout(self.timeout):
                await self.inner.close()
        except (Exception, TimeoutError):  # noqa: BLE001 - closing a store that is gone
            log.warning("store %s did not close cleanly", self.kind)
