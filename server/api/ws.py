"""``/ws/{code}``: a player's (or a spectator's) live connection to a table.

The endpoint only reads: it parses each message (``server.protocol.parse_client``, which never
raises), answers malformed ones and pings itself, and hands everything else to the table's
inbox. Frames go out through the connection's own queue and writer task
(``server.connection``). Connecting: ``?token=`` (or ``Authorization: Bearer``) names the
player; a token without a seat at this table, or none, watches as a spectator. The client's
last version comes from ``?last_version=N`` or a first ``resume`` message, waited for at most
``settings.resume_wait`` seconds; then the table sends welcome, the missed events or nothing,
and a snapshot. Each socket is read at most ``settings.message_rate`` messages a second on
average (:class:`~server.abuse.Throttle`; a seat's sockets share one, as do the spectator
sockets of one address at one table). A message over ``settings.max_frame_bytes``, or a flood (the
throttle held the socket back for 80 % of the last ``settings.flood_seconds``), closes it with 1008
(``server.abuse``).

Admission (``server.limits``): a client address that opened ``sockets_per_ip_per_minute``
sockets in the last minute has its handshake refused (HTTP 403, nothing read); then, after the
handshake so that a browser can read the close code, an ``Origin`` that is not the server's
closes with 4403, and a client address holding ``sockets_per_ip`` sockets already with 4429. A seat holds at most ``sockets_per_seat``
sockets: a new one replaces the oldest, closed with 4409 (``replaced``; the page says the table
is open in another window and does not reconnect by itself). A seat's commands beyond
``commands_per_second``, over all its sockets, are refused with ``too_fast`` (not remembered
under their id: the same id sent again later is carried out).

Accounts (``server.accounts``): an account's token whose session was logged out is closed with
4402 (``session_revoked``) at connection, and a socket open when its session is revoked is
closed with 4402 within ``revocation_check_seconds`` on whichever process holds it (at once on
the process that took the logout).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from typing import Any

from fastapi import APIRouter, WebSocket

from ..abuse import FloodGuard, cut_off, frame_too_large
from ..accounts import Accounts
from ..bots import start_hint
from ..connection import Connection
from ..deps import bearer
from ..errors import (
    CLOSE_BAD_ORIGIN,
    CLOSE_BAD_TOKEN,
    CLOSE_NO_SUCH_TABLE,
    CLOSE_REPLACED,
    CLOSE_REVOKED,
    CLOSE_TOO_MANY_SOCKETS,
    CLOSE_TRY_AGAIN,
)
from ..inbox import Attach, Detach, Resync, Submit
from ..limits import SENTENCES, Limits, client_ip, origin_allowed
from ..protocol import (
    CommandIn,
    ErrorOut,
    HintIn,
    PingIn,
    PongOut,
    RefusedOut,
    ResumeIn,
    dump,
    dump_reply,
    parse_client,
)
from ..registry import TableRegistry
from ..sessions import Session, Sessions
from ..settings import Settings
from ..store import StoreError
from ..tables import Table

router = APIRouter()


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


async def admit(websocket: WebSocket, settings: Settings, limits: Limits) -> str | None:
    """Accept the handshake, then check the Origin and the sockets of the client's address;
    the address (counted: call ``limits.close_socket`` when done), or None when the socket was
    closed (4403, 4429)."""
    ip = client_ip(websocket.scope)
    if not limits.new_socket(ip):
        await websocket.close(CLOSE_TOO_MANY_SOCKETS, "too_many_sockets")  # before accept: 403
        return None
    await websocket.accept()
    if not origin_allowed(websocket.headers, settings):
        limits.refused("origin")
        await websocket.close(CLOSE_BAD_ORIGIN, "origin not allowed")
        return None
    if not limits.open_socket(ip):
        await websocket.close(CLOSE_TOO_MANY_SOCKETS, "too_many_sockets")
        return None
    return ip


async def live_session(websocket: WebSocket, accounts: Accounts, session: Session) -> bool:
    """Whether ``session`` is live (``server.accounts``); if not, the socket is closed: 4402
    ``session_revoked``, or 1013 (try again) when the accounts store does not answer."""
    try:
        if await accounts.check(session):
            return True
    except StoreError:
        await websocket.close(CLOSE_TRY_AGAIN, "try again")
        return False
    await websocket.close(CLOSE_REVOKED, "session_revoked")
    return False


def _take_seat_socket(limits: Limits, code: str, conn: Connection, most: int) -> None:
    """Register a seated socket; close the seat's oldest past ``most`` (4409 replaced)."""
    assert conn.seat is not None
    mine = limits.seat_sockets.setdefault((code, conn.seat), [])
    mine.append(conn)
    while len(mine) > most:
        oldest = mine.pop(0)
        limits.refused("sockets_per_seat")
        oldest.close_with(CLOSE_REPLACED, "replaced")


