"""``MemoryStore``: the default :class:`~server.store.base.Store`, in this process's memory.

Nothing survives a restart. Every method completes without awaiting anything, so a call never
lets another task run in the middle of it (each is atomic, like the Redis store's scripts).
Batches, records and history entries are kept as JSON text, as in Redis: a caller can never
change what is stored, and the garbage collector has nothing to scan in the logs (one string
per batch instead of a dict and its lists per event; see ``server.gctune``).
"""

from __future__ import annotations

import bisect
import json
import time
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any

from ..rating import Rating, hand_ranks, initial, rate
from .base import (
    HISTORY_MAX,
    LIVE_TTL,
    MAX_LOGS,
    SEATING_TTL,
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
    StoreConflict,
    competition_ranks,
)


def _ranked_page(ordered: Sequence[tuple[str, float]], n: int, offset: int) -> list[tuple[int, str]]:
    """``(rank, member)`` for ``n`` members of ``ordered`` (best first) from place ``offset``:
    equal scores share a rank, also across the page's first edge (``competition_ranks``)."""
    offset = max(0, offset)
    page = ordered[offset:offset + max(0, n)]
    if not page:
        return []
    first = 1 + sum(1 for _, v in ordered if v > page[0][1])
    return list(zip(competition_ranks(page, offset, first), (p for p, _ in page)))

