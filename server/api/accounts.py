"""Accounts over HTTP (``server.accounts``): register, log in, log out, log out everywhere, me.

* ``POST /api/accounts`` ``{"name", "password"}``: a new account and its first session
  (``{"token", "name", "player_id", "account", "guest": false}``). 409 ``name_taken``, 422
  ``bad_password`` / ``common_password`` / ``bad_field``, 429 ``too_many_registrations``, 503
  ``accounts_busy``.
* ``POST /api/login`` ``{"name", "password"}``: a new session of that account (same reply).
  401 ``wrong_login``, 422 ``bad_password`` (one no account can have), 429 ``too_many_logins``
  (``server.limits``: per address, per name and address; a name under attack slows the
  others down, never locks them out), 503 ``accounts_busy``.
* ``POST /api/logout``: revoke this session (a guest's: nothing to revoke); ``{"revoked": n}``.
* ``POST /api/logout-all``: revoke every session of this account; 403 ``account_needed``
  for a guest.
* ``GET /api/me``: who this token is (``{"name", "player_id", "account", "guest"}``).

A revoked token is refused everywhere with 401 ``session_revoked`` (``server.deps``), and its
websockets are closed with 4402 (``server.accounts.service``).
"""

from __future__ import annotations

import asyncio
import unicodedata

from fastapi import APIRouter, Request
from pydantic import BaseModel, field_validator

from ..accounts.names import skeleton
from ..accounts.service import PASSWORD_MAX, check_password
from ..deps import AccountsDep, SessionDep
from ..errors import ApiError
from ..limits import Limits, client_ip
from ..sessions import Session, clean_name

router = APIRouter(prefix="/api")


class Credentials(BaseModel):
    name: str
    #: Its length is checked by the accounts (422 ``bad_password``, the player's sentence,
    #: however long it was: the request body's own bound keeps a huge one out).
    password: str

    @field_validator("name")
    @classmethod
    def _clean(cls, v: str) -> str:
        name = clean_name(v)  # BadName is a ValueError: a 422 bad_field reply
        if not skeleton(name):  # "\u0301" alone: every such name would be one account, ""
            raise ValueError("an account name needs a letter or a digit")
        return name

    @field_validator("password")
    @classmethod
    def _nfc(cls, v: str) -> str:
        """One password however its accents were typed: NFC (RFC 8265, OpaqueString). One
        longer than any allowed is cut to just too long before that (the accounts refuse it)."""
        return unicodedata.normalize("NFC", v[:PASSWORD_MAX + 1])


class MeOut(BaseModel):
    name: str
    player_id: str
    account: str | None
    guest: bool


class LoggedInOut(MeOut):
    token: str


class RevokedOut(BaseModel):
    revoked: int


def _me(session: Session) -> MeOut:
    return MeOut(name=session.name, player_id=session.player_id, account=session.account,
                 guest=session.guest)


@router.post("/accounts")
async def register(body: Credentials, accounts: AccountsDep, request: Request) -> LoggedInOut:
    limits: Limits = request.app.state.limits
    # A refused password costs no hash, so it spends none of the address's registrations.
    check_password(body.password)
    await limits.register(client_ip(request.scope))
    token, session = await accounts.register(body.name, body.password)
    return LoggedInOut(token=token, **_me(session).model_dump())


@router.post("/login")
async def login(body: Credentials, accounts: AccountsDep, request: Request) -> LoggedInOut:
    limits: Limits = request.app.state.limits
    ip, name_key = client_ip(request.scope), skeleton(body.name)
    wait = await limits.login(ip, name_key)
    if wait:
        await asyncio.sleep(wait)  # the name is under attack: a slow-down, not a lock-out
    try:
        token, session = await accounts.login(body.name, body.password)
    except ApiError as e:
        if e.code == "wrong_login":
            await limits.login_failed(ip, name_key)
        raise
    return LoggedInOut(token=token, **_me(session).model_dump())


@router.post("/logout")
async def logout(session: SessionDep, accounts: AccountsDep) -> RevokedOut:
    await accounts.logout(session)
    return RevokedOut(revoked=0 if session.guest else 1)


@router.post("/logout-all")
async def logout_all(session: SessionDep, accounts: AccountsDep) -> RevokedOut:
    return RevokedOut(revoked=await accounts.logout_all(session))


@router.get("/me")
async def me(session: SessionDep) -> MeOut:
    return _me(session)
