"""``GET /metrics``: Prometheus text format (``server.metrics``)."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response

from ..metrics import CONTENT_TYPE, Metrics

router = APIRouter()


@router.get("/metrics", include_in_schema=False)
async def metrics(request: Request) -> Response:
    m: Metrics = request.app.state.metrics
    return Response(m.render(), media_type=CONTENT_TYPE)
