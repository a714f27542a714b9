"""``/ws/{code}``: a player's (or a spectator's) live connection to a table.

The endpoint only reads: it parses each message (``server.protocol.parse_client``, which never
raises), answers malformed ones and pings itself, and hands everything else to the table's
inbox. Frames go out through the connection's own queue and writer task
(``server.connection``). Connecting: ``?token=`` (or ``Authorization: Bearer``) names the
player; a token without a seat at this table, or none, watches as a spectator. The client's
last version comes from ``?last_version=N`` or a first ``resume`` message, waited for at most
``settings.resume_wait`` seconds; then the table sends welcome, the missed events or nothing,
and a snapshot. Each socket is read at most ``settings.message_rate`` messages a second on
average (:class:`Throttle`). A message over ``settings.max_frame_bytes``, or a flood (the
throttle held every message back for ``settings.flood_seconds``), closes the socket with 1008
(``server.abuse``).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from typing import Any

from fastapi import APIRouter, WebSocket

from ..abuse import FloodGuard, cut_off, frame_too_large
from ..bots import start_hint
from ..connection import Connection
from ..deps import bearer
from ..errors import CLOSE_BAD_TOKEN, CLOSE_NO_SUCH_TABLE
from ..protocol import CommandIn, ErrorOut, HintIn, PingIn, PongOut, ResumeIn, dump, parse_client
from ..sessions import Sessions
from ..settings import Settings
from ..tables import Attach, Detach, Resync, Submit, Table, TableRegistry

router = APIRouter()


class Throttle:
    """A token bucket: ``rate`` messages per second on average, ``burst`` at once. Over it,
    :meth:`take` waits, so a flooding client is read more slowly (TCP backpressure on it
    alone) and can make its table do only a bounded amount of work."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = float(burst)
        self.tokens = float(burst)
        self.last = asyncio.get_running_loop().time()

    async def take(self) -> float:
        """Wait for a token; the seconds waited (0.0: none)."""
        now = asyncio.get_running_loop().time()
        self.tokens = min(self.burst, self.tokens + (now - self.last) * self.rate)
        self.last = now
        wait = 0.0
        if self.tokens < 1:
            wait = (1 - self.tokens) / self.rate
            await asyncio.sleep(wait)
            self.last += wait
            self.tokens = 1.0
        self.tokens -= 1
        return wait

_PONG = dump(PongOut())


def _last_version(raw: str | None) -> int | None:
    try:
        v = int(raw) if raw is not None else None
    except ValueError:
        return None
    return v if v is not None and v >= 0 else None


def _data(message: Mapping[str, Any]) -> str | bytes | None:
    text = message.get("text")
    return text if text is not None else message.get("bytes")


@router.websocket("/ws/{code}")
async def table_socket(websocket: WebSocket, code: str) -> None:
    state = websocket.app.state
    settings: Settings = state.settings
    registry: TableRegistry = state.registry
    sessions: Sessions = state.sessions
    token = websocket.query_params.get("token") or bearer(websocket.headers.get("authorization"))
    session = sessions.verify(token)
    table = registry.get(code)
    await websocket.accept()
    if table is None:
        await websocket.close(CLOSE_NO_SUCH_TABLE, "no such table")
        return
    if token and session is None:
        await websocket.close(CLOSE_BAD_TOKEN, "bad or expired token")
        return
    seat = table.seat_of(session.player_id) if session else None
    conn = Connection(websocket, seat, session.player_id if session else None,
                      settings.outbound_queue, table.tlog)
    conn.start()
    metrics = getattr(state, "metrics", None)
    if metrics is not None:
        metrics.connections.labels("table").inc()
    last_version = _last_version(websocket.query_params.get("last_version"))
    first_recv: asyncio.Future[Any] = asyncio.ensure_future(websocket.receive())
    recv: asyncio.Future[Any] | None = first_recv
    first: CommandIn | ResumeIn | PingIn | HintIn | ErrorOut | None = None
    try:
        if last_version is None and settings.resume_wait > 0:
            done, _ = await asyncio.wait({first_recv}, timeout=settings.resume_wait)
            if first_recv in done:
                message = first_recv.result()
                recv = None
                if message["type"] == "websocket.disconnect":
                    return
                if frame_too_large(_data(message), settings.max_frame_bytes):
                    await cut_off(websocket, "too_large", metrics)
                    return
                parsed = parse_client(_data(message), max_bytes=settings.max_message_bytes)
                if isinstance(parsed, ResumeIn):
                    last_version = parsed.last_version
                else:
                    first = parsed
        await table.put(Attach(conn, last_version))
        throttle = Throttle(settings.message_rate, settings.message_burst)
        guard = FloodGuard(settings.flood_seconds)
        if first is not None:
            await throttle.take()
            await _dispatch(table, conn, first)
        while True:
            if recv is None:
                recv = asyncio.ensure_future(websocket.receive())
            message = await recv
            recv = None
            if message["type"] == "websocket.disconnect":
                break
            received = time.perf_counter()
            data = _data(message)
            if frame_too_large(data, settings.max_frame_bytes):
                await cut_off(websocket, "too_large", metrics)
                break
            if guard.flooding(await throttle.take()):
                table.tlog.warning("flood cut off", conn.seat, conn=conn.id)
                await cut_off(websocket, "flood", metrics)
                break
            parsed = parse_client(data, max_bytes=settings.max_message_bytes)
            await _dispatch(table, conn, parsed, received)
    finally:
        if recv is not None:
            recv.cancel()
        await conn.close()
        if metrics is not None:
            metrics.connections.labels("table").dec()
        try:
            await asyncio.wait_for(table.put(Detach(conn)), 5.0)
        except (TimeoutError, RuntimeError):  # pragma: no cover - table gone
            pass


async def _dispatch(table: Table, conn: Connection,
                    parsed: CommandIn | ResumeIn | PingIn | HintIn | ErrorOut,
                    received: float = 0.0) -> None:
    if isinstance(parsed, ErrorOut):
        conn.send(dump(parsed))
    elif isinstance(parsed, PingIn):
        conn.send(_PONG)
    elif isinstance(parsed, HintIn):
        start_hint(table, conn, parsed)  # answered in the background (server.bots)
    elif isinstance(parsed, ResumeIn):
        await table.put(Resync(conn, parsed.last_version))
    else:
        await table.put(Submit(conn, parsed, received))
