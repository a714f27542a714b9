"""The Redis store's ratings and agora bookkeeping (``server.rating``, ``server.agora``).

Keys (under the store's prefix), beside those in ``server.store.redis_store``:

==========================  =========  ======================================================
key                         type       holds
==========================  =========  ======================================================
``rating``                  hash       player id -> :class:`~server.rating.Rating` JSON
``rating:order``            zset       player id scored by the conservative rating
``agora:live:{player_id}``  string     the code of their live agora game (``*``: being
                                       seated), then a newline and its ``matched`` message;
                                       expires after ``LIVE_TTL`` seconds, deleted when the
                                       hand is counted
``agora:last``              hash       player id -> their last group's sorted ids (``a,b,c``)
==========================  =========  ======================================================

Counting a hand is one Lua script: the ratings are computed here from the ones read, and the
script writes points, names, hands, histories and ratings only if the hand was not counted
and no rating read has changed meanwhile (a compare-and-set); otherwise it is read and tried
again. So a hand counts once and every rating update sees the one before it, with any number
of processes on one Redis (a table taken over after a crash finishes its hand on another
process: the same ``hand_id``, the log's id, is refused the second time).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from ..rating import Rating, hand_ranks, initial, rate
from .base import (
    LIVE_TTL,
    SEATING_TTL,
    AgoraState,
    HandScore,
    HistoryEntry,
    QueueEntry,
    RatedEntry,
    competition_ranks,
)

# KEYS: counted, rank, names, hands, rating, order, then (history, live) per player; ARGV:
# hand_id, history max, code, then (id, name, points, history JSON, rating read ('' none),
# rating JSON, conservative) per player. 0: counted before; -1: a rating changed; 1: counted.
_ADD_RATED = """
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 1 then return 0 end
local n = (#ARGV - 3) / 7
for j = 0, n - 1 do
  local a = 4 + j * 7
  if (redis.call('HGET', KEYS[5], ARGV[a]) or '') ~= ARGV[a + 4] then return -1 end
end
redis.call('SADD', KEYS[1], ARGV[1])
local max = tonumber(ARGV[2])
for j = 0, n - 1 do
  local a = 4 + j * 7
  local pid = ARGV[a]
  redis.call('ZINCRBY', KEYS[2], ARGV[a + 2], pid)
  redis.call('HSET', KEYS[3], pid, ARGV[a + 1])
  redis.call('HINCRBY', KEYS[4], pid, 1)
  redis.call('HSET', KEYS[5], pid, ARGV[a + 5])
  redis.call('ZADD', KEYS[6], ARGV[a + 6], pid)
  local hist = KEYS[7 + j * 2]
  redis.call('LPUSH', hist, ARGV[a + 3])
  redis.call('LTRIM', hist, 0, max - 1)
  local live = KEYS[8 + j * 2]
  local v = redis.call('GET', live)
  if ARGV[3] ~= '' and v and (v == ARGV[3] or string.sub(v, 1, #ARGV[3] + 1) == ARGV[3] .. '\\n') then
    redis.call('DEL', live)
  end
end
return 1
"""

# KEYS: queue, names, alive, since, then the live key per player; ARGV: live ttl ms, then the
# player ids. Takes them all out (in the order given) or nobody: ids, names, sinces.
_QUEUE_TAKE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
for i = 2, #ARGV do
  local alive = redis.call('ZSCORE', KEYS[3], ARGV[i])
  if not redis.call('ZSCORE', KEYS[1], ARGV[i]) or not alive or tonumber(alive) < now then
    return {}
  end
end
local out = {}
for i = 2, #ARGV do
  local id = ARGV[i]
  out[#out + 1] = id
  out[#out + 1] = redis.call('HGET', KEYS[2], id) or ''
  out[#out + 1] = redis.call('HGET', KEYS[4], id) or '0'
  redis.call('ZREM', KEYS[1], id)
  redis.call('HDEL', KEYS[2], id)
  redis.call('ZREM', KEYS[3], id)
  redis.call('HDEL', KEYS[4], id)
  redis.call('SET', KEYS[3 + i], '*', 'PX', tonumber(ARGV[1]))
end
return out
"""

#: Compare-and-set attempts when other processes keep rating the same players.
CAS_TRIES = 50


class RatedRanking:
    """The ratings and agora keys of one Redis store (``client`` decodes responses)."""

    def __init__(self, client: Any, prefix: str) -> None:
        self.r = client
        self.prefix = prefix
        self._add = client.register_script(_ADD_RATED)
        self._take = client.register_script(_QUEUE_TAKE)

    def _k(self, *parts: str) -> str:
        return self.prefix + ":".join(parts)

    # ------------------------------------------------------------ counting a hand

    async def add_hand(self, hand_id: str, scores: Sequence[HandScore], at: float, code: str,
                       history_max: int) -> bool:
        ranks = hand_ranks([s.result for s in scores])
        names = [s.name for s in scores]
        keys = [self._k("rank", "counted"), self._k("rank"), self._k("rank", "names"),
                self._k("rank", "hands"), self._k("rating"), self._k("rating", "order")]
        for s in scores:
            keys += [self._k("history", s.player_id), self._k("agora", "live", s.player_id)]
        for _ in range(CAS_TRIES):
            read = await self.r.hmget(self._k("rating"), [s.player_id for s in scores])
            before = [Rating.from_dict(json.loads(t)) if t else initial() for t in read]
            after = rate(before, ranks)
            args: list[Any] = [hand_id, history_max, code]
            for s, old, r in zip(scores, read, after):
                entry = HistoryEntry(hand_id, at, s.points, s.result, code, names, r.mu, r.sigma)
                args += [s.player_id, s.name, s.points, json.dumps(entry.to_dict()), old or "",
                         json.dumps(r.to_dict()), repr(r.conservative)]
            done = int(await self._add(keys=keys, args=args))
            if done >= 0:
                return done == 1
        raise RuntimeError(f"hand {hand_id}: ratings kept changing ({CAS_TRIES} tries)")

    # ------------------------------------------------------------ the rated ranking

    async def _entries(self, scored: list[tuple[str, float]], ranks: list[int]) -> list[RatedEntry]:
        if not scored:
            return []
        ids = [p for p, _ in scored]
        pipe = self.r.pipeline(transaction=False)
        pipe.hmget(self._k("rank", "names"), ids)
        pipe.hmget(self._k("rank", "hands"), ids)
        pipe.hmget(self._k("rating"), ids)
        pipe.zmscore(self._k("rank"), ids)
        names, hands, ratings, points = await pipe.execute()
        return [RatedEntry(rank, p, n or "", Rating.from_dict(json.loads(r)), int(pts or 0),
                           int(h or 0))
                for rank, (p, _), n, h, r, pts in zip(ranks, scored, names, hands, ratings, points)
                if r]

    async def _above(self, score: float) -> int:
        return int(await self.r.zcount(self._k("rating", "order"), f"({score!r}", "+inf"))

    async def top(self, n: int, offset: int) -> list[RatedEntry]:
        offset = max(0, offset)
        if n <= 0:
            return []
        scored = await self.r.zrevrange(self._k("rating", "order"), offset, offset + n - 1,
                                        withscores=True)
        if not scored:
            return []
        first = 1 + await self._above(scored[0][1])
        return await self._entries(scored, competition_ranks(scored, offset, first))

    async def rating_of(self, player_id: str) -> RatedEntry | None:
        score = await self.r.zscore(self._k("rating", "order"), player_id)
        if score is None:
            return None
        found = await self._entries([(player_id, score)], [1 + await self._above(score)])
        return found[0] if found else None

    async def count(self) -> int:
        return int(await self.r.zcard(self._k("rating", "order")))

    async def ratings(self, player_ids: Sequence[str]) -> dict[str, Rating]:
        if not player_ids:
            return {}
        texts = await self.r.hmget(self._k("rating"), list(player_ids))
        return {p: Rating.from_dict(json.loads(t)) for p, t in zip(player_ids, texts) if t}

    # ------------------------------------------------------------ agora bookkeeping

    async def queue_take(self, qkeys: list[str], player_ids: Sequence[str]) -> list[QueueEntry] | None:
        if not player_ids:
            return None
        keys = qkeys + [self._k("agora", "live", p) for p in player_ids]
        flat = await self._take(keys=keys, args=[int(SEATING_TTL * 1000), *player_ids])
        if not flat:
            return None
        return [QueueEntry(flat[i], flat[i + 1], float(flat[i + 2]))
                for i in range(0, len(flat), 3)]

    async def seated(self, player_ids: Sequence[str], code: str | None,
                     matched: Mapping[str, str] | None = None) -> None:
        pipe = self.r.pipeline(transaction=True)
        group = ",".join(sorted(player_ids))
        for p in player_ids:
            if code is None:
                pipe.delete(self._k("agora", "live", p))
            else:
                value = code + ("\n" + matched[p] if matched and p in matched else "")
                pipe.set(self._k("agora", "live", p), value, px=int(LIVE_TTL * 1000))
                pipe.hset(self._k("agora", "last"), p, group)
        await pipe.execute()

    async def state(self, player_ids: Sequence[str]) -> dict[str, AgoraState]:
        if not player_ids:
            return {}
        pipe = self.r.pipeline(transaction=False)
        for p in player_ids:
            pipe.get(self._k("agora", "live", p))
        pipe.hmget(self._k("agora", "last"), list(player_ids))
        *lives, lasts = await pipe.execute()
        out = {}
        for p, live, last in zip(player_ids, lives, lasts):
            code, _, text = (live or "").partition("\n")
            out[p] = AgoraState(code or None, last, text or None)
        return out