class MemoryStore(Store):
    """Everything in dicts and lists of this process."""

    kind = "memory"

    def __init__(self, history_max: int = HISTORY_MAX, max_logs: int = MAX_LOGS) -> None:
        self._logs: dict[str, tuple[list[int], list[str]]] = {}  # oldest first
        self._max_logs = max_logs
        self._finished: dict[str, str] = {}
        self._counted: set[str] = set()
        self._points: dict[str, int] = {}
        self._names: dict[str, str] = {}
        self._hands: dict[str, int] = {}
        self._history: dict[str, list[str]] = {}  # newest first
        self._history_max = history_max
        self._queue: OrderedDict[str, tuple[str, float]] = OrderedDict()  # name, since
        self._ratings: dict[str, Rating] = {}
        self._live: dict[str, tuple[str, float]] = {}  # player id -> (code, expiry)
        self._matched: dict[str, str] = {}
        self._last: dict[str, str] = {}
        self._tables: dict[str, str] = {}
        self._mail: dict[str, str] = {}

    # ------------------------------------------------------------ event logs

    async def append_batches(self, log_id: str, batches: Sequence[tuple[int, EventDicts]]) -> None:
        if log_id not in self._logs:
            while len(self._logs) >= self._max_logs:
                oldest = next(iter(self._logs))
                del self._logs[oldest]
                self._finished.pop(oldest, None)
        versions, events = self._logs.setdefault(log_id, ([], []))
        for version, batch in batches:
            head = versions[-1] if versions else 0
            if version <= head:
                raise StoreConflict(f"log {log_id}: version {version} is not after {head}")
            versions.append(version)
            events.append(json.dumps(batch, separators=(",", ":")))

    async def read_after(self, log_id: str, version: int = 0,
                         limit: int | None = None) -> list[LoggedBatch]:
        log = self._logs.get(log_id)
        if log is None:
            return []
        versions, events = log
        start = bisect.bisect_right(versions, version)
        stop = len(versions) if limit is None else min(len(versions), start + max(0, limit))
        return [LoggedBatch(versions[i], json.loads(events[i])) for i in range(start, stop)]

    async def log_head(self, log_id: str) -> int:
        log = self._logs.get(log_id)
        return log[0][-1] if log and log[0] else 0

    async def finish_game(self, record: FinishedGame) -> None:
        self._finished.pop(record.log_id, None)  # re-inserted last: newest
        self._finished[record.log_id] = json.dumps(record.to_dict())

    async def finished(self, limit: int = 50) -> list[FinishedGame]:
        records = [FinishedGame.from_dict(json.loads(t)) for t in self._finished.values()]
        records.sort(key=lambda r: (r.finished_at, r.log_id), reverse=True)
        return records[:max(0, limit)]

    async def finished_game(self, log_id: str) -> FinishedGame | None:
        text = self._finished.get(log_id)
        return None if text is None else FinishedGame.from_dict(json.loads(text))

    # ------------------------------------------------------------ ranking and history

    async def add_hand_points(self, hand_id: str, scores: Sequence[HandScore], at: float,
                              code: str = "") -> bool:
        if hand_id in self._counted:
            return False
        ranks = hand_ranks([s.result for s in scores])  # raises before anything changes
        self._counted.add(hand_id)
        names = [s.name for s in scores]
        after = rate([self._ratings.get(s.player_id) or initial() for s in scores], ranks)
        for s, r in zip(scores, after):
            self._points[s.player_id] = self._points.get(s.player_id, 0) + s.points
            self._names[s.player_id] = s.name
            self._hands[s.player_id] = self._hands.get(s.player_id, 0) + 1
            self._ratings[s.player_id] = r
            if code and self._live.get(s.player_id, ("", 0.0))[0] == code:
                del self._live[s.player_id]
            entry = HistoryEntry(hand_id, at, s.points, s.result, code, names, r.mu, r.sigma)
            hist = self._history.setdefault(s.player_id, [])
            hist.insert(0, json.dumps(entry.to_dict()))
            del hist[self._history_max:]
        return True

    # ------------------------------------------------------------ ratings

    def _rated_order(self) -> list[tuple[str, float]]:
        return sorted(((p, r.conservative) for p, r in self._ratings.items()),
                      key=lambda kv: (kv[1], kv[0]), reverse=True)

    def _rated(self, rank: int, player_id: str) -> RatedEntry:
        return RatedEntry(rank, player_id, self._names.get(player_id, ""),
                          self._ratings[player_id], self._points.get(player_id, 0),
                          self._hands.get(player_id, 0))

    async def rating_top(self, n: int = 20, offset: int = 0) -> list[RatedEntry]:
        return [self._rated(r, p) for r, p in _ranked_page(self._rated_order(), n, offset)]

    async def rating_of(self, player_id: str) -> RatedEntry | None:
        mine = self._ratings.get(player_id)
        if mine is None:
            return None
        above = sum(1 for r in self._ratings.values() if r.conservative > mine.conservative)
        return self._rated(1 + above, player_id)

    async def rated_players(self) -> int:
        return len(self._ratings)

    async def ratings(self, player_ids: Sequence[str]) -> dict[str, Rating]:
        return {p: self._ratings[p] for p in player_ids if p in self._ratings}

    def _ordered(self) -> list[tuple[str, float]]:
        # Redis ZREVRANGE order: score descending, then member descending.
        return sorted(((p, float(v)) for p, v in self._points.items()),
                      key=lambda kv: (kv[1], kv[0]), reverse=True)

    def _entry(self, rank: int, player_id: str) -> RankEntry:
        return RankEntry(rank, player_id, self._names.get(player_id, ""),
                         self._points[player_id], self._hands.get(player_id, 0))

    async def top(self, n: int = 20, offset: int = 0) -> list[RankEntry]:
        return [self._entry(r, p) for r, p in _ranked_page(self._ordered(), n, offset)]

    async def rank_of(self, player_id: str) -> RankEntry | None:
        if player_id not in self._points:
            return None
        mine = self._points[player_id]
        return self._entry(1 + sum(1 for v in self._points.values() if v > mine), player_id)

    async def ranked_players(self) -> int:
        return len(self._points)

    async def history(self, player_id: str, limit: int = 50) -> list[HistoryEntry]:
        return [HistoryEntry.from_dict(json.loads(t))
                for t in self._history.get(player_id, [])[:max(0, limit)]]

    # ------------------------------------------------------------ matchmaking queue

    async def queue_join(self, player_id: str, name: str, alive: float = 5.0,
                         since: float = 0.0) -> bool:
        # One process: its agora leaves the queue when a socket goes, no liveness needed.
        old = self._queue.get(player_id)
        self._queue[player_id] = (name, since if old is None else old[1])  # keeps its place
        return old is None

    async def queue_leave(self, player_id: str) -> bool:
        return self._queue.pop(player_id, None) is not None

    async def queue_pop(self, n: int = 3) -> list[QueueEntry] | None:
        if n <= 0 or len(self._queue) < n:
            return None
        out = []
        for _ in range(n):
            p, (name, since) = self._queue.popitem(last=False)
            out.append(QueueEntry(p, name, since))
        return out

    async def queue_members(self) -> list[QueueEntry]:
        return [QueueEntry(p, name, since) for p, (name, since) in self._queue.items()]

    async def queue_take(self, player_ids: Sequence[str]) -> list[QueueEntry] | None:
        if not player_ids or any(p not in self._queue for p in player_ids):
            return None
        out = []
        for p in player_ids:
            name, since = self._queue.pop(p)
            out.append(QueueEntry(p, name, since))
            self._live[p] = ("*", time.time() + SEATING_TTL)
        return out

    async def agora_seated(self, player_ids: Sequence[str], code: str | None,
                           matched: Mapping[str, str] | None = None) -> None:
        group = ",".join(sorted(player_ids))
        for p in player_ids:
            self._matched.pop(p, None)
            if code is None:
                self._live.pop(p, None)
            else:
                self._live[p] = (code, time.time() + LIVE_TTL)
                self._last[p] = group
                if matched and p in matched:
                    self._matched[p] = matched[p]

    async def agora_state(self, player_ids: Sequence[str]) -> dict[str, AgoraState]:
        now = time.time()
        out = {}
        for p in player_ids:
            live = self._live.get(p)
            if live is not None and live[1] < now:
                del self._live[p]
                live = None
            out[p] = AgoraState(live[0] if live else None, self._last.get(p),
                                self._matched.get(p) if live else None)
        return out

    async def queue_position(self, player_id: str) -> int | None:
        for i, p in enumerate(self._queue, 1):
            if p == player_id:
                return i
        return None

    async def queue_clear(self) -> None:
        self._queue.clear()

    async def agora_post(self, player_id: str, text: str) -> None:
        self._mail[player_id] = text

    async def agora_take(self, player_ids: Sequence[str]) -> dict[str, str]:
        return {p: self._mail.pop(p) for p in player_ids if p in self._mail}

    # ------------------------------------------------------------ table records

    async def put_table(self, code: str, record: dict[str, Any]) -> None:
        """Keep ``record`` under ``code``, newest last; past ``max_logs`` records (a finished
        table's replay source is one per table) the oldest goes, as the oldest log does."""
        self._tables.pop(code, None)
        while len(self._tables) >= self._max_logs:
            del self._tables[next(iter(self._tables))]
        self._tables[code] = json.dumps(record)

    async def get_table(self, code: str) -> dict[str, Any] | None:
        text = self._tables.get(code)
        return None if text is None else dict(json.loads(text))

    async def delete_table(self, code: str) -> None:
        self._tables.pop(code, None)
