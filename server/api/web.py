"""The browser client: ``/`` and ``/t/{code}`` give ``web/index.html``, and
``/replay/{code}/{hand}`` the replay page ``web/replay.html``; ``/static/*`` serves the
rest of ``web/`` (package data, so a regular install serves it too) through ``ClientFiles``,
which leaves out the package's own Python (``__init__.py``, ``__pycache__``)."""

from __future__ import annotations

from pathlib import PurePath
from typing import Any

from fastapi import APIRouter
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException

from ..deps import SettingsDep
from ..errors import error_body

router = APIRouter()


class ClientFiles(StaticFiles):
    """``/static/*``: the files of ``web/`` but Python's own (``*.py``, ``*.pyc``,
    ``__pycache__/``), which are there only because ``web/`` is installed as a package; those
    are 404 as a missing file is."""

    async def get_response(self, path: str, scope: Any) -> Response:
        parts = PurePath(path).parts
        if "__pycache__" in parts or path.endswith((".py", ".pyc")):
            raise HTTPException(status_code=404)
        return await super().get_response(path, scope)


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
