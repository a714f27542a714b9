"""The agora (§13, R22): players queue, groups of three are matched and play one competitive
single hand; each finished agora hand's points go to the public ranking.

One asyncio task owns the agora of a process (STYLE 6) and consumes its inbox in order:
sockets entering and leaving, ``join`` and ``leave`` messages, and a tick every
``AGORA_TICK`` seconds. The queue lives in the store (``Store.queue_*``: FIFO, idempotent
join, groups of three popped at once by one atomic script), shared by every process on one
Redis; the sockets live in the process that accepted them. A player is in the queue only while
one of their agora sockets is open: closing the last one leaves the queue. Each entry has a
liveness lease (``QUEUE_ALIVE``, 5 s) that the process holding the player's socket renews at
every tick, so that the entries of a process that died drop out within seconds; no process
start clears the queue.

Across processes: whichever process takes a group creates the table and tells the members
it holds at once; it keeps each member's ``matched`` message with their live game in the
store (``Store.agora_seated``), and every process holding one of their sockets sends it at its
next tick (once: a player's sockets may be on several processes, one account logged in
twice). (``Store.agora_post``/``agora_take``, a message taken by one process, are still read.) At every tick each process also sends its waiting players
their position when it changed, so positions reach everyone wherever connected.

When three are matched, the agora creates a table in ``single`` mode marked ``agora`` (its
finished hand goes to the ranking, see ``server.tables``), seats the three in queue order and
tells each player's sockets ``matched`` with the table code and their seat; the clients then
connect to ``/ws/{code}`` as for any table.

Fair matching (issue 18): who plays whom is :func:`server.matching.choose_group` (close
ratings first, widening with waiting time; not the same three twice in a row when others
wait), tried at every join and every tick; the chosen three are taken out of the queue at
once (``Store.queue_take``, which fails when another process took one of them first) and
marked as seated at a live agora game (``Store.agora_seated``) until their hand is counted.
A player id has one place in the queue (a logged-in player's id is their account's: one
account never takes two seats), and joining while seated at a live agora game is refused
(``already_playing``).

Messages (``docs/protocol.md``, "Agora"), client → server: :class:`JoinIn`, :class:`LeaveIn`,
``ping``; server → client: :class:`QueuedOut`, :class:`LeftOut`, :class:`MatchedOut`,
:class:`AgoraErrorOut` (codes: ``bad_json``, ``unknown_type``, ``bad_field``, ``too_large``,
``test_deals_off``, ``too_many_tables``, ``already_playing``, ``store_unavailable``: the store
did not answer, join again later; ``account_needed``: a guest's join, refused by
``server.api.agora``), ``pong``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, TypeAdapter, ValidationError

from .connection import Connection
from .inbox import TableError
from .journal import DealOptions
from .logs import TableLog
from .matching import GROUP, Waiting, choose_group
from .metrics import Metrics
from .rating import initial
from .registry import TableRegistry
from .sessions import Session
from .settings import Settings
from .store import QueueEntry, Store, StoreError

#: Seconds between two agora ticks: liveness renewed, messages taken, positions sent.
AGORA_TICK = 1.0

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
    """You wait in the queue at ``position`` (1: next); ``waiting`` players in all; you have
    waited ``waited`` seconds (the client counts on from there). Sent on joining and whenever
    the queue before you changes."""

    type: Literal["queued"] = "queued"
    position: int
    waiting: int
    waited: float = 0.0


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
                  "too_many_tables", "already_playing", "store_unavailable", "account_needed"]
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


class Tick:
    pass


Item = Enter | Join | Leave | Exit | Tick | _Stop


# ---------------------------------------------------------------------------- the agora


class Agora:
    """Matchmaking for one server: its task, its sockets, the store's queue."""

    def __init__(self, registry: TableRegistry, store: Store, settings: Settings,
                 metrics: Metrics | None = None, clock: Callable[[], float] = time.time) -> None:
        #: Wall-clock seconds (Unix time: shared by processes for waiting times); tests pass one.
        self.clock = clock
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
        self._told: dict[str, tuple[int, int]] = {}  # the last position sent, by player
        self._sent: dict[str, str] = {}  # the last matched message sent, by player
        self._task: asyncio.Task[None] | None = None
        self._ticker: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Start the task and its ticker (the queue is not cleared: other processes share it)."""
        loop = asyncio.get_running_loop()
        self._task = loop.create_task(self._run(), name="agora")
        self._ticker = loop.create_task(self._tick_forever(), name="agora-tick")

    async def _tick_forever(self) -> None:
        while True:
            await asyncio.sleep(AGORA_TICK)
            if self.by_player and self.inbox.empty():
                await self.put(Tick())

    async def close(self) -> None:
        for task in (self._ticker, self._task):
            if task is not None and not task.done():
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task

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
        elif isinstance(item, Tick):
            await self._tick()

    async def _tick(self) -> None:
        """Renew the liveness of the players waiting here, hand them the ``matched`` messages
        other processes left, and tell them their position when it changed."""
        here = list(self.by_player)
        if not here:
            return
        await self.store.queue_touch(here)
        for pid, text in (await self.store.agora_take(here)).items():
            self.options.pop(pid, None)
            self._told.pop(pid, None)
            self._send_player(pid, text)
        # A group matched elsewhere, or by this process for a player whose other sockets are
        # elsewhere: the live game's ``matched`` message, sent once from here.
        for pid, state in (await self.store.agora_state(here)).items():
            if state.matched and state.live not in (None, "*") and self._sent.get(pid) != state.matched:
                self._sent[pid] = state.matched
                self.options.pop(pid, None)
                self._told.pop(pid, None)
                self._send_player(pid, state.matched)
        await self._match()  # windows widen with time: a group may be possible now
        await self._tell_positions()

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
        live = await self._live_game(pid)
        if live is not None:
            conn.send(dump(AgoraErrorOut(
                code="already_playing",
                message=f"You are already playing an agora game (table {live}): finish it "
                        "before joining the queue again." if live != "*" else
                        "You are being seated at an agora game.")))
            return
        new = await self.store.queue_join(pid, session.name, since=self.clock())
        self._told.pop(pid, None)  # a join is always answered with the position
        if options is not None and (new or pid not in self.options):
            self.options[pid] = options
        self.log.info("agora joined" if new else "agora join again", seat=session.name)
        await self._match()
        await self._tell_positions()

    async def _live_game(self, player_id: str) -> str | None:
        """The code of the player's live agora game (``*``: being seated), or None. A table
        this process holds whose game is over does not count (its hand is being counted)."""
        live = (await self.store.agora_state([player_id]))[player_id].live
        if live is not None and live != "*":
            table = self.registry.get(live)
            if table is not None and table.phase == "over":
                return None
        return live

    async def _leave(self, player_id: str) -> None:
        self.options.pop(player_id, None)
        self._told.pop(player_id, None)
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
            self._sent.pop(pid, None)
            await self._leave(pid)
            self.sessions.pop(pid, None)

    async def _tell_positions(self) -> None:
        """Send each player waiting here their place, when it is not what they were told."""
        members = await self.store.queue_members()
        if self.metrics is not None:
            self.metrics.agora_waiting.set(len(members))
        now = self.clock()
        for i, entry in enumerate(members, 1):
            place = (i, len(members))
            if entry.player_id in self.by_player and self._told.get(entry.player_id) != place:
                self._told[entry.player_id] = place
                waited = round(max(0.0, now - entry.since), 1) if entry.since else 0.0
                self._send_player(entry.player_id, dump(
                    QueuedOut(position=i, waiting=len(members), waited=waited)))

    async def _match(self) -> None:
        """Start a game for every group :func:`~server.matching.choose_group` makes of the
        queue (``Store.queue_take`` takes a group at once, or nobody when another process
        took one of them first: then the queue is read again)."""
        for _ in range(100):  # bounded: each round either starts a game or stops
            members = await self.store.queue_members()
            if len(members) < GROUP:
                return
            ids = [m.player_id for m in members]
            ratings = await self.store.ratings(ids)
            states = await self.store.agora_state(ids)
            default = initial().mu
            waiting = [Waiting(m.player_id, ratings[m.player_id].mu if m.player_id in ratings
                               else default, m.since, states[m.player_id].last)
                       for m in members]
            chosen = choose_group(waiting, self.clock())
            if chosen is None:
                return
            group = await self.store.queue_take(chosen)
            if group is None:
                continue  # another process took one of them: look again
            # Every member is live (the take checked their leases); those connected to other
            # processes are told through the store (see the module docstring).
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
            with contextlib.suppress(StoreError):  # else the seating marks expire by themselves
                await self.store.agora_seated([s.player_id for s in sessions], None)
            return
        self.matched += 1
        self.log.info("agora matched", code=table.code, players=",".join(seats))
        texts: dict[str, str] = {}
        for s, seat in zip(sessions, seats):
            text = texts[s.player_id] = dump(MatchedOut(code=table.code, url=table.url,
                                                         seat=seat, players=seats))
            self._told.pop(s.player_id, None)
            if s.player_id in self.by_player:
                self._sent[s.player_id] = text
                self._send_player(s.player_id, text)
        try:  # their live game (the take marked them for SEATING_TTL seconds meanwhile), and
            # its matched message for the processes holding their other sockets
            await self.store.agora_seated([s.player_id for s in sessions], table.code, texts)
        except StoreError:
            self.log.warning("agora live games not recorded", code=table.code)
