"""``RedisStore``: the :class:`~server.store.base.Store` in Redis, with ``redis.asyncio``.

Keys (all under ``prefix``, default ``mvx:``):

==========================  =========  ======================================================
key                         type       holds
==========================  =========  ======================================================
``log:{log_id}``            stream     one entry per batch, ID ``{version}-1``, field ``e``:
                                       the events as JSON. XADD with an explicit ID makes
                                       Redis itself refuse a version not after the head.
                                       Expires ``unfinished_ttl`` after its first batch
                                       (renewed every ``EXPIRE_EVERY`` versions) until the
                                       game finishes (PERSIST).
``finished``                hash       log_id -> :class:`FinishedGame` JSON
``finished:by_time``        zset       log_id scored by ``finished_at``
``rank``                    zset       player id scored by total points (ZINCRBY)
``rank:names``              hash       player id -> the name last used
``rank:hands``              hash       player id -> hands counted
``rank:counted``            set        hand ids already counted (idempotence)
``history:{player_id}``     list       :class:`HistoryEntry` JSON, newest first (LPUSH+LTRIM)
``queue``                   zset       player id scored by its arrival number (FIFO)
``queue:names``             hash       player id -> name
``queue:seq``               string     the arrival counter (INCR)
``queue:since``             hash       player id -> when they began waiting (Unix seconds)
``table:{code}``            string     a table record (JSON)
==========================  =========  ======================================================

Counting a hand, joining the queue and popping a group are Lua scripts, so each is atomic
even with several server processes on one Redis. Ranking order and ranks match the memory
store (see ``server.store.base``). The ratings and the agora's live games and last groups are
in ``server.store.rated`` (their keys are listed there); counting a hand is its script.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import ResponseError

from ..rating import Rating
from .base import (
    HISTORY_MAX,
    QUEUE_ALIVE,
    UNFINISHED_TTL,
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
    TableRecord,
    competition_ranks,
)
from .owned import OwnedTables
from .rated import RatedRanking

# KEYS: queue, names, seq, alive, since; ARGV: player id, name, liveness ms, since. 1 when
# newly queued, 0 when already there (the liveness is renewed either way, since kept).
_QUEUE_JOIN = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[4], now + tonumber(ARGV[3]), ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], redis.call('INCR', KEYS[3]), ARGV[1])
redis.call('HSET', KEYS[5], ARGV[1], ARGV[4])
return 1
"""

# KEYS: queue, names, alive, since. Drops the entries whose liveness ran out (their process did not
# renew it: it died, or lost Redis), by Redis's own clock.
_PRUNE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
for _, id in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  local alive = redis.call('ZSCORE', KEYS[3], id)
  if not alive or tonumber(alive) < now then
    redis.call('ZREM', KEYS[1], id)
    redis.call('HDEL', KEYS[2], id)
    redis.call('ZREM', KEYS[3], id)
    redis.call('HDEL', KEYS[4], id)
  end
