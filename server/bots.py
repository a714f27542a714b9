"""Bot seats and hints for friendly tables (issue 7).

**Bot seats.** ``POST /api/tables/{code}/bots`` (or ``bots`` in the create body) seats bots at
a friendly table: each bot gets a session like a person (``Sessions.issue``), takes a seat
through the table's inbox (``Table.join``), and plays as a :class:`bots.client.BotPlayer`, an
asyncio task of this server.

A bot seat talks to its table **in process**, over :class:`LocalLink`, and not over a
websocket to the server's own port: the server does not reliably know an address at which it
can reach itself (``0.0.0.0``, port 0 in tests, a proxy or TLS in front, Docker), and a socket
back to itself would cost two protocol stacks per frame and count against the per-socket rate
limits. The link uses the same message path as a websocket: what the bot sends is parsed by
``server.protocol.parse_client`` and handed to the table by ``server.api.ws._dispatch``
(``Attach``, ``Submit``, ``Resync``), and what it receives are the very frames the table queues
for a socket of that seat (a :class:`~server.connection.Connection` whose socket is the link),
so it sees exactly what a player sees and nothing else. A bot too slow to read is dropped like
any socket and resumes.

The solver runs in one worker thread for all the bots and hints of the server
(:data:`THINKER`), so thinking never blocks the event loop and never takes more than one core.

**Pace.** A bot seat plays at pace ``"human"`` (``bots.pace``: a person's reaction and
thinking times by level, no bursts of draws), unless it was seated with a ``reaction`` (then
pace ``"none"``: that many seconds between commands, what tests and scripts ask for). The table
keeps ``(level, reaction)`` per bot seat (``Table.bot_levels``), and a reaction of ``None``
there means the human pace, so a take-over restarts each bot at its pace.

**Hints.** A ``hint`` message (friendly tables, seated players) is answered with
``bots.brain.suggest`` on the seat's own hand view: the shark's play now, as steps, with its
``advice`` (``bots.plans.ADVICE``; whether the seat has a lay confirmed but not yet final is
read from the engine, since the view does not say it).
"""

from __future__ import annotations

import asyncio
import functools
import logging
import secrets
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Literal, cast

from fastapi import Request

from bots.brain import LEVELS, Brain, suggest
from bots.classic_brain import ClassicBrain
from bots.classic_plans import suggest as classic_suggest
from bots.client import BotPlayer, Closed, Gone
from bots.pace import PACES, Pace
from engine.classic.game import ClassicGame
from engine.classic.view import classic_view
from engine.view import hand_view

from .connection import Connection
from .errors import ApiError
from .inbox import Attach, Detach, TableFull
from .journal import DealOptions, is_classic
from .limits import SENTENCES
from .protocol import HintIn, HintOut, RefusedOut, ResumeIn, dump_reply, parse_client
from .registry import TableRegistry
from .sessions import Session, Sessions
from .settings import Settings
from .table_commands import seat_sentence
from .tables import SERVER_REFUSALS, Table

Level = Literal["casual", "shark"]

#: Display names of bot seats (the table adds " 2" to a name already taken).
BOT_NAMES = {"casual": "Casual bot", "shark": "Shark bot"}
#: Seconds between a bot's commands at pace ``"none"`` when no ``reaction`` is given.
DEFAULT_REACTION = 0.8
#: At the start of a hand a bot waits up to this long for every seat to be connected.
START_GRACE = 10.0
#: Seconds the solver may think for one hint.
HINT_BUDGET = 0.1
#: ... at a classic table: a whole turn, with jokers; the solver stops as soon as its answer is
#: proved best (usually well within this), and a person waits a turn's thought for a hint.
CLASSIC_HINT_BUDGET = 0.5

#: Refusals of a ``hint`` message beside ``not_seated`` and ``not_started``.
HINT_REFUSALS = {
    "no_hints": "Hints are for friendly games only.",
    "hint_busy": "A hint is on its way: wait for it before asking again.",
    # A classic table (C13): the hint is a plan for one's own turn.
    "hint_not_your_turn": "Hints come on your turn: it is not your turn now.",
}

