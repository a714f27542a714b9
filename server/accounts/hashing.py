"""Password hashes (argon2id, ``argon2-cffi``) in a bounded worker pool, never on the event loop.

:class:`Hasher` runs every hash and verification in a ``ThreadPoolExecutor`` of ``workers``
threads (argon2-cffi releases the GIL while it hashes, so the loop keeps serving tables), and
takes at most ``workers + queue`` jobs at once: one more is refused at once with
:class:`HasherBusy` (503 ``accounts_busy``) rather than queued without end, so a storm of
logins costs a bounded amount of memory and CPU and a bounded wait.

Parameters: argon2id, ``time_cost`` 2, ``memory_cost`` 19 MiB, ``parallelism`` 1 (OWASP's
Password Storage Cheat Sheet's first choice); ``bench/logins.py`` prints what one costs here.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from ..errors import ApiError

T = TypeVar("T")

TIME_COST = 2
MEMORY_COST_KIB = 19 * 1024
PARALLELISM = 1

BUSY = "The server is busy checking passwords: try again in a moment."


class HasherBusy(ApiError):
    """Every worker is busy and the queue is full (503 ``accounts_busy``)."""

    def __init__(self) -> None:
        super().__init__(503, "accounts_busy", BUSY)


class Hasher:
    """argon2id hashing in ``workers`` threads with at most ``queue`` jobs waiting."""

    def __init__(self, workers: int = 2, queue: int = 16, *, time_cost: int = TIME_COST,
                 memory_cost: int = MEMORY_COST_KIB, parallelism: int = PARALLELISM) -> None:
        self._ph = PasswordHasher(time_cost=time_cost, memory_cost=memory_cost,
                                  parallelism=parallelism)
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="argon2")
        self.limit = workers + queue
        self.busy = 0  # jobs running or waiting
        # A hash to verify unknown names against, so that a login for a name nobody has
        # costs as much as one for a real account (no timing oracle for names); made on first
        # use, in a worker.
        self._dummy: str | None = None

    async def _run(self, fn: Callable[[], T]) -> T:
        if self.busy >= self.limit:
            raise HasherBusy()
        self.busy += 1
        try:
            return await asyncio.get_running_loop().run_in_executor(self._pool, fn)
        finally:
            self.busy -= 1

    async def hash(self, password: str) -> str:
        """The argon2id hash (PHC string) of ``password``. Raises :class:`HasherBusy`."""
        return await self._run(lambda: self._ph.hash(password))

    async def verify(self, stored: str | None, password: str) -> bool:
        """Whether ``password`` matches ``stored`` (None: an unknown name, checked against a
        dummy hash for the same cost, always False). Raises :class:`HasherBusy`."""
        def check() -> bool:
            target = stored
            if target is None:
                if self._dummy is None:
                    self._dummy = self._ph.hash("machiavelox: no such account")
                target = self._dummy
            try:
                return self._ph.verify(target, password)
            except (VerifyMismatchError, VerificationError, InvalidHashError):
                return False
        ok = await self._run(check)
        return ok and stored is not None

    def needs_rehash(self, stored: str) -> bool:
        """Whether ``stored`` was made with other parameters than today's."""
        try:
            return self._ph.check_needs_rehash(stored)
        except InvalidHashError:
            return False

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
