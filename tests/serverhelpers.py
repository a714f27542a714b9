"""Test helpers with real parts: a real uvicorn on a free 127.0.0.1 port, real websocket clients.

:class:`LiveServer` runs uvicorn with the app in a background thread (its own event loop), on
a socket bound to 127.0.0.1 port 0, so tests never race for a port and never leave loopback.
:meth:`LiveServer.table_call` runs a function inside a table's own task, for a consistent look
at server state (the journal, the true hands).

:class:`Player` is one client: an HTTP session (httpx) and a websocket (the ``websockets``
library) whose frames a background task collects. Every wait has a timeout.
"""

from __future__ import annotations

import asyncio
import inspect
import itertools
import json
import socket
import threading
import time
from collections.abc import Callable
from typing import Any, ClassVar, Self, TypeVar

import httpx
import uvicorn
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from server.app import create_app
from server.changes import apply_frame, full_events
from server.settings import Settings
from server.tables import Table

T = TypeVar("T")

Frame = dict[str, Any]

#: websockets 15 and later read proxy settings from the environment unless told not to; older
#: releases have no proxy support, and no such argument.
NO_PROXY: dict[str, Any] = (
    {"proxy": None} if "proxy" in inspect.signature(connect).parameters else {})


#: The limits a test server lifts unless its test sets them (server.limits): every player of
#: the suite comes from 127.0.0.1 and many send commands as fast as they can. Sockets per seat
#: stay at their default (2), so that every test also runs under that rule.
TEST_LIMITS: dict[str, int] = {
    "sessions_per_ip_per_minute": 1_000_000, "tables_per_session": 100_000,
    "tables_per_ip": 1_000_000, "sockets_per_ip": 1_000_000, "sockets_per_ip_per_minute": 1_000_000,
    "max_bot_seats": 10_000,
    "commands_per_second": 1_000_000,
    "logins_per_ip_per_minute": 1_000_000, "login_failures_per_pair_per_hour": 1_000_000,
    "login_failures_per_name_per_minute": 1_000_000,
    "registrations_per_ip_per_hour": 1_000_000,
}

#: The password :func:`register` gives the accounts of the suite (any of 8+ characters).
PASSWORD = "correct horse battery"


async def register(http: httpx.AsyncClient, name: str, password: str = PASSWORD) -> str:
    """A session token of the account ``name`` (``POST /api/accounts``); when the name is
    taken already (the same test server, an earlier test), logs in with ``password`` instead.
    Raises ``AssertionError`` with the server's reply when neither works."""
    r = await http.post("/api/accounts", json={"name": name, "password": password})
    if r.status_code == 409 and r.json().get("code") == "name_taken":
        r = await http.post("/api/login", json={"name": name, "password": password})
    assert r.status_code == 200, r.text
    return str(r.json()["token"])


def with_test_limits(settings: Settings) -> Settings:
    """``settings`` with :data:`TEST_LIMITS` for the limits it does not set itself."""
    lifted = {k: v for k, v in TEST_LIMITS.items() if k not in settings.model_fields_set}
    return settings.model_copy(update=lifted) if lifted else settings


class LiveServer:
    """uvicorn serving ``create_app(settings)`` in a thread. Use as a context manager. The
    limits a test does not set are lifted (:data:`TEST_LIMITS`). uvicorn trusts
    ``X-Forwarded-For`` from 127.0.0.1 here (its default), so a test can speak for many
    client addresses."""

    def __init__(self, settings: Settings) -> None:
        settings = with_test_limits(settings)
        self.settings = settings
        self.app = create_app(settings)
        # proto=IPPROTO_TCP, as getaddrinfo gives it: asyncio sets TCP_NODELAY on accepted
        # sockets only then (proto 0 leaves Nagle on: +40 ms behind every small frame).
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", 0))
        self.port = self._sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.ws_url = f"ws://127.0.0.1:{self.port}"
        # Compression as `machiavelox serve` has it (off by default: Settings.ws_deflate).
        config = uvicorn.Config(self.app, log_level="warning", lifespan="on",
                                ws_per_message_deflate=settings.ws_deflate)
        self.server = uvicorn.Server(config)
        # The server's loop, run by an asyncio.Runner in the thread: on the way out it cancels
        # what is left (bots, readers), shuts down async generators and closes the loop.
        self._runner = asyncio.Runner()
        self.loop = self._runner.get_loop()
        self._thread = threading.Thread(target=self._serve, name=f"uvicorn-{self.port}", daemon=True)

    def _serve(self) -> None:
        with self._runner:
            self._runner.run(self.server.serve(sockets=[self._sock]))

    def __enter__(self) -> Self:
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.01)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self._thread.join(timeout=10)
        self._sock.close()

    def table(self, code: str) -> Table:
        table: Table | None = self.app.state.registry.get(code)
        assert table is not None, code
        return table

    def table_call(self, code: str, fn: Callable[[Table], T], timeout: float = 5.0) -> T:
        """Run ``fn(table)`` inside the table's task (from any thread) and return its result."""
        table = self.table(code)
        fut = asyncio.run_coroutine_threadsafe(table.call(lambda: fn(table)), self.loop)
        result: T = fut.result(timeout)
        return result

    def journal(self, code: str, timeout: float = 5.0) -> list[dict[str, Any]]:
        """Every event the server accepted into table ``code``'s log, oldest first (the
        store's truth, not a page): what a test's negative checks count."""
        table = self.table(code)
        store = self.app.state.store
        fut = asyncio.run_coroutine_threadsafe(store.read_after(table.log_id), self.loop)
        return [e for b in fut.result(timeout) for e in b.events]

    async def atable_call(self, code: str, fn: Callable[[Table], T], timeout: float = 5.0) -> T:
        """:meth:`table_call` from a coroutine running in another loop."""
        return await asyncio.get_running_loop().run_in_executor(
            None, lambda: self.table_call(code, fn, timeout))


