"""A bot as a client of the protocol (``docs/protocol.md``): the same frames a browser gets.

:class:`BotPlayer` runs one seat: it reads ``welcome``/``snapshot``/``update`` frames, keeps
the latest GAME_VIEW (built from the updates' changes, ``server.changes``) and the highest
version, asks its :class:`~bots.brain.Brain` for the next
command, sends it with a fresh id and waits for its ``ack``/``refused`` before the next one.
Before each command it waits as its :class:`~bots.pace.Pace` says: at pace ``"none"`` its
reaction time (``reaction`` seconds, ±20 % jitter when it is not 0); at pace ``"human"`` a
person's times by level (react, think before a new play, steps of a play, no bursts of
draws). When the link drops it reconnects with backoff, sends ``resume`` with the last
version it saw, and sends again, under the same id, a command whose answer it never got
(the server applies an id once). It stops when the game is over.

The link is anything with ``send(text)``, ``recv() -> text`` (raising :class:`Closed` when it
ends) and ``close()``: :class:`WebSocketLink` (the ``websockets`` library, for bots outside
the server: the league, scripts), or the server's in-process link for bot seats
(``server.bots``). The solver runs in an executor thread so that thinking never blocks the
event loop the bot shares with others.

HTTP helpers (:func:`new_session`, :func:`create_table`, :func:`join_table`, in
:mod:`bots.http`) use only the standard library, so a bot needs nothing beyond the server's own
dependencies.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import secrets
from collections.abc import Awaitable, Callable
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Protocol

from server.changes import apply_frame

from .brain import Brain
from .classic_brain import ClassicBrain
from .http import HttpError, create_table, http_json, join_table, new_session
from .pace import Pace

__all__ = ["BotPlayer", "BotReport", "Closed", "Gone", "HttpError", "Link", "WebSocketLink",
           "create_table", "http_json", "join_table", "new_session", "play_seat",
           "websocket_connector"]


class Closed(Exception):
    """The link to the server ended."""


class Gone(Exception):
    """The table is gone for good: do not reconnect."""


class Link(Protocol):
    async def send(self, text: str) -> None: ...

    async def recv(self) -> str: ...

    async def close(self) -> None: ...


Connector = Callable[[], Awaitable[Link]]

_executor: ThreadPoolExecutor | None = None


def default_executor() -> ThreadPoolExecutor:
    """One thread shared by every bot of this process for thinking (the solver)."""
    global _executor
    if _executor is None:
        _executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="bot-brain")
    return _executor


# ---------------------------------------------------------------------------- websocket


#: Seconds between two websocket pings of a bot; no pong within as long again: the socket is
#: dead (a paused server or a cut network) and the bot reconnects.
PING_INTERVAL = 5.0


class WebSocketLink:
    """A websocket to ``/ws/{code}`` (the ``websockets`` library)."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws

    @classmethod
    async def open(cls, ws_url: str, code: str, token: str | None) -> WebSocketLink:
        from websockets.asyncio.client import connect

        url = f"{ws_url}/ws/{code}" + (f"?token={token}" if token else "")
        # A socket silent for twice PING_INTERVAL (no pong) is dead: reconnect (issue 13).
        kwargs: dict[str, Any] = {"open_timeout": 10, "close_timeout": 2, "max_size": 2**22,
                                  "ping_interval": PING_INTERVAL, "ping_timeout": PING_INTERVAL}
        try:
            ws = await connect(url, proxy=None, **kwargs)
        except TypeError:  # websockets < 15 has no proxy support to turn off
            ws = await connect(url, **kwargs)
        return cls(ws)

    async def send(self, text: str) -> None:
        from websockets.exceptions import ConnectionClosed

        try:
            await self.ws.send(text)
        except ConnectionClosed as e:
            raise Closed(str(e)) from None

    async def recv(self) -> str:
        from websockets.exceptions import ConnectionClosed

        try:
            data = await self.ws.recv()
        except ConnectionClosed as e:
            if e.rcvd is not None and e.rcvd.code in (4401, 4404):
                raise Gone(f"closed {e.rcvd.code}") from None
            raise Closed(str(e)) from None
        return data if isinstance(data, str) else data.decode()

    async def close(self) -> None:
        with contextlib.suppress(Exception):  # closing a dead socket
            await self.ws.close()


def websocket_connector(base_url: str, code: str, token: str) -> Connector:
    """Connects to ``code`` at the server ``base_url`` (``http://host:port``)."""
    ws_url = "ws" + base_url[len("http"):] if base_url.startswith("http") else base_url

    async def connect() -> Link:
        return await WebSocketLink.open(ws_url, code, token)

    return connect


