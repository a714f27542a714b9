"""FastAPI dependencies as ``Annotated`` aliases (STYLE 8): settings, tables, the session."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Header, Request

from .accounts import SENTENCES, Accounts
from .errors import ApiError
from .registry import TableRegistry
from .sessions import Session, Sessions
from .settings import Settings


def get_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def get_registry(request: Request) -> TableRegistry:
    registry: TableRegistry = request.app.state.registry
    return registry


def get_sessions(request: Request) -> Sessions:
    sessions: Sessions = request.app.state.sessions
    return sessions


def get_accounts(request: Request) -> Accounts:
    accounts: Accounts = request.app.state.accounts
    return accounts


def bearer(authorization: str | None) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header."""
    if not authorization:
        return None
    scheme, _, token = authorization.partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


async def get_session(
    sessions: Annotated[Sessions, Depends(get_sessions)],
    accounts: Annotated[Accounts, Depends(get_accounts)],
    authorization: Annotated[str | None, Header()] = None,
) -> Session:
    """The request's session: 401 ``bad_token`` (none, forged, expired), 401
    ``session_revoked`` (an account's session that was logged out), 503
    ``store_unavailable`` (the accounts store did not answer)."""
    session = sessions.verify(bearer(authorization))
    if session is None:
        raise ApiError(401, "bad_token",
                       "Send a session token (Authorization: Bearer ...) from POST /api/session "
                       "or POST /api/login.")
    if not await accounts.check(session):
        raise ApiError(401, "session_revoked", SENTENCES["session_revoked"])
    return session


SettingsDep = Annotated[Settings, Depends(get_settings)]
RegistryDep = Annotated[TableRegistry, Depends(get_registry)]
SessionsDep = Annotated[Sessions, Depends(get_sessions)]
AccountsDep = Annotated[Accounts, Depends(get_accounts)]
SessionDep = Annotated[Session, Depends(get_session)]