class Player:
    """One client of a :class:`LiveServer`: a session, then a websocket to one table."""

    _counter = itertools.count(1)
    #: Players whose websocket is open, for :func:`run` to close at the end of a test.
    open_sockets: ClassVar[set[Player]] = set()

    def __init__(self, server: LiveServer, name: str) -> None:
        self.server = server
        self.name = name
        self.token: str | None = None
        self.seat: str | None = None
        self.code: str | None = None
        self.ws: ClientConnection | None = None
        self.frames: list[Frame] = []
        self.version = 0
        self.game: dict[str, Any] | None = None
        self.game_version: int | None = None
        self._awaiting_snapshot = True
        self._queue: asyncio.Queue[Frame] = asyncio.Queue()
        self._reader: asyncio.Task[None] | None = None
        self._ids = (f"{name}-{n}" for n in itertools.count(next(self._counter) * 10000))
        self.closed = asyncio.Event()

    # ------------------------------------------------------------ HTTP

    def http(self) -> httpx.AsyncClient:
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        return httpx.AsyncClient(base_url=self.server.url, headers=headers, trust_env=False,
                                 timeout=10)

    async def login(self) -> Player:
        async with self.http() as c:
            r = await c.post("/api/session", json={"name": self.name})
            r.raise_for_status()
            self.token = r.json()["token"]
        return self

    async def register(self, password: str = PASSWORD) -> Player:
        """Register (or log in to) the account named like this player: its token, whose
        player id is the account's (``server.sessions``)."""
        async with self.http() as c:
            self.token = await register(c, self.name, password)
        return self

    async def create(self, mode: str = "single", **extra: Any) -> str:
        async with self.http() as c:
            r = await c.post("/api/tables", json={"mode": mode, **extra})
            assert r.status_code == 200, r.text
            body = r.json()
        self.code, self.seat = body["code"], body["seat"]
        return str(body["code"])

    async def join(self, code: str) -> str:
        async with self.http() as c:
            r = await c.post(f"/api/tables/{code}/join")
            assert r.status_code == 200, r.text
            body = r.json()
        self.code, self.seat = body["code"], body["seat"]
        return str(body["seat"])

    # ------------------------------------------------------------ websocket

    async def connect(self, code: str | None = None, *, last_version: int | None = None,
                      resume: bool = True, token: bool = True) -> Frame:
        """Open the websocket; with ``resume``, send ``resume`` (``last_version``) first.
        Returns the welcome frame."""
        self.code = code or self.code
        query = []
        if token and self.token:
            query.append(f"token={self.token}")
        url = f"{self.server.ws_url}/ws/{self.code}" + ("?" + "&".join(query) if query else "")
        self.closed.clear()
        self._awaiting_snapshot = True
        self.ws = await connect(url, open_timeout=5, close_timeout=2, max_size=2**22, **NO_PROXY)
        Player.open_sockets.add(self)
        if resume:
            await self.ws.send(json.dumps({"type": "resume", "last_version": last_version}))
        self._reader = asyncio.get_running_loop().create_task(self._read(self.ws))
        return await self.next(lambda f: f["type"] == "welcome")

    async def _read(self, ws: ClientConnection) -> None:
        try:
            async for raw in ws:
                frame = json.loads(raw)
                self.frames.append(frame)
                if "version" in frame and frame["type"] in ("welcome", "snapshot", "update"):
                    self.version = max(self.version, frame["version"])
                if frame["type"] in ("snapshot", "update"):
                    # Build the view from the changes (server.changes); the frame gets the
                    # view after it as "game", for the tests to look at.
                    ok, game = apply_frame(self.game, self.game_version, frame)
                    if frame["type"] == "snapshot":
                        self._awaiting_snapshot = False
                    # A gap only before the snapshot a (re)connection brings.
                    assert ok or self._awaiting_snapshot, (
                        f"{self.name}: a gap at {frame['version']} (view of {self.game_version})")
                    if ok and not frame.get("replay"):
                        self.game, self.game_version = game, frame["version"]
                        if frame["type"] == "update":  # the t and hand they leave out
                            frame["events"] = full_events(frame["events"], game)
                    frame.setdefault("game", self.game)
                self._queue.put_nowait(frame)
        except ConnectionClosed:
            pass  # the server closed or cut the connection: the test looks at what came
        finally:
            self.closed.set()

    async def close(self) -> None:
        """Close the socket (a player dropping) and stop reading."""
        Player.open_sockets.discard(self)
        if self.ws is not None:
            await self.ws.close()
        if self._reader is not None:
            try:
                await asyncio.wait_for(self._reader, 5)
            except TimeoutError:  # pragma: no cover
                self._reader.cancel()
        self.ws = None

    async def send(self, msg: dict[str, Any] | str | bytes) -> None:
        assert self.ws is not None
        await self.ws.send(msg if isinstance(msg, (str, bytes)) else json.dumps(msg))

    async def next(self, pred: Callable[[Frame], bool] | None = None, timeout: float = 5.0) -> Frame:
        """The next frame (from the queue) for which ``pred`` holds; others are skipped."""
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            left = deadline - asyncio.get_running_loop().time()
            if left <= 0:
                raise AssertionError(f"{self.name}: no matching frame within {timeout} s; "
                                     f"last frames: {self.frames[-3:]}")
            try:
                frame = await asyncio.wait_for(self._queue.get(), left)
            except TimeoutError:
                continue
            if pred is None or pred(frame):
                return frame

    async def at_version(self, version: int, timeout: float = 5.0) -> None:
        """Wait until this client has seen ``version`` (frames before it stay queued)."""
        deadline = asyncio.get_running_loop().time() + timeout
        while self.version < version:
            if asyncio.get_running_loop().time() > deadline:
                raise AssertionError(f"{self.name}: still at version {self.version} < {version}")
            await asyncio.sleep(0.005)

    def drain(self) -> list[Frame]:
        """The frames received and not yet taken by :meth:`next`."""
        out: list[Frame] = []
        while not self._queue.empty():
            out.append(self._queue.get_nowait())
        return out

    async def command(self, do: str, *, id: str | None = None, timeout: float = 5.0,
                      **fields: Any) -> Frame:
        """Send a command and wait for its ack, refusal or error."""
        cid = id or next(self._ids)
        await self.send({"type": "command", "id": cid, "do": do, **fields})
        return await self.next(lambda f: f["type"] in ("ack", "refused", "error")
                               and f.get("id") == cid, timeout)

    async def ok(self, do: str, **fields: Any) -> Frame:
        """A command that must be acknowledged."""
        reply = await self.command(do, **fields)
        assert reply["type"] == "ack", f"{self.seat} {do} {fields}: {reply}"
        return reply

    def events(self, kind: str | None = None) -> list[Frame]:
        """Every event received so far (of ``kind``), from updates, in order."""
        out: list[Frame] = []
        for f in self.frames:
            if f["type"] == "update":
                out.extend(e for e in f["events"] if kind is None or e["kind"] == kind)
        return out

    @property
    def hand(self) -> list[str] | None:
        """This seat's hand in the latest view (a classic view holds it as a list itself)."""
        if self.game is None or self.game.get("hand") is None:
            return None
        if isinstance(self.game["hand"], list):
            return list(self.game["hand"])
        cards = self.game["hand"]["hand"]
        return None if cards is None else list(cards)


