"""The agora: ``/ws/agora`` (the matchmaking queue over a websocket) and ``GET /api/agora``.

A socket needs a session token (``?token=`` or ``Authorization: Bearer``; none or a bad one
closes with 4401, a revoked one with 4402, and a socket whose session is revoked later is
closed with 4402 within seconds: ``server.accounts``). Only an account may queue: a guest's
``join`` is answered with the error ``account_needed`` (the socket stays open). It sends ``join`` to queue, ``leave`` to stop waiting; closing it leaves the
queue too. See ``server.agora`` and ``docs/protocol.md`` ("Agora").

This router is included before ``server.api.ws``, whose ``/ws/{code}`` would otherwise take
``/ws/agora`` for a table code.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from fastapi import APIRouter, Request, WebSocket
from pydantic import BaseModel

from ..abuse import FloodGuard, cut_off, frame_too_large
from ..accounts import SENTENCES, Accounts
from ..agora import (
    Agora,
    AgoraErrorOut,
    AgoraPingIn,
    Enter,
    Exit,
    Join,
    JoinIn,
    Leave,
    LeaveIn,
    dump,
    parse,
)
from ..connection import Connection
from ..deps import bearer
from ..errors import CLOSE_BAD_TOKEN
from ..limits import Limits
from ..metrics import Metrics
from ..sessions import Sessions
from ..settings import Settings
from .ws import admit, live_session

router = APIRouter()

_PONG = '{"type":"pong"}'


class AgoraOut(BaseModel):
    """``waiting``: players in the queue; ``matched``: groups matched since the server started."""

    waiting: int
    matched: int


@router.get("/api/agora")
async def agora_state(request: Request) -> AgoraOut:
    agora: Agora = request.app.state.agora
    return AgoraOut(waiting=await agora.waiting(), matched=agora.matched)


def _data(message: Mapping[str, Any]) -> str | bytes | None:
    text = message.get("text")
    return text if text is not None else message.get("bytes")


@router.websocket("/ws/agora")
async def agora_socket(websocket: WebSocket) -> None:
    state = websocket.app.state
    settings: Settings = state.settings
    sessions: Sessions = state.sessions
    agora: Agora = state.agora
    metrics: Metrics | None = getattr(state, "metrics", None)
    limits: Limits = state.limits
    ip = await admit(websocket, settings, limits)  # Origin, sockets per address
    if ip is None:
        return
    try:
        await _agora_socket(websocket, settings, sessions, agora, metrics, limits)
    finally:
        limits.close_socket(ip)


async def _agora_socket(websocket: WebSocket, settings: Settings, sessions: Sessions,
                        agora: Agora, metrics: Metrics | None, limits: Limits) -> None:
    token = websocket.query_params.get("token") or bearer(websocket.headers.get("authorization"))
    session = sessions.verify(token)
    if session is None:
        await websocket.close(CLOSE_BAD_TOKEN, "a session token is needed")
        return
    accounts: Accounts = websocket.app.state.accounts
    if not await live_session(websocket, accounts, session):
        return
    conn = Connection(websocket, None, session.player_id, settings.outbound_queue, agora.log)
    conn.start()
    accounts.watch(session, conn)
    if metrics is not None:
        metrics.connections.labels("agora").inc()
    await agora.put(Enter(conn, session))
    bucket = ("agora", session.player_id)  # one bucket per player
    throttle = limits.throttle(bucket)
    guard = FloodGuard(settings.flood_seconds)
    try:
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                break
            data = _data(message)
            if frame_too_large(data, settings.max_frame_bytes):
                await cut_off(websocket, "too_large", metrics)
                break
            if guard.flooding(await throttle.take()):
                await cut_off(websocket, "flood", metrics)
                break
            parsed = parse(data, settings.max_message_bytes)
            if isinstance(parsed, JoinIn) and session.guest:
                conn.send(dump(AgoraErrorOut(code="account_needed",
                                             message=SENTENCES["account_needed"])))
            elif isinstance(parsed, JoinIn):
                await agora.put(Join(conn, parsed))
            elif isinstance(parsed, AgoraPingIn):
                conn.send(_PONG)
            elif isinstance(parsed, LeaveIn):
                await agora.put(Leave(conn))
            else:
                conn.send(dump(parsed))
    finally:
        limits.release(bucket)
        accounts.unwatch(session, conn)
        await conn.close()
        if metrics is not None:
            metrics.connections.labels("agora").dec()
        try:
            await asyncio.wait_for(agora.put(Exit(conn)), 5.0)
        except (TimeoutError, RuntimeError):  # pragma: no cover - agora gone
            pass
