"""A table's commands (a part of :class:`server.tables.Table`): a seat's command through the
table's variant (``server.variant``) into the engine, its reply, and what an engine failure
undoes (the game rebuilt from its journal without the failed call).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING

from engine.errors import Refused

from .connection import Connection
from .durable import STORE_DOWN
from .journal import AnyCommand, TableGame, replay
from .protocol import AckOut, CommandIn, RefusedOut, dump, dump_reply
from .variant import command_for

if TYPE_CHECKING:
    from .tables import Table

#: Seat counts in words, for the sentences of a table of 2–6 seats.
NUMBERS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}

#: The server's own refusals, beside the engine's (``engine.errors.MESSAGES``).
SERVER_REFUSALS = {
    "not_seated": "You are watching: only the three seated players play.",
    "not_started": "The hand has not been dealt yet: waiting for three players.",
    "internal_error": "The server failed on that command; the failure is logged for the developers.",
}


def seat_sentence(code: str, size: int) -> str:
    """:data:`SERVER_REFUSALS`'s sentence of ``code`` for a table of ``size`` seats."""
    return SERVER_REFUSALS[code].replace("three", NUMBERS.get(size, str(size)))


def reply(t: Table, conn: Connection, text: str) -> None:
    if conn.id in t.conns:
        t._send(conn, text)


def submit(t: Table, conn: Connection, msg: CommandIn) -> None:
    """Carry out a seat's command (``server.variant.command_for`` makes the engine's): the
    update it caused goes out first, then its ``ack`` (with what it ``made``) or ``refused``.
    A repeated id gets the reply it had (the last ``replies_kept`` per seat)."""
    if conn.id not in t.conns:
        return  # dropped meanwhile: the client resends after resyncing
    seat = conn.seat
    if seat is None:
        reply(t, conn, dump(RefusedOut(id=msg.id, code="not_seated",
                                       message=seat_sentence("not_seated", t.size))))
        return
    key = f"{type(msg.id).__name__}:{msg.id}"
    replies = t._replies.setdefault(seat, OrderedDict())
    cached = replies.get(key)
    if cached is not None:
        t.tlog.debug("command repeated", seat, id=msg.id)
        reply(t, conn, cached)
        return
    if t.game is None:
        reply(t, conn, dump(RefusedOut(id=msg.id, code="not_started",
                                       message=seat_sentence("not_started", t.size))))
        return
    if t.time.stopped:  # the store fails: nothing may change (server.durable)
        reply(t, conn, dump(RefusedOut(id=msg.id, code="store_unavailable",
                                       message=STORE_DOWN)))
        return
    now = t._now()
    text: str
    failed = False
    made: dict[str, int] = {}
    cmd: AnyCommand | None = None
    try:
        cmd = command_for(t.options, seat, msg)  # the variant's commands only
        made = t.game.apply(cmd, now)
    except Refused as e:
        text = dump_reply(RefusedOut(id=msg.id, code=e.code, message=e.message))
        t.tlog.debug("command", seat, do=msg.do, outcome="refused", code=e.code)
    except Exception as e:  # noqa: BLE001 - an engine bug must not kill the table
        engine_failed(t, now, cmd, e)
        failed = True
        text = dump_reply(RefusedOut(id=msg.id, code="internal_error",
                                     message=SERVER_REFUSALS["internal_error"]))
    else:
        text = ""
    t._ref = msg.id
    try:
        version = None if failed else t._flush(now, cmd)
    finally:
        t._ref = None
    if version is not None and t.epoch:
        t.answered.append((conn, seat, key, msg.id))
    if t.metrics is not None:
        t.metrics.command_outcomes[
            "internal_error" if failed else "refused" if text else "ack"].inc()
    if not text:
        text = dump_reply(AckOut(id=msg.id, version=t.events.head, made=made))
        t.tlog.debug("command", seat, do=msg.do, outcome="ack", version=version)
    replies[key] = text
    while len(replies) > t.settings.replies_kept:
        replies.popitem(last=False)
    reply(t, conn, text)


def engine_failed(t: Table, now: float, cmd: AnyCommand | None, error: Exception) -> None:
    """The engine raised (not ``Refused``) in ``apply(cmd)`` or, ``cmd`` None, in
    ``tick``: log it, keep it in :attr:`failures`, and undo whatever it did."""
    t.tlog.exception("engine failed", cmd.player if cmd else None,
                     do=cmd.do if cmd else "tick")
    if cmd is not None:
        t.failures.append((now, cmd, repr(error)))
    rebuild(t)


def rebuild(t: Table) -> None:
    """Make the game again from the deal and the journal, leaving out the call that just
    failed (it was not journalled): what it changed, and the events it queued, are gone.
    The clocks are those of the last journalled call; the next tick brings them to now."""
    assert t.spec is not None
    game: TableGame | None = None
    for _, rebuilt, _ in replay(t.spec, t.journal):
        game = rebuilt
    assert game is not None
    game.drain_events()
    t.game = game
    t.tlog.warning("game rebuilt from its journal", entries=len(t.journal))
