"""``POST /api/session``: a guest picks a display name and gets a signed session token.

Guests play friendly games; a name an account holds (by skeleton, ``server.accounts.names``)
is refused with 409 ``name_registered``. Accounts log in with ``POST /api/login``
(``server.api.accounts``).
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from pydantic import BaseModel, field_validator

from ..accounts import SENTENCES
from ..deps import AccountsDep, SessionsDep
from ..errors import ApiError
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
    guest: bool = True


@router.post("/api/session")
async def new_session(body: SessionIn, sessions: SessionsDep, accounts: AccountsDep,
                      request: Request) -> SessionOut:
    """A new guest session; at most ``sessions_per_ip_per_minute`` per client address (429
    ``too_many_sessions``, ``server.limits``); 409 ``name_registered`` for an account's name."""
    limits: Limits = request.app.state.limits
    await limits.new_session(client_ip(request.scope))
    if await accounts.name_registered(body.name):
        raise ApiError(409, "name_registered", SENTENCES["name_registered"])
    token, session = sessions.issue(body.name)
    return SessionOut(token=token, name=session.name)
