"""``GET /healthz``: the process answers (liveness: the Docker healthcheck hits it).
``GET /readyz``: the server can do its whole job (readiness): 200 when the store answers within
``store_timeout`` and every table's batches are in it; otherwise 503 ``store_unavailable``, with
what is wrong (a store outage: tables keep playing, their batches wait, see ``server.tables``).
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from ..errors import STORE_UNAVAILABLE, error_body
from ..registry import TableRegistry
from ..store import Store

router = APIRouter()


def unsaved_batches(registry: TableRegistry) -> int:
    """Event batches played but not yet in the store, over all tables."""
    return sum(len(getattr(t, "_failed", ())) for t in list(registry.tables.values()))


@router.get("/healthz")
async def healthz() -> dict[str, str]:
    return {"status": "ok"}


@router.get("/readyz", response_model=None)
async def readyz(request: Request) -> dict[str, object] | JSONResponse:
    store: Store = request.app.state.store
    registry: TableRegistry = request.app.state.registry
    answers = await store.ping()
    unsaved = unsaved_batches(registry)
    if answers and not unsaved:
        return {"status": "ready", "store": store.kind}
    body: dict[str, object] = dict(error_body("store_unavailable", STORE_UNAVAILABLE))
    body |= {"store": store.kind, "store_answers": answers, "unsaved_batches": unsaved}
    return JSONResponse(body, status_code=503)
