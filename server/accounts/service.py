"""Accounts: register, log in, log out, log out everywhere; which sessions are live; and
cutting off the websockets of revoked sessions on every process.

:class:`Accounts` is the one object the routes and sockets use (``app.state.accounts``):

* :meth:`Accounts.register` / :meth:`Accounts.login`: a name (``server.sessions.clean_name``)
  and a password of :data:`PASSWORD_MIN`–:data:`PASSWORD_MAX` characters; names are unique by
  skeleton (``server.accounts.names``). Both are rate limited first (``server.limits``), so a
  refused attempt costs no hash; the hash runs in the bounded pool (``server.accounts.hashing``).
  Success records a new session id in the store and returns its signed token.
* :meth:`Accounts.check`: a guest's session is always valid (its signature was checked); an
  account's only while its session id is in the store.
* :meth:`Accounts.logout` / :meth:`Accounts.logout_all` delete one or every session id of the
  account, then close this process's sockets of those sessions at once. Every process checks
  the session ids of its open websockets every ``revocation_check_seconds`` (one ``MGET``)
  and closes the revoked ones with 4402 (``session_revoked``), so a logout on one process
  reaches the sockets on every other within about that long.

Every store call is bounded by ``store_timeout``; a store that does not answer raises
``StoreUnavailable`` (503 ``store_unavailable``). When the store is down the periodic check
leaves sockets open (logged): an outage must not cut everyone off.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Awaitable
from typing import Any, TypeVar

from ..errors import CLOSE_REVOKED, ApiError
from ..sessions import Session, Sessions
from ..settings import Settings
from ..store import StoreUnavailable
from .common import is_common, visible
from .hashing import Hasher
from .names import skeleton
from .store import Account, AccountStore, MemoryAccounts, RedisAccounts

T = TypeVar("T")
log = logging.getLogger("machiavelox.accounts")

PASSWORD_MIN = 8
PASSWORD_MAX = 128

#: The sentences of the accounts' codes (``docs/errors.md``; the page translates them).
SENTENCES = {
    "name_taken": "That name, or one that looks the same, belongs to another account: "
                  "pick another.",
    "name_registered": "That name belongs to a registered player: log in, or pick another name.",
    "bad_password": f"A password has {PASSWORD_MIN} to {PASSWORD_MAX} characters, not only spaces, "
                    "and no broken characters.",
    "common_password": "That password is one of the most common ones, which are tried first: "
                       "pick another.",
    "wrong_login": "That name and password do not match an account.",
    "session_revoked": "This session was logged out: log in again.",
    "account_needed": "Log in with an account (or register one) for this.",
    "too_many_logins": "Too many login attempts: wait a minute and try again.",
    "too_many_registrations": "Too many new accounts from your address: try again later.",
}


def make_account_store(settings: Settings) -> AccountStore:
    """Redis when ``redis_url`` is set (keys under ``redis_prefix``), else memory."""
    if settings.redis_url:
        return RedisAccounts.from_url(settings.redis_url, settings.redis_prefix,
                                      settings.store_timeout)
    return MemoryAccounts()


def encoded(password: str) -> bytes:
    """``password`` as UTF-8, what argon2 hashes. Raises 422 ``bad_password`` for a string
    UTF-8 cannot encode (a lone surrogate such as ``"\\ud800"``, which JSON can carry): it
    reached argon2 as it was and failed there with a 500."""
    try:
        return password.encode("utf-8")
    except UnicodeEncodeError:
        raise ApiError(422, "bad_password", SENTENCES["bad_password"]) from None


def check_password(password: str) -> bytes:
    """``password`` as UTF-8 if a new account may have it; raise 422 ``bad_password`` unless
    it has an allowed length, is not only white space or characters that show nothing (eight
    spaces or zero-width spaces guard nothing) and can be
    encoded, 422 ``common_password`` when it is on the list of common passwords
    (``server.accounts.common``)."""
    if not PASSWORD_MIN <= len(password) <= PASSWORD_MAX or not visible(password):
        raise ApiError(422, "bad_password", SENTENCES["bad_password"])
    data = encoded(password)
    if is_common(password):
        raise ApiError(422, "common_password", SENTENCES["common_password"])
    return data


class Accounts:
    """The accounts of one app (see the module docstring)."""

    def __init__(self, settings: Settings, sessions: Sessions, store: AccountStore,
                 hasher: Hasher | None = None) -> None:
        self.settings = settings
        self.sessions = sessions
        self.store = store
        self.hasher = hasher or Hasher(settings.hash_workers, settings.hash_queue)
        #: Open websockets of account sessions here: sid -> connections (``server.connection``).
        self.live: dict[str, set[Any]] = {}
        self._sweeper: asyncio.Task[None] | None = None
        self.revoked_sockets = 0  # closed because their session was revoked, since start

    async def _bounded(self, op: str, call: Awaitable[T]) -> T:
        try:
            async with asyncio.timeout(self.settings.store_timeout):
                return await call
        except (Exception, TimeoutError) as e:  # noqa: BLE001 - any failure to answer
            log.warning("accounts store %s: %s failed (%s)", self.store.kind, op,
                        type(e).__name__)
            raise StoreUnavailable(f"accounts {op}: {type(e).__name__}") from e

    # ------------------------------------------------------------ names, sessions

    async def name_registered(self, name: str) -> bool:
        """Whether an account holds ``name`` (by skeleton)."""
        return await self._bounded("lookup", self.store.by_skeleton(skeleton(name))) is not None

    async def _new_session(self, account: Account) -> tuple[str, Session]:
        sid = secrets.token_urlsafe(18)
        await self._bounded("session", self.store.session_add(sid, account.id,
                                                               self.sessions.max_age))
        return self.sessions.issue_account(account.id, account.name, sid)

    async def register(self, name: str, password: str) -> tuple[str, Session]:
        """A new account named ``name`` (cleaned) and its first session's token. Raises 409
        ``name_taken``, 422 ``bad_password`` / ``common_password``, 503 ``accounts_busy``."""
        check_password(password)
        skel = skeleton(name)
        if await self._bounded("lookup", self.store.by_skeleton(skel)) is not None:
            raise ApiError(409, "name_taken", SENTENCES["name_taken"])
        hashed = await self.hasher.hash(password)
        account = Account(secrets.token_hex(8), name, skel, hashed, time.time())
        if not await self._bounded("register", self.store.create(account)):
            raise ApiError(409, "name_taken", SENTENCES["name_taken"])  # lost a race
        log.info("account registered: %s", account.id)
        return await self._new_session(account)

    async def login(self, name: str, password: str) -> tuple[str, Session]:
        """A new session of the account named ``name`` (any name with its skeleton). Raises
        401 ``wrong_login`` (an unknown name costs the same hash as a wrong password), 503
        ``accounts_busy``, 422 ``bad_password`` for a password that cannot be encoded (no
        account can have it)."""
        encoded(password)
        account = await self._bounded("lookup", self.store.by_skeleton(skeleton(name)))
        ok = await self.hasher.verify(account.hash if account else None, password)
        if not ok or account is None:
            raise ApiError(401, "wrong_login", SENTENCES["wrong_login"])
        if self.hasher.needs_rehash(account.hash):
            fresh = await self.hasher.hash(password)
            await self._bounded("rehash", self.store.set_hash(account.id, fresh))
        return await self._new_session(account)

    async def check(self, session: Session) -> bool:
        """Whether ``session`` is live: a guest's always, an account's while the store has it."""
        if session.sid is None or session.account is None:
            return True
        owner = await self._bounded("check", self.store.session_account(session.sid))
        return owner == session.account

    async def logout(self, session: Session) -> None:
        """Revoke ``session`` (nothing to do for a guest) and close its sockets here."""
        if session.sid is None or session.account is None:
            return
        await self._bounded("logout", self.store.session_drop(session.sid, session.account))
        self.cut([session.sid])

    async def logout_all(self, session: Session) -> int:
        """Revoke every session of ``session``'s account; how many. 403 ``account_needed``
        for a guest."""
        if session.account is None:
            raise ApiError(403, "account_needed", SENTENCES["account_needed"])
        sids = await self._bounded("logout_all", self.store.sessions_drop_all(session.account))
        if session.sid is not None and session.sid not in sids:
            sids.append(session.sid)
        self.cut(sids)
        return len(sids)

    # ------------------------------------------------------------ live sockets

    def watch(self, session: Session, conn: Any) -> None:
        """Close ``conn`` (a ``server.connection.Connection``) when ``session`` is revoked."""
        if session.sid is not None:
            self.live.setdefault(session.sid, set()).add(conn)

    def unwatch(self, session: Session, conn: Any) -> None:
        if session.sid is None:
            return
        conns = self.live.get(session.sid)
        if conns is not None:
            conns.discard(conn)
            if not conns:
                del self.live[session.sid]

    def cut(self, sids: list[str] | set[str]) -> None:
        """Close this process's sockets of ``sids`` with 4402 ``session_revoked``."""
        for sid in sids:
            for conn in self.live.pop(sid, set()):
                self.revoked_sockets += 1
                conn.close_with(CLOSE_REVOKED, "session_revoked")

    async def sweep(self) -> None:
        """Close the sockets here whose sessions are no longer live (see the docstring)."""
        sids = list(self.live)
        if not sids:
            return
        alive = await self._bounded("sweep", self.store.sessions_alive(sids))
        self.cut({s for s in sids if s not in alive})

    async def _sweep_forever(self) -> None:
        while True:
            await asyncio.sleep(self.settings.revocation_check_seconds)
            try:
                await self.sweep()
            except StoreUnavailable:
                pass  # logged by _bounded; the sockets stay open until the store answers

    def start(self) -> None:
        self._sweeper = asyncio.get_running_loop().create_task(self._sweep_forever(),
                                                               name="revocations")

    async def close(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
        self.hasher.close()
        await self.store.close()
