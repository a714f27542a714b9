"""A bot as a client of the protocol (``docs/protocol.md``): the same frames a browser gets.

:class:`BotPlayer` runs one seat: it reads ``welcome``/``snapshot``/``update`` frames, keeps
the latest GAME_VIEW (built from the updates' changes, ``server.changes``) and the highest
version, asks its :class:`~bots.brain.Brain` for the next
command, sends it with a fresh id and waits for its ``ack``/``refused`` before the next one.
Between two commands it waits its reaction time (``reaction`` seconds, ±20 % jitter when it
is not 0). When the link drops it reconnects with backoff, sends ``resume`` with the last
version it saw, and sends again, under the same id, a command whose answer it never got
(the server applies an id once). It stops when the game is over.

The link is anything with ``send(text)``, ``recv() -> text`` (raising :class:`Closed` when it
ends) and ``close()``: :class:`WebSocketLink` (the ``websockets`` library, for bots outside
the server: the league, scripts), or the server's in-process link for bot seats
(``server.bots``). The solver runs in an executor thread so that thinking never blocks the
event loop the bot shares with others.

HTTP helpers (:func:`new_session`, :func:`create_table`, :func:`join_table`) use only the
standard library, so a bot needs nothing beyond the server's own dependencies.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import random
import secrets
import urllib.error
import urllib.request
from collections.abc import Awaitable, Callable
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Protocol

from server.changes import apply_frame

from .brain import Brain


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


# ---------------------------------------------------------------------------- HTTP


class HttpError(Exception):
    def __init__(self, status: int, body: dict[str, Any]) -> None:
        super().__init__(f"HTTP {status}: {body}")
        self.status = status
        self.body = body


def _http(method: str, url: str, body: dict[str, Any] | None, token: str | None,
          timeout: float) -> dict[str, Any]:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method)
    req.add_header("Accept", "application/json")
    if data is not None:
        req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback: no proxy
    try:
        with opener.open(req, timeout=timeout) as r:
            out: dict[str, Any] = json.loads(r.read() or b"{}")
            return out
    except urllib.error.HTTPError as e:
        try:
            detail = json.loads(e.read() or b"{}")
        except ValueError:
            detail = {}
        raise HttpError(e.code, detail) from None


async def http_json(method: str, url: str, body: dict[str, Any] | None = None,
                    token: str | None = None, timeout: float = 10.0) -> dict[str, Any]:
    return await asyncio.to_thread(_http, method, url, body, token, timeout)


async def new_session(base_url: str, name: str) -> str:
    """A session token for ``name`` (``POST /api/session``)."""
    return str((await http_json("POST", f"{base_url}/api/session", {"name": name}))["token"])


async def create_table(base_url: str, token: str, mode: str = "single",
                       **extra: Any) -> dict[str, Any]:
    """``POST /api/tables``: ``{"code", "url", "seat"}``."""
    return await http_json("POST", f"{base_url}/api/tables", {"mode": mode, **extra}, token)


async def join_table(base_url: str, token: str, code: str) -> dict[str, Any]:
    """``POST /api/tables/{code}/join``: ``{"code", "url", "seat"}``."""
    return await http_json("POST", f"{base_url}/api/tables/{code}/join", {}, token)


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


class BotPlayer:
    """One seat played by a :class:`Brain` over a link.

    ``reaction``: seconds between two commands. ``max_seconds``: the bot leaves (closes its
    link) after that long in all. ``max_wait``: ... or after that long with no game dealt.
    """

    _ids = itertools.count(1)

    def __init__(self, brain: Brain, *, reaction: float = 0.8, name: str = "bot",
                 executor: Executor | None = None, max_seconds: float = 6 * 3600,
                 max_wait: float = 3600.0, idle_poll: float = 1.0, seed: int | None = None) -> None:
        self.brain = brain
        self.reaction = max(0.0, reaction)
        self.name = name
        self.executor = executor
        self.max_seconds = max_seconds
        self.max_wait = max_wait
        self.idle_poll = idle_poll
        self.rng = random.Random(seed)
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
                        self.game, self.game_version = game, v if isinstance(v, int) else None
                        self._received = loop.time()
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
        return self.game is not None and self.game.get("phase") == "over"

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
            pause = self._last_sent + self._pace() - loop.time()
            if pause > 0:
                await asyncio.sleep(pause)
            if self._inflight is not None:
                cid, cmd = self._inflight  # sent before the link dropped: again, same id
            else:
                frames = self._frames
                elapsed = loop.time() - self._received
                try:
                    cmd_or_none = await loop.run_in_executor(
                        self.executor or default_executor(), self.brain.decide, self.game,
                        elapsed)
                except Exception as e:  # noqa: BLE001 - a brain bug: wait, then think again
                    self.brain.stats["errors"] += 1
                    self.report.reason = f"brain error: {e!r}"
                    self.brain.plan = []
                    cmd_or_none = None
                if cmd_or_none is None:
                    await self._wait_change(frames, self.idle_poll)
                    continue
                cmd = cmd_or_none
                cid = f"{self._prefix}{next(self._counter)}"
                self._inflight = (cid, cmd)
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

    def _pace(self) -> float:
        if self.reaction <= 0:
            return 0.0
        return self.reaction * self.rng.uniform(0.8, 1.2)

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
                    max_seconds: float = 6 * 3600, seed: int | None = None) -> BotReport:
    """Play the seat ``token`` holds at table ``code`` of the server at ``base_url``."""
    brain = Brain(level, budget=budget, step_time=reaction + 0.05)
    bot = BotPlayer(brain, reaction=reaction, name=name, executor=executor,
                    max_seconds=max_seconds, seed=seed)
    return await bot.run(websocket_connector(base_url, code, token))
