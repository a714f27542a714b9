"""Limits, sized for people, so that nobody can fill the server or outlast it (issue 12).

Every limit is a setting (``server.settings``, the README's table) and every refusal has a
stable code and a sentence (``docs/errors.md``):

==========================  ===========  ====================================================
limit (setting)             default      refused with
==========================  ===========  ====================================================
sessions_per_ip_per_minute  30           429 ``too_many_sessions``
logins_per_ip_per_minute    20           429 ``too_many_logins`` (``POST /api/login``)
login_failures_per_pair     10 an hour   429 ``too_many_logins``, for one name from one
                                         address (wrong passwords only)
login_failures_per_name     10 a minute  past it, for that name: 429 from every address
                                         that has failed for it, and a slow-down of
                                         ``login_slowdown_seconds`` (2) for the others
tables_per_session          10           429 ``too_many_tables_open`` (waiting or being played,
                                         dealt tables with bots included)
tables_per_ip               40           429 ``too_many_tables_open``, for one address
max_bot_seats               60           429 ``too_many_bots`` (the whole server)
sockets_per_seat            2            the oldest socket of the seat closed with 4409
                                         (``replaced``)
sockets_per_ip              64           the new socket closed with 4429 (``too_many_sockets``)
sockets_per_ip_per_minute   120          the handshake refused (HTTP 403), nothing read
commands_per_second         20           ``refused`` ``too_fast`` (per seat, all its sockets)
max_body_bytes              64 KiB       413 ``too_large`` (``server.errors.BodyLimit``)
==========================  ===========  ====================================================

and ``registrations_per_ip_per_hour`` (10): 429 ``too_many_registrations``
(``POST /api/accounts``).

**Logins never lock an owner out** (issue 27): a name's failures from anywhere only slow
down the addresses that have not failed for it (each attempt waits, then is checked), and
refuse those that have; an owner on a clean address always gets in. An attacker keeps
spending their own address's quota, not the owner's.

**Rates.** Sessions, logins (by address, by name and address, failures by name) and registrations per address
are counted with the ``limits`` library (a moving window),
in Redis when ``MACHIAVELOX_REDIS_URL`` is set, so the limit holds across server processes on
one Redis, else in its memory storage. Commands per seat are counted here, by
:class:`MovingWindow`: a seat's table lives in one process, so all its commands pass through
that process anyway, and the hot path must neither wait for Redis nor start threads (the
``limits`` library's synchronous memory storage starts a timer thread to expire its entries,
which stalled the event loop under a fuzzer). A rate store that does not answer within ``store_timeout`` lets the request
through (logged): a Redis outage must not lock people out.

**Counts** (tables, bot seats, sockets) are what this process holds right now, counted where
it holds them (``server.tables``, ``server.api.ws``).

**The client address** is the peer's. Behind a reverse proxy, list its address in
``MACHIAVELOX_TRUSTED_PROXIES``: uvicorn then takes the last hop of ``X-Forwarded-For`` that
is not itself a trusted proxy (its ``forwarded_allow_ips``), and only from such a peer. The
proxy must replace the header rather than append to it (``deploy/haproxy.cfg`` sets it to the
address it saw), and ``*`` is refused (``server.settings``): trusting every hop, uvicorn would
take the first entry, which the client wrote, and one client would get every limit per
address as often as it names a new address (issue 27; ``tests/test_cluster_addresses.py``).
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import time
from collections import deque
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import urlsplit

from limits import RateLimitItem, RateLimitItemPerHour, RateLimitItemPerMinute
from limits.aio.storage import MemoryStorage as AsyncMemoryStorage
from limits.aio.storage import Storage as AsyncStorage
from limits.aio.strategies import MovingWindowRateLimiter as AsyncMovingWindow

from .abuse import Throttle
from .errors import ApiError
from .metrics import Metrics
from .registry import TableRegistry
from .settings import Settings

log = logging.getLogger("machiavelox.limits")

#: Wrong passwords for a name from one address (in ``login_failures_per_pair_per_hour``'s
#: window) past which, while that name is under attack, the address is refused rather than
#: slowed down: an owner who mistyped once or twice still gets in.
FAILED_ADDRESS = 3

#: Sentences of the limit codes (``docs/errors.md``; the page translates them).
SENTENCES = {
    "too_many_sessions": "Too many new sessions from your address: wait a minute and try again.",
    "too_many_logins": "Too many login attempts: wait a minute and try again.",
    "too_many_registrations": "Too many new accounts from your address: try again later.",
    "too_many_tables_open": "You have {n} tables open already: finish or leave one first.",
    "too_many_bots": "The server runs as many bots as it can: try again later, or invite a "
                     "friend.",
    "too_fast": "You are sending commands too fast: wait a moment and send it again.",
    "replaced": "This table is open in another window.",
    "too_many_sockets": "Too many connections from your address: close some windows.",
}


#: IPv6 clients are counted by network of this prefix length: one subscriber or host gets a
#: whole /64 (2**64 addresses), so counting single addresses would give it unlimited quota.
IPV6_PREFIX = 64


def client_ip(scope: Mapping[str, Any]) -> str:
    """The client's address as the limits count it: the peer's, as uvicorn gives it
    (``server.limits`` docstring); an IPv6 address as its /64 network (``"2001:db8:7::/64"``,
    :data:`IPV6_PREFIX`)."""
    client = scope.get("client")
    if not client:
        return "unknown"
    address = str(client[0])
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:  # ::ffff:192.0.2.1 is the IPv4 client 192.0.2.1
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/{IPV6_PREFIX}", strict=False))
    return str(ip)


def _origin_of(url: str) -> str:
    parts = urlsplit(url.strip())
    return f"{parts.scheme}://{parts.netloc}".lower()


def origin_allowed(headers: Mapping[str, str], settings: Settings) -> bool:
    """Whether a websocket's ``Origin`` may open it: a missing Origin (bots, scripts: no
    browser, no cookie to abuse) is allowed; otherwise it must be ``public_url``'s origin when
    that is set, else the Host header's (the same host and port, over http or https), or one
    of ``allowed_origins``."""
    origin = headers.get("origin")
    if origin is None:
        return True
    origin = origin.strip().rstrip("/").lower()
    if origin in settings.origins():
        return True
    if settings.public_url:
        return origin == _origin_of(settings.public_url)
    host = (headers.get("host") or "").strip().lower()
    return bool(host) and origin in (f"http://{host}", f"https://{host}")


class MovingWindow:
    """At most ``limit`` hits per key in any ``seconds`` (the times of the last ``limit`` hits
    of each key; a key whose last hit is older than the window is forgotten). ``clock``: the
    loop's time by default."""

    def __init__(self, limit: int, seconds: float = 1.0,
                 clock: Callable[[], float] | None = None) -> None:
        self.limit = limit
        self.seconds = seconds
        self._clock = clock or time.monotonic
        self._hits: dict[Any, deque[float]] = {}
        self._swept = 0.0

    def hit(self, key: Any) -> bool:
        """Count one hit for ``key``; False (not counted) when it already has ``limit``."""
        now = self._clock()
        if now - self._swept > 60 * self.seconds:
            self._sweep(now)
        hits = self._hits.get(key)
        if hits is None:
            hits = self._hits[key] = deque(maxlen=self.limit)
        if len(hits) >= self.limit and now - hits[0] < self.seconds:
            return False
        hits.append(now)
        return True

    def _sweep(self, now: float) -> None:
        self._swept = now
        for key in [k for k, h in self._hits.items() if not h or now - h[-1] >= self.seconds]:
            del self._hits[key]


