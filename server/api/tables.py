"""Friendly tables: create one (single game or long game), join it by its invite code, look.

The test-only fields of ``POST /api/tables`` (``seed``, ``position``, ``players``, ``timers``)
are refused unless the server runs with ``MACHIAVELOX_TEST_DEALS=1``.
"""

from __future__ import annotations

import secrets
from typing import Any, Literal

from fastapi import APIRouter
from pydantic import BaseModel, Field, StrictInt

from ..deps import RegistryDep, SessionDep, SettingsDep
from ..errors import ApiError
from ..protocol import TableSummary
from ..tables import DealOptions

router = APIRouter(prefix="/api/tables")


class CreateTableIn(BaseModel):
    mode: Literal["single", "long"] = "single"
    # Test only (MACHIAVELOX_TEST_DEALS=1):
    seed: StrictInt | None = Field(None, ge=0, le=2**62)
    position: dict[str, Any] | None = None
    timers: dict[str, float] | None = None


class SeatOut(BaseModel):
    code: str
    url: str
    seat: str


@router.post("")
async def create_table(body: CreateTableIn, session: SessionDep, registry: RegistryDep,
                       settings: SettingsDep) -> SeatOut:
    """Create a table; the creator takes the first seat."""
    test_only = [k for k in ("seed", "position", "timers") if getattr(body, k) is not None]
    if test_only and not settings.test_deals:
        raise ApiError(403, "test_deals_off",
                       f"{', '.join(test_only)}: only on a server started with MACHIAVELOX_TEST_DEALS=1.")
    rules = settings.rules()
    try:
        if body.timers:
            rules = rules.with_timers(**body.timers)
        options = DealOptions(seed=secrets.randbits(62) if body.seed is None else body.seed,
                              rules=rules, long=body.mode == "long", position=body.position)
        options.check()
    except (ValueError, TypeError, KeyError, AttributeError) as e:
        raise ApiError(422, "bad_field", f"{e}") from None
    table, seat = await registry.create(body.mode, session, options)
    return SeatOut(code=table.code, url=table.url, seat=seat)


@router.post("/{code}/join")
async def join_table(code: str, session: SessionDep, registry: RegistryDep) -> SeatOut:
    """Take a free seat; joining again with the same token gives the same seat."""
    table = registry.require(code)
    seat = await table.join(session)
    return SeatOut(code=table.code, url=table.url, seat=seat)


@router.get("/{code}")
async def get_table(code: str, registry: RegistryDep) -> TableSummary:
    return registry.require(code).summary()
