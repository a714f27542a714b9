"""``JitterStore``: a test fake that wraps a store and sleeps a random while before each call.

STYLE 14: a store that answers late and out of step shakes out ordering bugs (a frame sent
before its batch is stored, two batches stored out of order). The delays come from a seeded
``random.Random`` owned by the wrapper, never from the global generator.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Mapping, Sequence
from typing import Any

from ..rating import Rating
from .base import (
    AgoraState,
    EventDicts,
    FinishedGame,
    HandScore,
    HistoryEntry,
    LoggedBatch,
    QueueEntry,
    RankEntry,
    RatedEntry,
    Store,
)


class JitterStore(Store):
    """``inner`` with a uniform random sleep of 0 to ``max_delay`` seconds before every call."""

    def __init__(self, inner: Store, max_delay: float = 0.005, seed: int = 0) -> None:
        self.inner = inner
        self.kind = f"jitter+{inner.kind}"
        self.max_delay = max_delay
        self._rng = random.Random(seed)
        self.calls = 0

    async def _wait(self) -> None:
        self.calls += 1
        await asyncio.sleep(self._rng.uniform(0.0, self.max_delay))

    async def append_batches(self, log_id: str, batches: Sequence[tuple[int, EventDicts]]) -> None:
        await self._wait()
        await self.inner.append_batches(log_id, batches)

    async def read_after(self, log_id: str, version: int = 0,
                         limit: int | None = None) -> list[LoggedBatch]:
        await self._wait()
        return await self.inner.read_after(log_id, version, limit)

    async def log_head(self, log_id: str) -> int:
        await self._wait()
        return await self.inner.log_head(log_id)

    async def finish_game(self, record: FinishedGame) -> None:
        await self._wait()
        await self.inner.finish_game(record)

    async def finished(self, limit: int = 50) -> list[FinishedGame]:
        await self._wait()
        return await self.inner.finished(limit)

    async def finished_game(self, log_id: str) -> FinishedGame | None:
        await self._wait()
        return await self.inner.finished_game(log_id)

    async def add_hand_points(self, hand_id: str, scores: Sequence[HandScore], at: float,
                              code: str = "") -> bool:
        await self._wait()
        return await self.inner.add_hand_points(hand_id, scores, at, code)

    async def top(self, n: int = 20, offset: int = 0) -> list[RankEntry]:
        await self._wait()
        return await self.inner.top(n, offset)

    async def rank_of(self, player_id: str) -> RankEntry | None:
        await self._wait()
        return await self.inner.rank_of(player_id)

    async def ranked_players(self) -> int:
        await self._wait()
        return await self.inner.ranked_players()

    async def history(self, player_id: str, limit: int = 50) -> list[HistoryEntry]:
        await self._wait()
        return await self.inner.history(player_id, limit)

    async def queue_join(self, player_id: str, name: str, alive: float = 5.0,
                         since: float = 0.0) -> bool:
        await self._wait()
        return await self.inner.queue_join(player_id, name, alive, since)

    async def queue_touch(self, player_ids: Sequence[str], alive: float = 5.0) -> None:
        await self._wait()
        await self.inner.queue_touch(player_ids, alive)

    async def agora_post(self, player_id: str, text: str) -> None:
        await self._wait()
        await self.inner.agora_post(player_id, text)

    async def agora_take(self, player_ids: Sequence[str]) -> dict[str, str]:
        await self._wait()
        return await self.inner.agora_take(player_ids)

    async def queue_leave(self, player_id: str) -> bool:
        await self._wait()
        return await self.inner.queue_leave(player_id)

    async def queue_pop(self, n: int = 3) -> list[QueueEntry] | None:
        await self._wait()
        return await self.inner.queue_pop(n)

    async def queue_members(self) -> list[QueueEntry]:
        await self._wait()
        return await self.inner.queue_members()

    async def queue_position(self, player_id: str) -> int | None:
        await self._wait()
        return await self.inner.queue_position(player_id)

    async def queue_clear(self) -> None:
        await self._wait()
        await self.inner.queue_clear()

    # -- ratings and agora bookkeeping (server.rating, server.agora)

    async def rating_top(self, n: int = 20, offset: int = 0) -> list[RatedEntry]:
        await self._wait()
        return await self.inner.rating_top(n, offset)

    async def rating_of(self, player_id: str) -> RatedEntry | None:
        await self._wait()
        return await self.inner.rating_of(player_id)

    async def rated_players(self) -> int:
        await self._wait()
        return await self.inner.rated_players()

    async def ratings(self, player_ids: Sequence[str]) -> dict[str, Rating]:
        await self._wait()
        return await self.inner.ratings(player_ids)

    async def queue_take(self, player_ids: Sequence[str]) -> list[QueueEntry] | None:
        await self._wait()
        return await self.inner.queue_take(player_ids)

    async def agora_seated(self, player_ids: Sequence[str], code: str | None,
                           matched: Mapping[str, str] | None = None) -> None:
        await self._wait()
        await self.inner.agora_seated(player_ids, code, matched)

    async def agora_state(self, player_ids: Sequence[str]) -> dict[str, AgoraState]:
        await self._wait()
        return await self.inner.agora_state(player_ids)

    async def put_table(self, code: str, record: dict[str, Any]) -> None:
        await self._wait()
        await self.inner.put_table(code, record)

    async def get_table(self, code: str) -> dict[str, Any] | None:
        await self._wait()
        return await self.inner.get_table(code)

    async def delete_table(self, code: str) -> None:
        await self._wait()
        await self.inner.delete_table(code)

    async def ping(self) -> bool:
        return await self.inner.ping()

    async def close(self) -> None:
        await self.inner.close()
