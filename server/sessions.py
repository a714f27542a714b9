"""Signed session tokens: who a player is. Guests need no server-side record; accounts do.

A token is an itsdangerous ``URLSafeTimedSerializer`` signature, made with the server's
secret, over ``{"p": player id, "n": display name}`` for a **guest** (a random player id per
session: friendly games only), or ``{"p": "a:" + account id, "n": name, "s": session id,
"a": account id}`` for an **account's** session (``server.accounts``). All the sessions of one
account share its player id, so that tables, seats, the agora and the ranking (all keyed by
player id) see one person. An account's session is valid only while its session id is in the
accounts store (logout and "log out everywhere" delete it): :meth:`Sessions.verify` checks the
signature only, ``server.accounts.Accounts.check`` the store. A token carries no seat: seats
live in the table, keyed by the player id, so the same token rejoins the same seat anywhere.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from itsdangerous import BadSignature, URLSafeTimedSerializer

NAME_MAX = 24

#: The player id of an account is this prefix and its account id (guests' ids have no colon).
ACCOUNT_PREFIX = "a:"


@dataclass(frozen=True)
class Session:
    """A verified token: ``player_id`` (a guest's: opaque, random; an account's:
    ``"a:" + account``), the ``name`` shown, and for an account's session its server-side
    session id ``sid`` (for revocation) and ``account`` id; both None for a guest."""

    player_id: str
    name: str
    sid: str | None = None
    account: str | None = None

    @property
    def guest(self) -> bool:
        """True for a guest's session (friendly games only; no agora)."""
        return self.account is None


def account_player_id(account: str) -> str:
    """The player id every session of ``account`` has."""
    return ACCOUNT_PREFIX + account


#: Printable characters that show nothing (Default_Ignorable_Code_Point of Unicode's
#: DerivedCoreProperties that are not in a category ``str.isprintable`` refuses, and U+2800).
INVISIBLE = frozenset(
    "\u034f\u115f\u1160\u17b4\u17b5\u2800\u3164\uffa0"
    + "".join(map(chr, range(0x180B, 0x180E)))   # Mongolian free variation selectors
    + "".join(map(chr, range(0xFE00, 0xFE10)))   # variation selectors 1-16
    + "".join(map(chr, range(0xE0100, 0xE01F0)))  # variation selectors 17-256
)


def visible(name: str) -> str:
    """``name`` without its :data:`INVISIBLE` characters."""
    return "".join(c for c in name if c not in INVISIBLE)


class BadName(ValueError):
    """A display name that is empty, too long, not printable or invisible."""


def clean_name(raw: str) -> str:
    """The display name to use: ``raw`` stripped; 1–24 printable characters, or :class:`BadName`."""
    name = " ".join(raw.split())
    if not 1 <= len(name) <= NAME_MAX:
        raise BadName(f"A name has 1 to {NAME_MAX} characters.")
    if not name.isprintable():
        raise BadName("A name holds printable characters only.")
    if not visible(name).strip():
        raise BadName("A name needs a visible character.")
    return name


class Sessions:
    """Issues and verifies tokens with one secret. ``max_age`` is in seconds."""

    SALT = "machiavelox.session.v1"

    def __init__(self, secret: str, max_age: float) -> None:
        self._signer = URLSafeTimedSerializer(secret, salt=self.SALT)
        self.max_age = max_age

    def issue(self, name: str) -> tuple[str, Session]:
        """A new guest player id and its token for ``name`` (already cleaned)."""
        session = Session(secrets.token_urlsafe(12), name)
        token = self._signer.dumps({"p": session.player_id, "n": session.name})
        return str(token), session

    def issue_account(self, account: str, name: str, sid: str) -> tuple[str, Session]:
        """The token of the account session ``sid`` of ``account`` (shown as ``name``). The
        caller records ``sid`` in the accounts store first (``server.accounts``)."""
        session = Session(account_player_id(account), name, sid, account)
        token = self._signer.dumps({"p": session.player_id, "n": name, "s": sid, "a": account})
        return str(token), session

    def verify(self, token: str | None) -> Session | None:
        """The session a token carries, or None when it is missing, forged or expired. Only
        the signature is checked: whether an account's session was revoked is the accounts
        store's to say (``server.accounts.Accounts.check``)."""
        if not token:
            return None
        try:
            data = self._signer.loads(token, max_age=int(self.max_age))
        except BadSignature:
            return None
        if not isinstance(data, dict):
            return None
        pid, name = data.get("p"), data.get("n")
        if not isinstance(pid, str) or not isinstance(name, str):
            return None
        sid, account = data.get("s"), data.get("a")
        if sid is None and account is None and not pid.startswith(ACCOUNT_PREFIX):
            return Session(pid, name)
        if (not isinstance(sid, str) or not isinstance(account, str)
                or pid != account_player_id(account)):
            return None
        return Session(pid, name, sid, account)
