"""What goes into a table's inbox, its seats, and its errors (``server.tables``).

A table's task (:class:`server.tables.Table`) takes these items one at a time, in arrival
order: :class:`Join` (a seat, over HTTP), :class:`Attach`, :class:`Resync` and :class:`Detach`
(a websocket), :class:`Submit` (a command), :class:`Call` (a look at its state). A
:class:`TableError` carries a stable ``code`` and a sentence for the player
(``docs/errors.md``), and the HTTP status it is answered with.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from .connection import Connection
from .protocol import CommandIn
from .sessions import Session

Mode = Literal["single", "long"]


class TableError(Exception):
    """A table-level failure with a stable ``code`` and a sentence (HTTP 4xx)."""

    status = 400

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class TableFull(TableError):
    status = 409


class NoSuchTable(TableError):
    status = 404


class TooManyTables(TableError):
    status = 503


class StoreDown(TableError):
    """The store did not take the change (a durable table): nothing changed (503)."""

    status = 503


class TableMoved(TableError):
    """Another process owns the table now (``server.lease``): ask again (503)."""

    status = 503


class TooManyWaiting(TableError):
    """One player holding too many tables that wait for players (a flood of creations)."""

    status = 429


# ---------------------------------------------------------------------------- inbox items


@dataclass
class Join:
    session: Session
    future: asyncio.Future[str]


@dataclass
class Attach:
    conn: Connection
    last_version: int | None


@dataclass
class Resync:
    conn: Connection
    last_version: int | None


@dataclass
class Detach:
    conn: Connection


@dataclass
class Submit:
    conn: Connection
    msg: CommandIn
    #: ``time.perf_counter()`` when the socket's message was read (0: unknown), for the
    #: command-to-broadcast latency metric.
    received: float = 0.0


@dataclass
class Call:
    """Run ``fn()`` inside the table's task (a consistent look at its state)."""

    fn: Callable[[], Any]
    future: asyncio.Future[Any]


class Stop:
    """Ends the table's task (:meth:`server.tables.Table.stop`)."""


InboxItem = Join | Attach | Resync | Detach | Submit | Call | Stop


@dataclass
class SeatInfo:
    player_id: str
    name: str
    live: int = 0  # open connections
