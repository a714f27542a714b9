"""``create_app(settings)``: assembles the FastAPI app and nothing else (STYLE 8).

Routes live in ``server/api/`` (one module per resource), tables in ``server/tables.py``.
``uvicorn --factory server.app:create_app`` works too (settings from the environment).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from . import errors
from .api import health, sessions, tables, web, ws
from .connection import CaptureTransport
from .logs import redact_uvicorn_logs
from .sessions import Sessions
from .settings import Settings
from .tables import TableRegistry

log = logging.getLogger("machiavelox.app")


def create_app(settings: Settings | None = None) -> FastAPI:
    """The app for ``settings`` (default: read from the environment)."""
    settings = settings or Settings()
    if settings.secret_generated:
        log.warning("MACHIAVELOX_SECRET is not set: using a random secret; "
                    "session tokens will not survive a restart")
    if settings.redis_url:
        log.warning("MACHIAVELOX_REDIS_URL is set but this server keeps tables in memory only")

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        redact_uvicorn_logs()  # uvicorn has configured its loggers by now
        registry = TableRegistry(settings)
        app.state.registry = registry
        registry.start()
        try:
            yield
        finally:
            await registry.close()

    app = FastAPI(title="Machiavelox", version="0.1.0", lifespan=lifespan)
    app.state.settings = settings
    assert settings.secret is not None
    app.state.sessions = Sessions(settings.secret, settings.session_max_age)
    errors.install(app)
    for module in (health, sessions, tables, ws, web):
        app.include_router(module.router)
    app.mount("/static", StaticFiles(directory=settings.web_dir, check_dir=False), name="static")
    app.add_middleware(CaptureTransport)
    return app
