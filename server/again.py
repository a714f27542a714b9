"""Play again (issue 17, point 5): a finished friendly table opens one new table for the next game.

``POST /api/tables/{code}/again`` by a player seated at a table whose game is over: the first
such request creates the new table, with the same mode, rules and timers (``DealOptions``, a
new seed), the requester in the first seat and the old table's bots seated again (same level
and pace); every connection of the old table is sent an ``again`` frame
(:class:`~server.protocol.AgainOut`: the new code, who asked, who declined), and the old
table's summary carries it from then on (a reconnection sees it in its snapshot). The same
request again, by anyone seated at the old table, gives the same new table (idempotent: one
new table per old table) and seats the requester there (accepting); a player who declined
and then accepts leaves ``declined``. ``POST .../again/decline`` adds the seat to
``declined``, unless that seat has already taken its place at the new table (the requester
always has).

Refusals (``docs/errors.md``): 403 ``not_seated``; 409 ``agora_table`` (the agora matches
its games: back to the queue), ``game_not_over``, ``no_again`` (decline before anyone asked),
``again_accepted`` (decline once seated at the new table);
the limits of a new table (``too_many_tables_open``, ``too_many_waiting_tables``,
``too_many_bots``, ``too_many_tables``) and ``table_full`` as for any table.
"""

from __future__ import annotations

import asyncio
import dataclasses
import secrets
from typing import Any

from .bots import BotSeats
from .errors import ApiError
from .inbox import NoSuchTable
from .limits import Limits
from .registry import TableRegistry
from .sessions import Session
from .tables import Table

#: The sentences of Play again's own refusals (the page translates them: ``ref.<code>``).
REFUSALS = {
    "agora_table": "Agora games are matched by the queue: join the queue for your next game.",
    "game_not_over": "This game is not over yet: Play again opens at its end.",
    "no_again": "Nobody has asked to play again at this table.",
    "again_accepted": "You are seated at the new table already: leave it there if you do not want to play.",
    "not_seated": "Only a player seated at this table can answer Play again.",
}

#: One request at a time per old table, so that two players asking at once make one table:
#: the lock and how many requests hold or wait for it. The entry goes when the last one is done
#: (dropping it as soon as the lock is free would hand a newcomer a second lock while a woken
#: waiter has not yet taken the first).
_locks: dict[str, tuple[asyncio.Lock, int]] = {}


def _refuse(status: int, code: str) -> ApiError:
    return ApiError(status, code, REFUSALS[code])


async def _look(old: Table, player_id: str) -> tuple[str, dict[str, Any] | None]:
    """The requester's seat at ``old`` and its Play again, after the checks of both routes."""
    def look() -> tuple[bool, str | None, str, dict[str, Any] | None]:
        return old.agora, old.seat_of(player_id), old.phase, old.again

    agora, seat, phase, again = await old.call(look)
    if agora:
        raise _refuse(409, "agora_table")
    if seat is None:
        raise _refuse(403, "not_seated")
    if phase != "over":
        raise _refuse(409, "game_not_over")
    return seat, again


async def play_again(old: Table, session: Session, registry: TableRegistry, bots: BotSeats,
                     limits: Limits, ip: str) -> Table:
    """The new table of ``old`` (made on the first request), with ``session`` seated there."""
    lock, users = _locks.get(old.code, (asyncio.Lock(), 0))
    _locks[old.code] = (lock, users + 1)
    try:
        async with lock:
            seat, again = await _look(old, session.player_id)
            if again is not None:
                new = await registry.open(str(again["code"]))
                if new is None:
                    raise NoSuchTable("no_such_table",
                                      f"The new table {again['code']} is gone: start a new one.")
                await new.join(session)

                def accept() -> None:  # from the table's Play again now: a decline meanwhile stays
                    now = old.again or again
                    if seat in now["declined"]:
                        old.set_again({**now, "declined": [n for n in now["declined"] if n != seat]})

                await old.call(accept)
                return new
            bot_levels = dict(old.bot_levels)
            limits.check_tables(registry, session.player_id, ip)
            bots.check(len(bot_levels))
            options = dataclasses.replace(old.options, seed=secrets.randbits(62))
            new, _ = await registry.create(old.mode, session, options)
            limits.table_created(new.code, session.player_id, ip)
            for level, reaction in bot_levels.values():
                await bots.add(new, level, 1, reaction)
            info = {"type": "again", "code": new.code, "by": seat, "declined": []}
            await old.call(lambda: old.set_again(info))
            old.tlog.info("play again", seat, new=new.code)
            return new
    finally:
        lock, users = _locks[old.code]
        if users == 1:
            del _locks[old.code]
        else:
            _locks[old.code] = (lock, users - 1)


async def decline(old: Table, session: Session, registry: TableRegistry) -> None:
    """``session``'s seat says no to the Play again of ``old``. Raises 409 ``no_again`` before
    anyone asked, 409 ``again_accepted`` once the seat is at the new table (it said yes)."""
    seat, again = await _look(old, session.player_id)
    if again is None:
        raise _refuse(409, "no_again")
    new = await registry.open(str(again["code"]))
    if new is not None and await new.call(lambda: new.seat_of(session.player_id)) is not None:
        raise _refuse(409, "again_accepted")

    def add() -> None:
        now = old.again or again
        if seat not in now["declined"]:
            old.set_again({**now, "declined": [*now["declined"], seat]})

    await old.call(add)