log = logging.getLogger("machiavelox.bots")

#: The one thread in which bots and hints run the solver.
THINKER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mvx-think")


# ---------------------------------------------------------------------------- the link


class _Loopback:
    """The socket end a :class:`Connection` writes to: frames go to the bot's queue."""

    def __init__(self, frames: asyncio.Queue[str | None]) -> None:
        self.scope: dict[str, Any] = {}
        self._frames = frames

    async def send_text(self, text: str) -> None:
        self._frames.put_nowait(text)

    async def close(self, code: int = 1000, reason: str = "") -> None:
        self._frames.put_nowait(None)  # dropped by the server (too slow): the bot resumes


class LocalLink:
    """A bot's in-process connection to a table (see the module documentation)."""

    def __init__(self, registry: TableRegistry, table: Table, seat: str, player_id: str,
                 settings: Settings) -> None:
        self.registry = registry
        self.table = table
        self.settings = settings
        self._frames: asyncio.Queue[str | None] = asyncio.Queue()
        self.conn = Connection(_Loopback(self._frames), seat, player_id,  # type: ignore[arg-type]
                               settings.outbound_queue, table.tlog)
        self.conn.start()
        self._attached = False
        self._closed = False

    def _gone(self) -> bool:
        task = getattr(self.table, "_task", None)
        return self.registry.get(self.table.code) is not self.table or (
            task is not None and task.done())

    async def send(self, text: str) -> None:
        from .api.ws import _dispatch  # the websocket endpoint's own path (import cycle)

        if self._closed or self.conn.dropped:
            raise Closed("link closed")
        parsed = parse_client(text, max_bytes=self.settings.max_message_bytes)
        if not self._attached:
            self._attached = True
            last = parsed.last_version if isinstance(parsed, ResumeIn) else None
            await self.table.put(Attach(self.conn, last))
            if isinstance(parsed, ResumeIn):
                return
        await _dispatch(self.table, self.conn, parsed)

    async def recv(self) -> str:
        while True:
            if self._gone():
                raise Gone("table gone")
            try:
                text = await asyncio.wait_for(self._frames.get(), 5.0)
            except TimeoutError:
                continue
            if text is None:
                raise Closed("dropped")
            return text

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        await self.conn.close()
        if self._attached and not self._gone():
            try:
                await asyncio.wait_for(self.table.put(Detach(self.conn)), 5.0)
            except (TimeoutError, RuntimeError):  # pragma: no cover - the table is gone
                pass


# ---------------------------------------------------------------------------- bot seats


