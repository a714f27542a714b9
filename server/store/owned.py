"""Tables kept in Redis, each owned by one server process under a fenced lease (issue 13).

The durable part of :class:`~server.store.redis_store.RedisStore` (the memory store has none:
a restart loses its live hands). Keys, under the store's prefix:

=======================  ======  ==========================================================
key                      type    holds
=======================  ======  ==========================================================
``tbl:{code}``           hash    ``meta``: what a rebuild needs (JSON: deal options, mode,
                                 seats, bot seats, the log id; ``server.durable``);
                                 ``epoch``: the ownership epoch (raised by every take-over);
                                 ``gt``: the game time (seconds) the owner last confirmed;
                                 ``head``: the log's newest version; ``want``: a process that
                                 asked the owner to hand the table over.
``tbl:{code}:lease``     string  the owner's id, with a TTL (``PX``): the lease.
``tbl:live``             set     codes of tables whose game is not over (the sweeper's list).
``log:{log_id}``         stream  one entry per version (ID ``{version}-1``): ``e``, the events
                                 (as ``append_batches``), and ``j``, the journal entries of
                                 that version (JSON list; ``server.journal``), and
                                 ``o``, the epoch of the owner that wrote it.
=======================  ======  ==========================================================

Fencing: every write a table makes (:meth:`OwnedTables.append`) is one Lua script that first
compares the table's ``epoch`` with the writer's; a writer whose epoch is old (another process
took the table over meanwhile) gets :class:`~server.store.base.Fenced` and nothing is written.
A take-over (:meth:`OwnedTables.acquire`) sets the lease only when it is free (expired or
released) and raises the epoch in the same script, so two processes can never both hold it.
A lease that expired while nobody took it is taken back by its owner's next renewal (same
epoch). Versions must rise: a batch not after ``head`` is :class:`StoreConflict`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from redis.exceptions import ResponseError

from .base import EventDicts, Fenced, StoreConflict, TableRecord

# KEYS: tbl, lease, live; ARGV: owner, ttl ms, meta JSON, unfinished ttl s.
# 1 (the first epoch) when created, 0 when the code is taken.
_CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'meta', ARGV[3], 'epoch', 1, 'gt', '0', 'head', 0)
redis.call('EXPIRE', KEYS[1], ARGV[4])
redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])
redis.call('SADD', KEYS[3], ARGV[5])
return 1
"""

# KEYS: tbl, lease; ARGV: owner, ttl ms. The new epoch; 0 when another owner holds the lease;
# -1 when there is no such table.
_ACQUIRE = """
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
local cur = redis.call('GET', KEYS[2])
if cur and cur ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])
redis.call('HDEL', KEYS[1], 'want')
return redis.call('HINCRBY', KEYS[1], 'epoch', 1)
"""

# KEYS: (tbl, lease) per table; ARGV: owner, ttl ms, then (epoch, game time) per table.
# Per table: 0 lost (the epoch moved on, or another holds the lease), 1 renewed, 2 renewed and
# another process asks for it (``want``).
_RENEW = """
local out = {}
for i = 1, #KEYS, 2 do
  local j = (i + 1) / 2
  local epoch = ARGV[1 + 2 * j]
  if redis.call('HGET', KEYS[i], 'epoch') ~= epoch then
    out[j] = 0
  else
    local cur = redis.call('GET', KEYS[i + 1])
    if cur and cur ~= ARGV[1] then
      out[j] = 0
    else
      redis.call('SET', KEYS[i + 1], ARGV[1], 'PX', ARGV[2])
      redis.call('HSET', KEYS[i], 'gt', ARGV[2 + 2 * j])
      if redis.call('HEXISTS', KEYS[i], 'want') == 1 then out[j] = 2 else out[j] = 1 end
    end
  end
end
return out
"""

# KEYS: tbl, log; ARGV: epoch, meta JSON or '', game time, unfinished ttl s (0: do not renew
# the keys' expiry this time), then (version, events JSON, journal JSON) per batch. Three
# operations in the usual case (one batch): HMGET, XADD, HSET.
_APPEND = """
local cur = redis.call('HMGET', KEYS[1], 'epoch', 'head')
if cur[1] ~= ARGV[1] then
  return redis.error_reply('FENCED epoch ' .. tostring(cur[1]))
end
local head = tonumber(cur[2] or '0')
for i = 5, #ARGV, 3 do
  local v = tonumber(ARGV[i])
  if v <= head then return redis.error_reply('CONFLICT version ' .. ARGV[i] .. ' <= ' .. head) end
  head = v
end
for i = 5, #ARGV, 3 do
  redis.call('XADD', KEYS[2], ARGV[i] .. '-1', 'e', ARGV[i + 1], 'j', ARGV[i + 2], 'o', ARGV[1])
end
if ARGV[2] ~= '' then
  redis.call('HSET', KEYS[1], 'head', head, 'gt', ARGV[3], 'meta', ARGV[2])
else
  redis.call('HSET', KEYS[1], 'head', head, 'gt', ARGV[3])
end
if ARGV[4] ~= '0' then
  redis.call('EXPIRE', KEYS[1], ARGV[4])
  if #ARGV >= 5 then redis.call('EXPIRE', KEYS[2], ARGV[4]) end
end
return 1
"""

