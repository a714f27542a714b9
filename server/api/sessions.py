"""``POST /api/session``: pick a display name, get a signed session token."""

from __future__ import annotations

from fastapi import APIRouter, Request
from pydantic import BaseModel, field_validator

from ..deps import SessionsDep
from ..limits import Limits, client_ip
from ..sessions import clean_name

router = APIRouter()


class SessionIn(BaseModel):
    name: str

    @field_validator("name")
    @classmethod
    def _clean(cls, v: str) -> str:
        return clean_name(v)  # BadName is a ValueError: a 422 bad_field reply


class SessionOut(BaseModel):
    token: str
    name: str


@router.post("/api/session")
async def new_session(body: SessionIn, sessions: SessionsDep, request: Request) -> SessionOut:
    """A new session; at most ``sessions_per_ip_per_minute`` per client address (429
    ``too_many_sessions``, ``server.limits``)."""
    limits: Limits = request.app.state.limits
    await limits.new_session(client_ip(request.scope))
    token, session = sessions.issue(body.name)
    return SessionOut(token=token, name=session.name)
