"""Storage behind one interface (STYLE 6): :class:`Store`, with :class:`MemoryStore` (default)
and :class:`RedisStore` (``MACHIAVELOX_REDIS_URL``). See ``server.store.base`` for the contract.
"""

from __future__ import annotations

from typing import Any

from .base import (
    AgoraState,
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
from .guard import GuardedStore, StoreUnavailable
from .jitter import JitterStore
from .memory import MemoryStore

__all__ = [
    "AgoraState", "Fenced", "FinishedGame", "GuardedStore", "HandScore", "HistoryEntry", "JitterStore", "LoggedBatch",
    "MemoryStore", "QueueEntry", "RankEntry", "RatedEntry", "Store", "StoreConflict", "StoreError",
    "StoreUnavailable", "TableRecord", "make_store",
]


def make_store(settings: Any) -> Store:
    """The store ``settings`` asks for: a :class:`RedisStore` on ``settings.redis_url`` when it
    is set (keys under ``settings.redis_prefix``, default ``mvx:``), else a :class:`MemoryStore`."""
    url = getattr(settings, "redis_url", None)
    if url:
        from .redis_store import RedisStore  # imported only when used

        return RedisStore.from_url(url, prefix=getattr(settings, "redis_prefix", None) or "mvx:")
    return MemoryStore()
