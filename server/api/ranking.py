"""The public ranking (R22 as changed by issue 18) and finished hands: ``GET /api/ranking``
(by conservative rating, ``server.rating``), ``GET /api/ranking/points`` (the legacy order: total
points), ``GET /api/players/{player_id}/history`` (``me`` with a token: your own; with the rating
after each hand), ``GET /api/hands``, ``GET /api/hands/{log_id}``. All read the store
(``server.store``), so with Redis they show what was played before a restart; a store that does
not answer makes them 503 ``store_unavailable``.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, Query, Request
from pydantic import BaseModel

from ..deps import AccountsDep, SessionsDep, get_session
from ..errors import ApiError
from ..rating import PROVISIONAL_GAMES, conservative
from ..store import RatedEntry, Store

router = APIRouter()

#: The largest ranking offset (a larger one is a 422 ``bad_field``, not a Redis error).
OFFSET_MAX = 10**9


def get_store(request: Request) -> Store:
    store: Store = request.app.state.store
    return store


StoreDep = Annotated[Store, Depends(get_store)]


class RankOut(BaseModel):
    """A player in the rated ranking: ``rating`` is the conservative rating ``mu − 3·sigma``
    that orders it; ``games`` the rated hands, ``provisional`` below ``PROVISIONAL_GAMES``;
    ``points`` the total points of every counted agora hand, ``hands`` how many."""

    rank: int
    player_id: str
    name: str
    rating: float
    mu: float
    sigma: float
    games: int
    provisional: bool
    points: int
    hands: int

    @classmethod
    def of(cls, e: RatedEntry) -> RankOut:
        r = e.rating
        return cls(rank=e.rank, player_id=e.player_id, name=e.name,
                   rating=round(r.conservative, 3), mu=round(r.mu, 3), sigma=round(r.sigma, 3),
                   games=r.games, provisional=r.provisional, points=e.points, hands=e.hands)


class RankingOut(BaseModel):
    """``ranking``: one page, best first; ``players``: how many are rated in all;
    ``provisional_games``: fewer rated hands than this and a player is provisional."""

    ranking: list[RankOut]
    players: int
    offset: int
    provisional_games: int = PROVISIONAL_GAMES


class PointsRankOut(BaseModel):
    rank: int
    player_id: str
    name: str
    points: int
    hands: int


class PointsRankingOut(BaseModel):
    """The legacy ranking: total points, best first (R22 before ratings)."""

    ranking: list[PointsRankOut]
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
    #: The conservative rating after this hand (None: counted before ratings existed).
    rating: float | None = None
    mu: float | None = None
    sigma: float | None = None


class HistoryOut(BaseModel):
    """``rank``: the player's place in the rated ranking (None: never rated); ``points`` and
    ``hands_counted``: their total points and counted hands, legacy ones included."""

    player_id: str
    name: str
    rank: RankOut | None
    points: int
    hands_counted: int
    hands: list[HistoryHandOut]


def _iso(at: float) -> str:
    return datetime.fromtimestamp(at, UTC).isoformat(timespec="seconds")


@router.get("/api/ranking")
async def ranking(store: StoreDep, limit: Annotated[int, Query(ge=1, le=500)] = 50,
                  offset: Annotated[int, Query(ge=0, le=OFFSET_MAX)] = 0) -> RankingOut:
    """The ranking: rated players by conservative rating, best first (ties share a rank)."""
    page = await store.rating_top(limit, offset)
    return RankingOut(ranking=[RankOut.of(e) for e in page],
                      players=await store.rated_players(), offset=offset)


@router.get("/api/ranking/points")
async def points_ranking(store: StoreDep, limit: Annotated[int, Query(ge=1, le=500)] = 50,
                         offset: Annotated[int, Query(ge=0, le=OFFSET_MAX)] = 0
                         ) -> PointsRankingOut:
    """The legacy ranking: total points of every agora hand (guest-era hands included)."""
    page = await store.top(limit, offset)
    return PointsRankingOut(ranking=[PointsRankOut(**e.__dict__) for e in page],
                            players=await store.ranked_players(), offset=offset)


@router.get("/api/players/{player_id}/history")
async def history(player_id: str, store: StoreDep, sessions: SessionsDep, accounts: AccountsDep,
                  authorization: Annotated[str | None, Header()] = None,
                  limit: Annotated[int, Query(ge=1, le=500)] = 50) -> HistoryOut:
    """A player's counted hands, newest first, and their place. ``me``: the token's player
    (refused as :func:`server.deps.get_session` refuses: ``bad_token``, ``session_revoked``;
    no hand yet is an empty history). Another id the ranking has never counted is 404
    ``no_such_player``."""
    me = player_id == "me"
    if me:
        player_id = (await get_session(sessions, accounts, authorization)).player_id
    rated = await store.rating_of(player_id)
    legacy = await store.rank_of(player_id)
    hands = await store.history(player_id, limit)
    if not me and rated is None and legacy is None and not hands:
        raise ApiError(404, "no_such_player",
                       "There is no such player in the ranking: no agora hand of theirs was counted.")
    return HistoryOut(
        player_id=player_id, name=legacy.name if legacy else "",
        rank=RankOut.of(rated) if rated else None,
        points=legacy.points if legacy else 0, hands_counted=legacy.hands if legacy else 0,
        hands=[HistoryHandOut(
            hand_id=h.hand_id, at=h.at, date=_iso(h.at), points=h.points, result=h.result,
            code=h.code, players=h.players,
            rating=None if h.mu is None or h.sigma is None else round(conservative(h.mu, h.sigma), 3),
            mu=None if h.mu is None else round(h.mu, 3),
            sigma=None if h.sigma is None else round(h.sigma, 3)) for h in hands])


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
