"""Signed session tokens: who a player is, without any server-side session store.

A token is an itsdangerous ``URLSafeTimedSerializer`` signature over ``{"p": player id,
"n": display name}``, made with the server's secret. It carries no seat: seats live in the
table, keyed by the player id, so the same token rejoins the same seat anywhere.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from itsdangerous import BadSignature, URLSafeTimedSerializer

NAME_MAX = 24


@dataclass(frozen=True)
class Session:
    """A verified token: ``player_id`` (opaque, random) and the ``name`` the player picked."""

    player_id: str
    name: str


class BadName(ValueError):
    """A display name that is empty, too long or not printable."""


def clean_name(raw: str) -> str:
    """The display name to use: ``raw`` stripped; 1–24 printable characters, or :class:`BadName`."""
    name = " ".join(raw.split())
    if not 1 <= len(name) <= NAME_MAX:
        raise BadName(f"A name has 1 to {NAME_MAX} characters.")
    if not name.isprintable():
        raise BadName("A name holds printable characters only.")
    return name


class Sessions:
    """Issues and verifies tokens with one secret. ``max_age`` is in seconds."""

    SALT = "machiavelox.session.v1"

    def __init__(self, secret: str, max_age: float) -> None:
        self._signer = URLSafeTimedSerializer(secret, salt=self.SALT)
        self._max_age = max_age

    def issue(self, name: str) -> tuple[str, Session]:
        """A new player id and its token for ``name`` (already cleaned)."""
        session = Session(secrets.token_urlsafe(12), name)
        token = self._signer.dumps({"p": session.player_id, "n": session.name})
        return str(token), session

    def verify(self, token: str | None) -> Session | None:
        """The session a token carries, or None when it is missing, forged or expired."""
        if not token:
            return None
        try:
            data = self._signer.loads(token, max_age=int(self._max_age))
        except BadSignature:
            return None
        if not isinstance(data, dict):
            return None
        pid, name = data.get("p"), data.get("n")
        if not isinstance(pid, str) or not isinstance(name, str):
            return None
        return Session(pid, name)
