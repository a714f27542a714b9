"""Friendly tables: create one (single game or long game), join it by its invite code, look,
fill empty seats with bots (``server.bots``), play again (``server.again``); replays of
finished hands (``server.api.replays``).

The test-only fields of ``POST /api/tables`` (``seed``, ``position``, ``players``, ``timers``)
are refused unless the server runs with ``MACHIAVELOX_TEST_DEALS=1``.

Classic tables (issue 16): ``variant`` (a C2 preset), ``players`` (2–6 seats), ``options`` (C1
names) and ``mode`` (``single``: one hand, the ``match`` option ``single``; ``long``: a match
to its end by the ``match`` option) make their rules (``engine.rules.table_rules``); an
impossible table is refused 422 with the engine's code and sentence, and nothing is made.
"""

from __future__ import annotations

import secrets
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Request, Response
from pydantic import BaseModel, Field, StrictInt

from engine.rules import CLASSIC_TIMERS, MatchEnd, OptionsRefused, RuleSet, playable, table_rules

from .. import again
from ..bots import BotSeats, get_bot_seats
from ..deps import RegistryDep, SessionDep, SettingsDep
from ..errors import STORE_UNAVAILABLE, ApiError
from ..journal import SEATS, DealOptions
from ..limits import Limits, client_ip
from ..protocol import TableSummary
from ..store import Store
from . import replays

router = APIRouter(prefix="/api/tables")
router.include_router(replays.router, prefix="")

BotSeatsDep = Annotated[BotSeats, Depends(get_bot_seats)]


class BotsIn(BaseModel):
    """Bots for the empty seats of a friendly table (``server.bots``)."""

    level: Literal["casual", "shark"] = "casual"
    #: At most the table's seats less one (2 at Machiavelox, 5 at six classic seats).
    count: int = Field(1, ge=1, le=5)
    #: "human": a person's times by level (the default); "none": ``reaction`` seconds between
    #: commands (the default when a reaction is given). See ``server.bots.seat_reaction``.
    pace: Literal["human", "none"] | None = None
    #: Seconds between a bot's commands at pace "none" (default 0.8).
    reaction: float | None = Field(None, ge=0, le=5)


Variant = Literal["machiavelox", "classic", "classic_italian", "classic_dutch"]



class CreateTableIn(BaseModel):
    mode: Literal["single", "long"] = "single"
    bots: BotsIn | None = None
    #: ``machiavelox`` (3 seats) or a classic preset (C2).
    variant: Variant = "machiavelox"
    #: Seats of a classic table, 2–6 (default 4; Machiavelox has 3).
    players: StrictInt | None = None
    #: A classic table's C1 options by name (``engine.rules.OPTION_FIELDS``).
    options: dict[str, Any] | None = None
    # Test only (MACHIAVELOX_TEST_DEALS=1):
    seed: StrictInt | None = Field(None, ge=0, le=2**62)
    position: dict[str, Any] | None = None
    timers: dict[str, float] | None = None


class SeatOut(BaseModel):
    code: str
    url: str
    seat: str


class CreatedOut(SeatOut):
    #: The bots seated with the table (create with ``bots``; absent otherwise).
    bots: list[str] | None = None


class BotsOut(BaseModel):
    code: str
    url: str
    bots: list[str]
    seats: list[str]


