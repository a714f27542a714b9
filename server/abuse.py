"""Cutting off abusive sockets: oversized frames and floods close with 1008 (policy violation).

Two rules, on top of the ``too_large`` error reply and the read throttle of ``server.api.ws``:

* **Oversized frames.** A message longer than ``settings.max_frame_bytes`` (64 KiB) is not
  parsed: the socket is closed with 1008. (Messages between ``max_message_bytes`` and that
  get a ``too_large`` error and the socket stays open. Beyond uvicorn's own ``ws_max_size``,
  which ``machiavelox serve`` sets to ``settings.ws_max_size``, the websocket layer closes
  with 1009 before the app sees the frame.)
* **Floods.** Each socket is read through a token bucket (``Throttle``: ``message_rate`` a
  second, ``message_burst`` at once), which slows a fast sender down. A socket whose messages
  have all had to wait for ``settings.flood_seconds`` (5 s) has been sending faster than the
  rate for that long, past its burst, without a break: :class:`FloodGuard` says so and the
  socket is closed with 1008. A burst that the throttle absorbs in less time is only slowed.
"""

from __future__ import annotations

import asyncio
import contextlib

from starlette.websockets import WebSocket

from .errors import CLOSE_POLICY_VIOLATION
from .metrics import Metrics


def frame_too_large(data: str | bytes | None, limit: int) -> bool:
    """True when ``data`` is longer than ``limit`` bytes (UTF-8 for text)."""
    if data is None:
        return False
    if isinstance(data, bytes) or len(data) > limit:
        return len(data) > limit
    return len(data) * 4 > limit and len(data.encode("utf-8", "surrogatepass")) > limit


class FloodGuard:
    """Times the current run of messages that the throttle held back (``waited`` > 0)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.since: float | None = None  # loop time the run began; None: no run

    def flooding(self, waited: float) -> bool:
        """Record one message read after ``waited`` seconds in the throttle; True when the
        socket has been held back without a break for ``seconds``: cut it off."""
        if waited <= 0:
            self.since = None
            return False
        now = asyncio.get_running_loop().time()
        if self.since is None:
            self.since = now - waited
        return now - self.since >= self.seconds


async def cut_off(ws: WebSocket, reason: str, metrics: Metrics | None) -> None:
    """Close ``ws`` with 1008 and ``reason`` (``too_large`` or ``flood``)."""
    if metrics is not None:
        metrics.cut_off.labels(reason).inc()
    with contextlib.suppress(Exception):
        await ws.close(CLOSE_POLICY_VIOLATION, reason)
