"""One websocket connection as the table sees it: a seat (or None) and a bounded outbound queue.

The table's task never awaits a socket. It puts each frame into the connection's queue with
:meth:`Connection.send`, which never blocks; a separate writer task (:meth:`Connection.writer`)
moves frames from the queue to the socket. When the queue is full the peer is not reading
fast enough: the connection is dropped at once (:meth:`Connection.drop`) so that it can never
slow the table or the other players. The client reconnects and resyncs (``resume``).

Dropping must work even when the peer has stopped reading: a websocket close handshake would
wait behind the unsent frames forever, so the transport is aborted instead (TCP reset).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import Callable, Mapping
from typing import Any

from starlette.websockets import WebSocket

from .logs import TableLog

_ids = itertools.count(1)
_closing: set[asyncio.Task[None]] = set()

AbortFn = Callable[[], None]


def transport_abort(scope: Mapping[str, Any]) -> AbortFn | None:
    """The transport abort captured for this websocket by :class:`CaptureTransport`, if any."""
    fn = scope.get("machiavelox.abort")
    return fn if callable(fn) else None


class CaptureTransport:
    """ASGI middleware (outermost) that keeps a way to abort a websocket's transport.

    ASGI has no "abort": a server only closes gracefully. uvicorn's websocket protocols keep
    their asyncio transport on the object whose bound ``send`` the app receives; this records
    ``transport.abort`` in the scope when it finds one. Elsewhere, dropping falls back to a
    close with a timeout.
    """

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope.get("type") == "websocket":
            transport = getattr(getattr(send, "__self__", None), "transport", None)
            abort = getattr(transport, "abort", None)
            if callable(abort):
                scope["machiavelox.abort"] = abort
        await self.app(scope, receive, send)


class Connection:
    """A websocket attached to one table, as ``seat`` (a seat name) or as a spectator (None).

    ``queue`` holds JSON texts; ``maxsize`` frames at most.
    """

    def __init__(self, ws: WebSocket, seat: str | None, player_id: str | None, maxsize: int,
                 log: TableLog) -> None:
        self.id = next(_ids)
        self.ws = ws
        self.seat = seat
        self.player_id = player_id
        self.queue: asyncio.Queue[str] = asyncio.Queue(maxsize)
        self.dropped = False
        self.drop_reason: str | None = None
        self.sent = 0
        self._log = log
        self._writer: asyncio.Task[None] | None = None
        self._abort = transport_abort(ws.scope)

    def __repr__(self) -> str:
        return f"<Connection {self.id} seat={self.seat!r}>"

    def start(self) -> None:
        """Start the writer task."""
        self._writer = asyncio.get_running_loop().create_task(self.writer())

    def send(self, text: str) -> bool:
        """Queue one frame without waiting. False, and the connection is dropped, when full."""
        if self.dropped:
            return False
        try:
            self.queue.put_nowait(text)
        except asyncio.QueueFull:
            self.drop("slow")
            return False
        return True

    async def writer(self) -> None:
        """Move frames from the queue to the socket until the socket or the connection ends."""
        try:
            while True:
                text = await self.queue.get()
                await self.ws.send_text(text)
                self.sent += 1
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001 - the socket is gone: the reader notices and detaches
            self.drop("send_failed")

    def drop(self, reason: str) -> None:
        """Cut the connection now; the reader loop then ends and the table detaches it."""
        if self.dropped:
            return
        self.dropped = True
        self.drop_reason = reason
        self._log.info("connection dropped", self.seat, conn=self.id, reason=reason)
        if self._writer is not None and self._writer is not asyncio.current_task():
            self._writer.cancel()
        if self._abort is not None:
            self._abort()
        else:  # pragma: no cover - servers other than uvicorn
            asyncio.get_running_loop().create_task(self._close_soon())

    def close_with(self, code: int, reason: str) -> None:
        """Close the socket on purpose with ``code`` (``replaced``: a newer socket of the same
        seat took over): the frames still queued are not sent, the close frame is; the reader
        loop then ends and the table detaches it. Aborts the transport if the peer does not
        answer the close within a second."""
        if self.dropped:
            return
        self.dropped = True
        self.drop_reason = reason
        self._log.info("connection closed", self.seat, conn=self.id, reason=reason)
        if self._writer is not None and self._writer is not asyncio.current_task():
            self._writer.cancel()
        task = asyncio.get_running_loop().create_task(self._close_now(code, reason))
        _closing.add(task)
        task.add_done_callback(_closing.discard)

    async def _close_now(self, code: int, reason: str) -> None:
        try:
            await asyncio.wait_for(self.ws.close(code=code, reason=reason), 1.0)
        except Exception:  # noqa: BLE001 - the peer is gone or does not answer
            if self._abort is not None:
                self._abort()

    async def _close_soon(self) -> None:  # pragma: no cover - servers other than uvicorn
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.ws.close(code=1008, reason="too slow"), 1.0)

    async def close(self) -> None:
        """Stop the writer (the socket itself is closed by the endpoint)."""
        self.dropped = True
        if self._writer is not None:
            self._writer.cancel()
            with contextlib.suppress(BaseException):
                await self._writer