# ---------------------------------------------------------------------------- the bot


def hand_number(game: dict[str, Any] | None) -> Any:
    """The hand a view is of: a Machiavelox view's ``hand_no``, a classic view's
    ``match.hand`` (``engine.classic.view``)."""
    if not game:
        return None
    if "hand_no" in game:
        return game["hand_no"]
    return (game.get("match") or {}).get("hand")


@dataclass
class BotReport:
    """What a bot did: its seat, commands sent and refused, reconnections, the last view."""

    seat: str | None = None
    commands: int = 0
    refused: int = 0
    reconnects: int = 0
    over: bool = False
    reason: str = ""
    game: dict[str, Any] | None = None
    stats: dict[str, int] = field(default_factory=dict)
    #: Decisions asked of the brain, and the seconds they took in all (waiting for the
    #: thinking thread included).
    decisions: int = 0
    decide_seconds: float = 0.0


class BotPlayer:
    """One seat played by a :class:`Brain` (Machiavelox) or a
    :class:`~bots.classic_brain.ClassicBrain` (a classic table) over a link: both decide from
    the view their seat is sent and have the same interface.

    ``reaction``: seconds between two commands at pace none; ``pace``: the bot's pace
    (default ``Pace("none", reaction=reaction, seed=seed)``). ``max_seconds``: the bot leaves
    (closes its link) after that long in all. ``max_wait``: ... or after that long with no game
    dealt. ``watch``: called as ``watch(t, game, cmd)`` with the event loop's time on every new
    view (``cmd`` None) and on every command sent (``game`` the view it was decided on), to
    measure a bot from outside (``bench/league.py``).
    """

    _ids = itertools.count(1)

    def __init__(self, brain: Brain | ClassicBrain, *, reaction: float = 0.8, name: str = "bot",
                 executor: Executor | None = None, max_seconds: float = 6 * 3600,
                 max_wait: float = 3600.0, idle_poll: float = 1.0, seed: int | None = None,
                 pace: Pace | None = None,
                 watch: Callable[[float, dict[str, Any] | None, dict[str, Any] | None], None]
                 | None = None) -> None:
        self.brain = brain
        self.reaction = max(0.0, reaction)
        self.pace = pace if pace is not None else Pace("none", reaction=self.reaction, seed=seed)
        self.watch = watch
        self.name = name
        self.executor = executor
        self.max_seconds = max_seconds
        self.max_wait = max_wait
        self.idle_poll = idle_poll
        self.report = BotReport()
        self.version: int | None = None
        self.game: dict[str, Any] | None = None
        #: The version ``game`` is the view of (updates carry changes from it).
        self.game_version: int | None = None
        self._awaiting_snapshot = True
        self.seat: str | None = None
        self._received = 0.0
        self._frames = 0
        self._changed = asyncio.Event()
        self._waiting: dict[Any, asyncio.Future[dict[str, Any]]] = {}
        self._inflight: tuple[Any, dict[str, Any]] | None = None
        self._last_sent = 0.0
        #: When a change woke the bot up from waiting (a human reacts from then on).
        self._woke = 0.0
        self._last_draw = float("-inf")
        self._draw_gap = 0.0
        # Random too: a bot restarted by another process (a take-over) must not reuse the ids
        # its table's dedup cache remembers.
        self._prefix = f"{name[:12]}-{next(self._ids)}-{secrets.token_hex(3)}-"
        self._counter = itertools.count(1)
        self._closed = False

    # ------------------------------------------------------------ running

    async def run(self, connect: Connector) -> BotReport:
        """Play until the game is over (or the limits): connect, resume, act, reconnect."""
        loop = asyncio.get_running_loop()
        start = loop.time()
        deadline = start + self.max_seconds
        failures = 0
        try:
            while not self.report.over:
                if loop.time() > deadline:
                    self.report.reason = "max_seconds"
                    break
                if self.game is None and loop.time() - start > self.max_wait:
                    self.report.reason = "no_game"
                    break
                try:
                    link = await asyncio.wait_for(connect(), 15)
                except Gone as e:
                    self.report.reason = f"gone: {e}"
                    break
                except (OSError, TimeoutError, Closed, Exception) as e:  # noqa: BLE001
                    failures += 1
                    if failures > 12:
                        self.report.reason = f"cannot connect: {e!r}"
                        break
                    await asyncio.sleep(min(5.0, 0.2 * 2 ** failures))
                    continue
                try:
                    if await self._session(link, deadline):
                        failures = 0
                except Gone as e:
                    self.report.reason = f"gone: {e}"
                    break
                except Closed:
                    pass
                finally:
                    await link.close()
                if not self.report.over:
                    self.report.reconnects += 1
                    failures += 1
                    if failures > 12:
                        self.report.reason = "link keeps failing"
                        break
                    await asyncio.sleep(min(5.0, 0.1 * 2 ** failures))
        finally:
            self.report.seat = self.seat
            self.report.game = self.game
            self.report.stats = dict(self.brain.stats)
        return self.report

    async def _session(self, link: Link, deadline: float) -> bool:
        """One connection: resume, then act until the game ends or the link drops. True when
        the server welcomed us (the connection worked)."""
        self._closed = False
        self._awaiting_snapshot = True  # the resume brings one
        welcomed = asyncio.Event()
        await link.send(json.dumps({"type": "resume", "last_version": self.version}))
        reader = asyncio.get_running_loop().create_task(self._read(link, welcomed))
        waiter = asyncio.ensure_future(welcomed.wait())
        try:
            await asyncio.wait({reader, waiter}, timeout=15, return_when=asyncio.FIRST_COMPLETED)
            waiter.cancel()
            if not welcomed.is_set():
                if reader.done():
                    reader.result()  # Closed or Gone
                raise Closed("no welcome")
            if self.seat is None:
                raise Gone("no seat at this table")
            await self._act(link, deadline, reader)
            return True
        finally:
            reader.cancel()
            for fut in self._waiting.values():
                if not fut.done():
                    fut.cancel()
            self._waiting.clear()

    async def _read(self, link: Link, welcomed: asyncio.Event) -> None:
        loop = asyncio.get_running_loop()
        try:
            while True:
                msg = json.loads(await link.recv())
                kind = msg.get("type")
                if kind == "welcome":
                    self.seat = msg.get("seat")
                    welcomed.set()
                elif kind in ("snapshot", "update"):
                    v = msg.get("version")
                    if isinstance(v, int) and self.version is not None and v < self.version:
                        continue
                    if isinstance(v, int):
                        self.version = v
                    # Changes since version - 1 (server.changes); on a gap, ask for a
                    # snapshot once.
                    ok, game = apply_frame(self.game, self.game_version, msg)
                    if kind == "snapshot":
                        self._awaiting_snapshot = False
                    if not ok:
                        if not self._awaiting_snapshot:
                            self._awaiting_snapshot = True
                            await link.send(json.dumps({"type": "resume",
                                                        "last_version": self.game_version}))
                    elif not msg.get("replay"):
                        hand_no = hand_number(game)
                        if self.game is None or hand_no != hand_number(self.game):
                            self._woke = loop.time()  # a new hand: a person looks first
                        self.game, self.game_version = game, v if isinstance(v, int) else None
                        self._received = loop.time()
                        if self.watch is not None:
                            self.watch(self._received, game, None)
                elif kind in ("ack", "refused", "error"):
                    fut = self._waiting.pop(msg.get("id"), None)
                    if fut is not None and not fut.done():
                        fut.set_result(msg)
                self._frames += 1
                self._changed.set()
        finally:
            self._closed = True
            self._changed.set()

    def _over(self) -> bool:
        """The game is over: a Machiavelox view's ``phase``, a classic view's ``match.over``."""
        game = self.game
        return game is not None and (game.get("phase") == "over"
                                     or bool((game.get("match") or {}).get("over")))

    async def _act(self, link: Link, deadline: float, reader: asyncio.Task[None]) -> None:
        loop = asyncio.get_running_loop()
        while True:
            if self._closed:
                exc = reader.exception() if reader.done() and not reader.cancelled() else None
                if isinstance(exc, (Gone, Closed)):
                    raise exc
                raise Closed(f"link closed ({exc!r})" if exc is not None else "link closed")
            if self._over():
                self.report.over = True
                self.report.reason = "game over"
                return
            if loop.time() > deadline:
                return
            if self.game is None:  # seats still filling
                changed = await self._wait_change(self._frames, self.idle_poll * 5)
                if not changed and loop.time() - self._received > self.max_wait:
                    return
                continue
            if self._inflight is not None:
                cid, cmd = self._inflight  # sent before the link dropped: again, same id
            else:
                decided = await self._next_command()
                if decided is None:
                    continue
                cmd = decided
                cid = f"{self._prefix}{next(self._counter)}"
                self._inflight = (cid, cmd)
                if cmd.get("do") == "draw":
                    self._last_draw = loop.time()
                    self._draw_gap = self.pace.draw_gap()
                if self.watch is not None:
                    self.watch(loop.time(), self.game, cmd)
            fut: asyncio.Future[dict[str, Any]] = loop.create_future()
            self._waiting[cid] = fut
            await link.send(json.dumps({"type": "command", "id": cid, **cmd}))
            self._last_sent = loop.time()
            self.report.commands += 1
            try:
                reply = await asyncio.wait_for(fut, 20)
            except (TimeoutError, asyncio.CancelledError):
                task = asyncio.current_task()
                if task is not None and task.cancelling():
                    raise  # the bot itself is stopped (server shutdown): never swallow that
                if self._closed:
                    raise Closed("link closed while waiting") from None
                raise Closed("no answer") from None
            self._inflight = None
            self.brain.result(cmd, reply)
            if reply.get("type") != "ack":
                self.report.refused += 1
                await self._wait_change(self._frames, 0.2)  # let the view catch up

    async def _decide(self) -> tuple[dict[str, Any] | None, int]:
        """The brain's command for the latest view (thinking in the executor), and the frame
        count it was decided on."""
        loop = asyncio.get_running_loop()
        frames = self._frames
        asked = loop.time()
        elapsed = asked - self._received
        quick = getattr(self.brain, "needs_thought", None)
        try:
            if quick is not None and not quick(self.game):
                cmd = self.brain.decide(self.game, elapsed)  # no solver: no thread needed
            else:
                cmd = await loop.run_in_executor(self.executor or default_executor(),
                                                 self.brain.decide, self.game, elapsed)
            self.report.decisions += 1
            self.report.decide_seconds += loop.time() - asked
        except Exception as e:  # noqa: BLE001 - a brain bug: wait, then think again
            self.brain.stats["errors"] += 1
            self.report.reason = f"brain error: {e!r}"
            self.brain.plan = []
            cmd = None
        return cmd, frames

    async def _idle(self, frames: int) -> None:
        """Nothing to do: wait for a new frame (at most ``idle_poll`` seconds); a change wakes
        the bot, which reacts to it from then on."""
        if await self._wait_change(frames, self.idle_poll):
            self._woke = asyncio.get_running_loop().time()

    async def _next_command(self) -> dict[str, Any] | None:
        """Wait as the pace says, then the brain's next command (None: it waits)."""
        loop = asyncio.get_running_loop()
        mid_play = bool(self.brain.plan)
        if mid_play:
            start, wait = self._last_sent, self.pace.step()
        elif self.pace.human:
            start, wait = max(self._last_sent, self._woke), self.pace.react()
        else:
            start, wait = self._last_sent, self.pace.react()
        pause = start + wait - loop.time()
        if pause > 0:
            await asyncio.sleep(pause)
        cmd, frames = await self._decide()
        if cmd is None:
            await self._idle(frames)
            return None
        if not self.pace.human:
            return cmd
        extra = 0.0
        fresh = self.brain.new_plan
        if fresh is not None:
            extra = self.pace.think(len(fresh.placed), fresh.moved)  # a new play: think
        elif cmd.get("do") == "draw":
            extra = self._last_draw + self._draw_gap - loop.time()  # no bursts of draws
        if extra > 0:
            await asyncio.sleep(extra)
            cmd, frames = await self._decide()  # the table may have changed meanwhile
            if cmd is None:
                await self._idle(frames)
                return None
            if cmd.get("do") == "draw" and loop.time() < self._last_draw + self._draw_gap:
                return None  # thought of a play, then of a draw: the gap still holds
        return cmd

    async def _wait_change(self, frames: int, timeout: float) -> bool:
        """Wait until a frame newer than ``frames`` arrives (True) or ``timeout`` passes."""
        if self._frames != frames or self._closed:
            return True
        self._changed.clear()
        try:
            await asyncio.wait_for(self._changed.wait(), timeout)
        except TimeoutError:
            return False
        return True


async def play_seat(base_url: str, code: str, token: str, level: str, *, reaction: float = 0.8,
                    budget: float = 0.1, name: str = "bot", executor: Executor | None = None,
                    max_seconds: float = 6 * 3600, seed: int | None = None,
                    pace: str = "none", classic: bool = False) -> BotReport:
    """Play the seat ``token`` holds at table ``code`` of the server at ``base_url``, at
    ``pace`` (``"none"``: ``reaction`` seconds between commands; ``"human"``: bots.pace);
    ``classic``: the table plays classic (a :class:`ClassicBrain`)."""
    tempo = Pace(pace, level, reaction=reaction, seed=seed)
    brain: Brain | ClassicBrain = (
        ClassicBrain(level, budget=budget, step_time=tempo.step_time(), seed=seed) if classic
        else Brain(level, budget=budget, step_time=tempo.step_time()))
    bot = BotPlayer(brain, reaction=reaction, name=name, executor=executor,
                    max_seconds=max_seconds, seed=seed, pace=tempo)
    return await bot.run(websocket_connector(base_url, code, token))
