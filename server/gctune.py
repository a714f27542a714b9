"""Garbage-collector pacing for low latency (``settings.gc_freeze_seconds``).

CPython's cyclic collector stops the world, and a full (generation 2) collection scans every
tracked object: with a few hundred live tables that is a few hundred thousand objects and
100–400 ms on the benchmark machine, every few seconds while the heap grows, which alone put
the p99 command-to-broadcast latency of ``bench/load.py`` at ~250 ms. Game state is long-lived
and almost never cyclic garbage (the collections found next to nothing), so scanning it over
and over buys nothing.

:class:`GcPacer` therefore, every ``gc_freeze_seconds`` (5 s), moves every object that has
survived so far into the permanent generation (``gc.freeze()``, O(1)): the automatic
collections then only scan what is new since, and stay short. Objects are still freed by
reference counting as usual; only *cyclic* garbage among frozen objects (a forgotten table's
task and its coroutine, say) waits for the next full pass: every ``gc_full_seconds`` (600 s)
the pacer unfreezes everything and runs one full collection (logged with its duration), then
freezes again.

``settings.gc_mode`` picks the policy: ``paced`` (the above, the default), ``manual``
(automatic collection off altogether: no pause at all between the full collections every
``gc_full_seconds``, at the price of cyclic garbage waiting that long; the lowest latency in
``bench/load.py``) or ``cpython`` (the collector as CPython sets it).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import time

log = logging.getLogger("machiavelox.gc")


class GcPacer:
    """``mode`` ``paced``: freezes survivors every ``freeze_seconds`` and runs a full collection
    every ``full_seconds``; ``manual``: automatic collection off, a full collection every
    ``full_seconds``; ``cpython``: does nothing."""

    def __init__(self, freeze_seconds: float, full_seconds: float, mode: str = "paced") -> None:
        self.mode = mode if freeze_seconds > 0 or mode != "paced" else "cpython"
        self.freeze_seconds = freeze_seconds
        self.full_seconds = full_seconds
        self.full_collections = 0
        self._task: asyncio.Task[None] | None = None
        self._was_enabled = gc.isenabled()

    def start(self) -> None:
        if self.mode == "cpython":
            return
        if self.mode == "manual":
            gc.disable()
        else:
            gc.freeze()  # what the imports and the app built
        self._task = asyncio.get_running_loop().create_task(self._run(), name="gc-pacer")

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        next_full = loop.time() + self.full_seconds
        step = self.freeze_seconds if self.mode == "paced" else self.full_seconds
        if step <= 0:
            return
        while True:
            await asyncio.sleep(min(step, self.full_seconds) if self.full_seconds > 0 else step)
            if self.full_seconds > 0 and loop.time() >= next_full:
                self.full()
                next_full = loop.time() + self.full_seconds
            if self.mode == "paced":
                gc.freeze()

    def full(self) -> int:
        """Unfreeze, collect everything, freeze again; the number of objects collected."""
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
