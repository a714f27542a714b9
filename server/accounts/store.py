"""Where accounts and their sessions are kept: :class:`MemoryAccounts` (one process) or
:class:`RedisAccounts` (``MACHIAVELOX_REDIS_URL``: every process on that Redis sees the same
accounts and sessions, so a logout on one is a logout on all).

Kept, under ``redis_prefix`` (default ``mvx:``):

* ``acct:{id}``: the account (hash: ``name`` as registered, ``skeleton``, ``hash`` the argon2id
  PHC string, ``created`` Unix seconds);
* ``acctname:{skeleton}``: the account id that holds that name (``server.accounts.names``);
  registering sets it only when it is free, atomically with the account (a Lua script);
* ``asess:{sid}``: the account id of a live session, expiring with the token
  (``session_max_age``); ``acctsess:{id}``: the set of that account's session ids.

Every method is a coroutine; errors are the client's (``redis.exceptions``), bounded and
turned into ``store_unavailable`` by ``server.accounts.service``.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass

import redis.asyncio as aioredis
import redis.exceptions
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff


@dataclass(frozen=True)
class Account:
    """A registered account: its ``id``, ``name`` (as registered), name ``skeleton``,
    password ``hash`` and ``created`` (Unix seconds)."""

    id: str
    name: str
    skeleton: str
    hash: str
    created: float


class AccountStore(ABC):
    kind = "memory"

    @abstractmethod
    async def create(self, account: Account) -> bool:
        """Record ``account`` unless its skeleton is taken (False then, nothing written)."""

    @abstractmethod
    async def by_skeleton(self, skeleton: str) -> Account | None:
        """The account whose name has this skeleton."""

    @abstractmethod
    async def set_hash(self, account_id: str, hash_: str) -> None:
        """Replace an account's password hash (a rehash with today's parameters)."""

    @abstractmethod
    async def session_add(self, sid: str, account_id: str, ttl: float) -> None:
        """Record a live session of ``account_id`` for ``ttl`` seconds."""

    @abstractmethod
    async def session_account(self, sid: str) -> str | None:
        """The account of a live session; None when it was revoked or has expired."""

    @abstractmethod
    async def sessions_alive(self, sids: Sequence[str]) -> set[str]:
        """Which of ``sids`` are live (one round trip)."""

    @abstractmethod
    async def session_drop(self, sid: str, account_id: str) -> None:
        """Revoke one session."""

    @abstractmethod
    async def sessions_drop_all(self, account_id: str) -> list[str]:
        """Revoke every session of ``account_id``; the ids revoked."""

    async def close(self) -> None:  # noqa: B027 - nothing to close in memory
        pass


class MemoryAccounts(AccountStore):
    """Accounts in this process's memory (lost at exit, like the rest of a memory store)."""

    def __init__(self) -> None:
        self.accounts: dict[str, Account] = {}
        self.names: dict[str, str] = {}
        self.sessions: dict[str, tuple[str, float]] = {}  # sid -> (account, expires at)
        self.by_account: dict[str, set[str]] = {}
        self._added = 0

    async def create(self, account: Account) -> bool:
        if account.skeleton in self.names:
            return False
        self.names[account.skeleton] = account.id
        self.accounts[account.id] = account
        return True

    async def by_skeleton(self, skeleton: str) -> Account | None:
        aid = self.names.get(skeleton)
        return self.accounts.get(aid) if aid is not None else None

    async def set_hash(self, account_id: str, hash_: str) -> None:
        old = self.accounts.get(account_id)
        if old is not None:
            self.accounts[account_id] = Account(old.id, old.name, old.skeleton, hash_, old.created)

    async def session_add(self, sid: str, account_id: str, ttl: float) -> None:
        now = time.time()
        self._added += 1
        if self._added % 1000 == 0:  # forget the expired ones now and then (O(n) per 1000)
            for s in [s for s, (_, until) in self.sessions.items() if until <= now]:
                aid, _ = self.sessions.pop(s)
                self.by_account.get(aid, set()).discard(s)
        self.sessions[sid] = (account_id, now + ttl)
        self.by_account.setdefault(account_id, set()).add(sid)

    async def session_account(self, sid: str) -> str | None:
        entry = self.sessions.get(sid)
        if entry is None or entry[1] <= time.time():
            return None
        return entry[0]

    async def sessions_alive(self, sids: Sequence[str]) -> set[str]:
        now = time.time()
        return {s for s in sids if (e := self.sessions.get(s)) is not None and e[1] > now}

    async def session_drop(self, sid: str, account_id: str) -> None:
        self.sessions.pop(sid, None)
        self.by_account.get(account_id, set()).discard(sid)

    async def sessions_drop_all(self, account_id: str) -> list[str]:
        sids = sorted(self.by_account.pop(account_id, set()))
        for s in sids:
            self.sessions.pop(s, None)
        return sids