def _leave_seat_socket(limits: Limits, code: str, conn: Connection) -> None:
    if conn.seat is None:
        return
    mine = limits.seat_sockets.get((code, conn.seat))
    if mine is not None:
        if conn in mine:
            mine.remove(conn)
        if not mine:
            del limits.seat_sockets[(code, conn.seat)]


@router.websocket("/ws/{code}")
async def table_socket(websocket: WebSocket, code: str) -> None:
    state = websocket.app.state
    settings: Settings = state.settings
    registry: TableRegistry = state.registry
    sessions: Sessions = state.sessions
    limits: Limits = state.limits
    ip = await admit(websocket, settings, limits)
    if ip is None:
        return
    try:
        await _table_socket(websocket, code, settings, registry, sessions, limits)
    finally:
        limits.close_socket(ip)


async def _table_socket(websocket: WebSocket, code: str, settings: Settings,
                        registry: TableRegistry, sessions: Sessions, limits: Limits) -> None:
    state = websocket.app.state
    token = websocket.query_params.get("token") or bearer(websocket.headers.get("authorization"))
    session = sessions.verify(token)
    try:
        table = await registry.open(code)  # taken over when durable and not here
    except Exception:  # noqa: BLE001 - busy moving, or the store is down: try again
        await websocket.close(CLOSE_TRY_AGAIN, "try again")
        return
    if table is None:
        await websocket.close(CLOSE_NO_SUCH_TABLE, "no such table")
        return
    if token and session is None:
        await websocket.close(CLOSE_BAD_TOKEN, "bad or expired token")
        return
    accounts: Accounts = state.accounts
    if session is not None and not await live_session(websocket, accounts, session):
        return
    seat = table.seat_of(session.player_id) if session else None
    conn = Connection(websocket, seat, session.player_id if session else None,
                      settings.outbound_queue, table.tlog)
    conn.start()
    if session is not None:
        accounts.watch(session, conn)
    if seat is not None:
        _take_seat_socket(limits, table.code, conn, settings.sockets_per_seat)
    metrics = getattr(state, "metrics", None)
    if metrics is not None:
        metrics.connections.labels("table").inc()
    last_version = _last_version(websocket.query_params.get("last_version"))
    first_recv: asyncio.Future[Any] = asyncio.ensure_future(websocket.receive())
    recv: asyncio.Future[Any] | None = first_recv
    first: CommandIn | ResumeIn | PingIn | HintIn | ErrorOut | None = None
    bucket: tuple[str, str, str | None] | None = None
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
        # A seat's sockets share one bucket, and so do the spectator sockets of one address:
        # opening more sockets (or the same one again and again) buys no more messages.
        bucket = (("seat", table.code, seat) if seat is not None
                  else ("watch", table.code, client_ip(websocket.scope)))
        throttle = limits.throttle(bucket)
        guard = FloodGuard(settings.flood_seconds)
        if first is not None:
            await throttle.take()
            await _dispatch(table, conn, first, limits=limits)
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
            await _dispatch(table, conn, parsed, received, limits=limits)
    finally:
        if recv is not None:
            recv.cancel()
        if bucket is not None:
            limits.release(bucket)
        if session is not None:
            accounts.unwatch(session, conn)
        _leave_seat_socket(limits, table.code, conn)
        await conn.close()
        if metrics is not None:
            metrics.connections.labels("table").dec()
        try:
            await asyncio.wait_for(table.put(Detach(conn)), 5.0)
        except (TimeoutError, RuntimeError):  # pragma: no cover - table gone
            pass


async def _dispatch(table: Table, conn: Connection,
                    parsed: CommandIn | ResumeIn | PingIn | HintIn | ErrorOut,
                    received: float = 0.0, *, limits: Limits | None = None) -> None:
    """Answer or hand on one parsed message. ``limits``: count a seat's commands (websockets;
    the server's own bots keep their own pace and pass None)."""
    if isinstance(parsed, ErrorOut):
        conn.send(dump_reply(parsed))
    elif isinstance(parsed, PingIn):
        conn.send(_PONG)
    elif isinstance(parsed, HintIn):
        start_hint(table, conn, parsed)  # answered in the background (server.bots)
    elif isinstance(parsed, ResumeIn):
        await table.put(Resync(conn, parsed.last_version))
    else:
        if limits is not None and conn.seat is not None and not limits.command(table.code,
                                                                                conn.seat):
            conn.send(dump_reply(RefusedOut(id=parsed.id, code="too_fast",
                                            message=SENTENCES["too_fast"])))
            return
        await table.put(Submit(conn, parsed, received))
