"""The public ranking (R22) and finished hands: ``GET /api/ranking``,
``GET /api/players/{player_id}/history`` (``me`` with a token: your own), ``GET /api/hands``,
``GET /api/hands/{log_id}``. All read the store (``server.store``), so with Redis they show what
was played before a restart; a store that does not answer makes them 503 ``store_unavailable``.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, Query, Request
from pydantic import BaseModel

from ..deps import SessionsDep, bearer
from ..errors import ApiError
from ..store import Store

router = APIRouter()

#: The largest ranking offset (a larger one is a 422 ``bad_field``, not a Redis error).
OFFSET_MAX = 10**9


def get_store(request: Request) -> Store:
    store: Store = request.app.state.store
    return store


StoreDep = Annotated[Store, Depends(get_store)]


class RankOut(BaseModel):
    rank: int
    player_id: str
    name: str
    points: int
    hands: int


class RankingOut(BaseModel):
    """``ranking``: one page, best first; ``players``: how many are ranked in all."""

    ranking: list[RankOut]
    players: int
    offset: int


class HistoryHandOut(BaseModel):
    """One counted hand: ``at`` in Unix seconds and ``date`` the same as ISO 8601 (UTC)."""

    hand_id: str
    at: float
    date: str
    points: int
    result: str
    code: str
    players: list[str]


class HistoryOut(BaseModel):
    player_id: str
    rank: RankOut | None
    hands: list[HistoryHandOut]


def _iso(at: float) -> str:
    return datetime.fromtimestamp(at, UTC).isoformat(timespec="seconds")


@router.get("/api/ranking")
async def ranking(store: StoreDep, limit: Annotated[int, Query(ge=1, le=500)] = 50,
                  offset: Annotated[int, Query(ge=0, le=OFFSET_MAX)] = 0) -> RankingOut:
    """The ranking: total points of every agora hand, best first (ties share a rank)."""
    page = await store.top(limit, offset)
    return RankingOut(ranking=[RankOut(**e.__dict__) for e in page],
                      players=await store.ranked_players(), offset=offset)


@router.get("/api/players/{player_id}/history")
async def history(player_id: str, store: StoreDep, sessions: SessionsDep,
                  authorization: Annotated[str | None, Header()] = None,
                  limit: Annotated[int, Query(ge=1, le=500)] = 50) -> HistoryOut:
    """A player's counted hands, newest first, and their place. ``me``: the token's player."""
    if player_id == "me":
        session = sessions.verify(bearer(authorization))
        if session is None:
            raise ApiError(401, "bad_token", "`me` needs a session token (Authorization: Bearer ...).")
        player_id = session.player_id
    rank = await store.rank_of(player_id)
    hands = await store.history(player_id, limit)
    return HistoryOut(
        player_id=player_id, rank=RankOut(**rank.__dict__) if rank else None,
        hands=[HistoryHandOut(hand_id=h.hand_id, at=h.at, date=_iso(h.at), points=h.points,
                              result=h.result, code=h.code, players=h.players) for h in hands])


@router.get("/api/hands")
async def finished_hands(store: StoreDep,
                         limit: Annotated[int, Query(ge=1, le=500)] = 50) -> dict[str, Any]:
    """Finished games, newest first (every agora game is one hand)."""
    return {"hands": [r.to_dict() | {"date": _iso(r.finished_at)}
                      for r in await store.finished(limit)]}


@router.get("/api/hands/{log_id}")
async def finished_hand(log_id: str, store: StoreDep) -> dict[str, Any]:
    """A finished game's record and its event log: ``batches`` of ``{"version", "events"}``.
    Events carry their public fields only (a drawn card stays hidden), as a spectator saw them;
    a game still being played is 404 ``no_such_hand``."""
    record = await store.finished_game(log_id)
    if record is None:
        raise ApiError(404, "no_such_hand", f"There is no finished hand {log_id}.")
    batches = await store.read_after(log_id, 0)
    return {"hand": record.to_dict(),
            "batches": [{"version": b.version,
                         "events": [{k: v for k, v in e.items() if k != "private"}
                                    for e in b.events]} for b in batches]}
