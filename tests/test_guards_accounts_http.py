"""Guards for five promises no other test pinned down, each against a real uvicorn:

1. a login for an unknown name runs argon2's verify, on a hash of today's parameters, like a
   wrong password for a real account (``server.accounts.hashing.Hasher.verify``'s dummy hash);
2. ``Bob`` with a combining acute accent is ``Bob`` for accounts (``server.accounts.names``):
   its registration is refused 409 ``name_taken`` and nothing is created;
3. a chunked request body (no ``Content-Length``) of many small chunks whose sum passes
   ``max_body_bytes`` is answered 413 ``too_large`` (``server.errors.BodyLimit``);
4. a finished table stops counting toward its creator's ``tables_per_session``
   (``server.limits.Limits.check_tables``);
5. two seats asking Play again at the same instant make one new table (``server.again``).
"""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from serverhelpers import PASSWORD, LiveServer, Player, run, seated

from server.accounts.store import MemoryAccounts
from server.settings import Settings

#: The per-session table limit of this module's server (test 4).
TABLES = 2
#: The body limit of this module's server (test 3).
BODY_LIMIT = 2048

# A (the creator), B, C: C goes out at once with a Stop! and the hand is over.
POSITION = {
    "table": [["4C", "5C", "6C"], ["9H", "10H", "JH"]],
    "hands": {"A": ["7C", "2S", "QD"], "B": ["8C", "3H"], "C": ["10C", "JC", "QC"]},
    "stocks": {"A": ["KH"], "B": ["KS"], "C": []},
    "drew": ["A", "B", "C"],
    "laid": ["A", "B", "C"],
}


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    settings = Settings(
        secret="guards",
        test_deals=True,
        resume_wait=0,
        tables_per_session=TABLES,
        max_body_bytes=BODY_LIMIT,
    )
    with LiveServer(settings) as s:
        yield s


def client(server: LiveServer, token: str | None = None) -> httpx.AsyncClient:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx.AsyncClient(base_url=server.url, headers=headers, trust_env=False, timeout=10)


async def finish(players: list[Player]) -> None:
    """End the hand of :data:`POSITION` at once: seat C stops and lays its three clubs."""
    c = players[2]
    await c.ok("stop")
    for card in ("10C", "JC", "QC"):
        await c.ok("stage", card=card)
    last = await c.ok("lay", cards=["10C", "JC", "QC"])
    for p in players:
        await p.at_version(last["version"])
        assert p.game is not None and p.game["phase"] == "over", p.game


# ---------------------------------------------------------------------------- 1. dummy hash