class BotSeats:
    """The bots this server runs, one task each."""

    def __init__(self, registry: TableRegistry, sessions: Sessions, settings: Settings) -> None:
        self.registry = registry
        self.sessions = sessions
        self.settings = settings
        self.tasks: set[asyncio.Task[Any]] = set()
        self.players: dict[str, BotPlayer] = {}  # "CODE/seat" -> bot

    def check(self, count: int, pace: str | None = None, reaction: float | None = None) -> None:
        """Raise 429 ``too_many_bots`` when ``count`` more bots would pass ``max_bot_seats``
        (the one solver thread serves them all, and people's hints wait behind them), 422
        ``bad_field`` for a pace and reaction that do not go together (:func:`seat_reaction`)."""
        seat_reaction(pace, reaction)
        if len(self.players) + count > self.settings.max_bot_seats:
            raise ApiError(429, "too_many_bots", SENTENCES["too_many_bots"])

    async def add(self, table: Table, level: str, count: int, reaction: float | None = None,
                  pace: str | None = None) -> list[str]:
        """Seat ``count`` bots of ``level`` at ``table`` at ``pace`` (:func:`seat_reaction`);
        their seat names."""
        self.check(count)
        if level not in LEVELS:
            raise ApiError(422, "bad_field", f"level: one of {', '.join(LEVELS)}")
        reaction = seat_reaction(pace, reaction)
        if table.agora:
            raise ApiError(403, "no_bots", "Bots only sit at friendly tables.")
        free = await table.call(lambda: 0 if table.game is not None else table.size - len(table.seats))
        if count > free:
            raise TableFull("table_full", f"This table has {free} free seat(s).")
        seats = []
        for _ in range(count):
            _, session = self.sessions.issue(BOT_NAMES[level])
            pid = session.player_id
            await table.call(functools.partial(table.add_bot, pid, level, reaction))
            seat = await table.join(session)
            self.start(table, session, seat, level, reaction)
            seats.append(seat)
        return seats

    def start(self, table: Table, session: Session, seat: str, level: str,
              reaction: float | None = None) -> BotPlayer:
        """Run the bot that holds ``seat`` (already joined with ``session``): at the human pace
        when ``reaction`` is None, else at pace none with that reaction."""
        seed = secrets.randbits(32)
        pace = (Pace("human", level, seed=seed) if reaction is None
                else Pace("none", reaction=reaction, seed=seed))
        brain: Brain | ClassicBrain = (
            ClassicBrain(level, step_time=pace.step_time(), start_grace=START_GRACE, seed=seed)
            if is_classic(table.options.variant)
            else Brain(level, step_time=pace.step_time(), start_grace=START_GRACE))
        bot = BotPlayer(brain, reaction=reaction or 0.0, name=seat, executor=THINKER,
                        max_wait=self.settings.table_idle_ttl, seed=seed, pace=pace)

        async def connect() -> LocalLink:
            if self.registry.get(table.code) is not table:
                raise Gone("table gone")
            return LocalLink(self.registry, table, seat, session.player_id, self.settings)

        key = f"{table.code}/{seat}"
        self.players[key] = bot

        async def run() -> None:
            try:
                report = await bot.run(connect)
                table.tlog.info("bot done", seat, level=level, reason=report.reason,
                                commands=report.commands, refused=report.refused)
            finally:
                self.players.pop(key, None)

        task = asyncio.get_running_loop().create_task(run(), name=f"bot-{key}")
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        table.tlog.info("bot seated", seat, level=level, pace=pace.pace, reaction=reaction)
        return bot

    async def close(self, timeout: float = 1.0) -> None:
        """Stop every bot, waiting ``timeout`` seconds at most (a shutdown must not hang)."""
        tasks = list(self.tasks)
        for task in tasks:
            task.cancel()
        if tasks:
            _, pending = await asyncio.wait(tasks, timeout=timeout)
            if pending:
                log.warning("%d bot tasks did not stop", len(pending))


def seat_reaction(pace: str | None, reaction: float | None) -> float | None:
    """What a bot seat keeps for its pace: None for ``"human"``, else the reaction in seconds.

    ``pace`` omitted: ``"none"`` when a ``reaction`` is given, else ``"human"``. ``"none"``
    without a reaction: :data:`DEFAULT_REACTION`. Raises 422 ``bad_field`` for an unknown pace
    or for ``"human"`` with a reaction (the human pace has its own times)."""
    if pace is None:
        pace = "human" if reaction is None else "none"
    if pace not in PACES:
        raise ApiError(422, "bad_field", f"pace: one of {', '.join(PACES)}")
    if pace == "human":
        if reaction is not None:
            raise ApiError(422, "bad_field",
                           "reaction: only with pace none (the human pace has its own times)")
        return None
    return DEFAULT_REACTION if reaction is None else reaction


def restart_bots(app: Any, table: Table) -> None:
    """Run again the bot seats of a table this process took over (``server.registry``)."""
    seats = bot_seats(app)
    for pid, (level, reaction) in table.bot_levels.items():
        seat = table.seat_of(pid)
        if seat is not None and f"{table.code}/{seat}" not in seats.players:
            seats.start(table, Session(pid, seat), seat, level, reaction)


def bot_seats(app: Any) -> BotSeats:
    """The app's :class:`BotSeats`, made on first use."""
    seats: BotSeats | None = getattr(app.state, "bots", None)
    if seats is None:
        seats = BotSeats(app.state.registry, app.state.sessions, app.state.settings)
        app.state.bots = seats
    return seats


