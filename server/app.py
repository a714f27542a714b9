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
from .agora import Agora
from .api import agora, health, metrics, ranking, sessions, tables, web, ws
from .connection import CaptureTransport
from .gctune import GcPacer
from .logs import redact_uvicorn_logs
from .metrics import Metrics
from .sessions import Sessions
from .settings import Settings
from .store import make_store
from .tables import TableRegistry

log = logging.getLogger("machiavelox.app")


def create_app(settings: Settings | None = None) -> FastAPI:
    """The app for ``settings`` (default: read from the environment)."""
    settings = settings or Settings()
    if settings.secret_generated:
        log.warning("MACHIAVELOX_SECRET is not set: using a random secret; "
                    "session tokens will not survive a restart")
    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        redact_uvicorn_logs()  # uvicorn has configured its loggers by now
        # Tables live in memory; their event logs, the agora queue and the ranking go to the
        # store: Redis when MACHIAVELOX_REDIS_URL is set (server.store). A store put in
        # app.state.store before the start is used instead (tests inject fakes).
        store = getattr(app.state, "store", None) or make_store(settings)
        app.state.store = store
        log.info("store: %s", store.kind)
        registry = TableRegistry(settings, store, app.state.metrics)
        app.state.registry = registry
        registry.start()
        app.state.agora = Agora(registry, store, settings, app.state.metrics)
        await app.state.agora.start()
        pacer = GcPacer(settings.gc_freeze_seconds, settings.gc_full_seconds, settings.gc_mode,
                        settings.gc_manual_limit)
        pacer.start()
        try:
            yield
        finally:
            await pacer.close()
            await app.state.agora.close()
            bots = getattr(app.state, "bots", None)  # server.bots, made on first use
            if bots is not None:
                await bots.close()
            await registry.close()
            await store.close()

    app = FastAPI(title="Machiavelox", version="0.1.0", lifespan=lifespan)
    app.state.settings = settings
    app.state.metrics = Metrics()
    assert settings.secret is not None
    app.state.sessions = Sessions(settings.secret, settings.session_max_age)
    errors.install(app)
    # agora before ws: /ws/{code} would take /ws/agora for a table code.
    for module in (health, sessions, tables, agora, ws, ranking, metrics, web):
        app.include_router(module.router)
    app.mount("/static", StaticFiles(directory=settings.web_dir, check_dir=False), name="static")
    app.add_middleware(CaptureTransport)
    return app