@router.post("", response_model_exclude_none=True)
async def create_table(body: CreateTableIn, session: SessionDep, registry: RegistryDep,
                       settings: SettingsDep, bots: BotSeatsDep, request: Request) -> CreatedOut:
    """Create a table; the creator takes the first seat. Refused past the limits of
    ``server.limits`` (tables per session and per address, bot seats), and with 503
    ``store_unavailable`` when the server runs on a Redis that does not answer."""
    test_only = [k for k in ("seed", "position", "timers") if getattr(body, k) is not None]
    if test_only and not settings.test_deals:
        raise ApiError(403, "test_deals_off",
                       f"{', '.join(test_only)}: only on a server started with MACHIAVELOX_TEST_DEALS=1.")
    classic = body.variant != "machiavelox"
    size = SEATS
    try:
        if classic:
            size = 4 if body.players is None else body.players
            rules = classic_rules(body.variant, size, body.mode, body.options, body.timers)
        else:
            if body.players not in (None, SEATS) or body.options:
                raise ApiError(422, "bad_field", "players and options are for classic tables: "
                               "Machiavelox is played by three, with its own rules.")
            rules = settings.rules()
            if body.timers:
                rules = rules.with_timers(**body.timers)
        options = DealOptions(seed=secrets.randbits(62) if body.seed is None else body.seed,
                              rules=rules, long=body.mode == "long", position=body.position,
                              variant=body.variant, size=size)
        options.check()
    except OptionsRefused as e:
        raise ApiError(422, e.code, e.message) from None
    except (ValueError, TypeError, KeyError, AttributeError) as e:
        raise ApiError(422, "bad_field", f"{e}") from None
    limits: Limits = request.app.state.limits
    ip = client_ip(request.scope)
    limits.check_tables(registry, session.player_id, ip)
    if body.bots is not None:
        if body.bots.count > size - 1:
            raise ApiError(422, "bad_field", f"bots.count: at most {size - 1} at a table of "
                           f"{size} seats (one is yours).")
        bots.check(body.bots.count, body.bots.pace, body.bots.reaction)
    store: Store = request.app.state.store
    if store.kind == "redis" and not await store.ping():
        raise ApiError(503, "store_unavailable", STORE_UNAVAILABLE)
    table, seat = await registry.create(body.mode, session, options)
    limits.table_created(table.code, session.player_id, ip)
    if body.bots is None:
        return CreatedOut(code=table.code, url=table.url, seat=seat)
    names = await bots.add(table, body.bots.level, body.bots.count, body.bots.reaction,
                           body.bots.pace)
    return CreatedOut(code=table.code, url=table.url, seat=seat, bots=names)


def classic_rules(preset: str, players: int, mode: str, options: dict[str, Any] | None,
                  timers: dict[str, float] | None) -> RuleSet:
    """A classic table's rules (C1, C2): ``engine.rules.table_rules``; ``mode`` ``single``
    makes the ``match`` option ``single`` (one hand), ``long`` refuses it; test ``timers``
    (``clock``, ``absence``, ``pause``: seconds above 0) replace those durations; chosen
    options outside what a server table plays are refused (``engine.rules.playable``). Raises
    :class:`OptionsRefused` (``bad_option``…) or ``ValueError``."""
    chosen = dict(options or {})
    if mode == "single":
        chosen["match"] = MatchEnd.SINGLE.value
    elif chosen.get("match") == MatchEnd.SINGLE.value:
        raise OptionsRefused("bad_option", "A long game is a match of several hands: its "
                             "match option is target, deals or threshold, not single.")
    rules = table_rules(preset, players, chosen)
    playable(chosen)  # a server table's floors and ceilings (engine.rules.PLAYABLE_*)
    if timers:
        rules = rules.with_timers(CLASSIC_TIMERS, **timers)
    return rules


@router.post("/{code}/join")
async def join_table(code: str, session: SessionDep, registry: RegistryDep) -> SeatOut:
    """Take a free seat; joining again with the same token gives the same seat."""
    table = await registry.open_required(code)
    seat = await table.join(session)
    return SeatOut(code=table.code, url=table.url, seat=seat)


@router.post("/{code}/bots")
async def add_bots(code: str, body: BotsIn, session: SessionDep, registry: RegistryDep,
                   bots: BotSeatsDep) -> BotsOut:
    """Seat bots in empty seats of a friendly table; only a player seated there may."""
    table = await registry.open_required(code)
    if table.seat_of(session.player_id) is None:
        raise ApiError(403, "not_seated", "Only a player seated at this table can add bots.")
    names = await bots.add(table, body.level, body.count, body.reaction, body.pace)
    return BotsOut(code=table.code, url=table.url, bots=names, seats=[s.name for s in table.seats])


@router.get("/{code}")
async def get_table(code: str, registry: RegistryDep) -> TableSummary:
    return (await registry.open_required(code)).summary()


class AgainOut(BaseModel):
    code: str
    url: str


@router.post("/{code}/again", status_code=201)
async def play_again(code: str, session: SessionDep, registry: RegistryDep, bots: BotSeatsDep,
                     request: Request) -> AgainOut:
    """Play again (``server.again``): the new table of this finished one, made on the first
    request with the same rules and bots, and the requester seated there."""
    old = await registry.open_required(code)
    limits: Limits = request.app.state.limits
    new = await again.play_again(old, session, registry, bots, limits, client_ip(request.scope))
    return AgainOut(code=new.code, url=new.url)


@router.post("/{code}/again/decline", status_code=204)
async def decline_again(code: str, session: SessionDep, registry: RegistryDep) -> Response:
    """Say no to this table's Play again: the seat joins ``declined``."""
    await again.decline(await registry.open_required(code), session, registry)
    return Response(status_code=204)
