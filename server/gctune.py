"""Garbage-collector policy for low latency (``settings.gc_mode``).

CPython's cyclic collector stops the world. Under ``bench/load.py`` (300 live hands, 900
commands a second) the default collector put the p99 command-to-broadcast latency at 250 ms
and more: full (generation 2) collections scan every tracked object, a few hundred thousand,
for 100–400 ms every few seconds while the heap grows, and the young collections still take
10–20 ms each on that machine. Game state is long-lived and almost never cyclic garbage: a full
collection after 20 s of play at 900 commands a second found **0** unreachable cycles. So:

* ``manual`` (the default): automatic collection is off; a full collection runs every
  ``gc_full_seconds`` (600 s), and sooner when more than ``gc_manual_limit`` tracked objects
  were allocated (net) since the last one, a guard against cycles piling up. The only pause is
  that collection (logged with its duration: ~0.3–0.4 s at 300 live hands on the benchmark
  machine). p99 at 300 hands: ~7 ms instead of ~250 ms.
* ``paced``: automatic collection stays on, but every ``gc_freeze_seconds`` (5 s) the objects
  that survived so far are moved to the permanent generation (``gc.freeze()``, O(1)), so full
  collections only scan what is new; plus the same full collection every ``gc_full_seconds``.
  No long pauses, but the young collections remain (p99 ~20–30 ms at 300 hands).
* ``cpython``: the collector as CPython sets it.

Objects are always freed by reference counting as usual; only unreachable *cycles* wait for
the next full collection.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import time

log = logging.getLogger("machiavelox.gc")


class GcPacer:
    """The collector policy ``mode`` (``manual``, ``paced`` or ``cpython``) for one server."""

    def __init__(self, freeze_seconds: float, full_seconds: float, mode: str = "manual",
                 manual_limit: int = 1_000_000) -> None:
        self.mode = mode
        self.freeze_seconds = freeze_seconds
        self.full_seconds = full_seconds
        self.manual_limit = manual_limit
        self.full_collections = 0
        self._task: asyncio.Task[None] | None = None
        self._was_enabled = gc.isenabled()

    @property
    def step(self) -> float:
        """Seconds between two looks (freeze, or checking whether a collection is due)."""
        candidates = [s for s in (self.freeze_seconds, self.full_seconds) if s > 0]
        return min(candidates) if candidates else 0.0

    def start(self) -> None:
        if self.mode == "cpython":
            return
        if self.mode == "manual":
            gc.collect()  # what the imports and the app built, once
            gc.disable()
        else:
            gc.freeze()
        if self.step > 0:
            self._task = asyncio.get_running_loop().create_task(self._run(), name="gc-pacer")

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        next_full = loop.time() + self.full_seconds if self.full_seconds > 0 else float("inf")
        while True:
            await asyncio.sleep(self.step)
            grown = self.mode == "manual" and gc.get_count()[0] >= self.manual_limit
            if loop.time() >= next_full or grown:
                self.full()
                if self.full_seconds > 0:
                    next_full = loop.time() + self.full_seconds
            if self.mode == "paced":
                gc.freeze()

    def full(self) -> int:
        """One full collection (frozen objects included); the number of objects collected."""
        start = time.perf_counter()
        gc.unfreeze()
        found = gc.collect()
        if self.mode == "paced":
            gc.freeze()
        self.full_collections += 1
        log.info("gc full collection: %d objects collected in %.1f ms", found,
                 (time.perf_counter() - start) * 1e3)
        return found

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(BaseException):
                await self._task
        if self.mode != "cpython":
            gc.unfreeze()
            if self._was_enabled:
                gc.enable()
