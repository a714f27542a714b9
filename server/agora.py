"""The agora (§13, R22): players queue, groups of three are matched and play one competitive
single hand; each finished agora hand's points go to the public ranking.

One asyncio task owns the agora (STYLE 6) and consumes its inbox in order: sockets entering
and leaving, ``join`` and ``leave`` messages. The queue itself lives in the store
(``Store.queue_*``: FIFO, idempotent join, groups of three popped at once), so that a Redis
store could share it; the sockets live here. A player is in the queue only while one of their
agora sockets is open: closing the last one leaves the queue, and the queue is emptied when
the server starts (nobody from before a restart is still connected). With several server
processes on one Redis, a group popped by one process whose members are connected to another
is not matched: the members this process knows go back to the end of the queue (one process
is the supported setup).

When three are matched, the agora creates a table in ``single`` mode marked ``agora`` (its
finished hand goes to the ranking, see ``server.tables``), seats the three in queue order and
tells each player's sockets ``matched`` with the table code and their seat; the clients then
connect to ``/ws/{code}`` as for any table.

Messages (``docs/protocol.md``, "Agora"), client → server: :class:`JoinIn`, :class:`LeaveIn`,
``ping``; server → client: :class:`QueuedOut`, :class:`LeftOut`, :class:`MatchedOut`,
:class:`AgoraErrorOut` (codes: ``bad_json``, ``unknown_type``, ``bad_field``, ``too_large``,
``test_deals_off``, ``too_many_tables``, ``store_unavailable``: the store did not answer, join
again later), ``pong``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, TypeAdapter, ValidationError

from .connection import Connection
from .journal import DealOptions
from .logs import TableLog
from .metrics import Metrics
from .registry import TableRegistry
from .sessions import Session
from .settings import Settings
from .store import QueueEntry, Store, StoreError
from .tables import TableError

#: Players per agora hand.
GROUP = 3

# ---------------------------------------------------------------------------- messages


class _In(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class JoinIn(_In):
    """``{"type": "join"}``: enter the queue (again: keeps the place). Test only
    (``MACHIAVELOX_TEST_DEALS=1``): ``seed``, ``position``, ``timers`` as in ``POST
    /api/tables``; the first member of a group who gave them deals the group's hand."""

    type: Literal["join"]
    seed: StrictInt | None = Field(None, ge=0, le=2**62)
    position: dict[str, Any] | None = None
    timers: dict[str, float] | None = None


class LeaveIn(_In):
    """``{"type": "leave"}``: leave the queue (the socket stays open)."""

    type: Literal["leave"]


class AgoraPingIn(_In):
    type: Literal["ping"]


AgoraMessage = Annotated[JoinIn | LeaveIn | AgoraPingIn, Field(discriminator="type")]
_adapter: TypeAdapter[JoinIn | LeaveIn | AgoraPingIn] = TypeAdapter(AgoraMessage)


class _Out(BaseModel):
    model_config = ConfigDict(frozen=True)


class QueuedOut(_Out):
    """You wait in the queue at ``position`` (1: next); ``waiting`` players in all. Sent on
    joining and whenever the queue before you changes."""

    type: Literal["queued"] = "queued"
    position: int
    waiting: int


class LeftOut(_Out):
    type: Literal["left"] = "left"


class MatchedOut(_Out):
    """You were matched: connect to ``/ws/{code}``; ``seat`` is your seat name, ``players``
    the three seats in order."""

    type: Literal["matched"] = "matched"
    code: str
    url: str
    seat: str
    players: list[str]


class AgoraErrorOut(_Out):
    type: Literal["error"] = "error"
    code: Literal["bad_json", "unknown_type", "bad_field", "too_large", "test_deals_off",
                  "too_many_tables", "store_unavailable"]
    message: str


def dump(msg: _Out) -> str:
    """The JSON text of an agora message; an ``error`` frame when it cannot be encoded (a
    sentence quoting a client's lone surrogate): never raises."""
    try:
        return msg.model_dump_json()
    except Exception:  # noqa: BLE001 - PydanticSerializationError
        return AgoraErrorOut(code="bad_field", message="The message holds a character that is "
                             "not printable.").model_dump_json()


