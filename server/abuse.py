"""Cutting off abusive sockets: oversized frames and floods close with 1008 (policy violation).

Two rules, on top of the ``too_large`` error reply and the read throttle of ``server.api.ws``:

* **Oversized frames.** A message longer than ``settings.max_frame_bytes`` (64 KiB) is not
  parsed: the socket is closed with 1008. (Messages between ``max_message_bytes`` and that
  get a ``too_large`` error and the socket stays open. Beyond uvicorn's own ``ws_max_size``,
  which ``machiavelox serve`` sets to ``settings.ws_max_size``, the websocket layer closes
  with 1009 before the app sees the frame.)
* **Floods.** Each socket is read through a token bucket (``Throttle``: ``message_rate`` a
  second, ``message_burst`` at once), which slows a fast sender down. :class:`FloodGuard`
  measures, over a sliding window of ``settings.flood_seconds`` (5 s), the share of time the
  socket was held back: the time between two reads counts as held back when the later message
  had to wait for a token (it was there, and the throttle kept it). A socket held back for at
  least :data:`FLOOD_SHARE` (80 %) of a whole window has been sending faster than its rate for
  that long, past its burst: it is closed with 1008. A burst that the throttle absorbs in less
  time is only slowed; a client at its rate waits now and then, far under the share.
  Measuring a share over the window, rather than timing one unbroken run of waits, keeps the
  rule working under load: a pause of the event loop lets the bucket refill, so the next
  message waits nothing, which used to reset the run (a 20 ms pause was enough); now it only
  takes that interval off the share.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import Callable

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


class Throttle:
    """A token bucket: ``rate`` messages per second on average, ``burst`` at once. Over it,
    :meth:`take` waits, so a flooding client is read more slowly (TCP backpressure on it
    alone) and can make its table do only a bounded amount of work. Several sockets may share
    one (``server.limits.Limits.throttle``): each take reserves its token at once (the bucket
    may go into debt), so that concurrent takers wait in turn and never spend one token twice.
    """

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = float(burst)
        self.tokens = float(burst)
        self.last = asyncio.get_running_loop().time()

    def idle_full(self, now: float) -> bool:
        """True when the bucket would be full again at ``now`` (it can be forgotten)."""
        return self.tokens + (now - self.last) * self.rate >= self.burst

    async def take(self) -> float:
        """Wait for a token; the seconds waited (0.0: none)."""
        now = asyncio.get_running_loop().time()
        self.tokens = min(self.burst, self.tokens + (now - self.last) * self.rate)
        self.last = now
        self.tokens -= 1
        if self.tokens >= 0:
            return 0.0
        wait = -self.tokens / self.rate
        await asyncio.sleep(wait)
        return wait


#: The share of a flood window a socket must have been held back for to be cut off.
FLOOD_SHARE = 0.8


class FloodGuard:
    """The time a socket was held back by the throttle, over a sliding window (see the
    module docstring). ``clock``: seconds, the loop's time by default (tests pass a fake)."""

    def __init__(self, seconds: float, share: float = FLOOD_SHARE,
                 clock: Callable[[], float] | None = None) -> None:
        self.seconds = seconds
        self.share = share
        self._clock = clock or (lambda: asyncio.get_running_loop().time())
        self.started = self._clock()
        self._last_read: float | None = None
        #: ``(end, length)`` of the held-back intervals ending within the window, oldest first.
        self._held: deque[tuple[float, float]] = deque()
        self.held = 0.0  # the sum of their lengths

    def flooding(self, waited: float) -> bool:
        """Record one message read after ``waited`` seconds in the throttle; True when, over
        the last ``seconds`` (and the socket is at least that old), it was held back for
        ``share`` of the time or more: cut it off."""
        now = self._clock()
        if waited > 0 and self._last_read is not None and now > self._last_read:
            self._held.append((now, now - self._last_read))
            self.held += now - self._last_read
        self._last_read = now
        start = now - self.seconds
        while self._held and self._held[0][0] <= start:
            self.held -= self._held.popleft()[1]
        if now - self.started < self.seconds:
            return False
        inside = self.held
        if self._held:  # the oldest interval counts only for its part inside the window
            end, length = self._held[0]
            inside -= max(0.0, length - (end - start))
        return inside >= self.share * self.seconds


async def cut_off(ws: WebSocket, reason: str, metrics: Metrics | None) -> None:
    """Close ``ws`` with 1008 and ``reason`` (``too_large`` or ``flood``)."""
    if metrics is not None:
        metrics.cut_off.labels(reason).inc()
    with contextlib.suppress(Exception):
        await ws.close(CLOSE_POLICY_VIOLATION, reason)
