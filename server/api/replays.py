"""Replays of finished hands: ``GET /api/tables/{code}/hands/{n}/replay`` (``server.replay``).

Anyone may watch a finished hand again (every card shown: the hand is over); a hand still
being played is refused with 409 ``hand_not_over``, an unknown table with 404
``no_such_table``, a hand the table never dealt with 404 ``no_such_hand``.

A replay runs the engine over the whole journal and builds a view per version: hundreds of
milliseconds for a long hand, so it is built in one worker thread (:data:`BUILDER`: one
build at a time, the event loop and the tables go on meanwhile), once per finished hand
(``server.replay.ReplayCache``), and served gzipped (``Content-Encoding: gzip`` to clients
that accept it: a hand of 800 versions is about 2 MiB of JSON, 40 KiB gzipped).
"""

from __future__ import annotations

import asyncio
import gzip
from concurrent.futures import ThreadPoolExecutor
from typing import Annotated

from fastapi import APIRouter, Path, Request, Response

from ..deps import RegistryDep
from ..inbox import NoSuchTable
from ..replay import ReplayCache, check_hand, encode_replay, load_source
from ..store import Store

router = APIRouter()  # included by server.api.tables (prefix /api/tables)

#: The one thread that builds replays.
BUILDER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mvx-replay")


def _cache(request: Request) -> ReplayCache:
    cache: ReplayCache | None = getattr(request.app.state, "replays", None)
    if cache is None:
        cache = ReplayCache()
        request.app.state.replays = cache
    return cache


@router.get("/{code}/hands/{n}/replay")
async def hand_replay(code: str, n: Annotated[int, Path(ge=1, le=10_000)],
                      registry: RegistryDep, request: Request) -> Response:
    """The replay of hand ``n`` of table ``code`` (docs/protocol.md, "Replays")."""
    store: Store = request.app.state.store
    code = code.upper()
    source = await load_source(code, registry, store)
    if source is None:
        raise NoSuchTable("no_such_table", f"There is no table {code}.")
    check_hand(code, source, n)
    key = (str(source.meta.get("log_id", code)), n)
    cache = _cache(request)
    packed = cache.get(key)
    if packed is None:
        packed = await asyncio.get_running_loop().run_in_executor(
            BUILDER, encode_replay, code, source, n)
        cache.put(key, packed)
    headers = {"Vary": "Accept-Encoding", "Cache-Control": "public, max-age=3600"}
    if "gzip" in request.headers.get("accept-encoding", "").lower():
        return Response(packed, media_type="application/json",
                        headers={**headers, "Content-Encoding": "gzip"})
    return Response(gzip.decompress(packed), media_type="application/json", headers=headers)