def parse(raw: str | bytes | None, max_bytes: int) -> JoinIn | LeaveIn | AgoraPingIn | AgoraErrorOut:
    """One agora message, or the error to answer it with. Never raises."""
    try:
        if raw is None:
            return AgoraErrorOut(code="bad_json", message="Empty message.")
        if len(raw) > max_bytes:
            return AgoraErrorOut(code="too_large", message=f"Messages are at most {max_bytes} bytes.")
        try:
            data = json.loads(raw)
        except (ValueError, RecursionError) as e:
            return AgoraErrorOut(code="bad_json", message=f"Not JSON: {e}.")
        if not isinstance(data, dict):
            return AgoraErrorOut(code="bad_json", message="A message is a JSON object.")
        if data.get("type") not in ("join", "leave", "ping"):
            return AgoraErrorOut(code="unknown_type",
                                 message=f"Unknown message type {data.get('type')!r}: "
                                         "one of join, leave, ping.")
        return _adapter.validate_python(data)
    except ValidationError as e:
        first = e.errors(include_url=False)[0]
        loc = ".".join(str(x) for x in first.get("loc", ())[1:])
        return AgoraErrorOut(code="bad_field", message=f"{loc}: {first.get('msg', 'invalid')}")
    except Exception as e:  # noqa: BLE001 # pragma: no cover - parsing must never kill a socket
        return AgoraErrorOut(code="bad_json", message=f"Unreadable message ({type(e).__name__}).")


# ---------------------------------------------------------------------------- inbox items


@dataclass
class Enter:
    conn: Connection
    session: Session


@dataclass
class Join:
    conn: Connection
    msg: JoinIn


@dataclass
class Leave:
    conn: Connection


@dataclass
class Exit:
    conn: Connection


class _Stop:
    pass


Item = Enter | Join | Leave | Exit | _Stop


# ---------------------------------------------------------------------------- the agora


