"""Session tokens (``server/sessions.py``): only our key signs them, and they expire."""

from __future__ import annotations

import time

import pytest
from itsdangerous import URLSafeTimedSerializer
from itsdangerous.timed import TimestampSigner

from server.sessions import Sessions

MAX_AGE = 3600.0


def at(monkeypatch: pytest.MonkeyPatch, seconds_from_now: float) -> None:
    """Make the signer's clock read ``seconds_from_now`` later than the real one."""
    real = time.time()
    monkeypatch.setattr(TimestampSigner, "get_timestamp",
                        lambda self: int(real + seconds_from_now))


def test_a_token_verifies_with_its_name_and_player() -> None:
    sessions = Sessions("key", MAX_AGE)
    token, session = sessions.issue("Ada")
    assert sessions.verify(token) == session
    assert session.name == "Ada"


def test_a_token_signed_with_another_key_is_refused() -> None:
    token, _ = Sessions("another key", MAX_AGE).issue("Mallory")
    assert Sessions("key", MAX_AGE).verify(token) is None


def test_a_token_forged_without_a_key_is_refused() -> None:
    """The payload of a token is readable (base64 JSON); a token made of a readable payload
    and any signature must still fail."""
    forged = URLSafeTimedSerializer("guess", salt=Sessions.SALT).dumps({"p": "x", "n": "Eve"})
    payload, ts, _sig = forged.rsplit(".", 2)
    assert Sessions("key", MAX_AGE).verify(f"{payload}.{ts}.AAAAAAAAAAAAAAAAAAAAAAAAAAA") is None
    assert Sessions("key", MAX_AGE).verify(forged) is None


def test_a_token_with_another_salt_is_refused() -> None:
    other = URLSafeTimedSerializer("key", salt="another.purpose").dumps({"p": "x", "n": "Eve"})
    assert Sessions("key", MAX_AGE).verify(other) is None


def test_a_token_expires_after_max_age(monkeypatch: pytest.MonkeyPatch) -> None:
    sessions = Sessions("key", MAX_AGE)
    token, session = sessions.issue("Ada")
    at(monkeypatch, MAX_AGE - 5)
    assert sessions.verify(token) == session
    at(monkeypatch, MAX_AGE + 5)
    assert sessions.verify(token) is None


@pytest.mark.parametrize("token", [None, "", "garbage", "a.b.c", "x" * 500])
def test_missing_or_malformed_tokens_are_refused(token: str | None) -> None:
    assert Sessions("key", MAX_AGE).verify(token) is None