class CountingHasher:
    """Wraps the app's ``argon2.PasswordHasher``: records the hash of every verify call."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.verified: list[str] = []
        self._lock = threading.Lock()

    def verify(self, hash_: str, password: str) -> bool:
        with self._lock:
            self.verified.append(hash_)
        return bool(self.inner.verify(hash_, password))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def params(phc: str) -> str:
    """The algorithm, version and cost of an argon2 PHC string (``$argon2id$v=19$m=..,t=..``)."""
    return "$".join(phc.split("$")[1:4])


def test_a_login_for_an_unknown_name_costs_a_hash_like_a_wrong_password(
    server: LiveServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    hasher = server.app.state.accounts.hasher
    counting = CountingHasher(hasher._ph)
    monkeypatch.setattr(hasher, "_ph", counting)

    async def go() -> None:
        async with client(server) as c:
            r = await c.post("/api/accounts", json={"name": "Hashed", "password": PASSWORD})
            assert r.status_code == 200, r.text
            real = server.app.state.accounts.store.accounts[r.json()["account"]].hash
            assert counting.verified == []

            wrong = await c.post("/api/login", json={"name": "Hashed", "password": "not it at all"})
            assert wrong.status_code == 401 and wrong.json()["code"] == "wrong_login", wrong.text
            assert counting.verified == [real]

            for n in (1, 2):  # the dummy hash is made once, then verified every time
                unknown = await c.post(
                    "/api/login", json={"name": "Nobody Here", "password": PASSWORD}
                )
                assert unknown.status_code == 401, unknown.text
                assert unknown.json() == wrong.json()  # the same reply, word for word
                assert len(counting.verified) == 1 + n
                dummy = counting.verified[-1]
                assert dummy != real and params(dummy) == params(real), (dummy, real)

    run(go(), timeout=20)


# ---------------------------------------------------------------------------- 2. accents


def test_bob_with_a_combining_accent_cannot_register_beside_bob(server: LiveServer) -> None:
    store: MemoryAccounts = server.app.state.accounts.store

    async def go() -> None:
        async with client(server) as c:
            r = await c.post("/api/accounts", json={"name": "Bob", "password": PASSWORD})
            assert r.status_code == 200, r.text
            bob = r.json()["account"]
            accounts, names = dict(store.accounts), dict(store.names)

            r = await c.post("/api/accounts", json={"name": "Bob\u0301", "password": PASSWORD})
            assert r.status_code == 409, r.text
            assert r.json()["code"] == "name_taken"
            assert store.accounts == accounts and store.names == names  # nothing created
            # The accented name is Bob's account name: it logs in to Bob.
            r = await c.post("/api/login", json={"name": "Bob\u0301", "password": PASSWORD})
            assert r.status_code == 200 and r.json()["account"] == bob, r.text

    run(go(), timeout=20)


# ---------------------------------------------------------------------------- 3. chunked body


def post_chunked(port: int, chunks: list[bytes]) -> tuple[bytes, int]:
    """POST ``chunks`` to ``/api/session`` with ``Transfer-Encoding: chunked`` on a raw
    socket, one chunk per write; the server's reply (all it sent before closing) and how many
    chunks went out before the server stopped taking them."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        s.sendall(
            b"POST /api/session HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n"
            b"Connection: close\r\n\r\n"
        )
        sent = 0
        try:
            for chunk in chunks:
                s.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                sent += 1
            s.sendall(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server answered and closed before the body was all sent
        reply = b""
        try:
            while data := s.recv(65536):
                reply += data
        except ConnectionResetError:
            pass
        return reply, sent


def test_a_body_of_many_small_chunks_past_the_limit_is_413(server: LiveServer) -> None:
    # A valid JSON body, so that nothing but its size can refuse it: {"name": "Chunky"}, then
    # white space, 64 bytes a chunk, about twice the limit in all.
    head = b'{"name": "Chunky"}'
    pad = [b" " * 64] * (2 * BODY_LIMIT // 64)
    assert all(len(c) < BODY_LIMIT for c in [head, *pad])
    assert len(head) + sum(map(len, pad)) > BODY_LIMIT
    reply, _ = post_chunked(server.port, [head, *pad])
    status_line, _, rest = reply.partition(b"\r\n")
    assert status_line.startswith(b"HTTP/1.1 413"), reply[:300]
    assert b'"code": "too_large"' in rest, reply[:300]
    # The same body, under the limit and chunked, is served: the 413 is for its size alone.
    small, _ = post_chunked(server.port, [head, *pad[: BODY_LIMIT // 128]])
    assert small.startswith(b"HTTP/1.1 200"), small[:300]


# ---------------------------------------------------------------------------- 4. table limit


def test_a_finished_table_stops_counting_toward_the_table_limit(server: LiveServer) -> None:
    async def go() -> None:
        players = await seated(
            server, ["Fin", "Gil", "Hal"], position=POSITION, timers={"play": 30}
        )
        fin = players[0]
        assert fin.token is not None
        async with client(server, fin.token) as c:
            for _ in range(TABLES - 1):  # the seated table is the first
                r = await c.post("/api/tables", json={"mode": "single"})
                assert r.status_code == 200, r.text
            refused = await c.post("/api/tables", json={"mode": "single"})
            assert refused.status_code == 429, refused.text
            assert refused.json()["code"] == "too_many_tables_open"

            await finish(players)
            r = await c.post("/api/tables", json={"mode": "single"})
            assert r.status_code == 200, r.text
            # ... and the limit holds again with the new one.
            r = await c.post("/api/tables", json={"mode": "single"})
            assert r.status_code == 429 and r.json()["code"] == "too_many_tables_open", r.text
        for p in players:
            await p.close()

    run(go(), timeout=20)


# ---------------------------------------------------------------------------- 5. play again


def test_two_seats_asking_play_again_at_once_make_one_table(
    server: LiveServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    registry = server.app.state.registry
    create = registry.create
    created: list[str] = []

    async def slow_create(*args: Any, **kwargs: Any) -> Any:
        # Widen the window between looking for the old table's Play again and recording it,
        # so that the two requests surely overlap there (they arrive within a few ms).
        await asyncio.sleep(0.2)
        table, seat = await create(*args, **kwargs)
        created.append(table.code)
        return table, seat

    async def go() -> None:
        players = await seated(server, ["Ivy", "Jo", "Kim"], position=POSITION, timers={"play": 30})
        code = players[0].code
        await finish(players)
        ids = {server.table_call(code, lambda t, i=i: t.seats[i].player_id) for i in range(3)}
        before = set(registry.tables)
        monkeypatch.setattr(registry, "create", slow_create)

        async def again(p: Player) -> httpx.Response:
            assert p.token is not None
            async with client(server, p.token) as c:
                return await c.post(f"/api/tables/{code}/again")

        ivy, jo = await asyncio.gather(again(players[0]), again(players[1]))
        assert ivy.status_code == 201 and jo.status_code == 201, (ivy.text, jo.text)
        new = ivy.json()["code"]
        assert jo.json()["code"] == new != code
        made = [
            t.code
            for t in list(registry.tables.values())
            if t.code not in before and t.creator_id in ids
        ]
        assert made == [new] and created == [new], (made, created)
        seats = server.table_call(new, lambda t: sorted(s.name for s in t.seats if s.player_id))
        assert seats == ["Ivy", "Jo"], seats
        for p in players:
            await p.close()

    run(go(), timeout=20)
