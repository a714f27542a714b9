"""A table's seats and connections, a part of :class:`server.tables.Table`.

Seats: the first players to join take the seats (three at Machiavelox, ``size`` at a classic
table), under their display names made unique (``Ada``, ``Ada 2``). The last seat taken deals
the game (:class:`~server.journal.DealSpec`). A seat with no live
connection is disconnected in the game (absence, R18): when its last socket closes, and
``CONNECT_GRACE`` seconds after the deal if it has had none yet (the last player to join is
still opening the page: no notice about them at the deal); its first socket back reconnects it.
At an agora table a matched player who opens no socket within ``agora_no_show`` seconds of the
deal (20) has left the hand instead: −15, last place in the rating (issue 18, docs/rules.md 13.5).

A classic table (issue 16) has ``size`` seats (2–6, ``DealOptions.size``), dealt when the
last is taken; its absence rule is C31 (the match's absence clock makes a seat that stays
away leave the hand, so nobody waits for it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.errors import Refused
from engine.hand import Command

from .connection import Connection
from .durable import STORE_DOWN
from .frames import replay_text
from .inbox import Join, SeatInfo, StoreDown, TableFull
from .protocol import WelcomeOut, dump
from .table_commands import NUMBERS, engine_failed

if TYPE_CHECKING:
    from .tables import Table

#: Seconds (game time) a seat that has no socket at the deal has to open one before the game
#: is told it is disconnected (R18): the player who took the last seat over HTTP is still
#: opening the table's page; telling the others "lost the connection / is away / is back"
#: about them at every deal would be noise (issue 17).
CONNECT_GRACE = 10.0


def grace_over(t: Table, now: float) -> None:
    """Tell the game of the seats whose CONNECT_GRACE ran out without a socket (R18); at an
    agora table, the seats that never opened one have left the hand (13.5, a no-show)."""
    for name, until in list(t.grace.items()):
        if until > now:
            continue
        del t.grace[name]
        seat = seat_named(t, name)
        if seat is None or seat.live > 0 or t.game is None or name not in t.game.seats:
            continue
        if t.agora:
            t.tlog.info("agora no-show: left the hand", name)
            connection_command(t, name, "leave", now)
        elif t.game.seats[name].connected:
            connection_command(t, name, "disconnect", now)


# ---------------------------------------------------------------------------- seats

def seat_named(t: Table, name: str | None) -> SeatInfo | None:
    for s in t.seats:
        if s.name == name:
            return s
    return None


def join_seat(t: Table, item: Join) -> None:
    fut, session = item.future, item.session
    if fut.done():
        return
    mine = t.seat_of(session.player_id)
    if mine is not None:
        fut.set_result(mine)
        return
    if len(t.seats) >= t.size:
        fut.set_exception(TableFull("table_full", f"The {NUMBERS.get(t.size, t.size)}"
                                    " seats of this table are taken."))
        return
    if t.time.stopped:
        fut.set_exception(StoreDown("store_unavailable", STORE_DOWN))
        return
    taken = {s.name for s in t.seats}
    name = session.name
    n = 2
    while name in taken:
        name = f"{session.name} {n}"
        n += 1
    t.seats.append(SeatInfo(session.player_id, name))
    t.tlog.info("seat taken", name, seats=len(t.seats))
    if t.epoch:
        t.joins.append((fut, name))  # resolved once the store has the seat
        t.meta_dirty = True
    else:
        fut.set_result(name)
    if len(t.seats) == t.size:
        deal(t)
    else:
        t._broadcast_table()


def deal(t: Table) -> None:
    t.spec = t.options.resolve([s.name for s in t.seats])
    t.game = t.spec.new_game()
    t.time.start()
    t.tlog.info("game dealt", long=t.spec.long, rules=t.spec.rules.name)
    t._broadcast_table()
    t._flush(0.0, None, journal=False)
    # A seat with no socket yet (its player joined over HTTP a moment ago and is opening
    # the page, or a bot is starting) is told disconnected only if none comes in time.
    grace = t.settings.agora_no_show if t.agora else CONNECT_GRACE
    t.grace = {s.name: grace for s in t.seats if s.live == 0}


def connection_command(t: Table, seat: str, do: str, now: float | None = None) -> None:
    """Tell the game a seat's connection dropped or came back (R18). Not while game time
    is stopped: the game is told when it runs again (``server.durable``)."""
    if t.game is None or t.time.stopped:
        return
    now = t._now() if now is None else now
    cmd = Command(seat, do)
    try:
        t.game.apply(cmd, now)
    except Refused as e:
        t.tlog.debug("connection event refused", seat, do=do, code=e.code)
    except Exception as e:  # noqa: BLE001 - an engine bug: undo it (table_commands.rebuild)
        engine_failed(t, now, cmd, e)
        return
    t.tlog.info("seat " + do + "ed", seat)
    t._flush(now, cmd)


# ---------------------------------------------------------------------------- connections

def attach(t: Table, conn: Connection, last_version: int | None) -> None:
    if conn.dropped:
        return
    t.conns[conn.id] = conn
    seat = seat_named(t, conn.seat)
    if seat is not None:
        seat.live += 1
    t.tlog.info("connection attached", conn.seat, conn=conn.id, last_version=last_version)
    send_state(t, conn, last_version)
    if seat is not None and seat.live == 1:
        t.grace.pop(seat.name, None)
        if t.game is None:
            t._broadcast_table()
        elif not t.game.seats[seat.name].connected:
            connection_command(t, seat.name, "reconnect")


def send_state(t: Table, conn: Connection, last_version: int | None) -> None:
    """welcome, the missed events when they are still kept, then a snapshot."""
    # Bring the clocks to now first, so the snapshot's times (view ``t``) are fresh:
    # a spectator arriving mid-hand must not see countdowns from the last command.
    t._tick()
    head = t.events.head
    t._send(conn, dump(WelcomeOut(seat=conn.seat, code=t.code, version=head)))
    if last_version is not None and 0 <= last_version < head and t.game is not None:
        missed = t.events.since(last_version)
        if missed is not None:
            t._send(conn, replay_text(head, missed, conn.seat))
    t._send(conn, t.feed.snapshot(head, t.game, conn.seat, t.summary()))


def unregister(t: Table, conn: Connection) -> None:
    if t.conns.pop(conn.id, None) is None:
        return
    t.tlog.info("connection detached", conn.seat, conn=conn.id,
                reason=conn.drop_reason or "closed")
    seat = seat_named(t, conn.seat)
    if seat is None:
        return
    seat.live -= 1
    if seat.live == 0:
        if t.game is None:
            t._broadcast_table()
        elif t.game.seats[seat.name].connected:
            connection_command(t, seat.name, "disconnect")