def get_bot_seats(request: Request) -> BotSeats:
    """FastAPI dependency: the app's bot seats."""
    return bot_seats(request.app)


async def create_demo_table(app: Any, level: str = "casual", reaction: float | None = None,
                            pace: str | None = None) -> str:
    """A single-game table with two bots of ``level`` in the first two seats and the third
    free for whoever opens its link; its code. (``machiavelox demo``.) The bots play at the
    human pace unless ``pace`` is ``"none"`` or a ``reaction`` is given (:func:`seat_reaction`)."""
    reaction = seat_reaction(pace, reaction)
    settings: Settings = app.state.settings
    registry: TableRegistry = app.state.registry
    seats = bot_seats(app)
    _, session = seats.sessions.issue(BOT_NAMES[level])
    options = DealOptions(seed=secrets.randbits(62), rules=settings.rules(), long=False)
    table, seat = await registry.create("single", session, options)
    await table.call(functools.partial(table.add_bot, session.player_id, level, reaction))
    seats.start(table, session, seat, level, reaction)
    await seats.add(table, level, 1, reaction, "human" if reaction is None else "none")
    return table.code


# ---------------------------------------------------------------------------- hints

def lay_pending(hand: Any, seat: str) -> bool:
    """Whether ``seat`` has a lay in a play still open or confirmed, not undone: a lay that
    counts for going out once final (R15), which the hand view does not show yet."""
    return any(play.player == seat and play.status in ("open", "confirmed")
               and any(a.lay and not a.undone for a in play.actions)
               for play in hand.plays.values())


_hinting: set[int] = set()
_hint_tasks: set[asyncio.Task[None]] = set()


def start_hint(table: Table, conn: Connection, msg: HintIn) -> None:
    """Answer a ``hint`` message in the background (the socket keeps reading meanwhile)."""
    task = asyncio.get_running_loop().create_task(answer_hint(table, conn, msg))
    _hint_tasks.add(task)
    task.add_done_callback(_hint_tasks.discard)


async def answer_hint(table: Table, conn: Connection, msg: HintIn) -> None:
    """Send ``conn`` the suggested play for its seat, or a refusal."""

    def refuse(code: str) -> None:
        # The server's own sentences name the table's seat count ("four seated players").
        text = (seat_sentence(code, table.size) if code in SERVER_REFUSALS
                else HINT_REFUSALS[code])
        conn.send(dump_reply(RefusedOut(id=msg.id, code=code, message=text)))

    seat = conn.seat
    if seat is None:
        refuse("not_seated")
        return
    if table.agora:
        refuse("no_hints")
        return
    if conn.id in _hinting:
        refuse("hint_busy")
        return
    _hinting.add(conn.id)
    try:
        classic = is_classic(table.options.variant)

        def look() -> tuple[int, dict[str, Any], bool] | None:
            game = table.game
            if game is None or game.hand is None:
                return None
            if isinstance(game, ClassicGame):
                return (table.events.head, classic_view(game.match, seat), False)
            return (table.events.head, cast(dict[str, Any], hand_view(game.hand, seat)),
                    lay_pending(game.hand, seat))

        got = await table.call(look)
        if got is None:
            refuse("not_started")
            return
        version, hv, pending = got
        loop = asyncio.get_running_loop()
        if classic:
            turn = hv.get("turn") or {}
            if turn.get("player") != seat:
                refuse("hint_not_your_turn")
                return
            try:
                found = await loop.run_in_executor(THINKER, functools.partial(
                    classic_suggest, hv, CLASSIC_HINT_BUDGET))
            except ValueError:  # the turn ended meanwhile
                refuse("hint_not_your_turn")
                return
        else:
            found = await loop.run_in_executor(THINKER, functools.partial(
                suggest, hv, HINT_BUDGET, lay_pending=pending))
        conn.send(dump_reply(HintOut(id=msg.id, version=version, **found)))
    finally:
        _hinting.discard(conn.id)