async def seated(server: LiveServer, names: list[str], mode: str = "single",
                 connect_all: bool = True, **create: Any) -> list[Player]:
    """Players named ``names`` at one new table (the first creates it), connected in join
    order when ``connect_all``. Returns them once the deal has reached every one."""
    players = [await Player(server, n).login() for n in names]
    code = await players[0].create(mode, **create)
    if connect_all:
        await players[0].connect(code)
    for p in players[1:]:
        await p.join(code)
        if connect_all:
            await p.connect(code)
    if connect_all:
        # The last to join had no socket at the deal: it has CONNECT_GRACE seconds to open
        # one, and did (connect waited for its welcome), so the game never saw it away.
        await players[-1].next(lambda f: f["type"] == "snapshot")
        head = await server.atable_call(code, lambda t: t.events.head)
        for p in players:
            await p.at_version(head)
            p.drain()
    return players


def run(coro: Any, timeout: float = 30.0) -> Any:
    """Run a test coroutine in a fresh event loop, failing it after ``timeout`` seconds; then
    close the sockets of the players it left open (pytest turns an unclosed one into an error)."""
    async def bounded() -> Any:
        try:
            return await asyncio.wait_for(coro, timeout)
        finally:
            await asyncio.gather(*(p.close() for p in list(Player.open_sockets)),
                                 return_exceptions=True)
    return asyncio.run(bounded())


def updates_with(kind: str) -> Callable[[Frame], bool]:
    """A frame predicate: an update that carries an event of ``kind``."""
    return lambda f: f["type"] == "update" and any(e["kind"] == kind for e in f["events"])