class Agora:
    """Matchmaking for one server: its task, its sockets, the store's queue."""

    def __init__(self, registry: TableRegistry, store: Store, settings: Settings,
                 metrics: Metrics | None = None) -> None:
        self.registry = registry
        self.store = store
        self.settings = settings
        self.metrics = metrics
        self.log = TableLog("AGORA")
        self.inbox: asyncio.Queue[Item] = asyncio.Queue(settings.inbox_size)
        self.conns: dict[int, Connection] = {}
        self.sessions: dict[str, Session] = {}
        self.by_player: dict[str, set[int]] = {}
        self.options: dict[str, DealOptions] = {}  # test-only deals, by queued player
        self.matched = 0  # groups matched since start
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Empty the queue (see the module docstring) and start the task."""
        try:
            await self.store.queue_clear()
        except Exception:
            self.log.exception("agora queue clear failed")
        self._task = asyncio.get_running_loop().create_task(self._run(), name="agora")

    async def close(self) -> None:
        if self._task is not None and not self._task.done():
            self._task.cancel()
            with contextlib.suppress(BaseException):
                await self._task

    async def put(self, item: Item) -> None:
        await self.inbox.put(item)

    async def waiting(self) -> int:
        return len(await self.store.queue_members())

    # ------------------------------------------------------------ the task

    async def _run(self) -> None:
        while True:
            item = await self.inbox.get()
            if isinstance(item, _Stop):
                return
            try:
                await self._handle(item)
            except StoreError:
                # The queue lives in the store: a join or leave it could not record is told
                # so (join again later); a socket's exit is forgotten with it.
                self.log.warning("agora store unavailable", item=type(item).__name__)
                if self.metrics is not None:
                    self.metrics.store_errors.labels("agora").inc()
                if isinstance(item, (Join, Leave)):
                    item.conn.send(dump(AgoraErrorOut(
                        code="store_unavailable",
                        message="The game store is not answering: join again in a moment.")))
            except Exception:
                self.log.exception("agora step failed", item=type(item).__name__)
                if self.metrics is not None:
                    self.metrics.store_errors.labels("agora").inc()

    async def _handle(self, item: Item) -> None:
        if isinstance(item, Enter):
            conn = item.conn
            self.conns[conn.id] = conn
            self.sessions[item.session.player_id] = item.session
            self.by_player.setdefault(item.session.player_id, set()).add(conn.id)
        elif isinstance(item, Join):
            await self._join(item.conn, item.msg)
        elif isinstance(item, Leave):
            if item.conn.id in self.conns and item.conn.player_id is not None:
                await self._leave(item.conn.player_id)
                item.conn.send(dump(LeftOut()))
        elif isinstance(item, Exit):
            await self._exit(item.conn)

    def _send_player(self, player_id: str, text: str) -> None:
        for cid in self.by_player.get(player_id, ()):
            conn = self.conns.get(cid)
            if conn is not None:
                conn.send(text)

    def _deal_options(self, msg: JoinIn) -> DealOptions | AgoraErrorOut | None:
        test_only = [k for k in ("seed", "position", "timers") if getattr(msg, k) is not None]
        if not test_only:
            return None
        if not self.settings.test_deals:
            return AgoraErrorOut(code="test_deals_off",
                                 message=f"{', '.join(test_only)}: only on a server started with "
                                         "MACHIAVELOX_TEST_DEALS=1.")
        rules = self.settings.rules()
        try:
            if msg.timers:
                rules = rules.with_timers(**msg.timers)
            options = DealOptions(seed=secrets.randbits(62) if msg.seed is None else msg.seed,
                                  rules=rules, position=msg.position)
            options.check()
        except (ValueError, TypeError, KeyError, AttributeError) as e:
            return AgoraErrorOut(code="bad_field", message=str(e))
        return options

    async def _join(self, conn: Connection, msg: JoinIn) -> None:
        if conn.id not in self.conns or conn.player_id is None:
            return
        options = self._deal_options(msg)
        if isinstance(options, AgoraErrorOut):
            conn.send(dump(options))
            return
        pid = conn.player_id
        session = self.sessions[pid]
        new = await self.store.queue_join(pid, session.name)
        if options is not None and (new or pid not in self.options):
            self.options[pid] = options
        self.log.info("agora joined" if new else "agora join again", seat=session.name)
        await self._match()
        await self._tell_positions()

    async def _leave(self, player_id: str) -> None:
        self.options.pop(player_id, None)
        if await self.store.queue_leave(player_id):
            session = self.sessions.get(player_id)
            self.log.info("agora left", seat=session.name if session else player_id)
            await self._tell_positions()

    async def _exit(self, conn: Connection) -> None:
        if self.conns.pop(conn.id, None) is None or conn.player_id is None:
            return
        pid = conn.player_id
        mine = self.by_player.get(pid, set())
        mine.discard(conn.id)
        if not mine:
            self.by_player.pop(pid, None)
            await self._leave(pid)
            self.sessions.pop(pid, None)

    async def _tell_positions(self) -> None:
        members = await self.store.queue_members()
        if self.metrics is not None:
            self.metrics.agora_waiting.set(len(members))
        for i, entry in enumerate(members, 1):
            self._send_player(entry.player_id, dump(QueuedOut(position=i, waiting=len(members))))

    async def _match(self) -> None:
        """Start a game for every group of three waiting."""
        while True:
            group = await self.store.queue_pop(GROUP)
            if group is None:
                return
            present = [e for e in group if e.player_id in self.by_player]
            if len(present) < GROUP:
                # Someone this process does not know (another process's socket, or gone):
                # the others go back to the end of the queue.
                for e in present:
                    await self.store.queue_join(e.player_id, e.name)
                continue
            await self._start_game(group)

    async def _start_game(self, group: list[QueueEntry]) -> None:
        sessions = [self.sessions.get(e.player_id) or Session(e.player_id, e.name) for e in group]
        options = next((self.options[e.player_id] for e in group if e.player_id in self.options),
                       None)
        for e in group:
            self.options.pop(e.player_id, None)
        if options is None:
            options = DealOptions(seed=secrets.randbits(62), rules=self.settings.rules())
        try:
            table, first = await self.registry.create("single", sessions[0], options, agora=True)
            seats = [first] + [await table.join(s) for s in sessions[1:]]
        except TableError as e:
            self.log.warning("agora match failed", code=e.code)
            for s in sessions:
                self._send_player(s.player_id, dump(AgoraErrorOut(
                    code="too_many_tables" if e.code == "too_many_tables" else "bad_field",
                    message=e.message)))
            return
        self.matched += 1
        self.log.info("agora matched", code=table.code, players=",".join(seats))
        for s, seat in zip(sessions, seats):
            self._send_player(s.player_id, dump(MatchedOut(code=table.code, url=table.url,
                                                           seat=seat, players=seats)))
