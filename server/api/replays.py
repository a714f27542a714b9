"""Replays of finished hands: ``GET /api/tables/{code}/hands/{n}/replay`` (``server.replay``).

Anyone may watch a finished hand again (every card shown: the hand is over); a hand still
being played is refused with 409 ``hand_not_over``, an unknown table with 404
``no_such_table``, a hand the table never dealt with 404 ``no_such_hand``. Finished hands
are built once and kept (``server.replay.ReplayCache``).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Request

from ..deps import RegistryDep
from ..inbox import NoSuchTable
from ..replay import ReplayCache, build_replay, load_source
from ..store import Store

router = APIRouter()  # included by server.api.tables (prefix /api/tables)


def _cache(request: Request) -> ReplayCache:
    cache: ReplayCache | None = getattr(request.app.state, "replays", None)
    if cache is None:
        cache = ReplayCache()
        request.app.state.replays = cache
    return cache


@router.get("/{code}/hands/{n}/replay")
async def hand_replay(code: str, n: Annotated[int, Path(ge=1, le=10_000)],
                      registry: RegistryDep, request: Request) -> dict[str, Any]:
    """The replay of hand ``n`` of table ``code`` (docs/protocol.md, "Replays")."""
    store: Store = request.app.state.store
    source = await load_source(code, registry, store)
    if source is None:
        raise NoSuchTable("no_such_table", f"There is no table {code}.")
    key = (str(source.meta.get("log_id", code)), n)
    cache = _cache(request)
    got = cache.get(key)
    if got is None:
        got = build_replay(code.upper(), source, n)
        cache.put(key, got)
    return got