# KEYS: tbl, lease; ARGV: owner, epoch.
_RELEASE = """
if redis.call('HGET', KEYS[1], 'epoch') == ARGV[2] and redis.call('GET', KEYS[2]) == ARGV[1] then
  redis.call('DEL', KEYS[2])
  return 1
end
return 0
"""

_WANT = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'want', ARGV[1])
return 1
"""


#: A durable table's keys expire ``unfinished_ttl`` after the last renewal, renewed with each
#: meta change and every this many versions.
EXPIRE_EVERY = 100


def _compact(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"))


class OwnedTables:
    """The scripts above on one ``redis.asyncio`` client (``decode_responses``)."""

    def __init__(self, client: Any, prefix: str, unfinished_ttl: int) -> None:
        self.r = client
        self.prefix = prefix
        self.unfinished_ttl = unfinished_ttl
        self._create = client.register_script(_CREATE)
        self._acquire = client.register_script(_ACQUIRE)
        self._renew = client.register_script(_RENEW)
        self._append = client.register_script(_APPEND)
        self._release = client.register_script(_RELEASE)
        self._want = client.register_script(_WANT)

    def _t(self, code: str, *rest: str) -> str:
        return self.prefix + ":".join(("tbl", code, *rest))

    def _live(self) -> str:
        return self.prefix + "tbl:live"

    async def create(self, code: str, owner: str, meta: dict[str, Any], ttl: float) -> int:
        return int(await self._create(
            keys=[self._t(code), self._t(code, "lease"), self._live()],
            args=[owner, int(ttl * 1000), _compact(meta), self.unfinished_ttl, code]))

    async def acquire(self, code: str, owner: str, ttl: float) -> int | None:
        epoch = int(await self._acquire(keys=[self._t(code), self._t(code, "lease")],
                                        args=[owner, int(ttl * 1000)]))
        return None if epoch < 0 else epoch

    async def renew(self, owner: str, ttl: float,
                    leases: Sequence[tuple[str, int, float]]) -> list[int]:
        if not leases:
            return []
        keys: list[str] = []
        args: list[Any] = [owner, int(ttl * 1000)]
        for code, epoch, game_time in leases:
            keys += [self._t(code), self._t(code, "lease")]
            args += [epoch, repr(float(game_time))]
        return [int(x) for x in await self._renew(keys=keys, args=args)]

    async def append(self, code: str, epoch: int, log_id: str, meta: dict[str, Any] | None,
                     game_time: float,
                     batches: Sequence[tuple[int, EventDicts, list[dict[str, Any]]]]) -> None:
        # The keys' expiry is renewed with the meta, and every EXPIRE_EVERY versions.
        renew = meta is not None or any(v == 1 or v % EXPIRE_EVERY == 0 for v, _, _ in batches)
        args: list[Any] = [epoch, "" if meta is None else _compact(meta), repr(float(game_time)),
                           self.unfinished_ttl if renew else 0]
        for version, events, journal in batches:
            args += [version, _compact(events), _compact(journal)]
        try:
            await self._append(keys=[self._t(code), self.prefix + "log:" + log_id], args=args)
        except ResponseError as e:
            text = str(e)
            if "FENCED" in text:
                raise Fenced(f"table {code}: {text}") from None
            if "CONFLICT" in text:
                raise StoreConflict(f"table {code}: {text}") from None
            raise

    async def load(self, code: str) -> TableRecord | None:
        h = await self.r.hgetall(self._t(code))
        if not h or "meta" not in h:
            return None
        meta = json.loads(h["meta"])
        owner = await self.r.get(self._t(code, "lease"))
        log_id = str(meta.get("log_id", ""))
        entries: list[tuple[int, list[dict[str, Any]]]] = []
        if log_id:
            for sid, fields in await self.r.xrange(self.prefix + "log:" + log_id):
                version = int(sid.partition("-")[0])
                entries.append((version, json.loads(fields.get("j") or "[]")))
        return TableRecord(code=code, meta=meta, epoch=int(h.get("epoch", 0)),
                           game_time=float(h.get("gt", 0.0)), entries=entries, owner=owner)

    async def release(self, code: str, owner: str, epoch: int) -> None:
        await self._release(keys=[self._t(code), self._t(code, "lease")], args=[owner, epoch])

    async def want(self, code: str, owner: str) -> None:
        await self._want(keys=[self._t(code)], args=[owner])

    async def end(self, code: str) -> None:
        await self.r.srem(self._live(), code)

    async def live(self) -> list[tuple[str, str | None]]:
        codes = sorted(await self.r.smembers(self._live()))
        if not codes:
            return []
        owners = await self.r.mget([self._t(c, "lease") for c in codes])
        return list(zip(codes, owners))
