"""The browser client: ``/`` and ``/t/{code}`` give ``web/index.html``, and
``/replay/{code}/{hand}`` the replay page ``web/replay.html``; ``/static/*`` serves the
rest of ``web/`` (package data, so a regular install serves it too)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import FileResponse, JSONResponse, Response

from ..deps import SettingsDep
from ..errors import error_body

router = APIRouter()


def _index(settings: SettingsDep, page: str = "index.html") -> Response:
    index = settings.web_dir / page
    if not index.is_file():
        return JSONResponse(error_body("no_client", "The web client is not installed."), 404)
    return FileResponse(index, media_type="text/html")


@router.get("/", include_in_schema=False)
async def index(settings: SettingsDep) -> Response:
    return _index(settings)


@router.get("/t/{code}", include_in_schema=False)
async def table_page(code: str, settings: SettingsDep) -> Response:
    return _index(settings)


@router.get("/replay/{code}/{hand}", include_in_schema=False)
async def replay_page(code: str, hand: str, settings: SettingsDep) -> Response:
    """The replay of a finished hand (``web/replay.js`` asks the API for it)."""
    return _index(settings, "replay.html")