_CREATE = """
if redis.call('SETNX', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[2], 'name', ARGV[2], 'skeleton', ARGV[3], 'hash', ARGV[4],
           'created', ARGV[5])
return 1
"""

_DROP_ALL = """
local sids = redis.call('SMEMBERS', KEYS[1])
for _, sid in ipairs(sids) do redis.call('DEL', ARGV[1] .. sid) end
redis.call('DEL', KEYS[1])
return sids
"""


class RedisAccounts(AccountStore):
    """Accounts in Redis (see the module docstring for the keys)."""

    kind = "redis"

    def __init__(self, client: aioredis.Redis, prefix: str = "mvx:") -> None:
        self.r = client
        self.prefix = prefix
        self._create = client.register_script(_CREATE)
        self._drop_all = client.register_script(_DROP_ALL)

    @classmethod
    def from_url(cls, url: str, prefix: str = "mvx:", timeout: float = 1.0) -> RedisAccounts:
        # One retry on a broken connection: after a Redis restart every pooled connection is
        # stale once, and a login must not fail for that (the caller's timeout still bounds it).
        client = aioredis.Redis.from_url(
            url, decode_responses=True, socket_timeout=timeout, socket_connect_timeout=timeout,
            retry=Retry(NoBackoff(), 1), retry_on_error=[redis.exceptions.ConnectionError])
        return cls(client, prefix)

    def _k(self, kind: str, key: str) -> str:
        return f"{self.prefix}{kind}:{key}"

    async def create(self, account: Account) -> bool:
        done = await self._create(
            keys=[self._k("acctname", account.skeleton), self._k("acct", account.id)],
            args=[account.id, account.name, account.skeleton, account.hash, account.created])
        return bool(done)

    async def by_skeleton(self, skeleton: str) -> Account | None:
        aid = await self.r.get(self._k("acctname", skeleton))
        if aid is None:
            return None
        d = await self.r.hgetall(self._k("acct", str(aid)))
        if not d:
            return None
        return Account(str(aid), str(d["name"]), str(d["skeleton"]), str(d["hash"]),
                       float(d["created"]))

    async def set_hash(self, account_id: str, hash_: str) -> None:
        await self.r.hset(self._k("acct", account_id), "hash", hash_)

    async def session_add(self, sid: str, account_id: str, ttl: float) -> None:
        seconds = max(1, int(ttl))
        async with self.r.pipeline(transaction=True) as p:
            p.set(self._k("asess", sid), account_id, ex=seconds)
            p.sadd(self._k("acctsess", account_id), sid)
            p.expire(self._k("acctsess", account_id), seconds)
            await p.execute()

    async def session_account(self, sid: str) -> str | None:
        aid = await self.r.get(self._k("asess", sid))
        return str(aid) if aid is not None else None

    async def sessions_alive(self, sids: Sequence[str]) -> set[str]:
        if not sids:
            return set()
        found = await self.r.mget([self._k("asess", s) for s in sids])
        return {s for s, v in zip(sids, found) if v is not None}

    async def session_drop(self, sid: str, account_id: str) -> None:
        async with self.r.pipeline(transaction=True) as p:
            p.delete(self._k("asess", sid))
            p.srem(self._k("acctsess", account_id), sid)
            await p.execute()

    async def sessions_drop_all(self, account_id: str) -> list[str]:
        sids = await self._drop_all(keys=[self._k("acctsess", account_id)],
                                    args=[self.prefix + "asess:"])
        return sorted(str(s) for s in sids)

    async def close(self) -> None:
        await self.r.aclose()
