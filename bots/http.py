"""HTTP for bots outside the server, with the standard library only: a session
(``POST /api/session``), a table (``POST /api/tables``), a seat (``POST /api/tables/{code}/join``).
Loopback requests never go through a proxy."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from typing import Any


class HttpError(Exception):
    def __init__(self, status: int, body: dict[str, Any]) -> None:
        super().__init__(f"HTTP {status}: {body}")
        self.status = status
        self.body = body


def _http(method: str, url: str, body: dict[str, Any] | None, token: str | None,
          timeout: float) -> dict[str, Any]:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method)
    req.add_header("Accept", "application/json")
    if data is not None:
        req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback: no proxy
    try:
        with opener.open(req, timeout=timeout) as r:
            out: dict[str, Any] = json.loads(r.read() or b"{}")
            return out
    except urllib.error.HTTPError as e:
        try:
            detail = json.loads(e.read() or b"{}")
        except ValueError:
            detail = {}
        raise HttpError(e.code, detail) from None


async def http_json(method: str, url: str, body: dict[str, Any] | None = None,
                    token: str | None = None, timeout: float = 10.0) -> dict[str, Any]:
    return await asyncio.to_thread(_http, method, url, body, token, timeout)


async def new_session(base_url: str, name: str) -> str:
    """A session token for ``name`` (``POST /api/session``)."""
    return str((await http_json("POST", f"{base_url}/api/session", {"name": name}))["token"])


async def create_table(base_url: str, token: str, mode: str = "single",
                       **extra: Any) -> dict[str, Any]:
    """``POST /api/tables``: ``{"code", "url", "seat"}``."""
    return await http_json("POST", f"{base_url}/api/tables", {"mode": mode, **extra}, token)


async def join_table(base_url: str, token: str, code: str) -> dict[str, Any]:
    """``POST /api/tables/{code}/join``: ``{"code", "url", "seat"}``."""
    return await http_json("POST", f"{base_url}/api/tables/{code}/join", {}, token)