class Limits:
    """The rate limiters of one app, and the counts of sockets per address."""

    def __init__(self, settings: Settings, metrics: Metrics | None = None) -> None:
        self.settings = settings
        self.metrics = metrics
        self._sessions_item = RateLimitItemPerMinute(settings.sessions_per_ip_per_minute)
        self._logins_ip = RateLimitItemPerMinute(settings.logins_per_ip_per_minute)
        self._failures_pair = RateLimitItemPerHour(settings.login_failures_per_pair_per_hour)
        self._failures_name = RateLimitItemPerMinute(settings.login_failures_per_name_per_minute)
        self._registrations = RateLimitItemPerHour(settings.registrations_per_ip_per_hour)
        self._shared: AsyncStorage
        if settings.redis_url:
            from limits.aio.storage import RedisStorage

            uri = "async+" + settings.redis_url if "://" in settings.redis_url else settings.redis_url
            # Its keys start with "LIMITS"; ours are named after redis_prefix (identifiers).
            self._shared = RedisStorage(uri, implementation="redispy",
                                        socket_timeout=settings.store_timeout,
                                        socket_connect_timeout=settings.store_timeout)
        else:
            self._shared = AsyncMemoryStorage()
        self.shared_kind = "redis" if settings.redis_url else "memory"
        self._shared_limiter = AsyncMovingWindow(self._shared)
        self._commands = MovingWindow(settings.commands_per_second)
        self._new_sockets = MovingWindow(settings.sockets_per_ip_per_minute, 60.0)
        self.sockets_by_ip: dict[str, int] = {}
        #: Shared read throttles (server.abuse.Throttle), by key; see :meth:`throttle`.
        self._throttles: dict[Any, list[Any]] = {}  # key -> [Throttle, sockets holding it]
        self._throttles_swept = 0.0
        #: The sockets of each seat, oldest first: (table code, seat) -> connections.
        self.seat_sockets: dict[tuple[str, str], list[Any]] = {}
        #: Tables created through ``POST /api/tables``: code -> (creator's player id, address).
        self.owners: dict[str, tuple[str, str]] = {}

    def refused(self, limit: str) -> None:
        if self.metrics is not None:
            self.metrics.limited.labels(limit).inc()

    # ------------------------------------------------------------ rates

    async def _hit(self, item: RateLimitItem, kind: str, key: str) -> bool:
        """Count one hit of ``key`` under ``kind`` in the shared storage; True when allowed
        (and when the storage did not answer: fail open, see the docstring)."""
        try:
            async with asyncio.timeout(self.settings.store_timeout):
                return bool(await self._shared_limiter.hit(
                    item, f"{self.settings.redis_prefix}{kind}", key))
        except (Exception, TimeoutError) as e:  # noqa: BLE001 - fail open, see the docstring
            log.warning("%s rate limit not checked (%s): %s", kind, self.shared_kind,
                        type(e).__name__)
            return True

    async def new_session(self, ip: str) -> None:
        """Count one new session for ``ip``; :class:`ApiError` 429 when over the limit."""
        if not await self._hit(self._sessions_item, "session", ip):
            self.refused("sessions_per_ip")
            raise ApiError(429, "too_many_sessions", SENTENCES["too_many_sessions"])

    async def _stats(self, item: RateLimitItem, kind: str, key: str) -> int:
        """How many hits ``key`` has under ``kind`` in ``item``'s window (0 when the storage
        does not answer: fail open)."""
        try:
            async with asyncio.timeout(self.settings.store_timeout):
                stats = await self._shared_limiter.get_window_stats(
                    item, f"{self.settings.redis_prefix}{kind}", key)
                return item.amount - stats.remaining
        except (Exception, TimeoutError) as e:  # noqa: BLE001 - fail open, see the docstring
            log.warning("%s rate limit not read (%s): %s", kind, self.shared_kind,
                        type(e).__name__)
            return 0

    async def login(self, ip: str, name_key: str) -> float:
        """Count one login attempt from ``ip`` for the name whose skeleton is ``name_key`` and
        say how long it must wait before its password is checked (seconds; see the module
        docstring). Raises 429 ``too_many_logins`` (the password is then not checked at all)
        past ``logins_per_ip_per_minute``, when this address has failed
        ``login_failures_per_pair_per_hour`` times for this name, or when the name has failed
        ``login_failures_per_name_per_minute`` times from anywhere and this address failed for it
        :data:`FAILED_ADDRESS` times. Call :meth:`login_failed` when the password was wrong."""
        if not await self._hit(self._logins_ip, "login-ip", ip):
            self.refused("logins_per_ip")
            raise ApiError(429, "too_many_logins", SENTENCES["too_many_logins"])
        pair = f"{name_key}\x00{ip}"
        failed_here = await self._stats(self._failures_pair, "login-fail-pair", pair)
        if failed_here >= self._failures_pair.amount:
            self.refused("login_failures_per_pair")
            raise ApiError(429, "too_many_logins", SENTENCES["too_many_logins"])
        failed_name = await self._stats(self._failures_name, "login-fail-name", name_key)
        if failed_name < self._failures_name.amount:
            return 0.0
        if failed_here >= FAILED_ADDRESS:
            self.refused("login_failures_per_name")
            raise ApiError(429, "too_many_logins", SENTENCES["too_many_logins"])
        return self.settings.login_slowdown_seconds

    async def login_failed(self, ip: str, name_key: str) -> None:
        """Count one wrong password from ``ip`` for the name ``name_key`` (see :meth:`login`)."""
        await self._hit(self._failures_pair, "login-fail-pair", f"{name_key}\x00{ip}")
        await self._hit(self._failures_name, "login-fail-name", name_key)

    async def register(self, ip: str) -> None:
        """Count one registration from ``ip``; 429 ``too_many_registrations`` past the limit."""
        if not await self._hit(self._registrations, "register", ip):
            self.refused("registrations_per_ip")
            raise ApiError(429, "too_many_registrations", SENTENCES["too_many_registrations"])

    def command(self, table: str, seat: str) -> bool:
        """Count one command of ``seat`` at ``table``; False when over ``commands_per_second``."""
        ok = self._commands.hit((table, seat))
        if not ok:
            self.refused("commands_per_second")
        return ok

    def throttle(self, key: Any) -> Throttle:
        """The read throttle (``message_rate``, ``message_burst``) of ``key``: a seat, the
        spectator sockets of one address at one table, an agora player. Sockets of one key
        share it, so that more sockets, or reconnecting again and again, buy no more messages
        (a seat's sockets fighting over its two places used to get a fresh burst of 100 each
        time). Each socket that takes it calls :meth:`release` when it ends; a bucket nobody
        holds is forgotten once it would be full again."""
        loop_now = asyncio.get_running_loop().time()
        if loop_now - self._throttles_swept > 10.0:
            self._throttles_swept = loop_now
            for k in [k for k, (t, users) in self._throttles.items()
                      if users <= 0 and t.idle_full(loop_now)]:
                del self._throttles[k]
        entry = self._throttles.get(key)
        if entry is None:
            entry = self._throttles[key] = [Throttle(self.settings.message_rate,
                                                     self.settings.message_burst), 0]
        entry[1] += 1
        bucket: Throttle = entry[0]
        return bucket

    def release(self, key: Any) -> None:
        """A socket that took :meth:`throttle` for ``key`` has ended."""
        entry = self._throttles.get(key)
        if entry is not None:
            entry[1] -= 1

    # ------------------------------------------------------------ tables

    def check_tables(self, registry: TableRegistry, player_id: str, ip: str) -> None:
        """Raise 429 ``too_many_tables_open`` when ``player_id`` or ``ip`` has as many tables
        waiting or being played as allowed (finished and forgotten ones no longer count)."""
        mine = ours = 0
        for code, (pid, addr) in list(self.owners.items()):
            table = registry.get(code)
            if table is None or table.phase == "over":
                del self.owners[code]
                continue
            mine += pid == player_id
            ours += addr == ip
        for n, limit, name in ((mine, self.settings.tables_per_session, "tables_per_session"),
                               (ours, self.settings.tables_per_ip, "tables_per_ip")):
            if n >= limit:
                self.refused(name)
                raise ApiError(429, "too_many_tables_open",
                               SENTENCES["too_many_tables_open"].format(n=n))

    def table_created(self, code: str, player_id: str, ip: str) -> None:
        self.owners[code] = (player_id, ip)

    # ------------------------------------------------------------ sockets per address

    def new_socket(self, ip: str) -> bool:
        """Count a websocket handshake from ``ip``; False past ``sockets_per_ip_per_minute``.
        (Sockets closed and opened again and again were the amplifier of a fuzzer: every new
        socket makes the server read and parse a fresh receive buffer of frames.)"""
        ok = self._new_sockets.hit(ip)
        if not ok:
            self.refused("sockets_per_ip_per_minute")
        return ok

    def open_socket(self, ip: str) -> bool:
        """Count a socket of ``ip`` opening; False (and not counted) past ``sockets_per_ip``."""
        n = self.sockets_by_ip.get(ip, 0)
        if n >= self.settings.sockets_per_ip:
            self.refused("sockets_per_ip")
            return False
        self.sockets_by_ip[ip] = n + 1
        return True

    def close_socket(self, ip: str) -> None:
        n = self.sockets_by_ip.get(ip, 0) - 1
        if n > 0:
            self.sockets_by_ip[ip] = n
        else:
            self.sockets_by_ip.pop(ip, None)

    async def close(self) -> None:
        if self.shared_kind == "redis":
            try:
                async with asyncio.timeout(self.settings.store_timeout):
                    storage: Any = self._shared
                    # limits keeps its redis.asyncio client on its "bridge" (limits 4 and 5).
                    client = getattr(getattr(storage, "bridge", None), "storage", None)
                    if client is not None and hasattr(client, "aclose"):
                        await client.aclose()
                        await client.connection_pool.disconnect()
            except (Exception, TimeoutError):  # noqa: BLE001 - closing on the way out
                pass