end
"""

# KEYS: queue, names, alive, since; ARGV: n. Prunes, then the first n (id, name, since, ...)
# or {} when fewer wait.
_QUEUE_POP = _PRUNE + """
local n = tonumber(ARGV[1])
if n <= 0 or redis.call('ZCARD', KEYS[1]) < n then return {} end
local ids = redis.call('ZRANGE', KEYS[1], 0, n - 1)
redis.call('ZREM', KEYS[1], unpack(ids))
local out = {}
for _, id in ipairs(ids) do
  out[#out + 1] = id
  out[#out + 1] = redis.call('HGET', KEYS[2], id) or ''
  out[#out + 1] = redis.call('HGET', KEYS[4], id) or '0'
  redis.call('HDEL', KEYS[2], id)
  redis.call('ZREM', KEYS[3], id)
  redis.call('HDEL', KEYS[4], id)
end
return out
"""

# KEYS: queue, alive; ARGV: liveness ms, player ids. Renews the liveness of those queued.
_QUEUE_TOUCH = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
for i = 2, #ARGV do
  if redis.call('ZSCORE', KEYS[1], ARGV[i]) then
    redis.call('ZADD', KEYS[2], now + tonumber(ARGV[1]), ARGV[i])
  end
end
return 1
"""

# KEYS: mail; ARGV: player ids. Their messages (id, text, ...), taken out.
_MAIL_TAKE = """
local out = {}
for i = 1, #ARGV do
  local text = redis.call('HGET', KEYS[1], ARGV[i])
  if text then
    out[#out + 1] = ARGV[i]
    out[#out + 1] = text
    redis.call('HDEL', KEYS[1], ARGV[i])
  end
end
return out
"""


#: The log's EXPIRE is renewed when a batch's version is 1 or a multiple of this (not on every
#: append: one command per batch instead of two, on the table's hot path).
EXPIRE_EVERY = 100


def _version(stream_id: str) -> int:
    return int(stream_id.partition("-")[0])


class RedisStore(Store):
    """The store on a Redis server (``redis.asyncio.Redis`` with ``decode_responses``)."""

    kind = "redis"

    def __init__(self, client: aioredis.Redis, prefix: str = "mvx:",
                 history_max: int = HISTORY_MAX, unfinished_ttl: int = UNFINISHED_TTL) -> None:
        # redis-py types its replies as unions of every decoding and of sync and async
        # results; with decode_responses they are str/float/list, as used below.
        self.r: Any = client
        self.prefix = prefix
        self._history_max = history_max
        self.unfinished_ttl = unfinished_ttl
        self._queue_join = client.register_script(_QUEUE_JOIN)
        self._queue_pop = client.register_script(_QUEUE_POP)
        self._queue_prune = client.register_script(_PRUNE)
        self._queue_touch = client.register_script(_QUEUE_TOUCH)
        self._mail_take = client.register_script(_MAIL_TAKE)
        self.owned = OwnedTables(client, prefix, unfinished_ttl)
        self.rated = RatedRanking(client, prefix)

    @classmethod
    def from_url(cls, url: str, prefix: str = "mvx:", max_connections: int = 64,
                 timeout: float = 10.0) -> RedisStore:
        """A store on the Redis at ``url`` (``redis://host:port/db``). Connects lazily.

        Every table's task awaits its own appends, so hundreds may ask at once: they share at
        most ``max_connections`` connections and wait (up to ``timeout`` seconds) for a free
        one, rather than fail (``BlockingConnectionPool``)."""
        pool = aioredis.BlockingConnectionPool.from_url(
            url, decode_responses=True, max_connections=max_connections, timeout=timeout)
        return cls(aioredis.Redis(connection_pool=pool), prefix)

    def _k(self, *parts: str) -> str:
        return self.prefix + ":".join(parts)

    # ------------------------------------------------------------ event logs

    async def append_batches(self, log_id: str, batches: Sequence[tuple[int, EventDicts]]) -> None:
        if not batches:
            return
        key = self._k("log", log_id)
        prev = None
        for version, _ in batches:
            if version < 1 or (prev is not None and version <= prev):
                raise StoreConflict(f"log {log_id}: versions must rise from 1: {version}")
            prev = version
        renew = any(v == 1 or v % EXPIRE_EVERY == 0 for v, _ in batches)
        if len(batches) == 1 and not renew:  # the usual case: one command, one round trip
            version, events = batches[0]
            try:
                await self.r.xadd(key, {"e": json.dumps(events, separators=(",", ":"))},
                                  id=f"{version}-1")
            except ResponseError as e:
                if "equal or smaller" in str(e):
                    raise StoreConflict(f"log {log_id}: {e}") from None
                raise
            return
        pipe = self.r.pipeline(transaction=False)
        for version, events in batches:
            pipe.xadd(key, {"e": json.dumps(events, separators=(",", ":"))}, id=f"{version}-1")
        if renew:
            pipe.expire(key, self.unfinished_ttl)
        results = await pipe.execute(raise_on_error=False)
        for res in results:
            if isinstance(res, ResponseError):
                if "equal or smaller" in str(res):
                    raise StoreConflict(f"log {log_id}: {res}")
                raise res

    async def read_after(self, log_id: str, version: int = 0,
                         limit: int | None = None) -> list[LoggedBatch]:
        if limit is not None and limit <= 0:
            return []
        entries = await self.r.xrange(self._k("log", log_id), min=f"{version + 1}-0", max="+",
                                      count=limit)
        return [LoggedBatch(_version(sid), json.loads(fields["e"])) for sid, fields in entries]

    async def log_head(self, log_id: str) -> int:
        last = await self.r.xrevrange(self._k("log", log_id), count=1)
        return _version(last[0][0]) if last else 0

    async def finish_game(self, record: FinishedGame) -> None:
        pipe = self.r.pipeline(transaction=True)
        pipe.hset(self._k("finished"), record.log_id, json.dumps(record.to_dict()))
        pipe.zadd(self._k("finished", "by_time"), {record.log_id: record.finished_at})
        pipe.persist(self._k("log", record.log_id))
        await pipe.execute()

    async def finished(self, limit: int = 50) -> list[FinishedGame]:
        if limit <= 0:
            return []
        ids = await self.r.zrevrange(self._k("finished", "by_time"), 0, limit - 1)
        if not ids:
            return []
        texts = await self.r.hmget(self._k("finished"), ids)
        records = [FinishedGame.from_dict(json.loads(t)) for t in texts if t is not None]
        records.sort(key=lambda r: (r.finished_at, r.log_id), reverse=True)
        return records

    async def finished_game(self, log_id: str) -> FinishedGame | None:
        text = await self.r.hget(self._k("finished"), log_id)
        return None if text is None else FinishedGame.from_dict(json.loads(text))

    # ------------------------------------------------------------ ranking and history

    async def add_hand_points(self, hand_id: str, scores: Sequence[HandScore], at: float,
                              code: str = "") -> bool:
        return await self.rated.add_hand(hand_id, scores, at, code, self._history_max)

    async def _entries(self, scored: list[tuple[str, float]], ranks: list[int]) -> list[RankEntry]:
        if not scored:
            return []
        ids = [p for p, _ in scored]
        pipe = self.r.pipeline(transaction=False)
        pipe.hmget(self._k("rank", "names"), ids)
        pipe.hmget(self._k("rank", "hands"), ids)
        names, hands = await pipe.execute()
        return [RankEntry(rank, p, n or "", int(v), int(h or 0))
                for rank, (p, v), n, h in zip(ranks, scored, names, hands)]

    async def _count_above(self, score: float) -> int:
        return int(await self.r.zcount(self._k("rank"), f"({score}", "+inf"))

    async def top(self, n: int = 20, offset: int = 0) -> list[RankEntry]:
        offset = max(0, offset)
        if n <= 0:
            return []
        scored = await self.r.zrevrange(self._k("rank"), offset, offset + n - 1, withscores=True)
        if not scored:
            return []
        first = 1 + await self._count_above(scored[0][1])
        return await self._entries(scored, competition_ranks(scored, offset, first))

    async def rank_of(self, player_id: str) -> RankEntry | None:
        score = await self.r.zscore(self._k("rank"), player_id)
        if score is None:
            return None
        rank = 1 + await self._count_above(score)
        return (await self._entries([(player_id, score)], [rank]))[0]

    async def ranked_players(self) -> int:
        return int(await self.r.zcard(self._k("rank")))

    async def history(self, player_id: str, limit: int = 50) -> list[HistoryEntry]:
        if limit <= 0:
            return []
        texts = await self.r.lrange(self._k("history", player_id), 0, limit - 1)
        return [HistoryEntry.from_dict(json.loads(t)) for t in texts]

    # ------------------------------------------------------------ ratings

    async def rating_top(self, n: int = 20, offset: int = 0) -> list[RatedEntry]:
        return await self.rated.top(n, offset)

    async def rating_of(self, player_id: str) -> RatedEntry | None:
        return await self.rated.rating_of(player_id)

    async def rated_players(self) -> int:
        return await self.rated.count()

    async def ratings(self, player_ids: Sequence[str]) -> dict[str, Rating]:
        return await self.rated.ratings(player_ids)

    async def queue_take(self, player_ids: Sequence[str]) -> list[QueueEntry] | None:
        return await self.rated.queue_take(self._qkeys(), player_ids)

    async def agora_seated(self, player_ids: Sequence[str], code: str | None,
                           matched: Mapping[str, str] | None = None) -> None:
        await self.rated.seated(player_ids, code, matched)

    async def agora_state(self, player_ids: Sequence[str]) -> dict[str, AgoraState]:
        return await self.rated.state(player_ids)

    # ------------------------------------------------------------ matchmaking queue

    def _qkeys(self) -> list[str]:
        return [self._k("queue"), self._k("queue", "names"), self._k("queue", "alive"),
                self._k("queue", "since")]

    async def queue_join(self, player_id: str, name: str, alive: float = QUEUE_ALIVE,
                         since: float = 0.0) -> bool:
        keys = [self._k("queue"), self._k("queue", "names"), self._k("queue", "seq"),
                self._k("queue", "alive"), self._k("queue", "since")]
        return bool(await self._queue_join(keys=keys, args=[player_id, name, int(alive * 1000),
                                                            repr(float(since))]))

    async def queue_touch(self, player_ids: Sequence[str], alive: float = QUEUE_ALIVE) -> None:
        if player_ids:
            await self._queue_touch(keys=[self._k("queue"), self._k("queue", "alive")],
                                    args=[int(alive * 1000), *player_ids])

    async def agora_post(self, player_id: str, text: str) -> None:
        pipe = self.r.pipeline(transaction=True)
        pipe.hset(self._k("agora", "mail"), player_id, text)
        pipe.expire(self._k("agora", "mail"), 120)
        await pipe.execute()

    async def agora_take(self, player_ids: Sequence[str]) -> dict[str, str]:
        if not player_ids:
            return {}
        flat = await self._mail_take(keys=[self._k("agora", "mail")], args=list(player_ids))
        return {flat[i]: flat[i + 1] for i in range(0, len(flat), 2)}

    async def queue_leave(self, player_id: str) -> bool:
        pipe = self.r.pipeline(transaction=True)
        pipe.zrem(self._k("queue"), player_id)
        pipe.hdel(self._k("queue", "names"), player_id)
        pipe.zrem(self._k("queue", "alive"), player_id)
        pipe.hdel(self._k("queue", "since"), player_id)
        removed, *_ = await pipe.execute()
        return bool(removed)

    async def queue_pop(self, n: int = 3) -> list[QueueEntry] | None:
        flat = await self._queue_pop(keys=self._qkeys(), args=[n])
        if not flat:
            return None
        return [QueueEntry(flat[i], flat[i + 1], float(flat[i + 2]))
                for i in range(0, len(flat), 3)]

    async def queue_members(self) -> list[QueueEntry]:
        await self._queue_prune(keys=self._qkeys())
        ids = await self.r.zrange(self._k("queue"), 0, -1)
        if not ids:
            return []
        pipe = self.r.pipeline(transaction=False)
        pipe.hmget(self._k("queue", "names"), ids)
        pipe.hmget(self._k("queue", "since"), ids)
        names, sinces = await pipe.execute()
        return [QueueEntry(p, n or "", float(s or 0)) for p, n, s in zip(ids, names, sinces)]

    async def queue_position(self, player_id: str) -> int | None:
        rank = await self.r.zrank(self._k("queue"), player_id)
        return None if rank is None else int(rank) + 1

    async def queue_clear(self) -> None:
        await self.r.delete(*self._qkeys())

    # ------------------------------------------------------------ table records

    async def put_table(self, code: str, record: dict[str, Any]) -> None:
        await self.r.set(self._k("table", code), json.dumps(record))

    async def get_table(self, code: str) -> dict[str, Any] | None:
        text = await self.r.get(self._k("table", code))
        return None if text is None else dict(json.loads(text))

    async def delete_table(self, code: str) -> None:
        await self.r.delete(self._k("table", code))

    # ------------------------------------------------------------ durable tables

    durable = True

    async def table_create(self, code: str, owner: str, meta: dict[str, Any],
                           ttl: float) -> int:
        return await self.owned.create(code, owner, meta, ttl)

    async def table_acquire(self, code: str, owner: str, ttl: float) -> int | None:
        return await self.owned.acquire(code, owner, ttl)

    async def table_renew(self, owner: str, ttl: float,
                          leases: Sequence[tuple[str, int, float]]) -> list[int]:
        return await self.owned.renew(owner, ttl, leases)

    async def table_append(self, code: str, epoch: int, log_id: str,
                           meta: dict[str, Any] | None, game_time: float,
                           batches: Sequence[tuple[int, EventDicts, list[dict[str, Any]]]]
                           ) -> None:
        await self.owned.append(code, epoch, log_id, meta, game_time, batches)

    async def table_load(self, code: str) -> TableRecord | None:
        return await self.owned.load(code)

    async def table_release(self, code: str, owner: str, epoch: int) -> None:
        await self.owned.release(code, owner, epoch)

    async def table_want(self, code: str, owner: str) -> None:
        await self.owned.want(code, owner)

    async def table_end(self, code: str) -> None:
        await self.owned.end(code)

    async def tables_live(self) -> list[tuple[str, str | None]]:
        return await self.owned.live()

    # ------------------------------------------------------------ lifecycle

    async def ping(self) -> bool:
        return bool(await self.r.ping())

    async def close(self) -> None:
        await self.r.aclose()
        await self.r.connection_pool.disconnect()
