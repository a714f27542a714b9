"""HTTP error replies and websocket close codes, as named constants (STYLE 8).

Every HTTP error body is ``{"code": "...", "message": "..."}``: a stable snake_case code for
programs and a sentence for people, FastAPI's and Starlette's own errors included. The tree:

* 4xx, the request: ``bad_token`` (401), ``test_deals_off`` / ``not_seated`` / ``no_bots``
  (403), ``no_such_table`` / ``no_such_hand`` / ``not_found`` (404: no such route or file),
  ``method_not_allowed`` (405), ``table_full`` (409), ``too_large`` (413, a body over
  ``max_body_bytes``: :class:`BodyLimit`), ``bad_field`` (422, a body, query or path value
  that does not fit), ``too_many_waiting_tables`` / ``too_many_tables_open`` /
  ``too_many_sessions`` / ``too_many_bots`` (429, ``server.limits``).
* 5xx, the server: ``internal_error`` (500, a bug; logged), ``too_many_tables`` (503, the
  server is full), ``store_unavailable`` (503, the store did not answer in
  ``store_timeout``: ``server.store.guard``).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from .inbox import TableError
from .store import StoreError

log = logging.getLogger("machiavelox.app")

# Websocket close codes (4000-4999 are the application's own).
CLOSE_NORMAL = 1000
# 1012 (a table's sockets when another process took it over) is server.tables.CLOSE_MOVED.
CLOSE_TRY_AGAIN = 1013  # the table is moving between processes, or the store is down: reconnect
CLOSE_POLICY_VIOLATION = 1008  # a frame over max_frame_bytes, or a flood (server.abuse)
CLOSE_BAD_TOKEN = 4401  # the token is forged or expired: get a new session
CLOSE_REVOKED = 4402  # the account's session was logged out (server.accounts): log in again
CLOSE_BAD_ORIGIN = 4403  # the page that opened the socket is not from this server's origin
CLOSE_NO_SUCH_TABLE = 4404  # no table with that code (never created, or forgotten)
CLOSE_REPLACED = 4409  # this seat opened a newer socket (another window) past sockets_per_seat
CLOSE_TOO_MANY_SOCKETS = 4429  # this client address holds sockets_per_ip sockets already

#: Sentences of the codes that Starlette raises (no such route, wrong method).
_HTTP_CODES = {
    400: ("bad_body", "The request body could not be read: send JSON in UTF-8."),
    404: ("not_found", "There is nothing at this address."),
    405: ("method_not_allowed", "This address does not take that method."),
}
STORE_UNAVAILABLE = "The game store is not answering: try again in a moment."
INTERNAL_ERROR = "The server failed on this request; the failure is logged for the developers."


class ApiError(Exception):
    """An HTTP error with a stable code."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


def error_body(code: str, message: str) -> dict[str, str]:
    return {"code": code, "message": message}


def install(app: FastAPI) -> None:
    """Register the handlers that give every error the ``{"code", "message"}`` shape."""

    @app.exception_handler(ApiError)
    async def _api_error(request: Request, exc: ApiError) -> JSONResponse:
        return JSONResponse(error_body(exc.code, exc.message), status_code=exc.status)

    @app.exception_handler(TableError)
    async def _table_error(request: Request, exc: TableError) -> JSONResponse:
        return JSONResponse(error_body(exc.code, exc.message), status_code=exc.status)

    @app.exception_handler(RequestValidationError)
    async def _bad_body(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = exc.errors()
        first = errors[0] if errors else {}
        loc = ".".join(str(x) for x in first.get("loc", ()) if x not in ("body", "query", "path"))
        msg = str(first.get("msg", "invalid request")).removeprefix("Value error, ")
        return JSONResponse(error_body("bad_field", f"{loc}: {msg}" if loc else msg),
                            status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code, message = _HTTP_CODES.get(exc.status_code, ("http_error", str(exc.detail)))
        return JSONResponse(error_body(code, message), status_code=exc.status_code,
                            headers=getattr(exc, "headers", None))

    @app.exception_handler(StoreError)
    async def _store_error(request: Request, exc: StoreError) -> JSONResponse:
        return JSONResponse(error_body("store_unavailable", STORE_UNAVAILABLE), status_code=503)

    @app.exception_handler(Exception)
    async def _bug(request: Request, exc: Exception) -> JSONResponse:
        log.error("request failed: %s %s", request.method, request.url.path, exc_info=exc)
        return JSONResponse(error_body("internal_error", INTERNAL_ERROR), status_code=500)


Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


class BodyLimit:
    """ASGI middleware: an HTTP request body over ``max_bytes`` is answered 413 ``too_large``
    without being read further (a ``Content-Length`` over it at once; a chunked body as soon
    as its chunks add up to more), so a 100 MiB body costs the server at most ``max_bytes``."""

    def __init__(self, app: Any, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    def _body(self) -> bytes:
        return json.dumps(error_body(
            "too_large", f"Request bodies are at most {self.max_bytes} bytes.")).encode()

    async def _refuse(self, send: Send) -> None:
        body = self._body()
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(body)).encode()),
                                (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": body})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("type") != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                try:
                    too_big = int(value) > self.max_bytes
                except ValueError:
                    too_big = False
                if too_big:
                    await self._refuse(send)
                    return
        seen = 0
        refused = False
        started = False

        async def limited_receive() -> Message:
            nonlocal seen, refused
            if refused:
                return {"type": "http.disconnect"}
            message = await receive()
            if message.get("type") == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    refused = True
                    if not started:
                        await self._refuse(send)
                    return {"type": "http.disconnect"}
            return message

        async def guarded_send(message: Message) -> None:
            nonlocal started
            if refused:
                return  # the 413 went out instead
            if message.get("type") == "http.response.start":
                started = True
            await send(message)

        await self.app(scope, limited_receive, guarded_send)
