"""``create_app(settings)``: assembles the FastAPI app and nothing else (STYLE 8).

Routes live in ``server/api/`` (one module per resource), tables in ``server/tables.py``.
``uvicorn --factory server.app:create_app`` works too (settings from the environment).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

from fastapi import FastAPI

from . import errors
from .accounts import Accounts, make_account_store
from .agora import Agora
from .api import accounts, agora, health, metrics, ranking, sessions, tables, web, ws
from .bots import restart_bots
from .connection import CaptureTransport
from .gctune import GcPacer
from .limits import Limits
from .logs import redact_uvicorn_logs
from .metrics import Metrics
from .registry import TableRegistry
from .sessions import Sessions
from .settings import Settings
from .store import GuardedStore, make_store

log = logging.getLogger("machiavelox.app")


async def _nothing() -> None:
    return None


async def _bounded(name: str, step: Callable[[], Awaitable[None]], seconds: float) -> None:
    """Run one shutdown step for ``seconds`` at most; one that takes longer is cancelled and
    left behind (not awaited: something below may swallow the cancellation)."""
    task = asyncio.ensure_future(step())
    done, _ = await asyncio.wait({task}, timeout=seconds)
    if not done:
        task.cancel()
        log.warning("shutdown: %s did not finish in %.1f s; going on", name, seconds)
    elif not task.cancelled() and task.exception() is not None:
        log.warning("shutdown: %s failed: %r", name, task.exception())


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
        # Every store call is bounded by settings.store_timeout (server.store.guard).
        store = getattr(app.state, "store", None) or make_store(settings)
        if not isinstance(store, GuardedStore):
            store = GuardedStore(store, settings.store_timeout,
                                 on_change=lambda up: app.state.metrics.store_up.set(int(up)))
        app.state.store = store
        log.info("store: %s", store.kind)
        registry = TableRegistry(settings, store, app.state.metrics)
        registry.on_restore = lambda table: restart_bots(app, table)
        app.state.registry = registry
        app.state.metrics.unsaved.set_function(lambda: health.unsaved_batches(registry))
        registry.start()
        app.state.agora = Agora(registry, store, settings, app.state.metrics)
        await app.state.agora.start()
        app.state.accounts.start()
        pacer = GcPacer(settings.gc_freeze_seconds, settings.gc_full_seconds, settings.gc_mode,
                        settings.gc_manual_limit)
        pacer.start()
        try:
            yield
        finally:
            # Every step is bounded, so that SIGTERM exits within 5 s whatever hangs (uvicorn
            # first gives connections settings.shutdown_seconds, 2 s, to close).
            bots = getattr(app.state, "bots", None)  # server.bots, made on first use
            steps: list[tuple[str, Callable[[], Awaitable[None]], float]] = [
                ("gc pacer", pacer.close, 0.2), ("agora", app.state.agora.close, 0.3),
                ("bots", bots.close if bots is not None else _nothing, 1.0),
                ("tables", registry.close, 1.0), ("limits", app.state.limits.close, 0.3),
                ("accounts", app.state.accounts.close, 0.3),
                ("store", store.close, 0.3)]
            for name, step, seconds in steps:
                await _bounded(name, step, seconds)

    app = FastAPI(title="Machiavelox", version="0.1.0", lifespan=lifespan)
    app.state.settings = settings
    app.state.metrics = Metrics()
    assert settings.secret is not None
    app.state.sessions = Sessions(settings.secret, settings.session_max_age)
    app.state.limits = Limits(settings, app.state.metrics)
    # Accounts and their sessions (server.accounts): Redis when redis_url is set, else memory.
    app.state.accounts = Accounts(settings, app.state.sessions, make_account_store(settings))
    errors.install(app)
    # agora before ws: /ws/{code} would take /ws/agora for a table code.
    for module in (health, sessions, accounts, tables, agora, ws, ranking, metrics, web):
        app.include_router(module.router)
    app.mount("/static", web.ClientFiles(directory=settings.web_dir, check_dir=False), name="static")
    app.add_middleware(errors.BodyLimit, max_bytes=settings.max_body_bytes)
    app.add_middleware(CaptureTransport)
    return app
