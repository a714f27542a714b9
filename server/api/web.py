"""The browser client: ``/`` and ``/t/{code}`` give ``server/web/index.html``; ``/static/*`` serves
the rest of ``server/web/`` (package data, so a regular install serves it too)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import FileResponse, JSONResponse, Response

from ..deps import SettingsDep
from ..errors import error_body

router = APIRouter()


def _index(settings: SettingsDep) -> Response:
    index = settings.web_dir / "index.html"
    if not index.is_file():
        return JSONResponse(error_body("no_client", "The web client is not installed."), 404)
    return FileResponse(index, media_type="text/html")


@router.get("/", include_in_schema=False)
async def index(settings: SettingsDep) -> Response:
    return _index(settings)


@router.get("/t/{code}", include_in_schema=False)
async def table_page(code: str, settings: SettingsDep) -> Response:
    return _index(settings)
