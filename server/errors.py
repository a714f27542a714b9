"""HTTP error replies and websocket close codes, as named constants (STYLE 8).

Every HTTP error body is ``{"code": "...", "message": "..."}``: a stable snake_case code for
programs and a sentence for people. Codes: ``bad_token`` (401), ``no_such_table`` (404),
``table_full`` (409), ``bad_field`` (422, a body or name that does not fit), ``test_deals_off``
(403), ``too_many_tables`` (503), ``no_such_hand`` (404, ``GET /api/hands/{log_id}``).
"""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from .tables import TableError

# Websocket close codes (4000-4999 are the application's own).
CLOSE_NORMAL = 1000
CLOSE_BAD_TOKEN = 4401  # the token is forged or expired: get a new session
CLOSE_NO_SUCH_TABLE = 4404  # no table with that code (never created, or forgotten)
CLOSE_POLICY_VIOLATION = 1008  # a frame over max_frame_bytes, or a flood (server.abuse)


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
        loc = ".".join(str(x) for x in first.get("loc", ()) if x != "body")
        msg = str(first.get("msg", "invalid request")).removeprefix("Value error, ")
        return JSONResponse(error_body("bad_field", f"{loc}: {msg}" if loc else msg),
                            status_code=422)
