"""``POST /api/session``: pick a display name, get a signed session token."""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import BaseModel, field_validator

from ..deps import SessionsDep
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
async def new_session(body: SessionIn, sessions: SessionsDep) -> SessionOut:
    token, session = sessions.issue(body.name)
    return SessionOut(token=token, name=session.name)
