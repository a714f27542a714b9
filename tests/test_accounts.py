"""Accounts (issue 18, ``server/accounts/``) through a real uvicorn and real websockets, on the
memory store and on a real Redis: register, log in, log out, log out everywhere; revoked
sessions refused on HTTP (401 ``session_revoked``) and cut off on live websockets (4402);
names unique by skeleton; guests kept off registered names and out of the agora; login rate
limits; password hashing off the event loop and bounded. The cross-process cut-off is in
``tests/test_accounts_cluster.py``."""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from serverhelpers import NO_PROXY, PASSWORD, LiveServer, Player, register, run
from test_agora import AgoraClient
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from server.accounts.hashing import Hasher, HasherBusy
from server.accounts.names import skeleton
from server.accounts.store import Account, MemoryAccounts, RedisAccounts
from server.errors import ApiError
from server.sessions import BadName, Sessions, clean_name
from server.settings import Settings

#: Alice in Latin letters, in fullwidth forms, with a Cyrillic А (U+0410), and with a
#: capital I for the l: one name.
ALICES = ("Alice", "ＡＬＩＣＥ", "\u0410lice", "AIice")


def settings_for(kind: str, redis_url: str | None, **extra: Any) -> Settings:
    if kind == "redis":
        extra |= {"redis_url": redis_url, "redis_prefix": f"acct{uuid.uuid4().hex[:8]}:"}
    return Settings(secret="test", test_deals=True, resume_wait=0,
                    revocation_check_seconds=0.2, **extra)


@pytest.fixture(params=["memory", "redis"], scope="module")
def server(request: pytest.FixtureRequest) -> Iterator[LiveServer]:
    url = request.getfixturevalue("redis_url") if request.param == "redis" else None
    with LiveServer(settings_for(request.param, url)) as s:
        yield s


def client(server: LiveServer, token: str | None = None, ip: str | None = None) -> httpx.AsyncClient:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    if ip:
        headers["X-Forwarded-For"] = ip  # uvicorn trusts it from 127.0.0.1 (LiveServer)
    return httpx.AsyncClient(base_url=server.url, headers=headers, trust_env=False, timeout=10)


def unique(name: str) -> str:
    return f"{name}{uuid.uuid4().hex[:6]}"


# ---------------------------------------------------------------------------- names


def test_confusable_names_share_one_skeleton_and_others_do_not() -> None:
    assert len({skeleton(n) for n in ALICES}) == 1
    assert skeleton("Zoë") == skeleton("Zoe") and skeleton("B0B") == skeleton("bob")
    assert len({skeleton(n) for n in ("Alice", "Alicia", "Bob", "小明", "Ana Lee")}) == 5


def test_invisible_characters_do_not_make_a_new_name() -> None:
    # Printable but blank: a Hangul filler, the blank Braille pattern, a variation selector,
    # the combining grapheme joiner, the Hangul choseong filler.
    for disguised in ("Alice\u3164", "Alice\u2800", "Alice\ufe0f", "Al\u034fice", "\u115fAlice",
                      "Alice\uffa0", "Alice\U000e0100"):
        assert skeleton(disguised) == skeleton("Alice"), repr(disguised)
        assert clean_name(disguised) == disguised  # shown as typed, but the same account name
    for blank in ("\u3164", "\u2800 \u3164", "\ufe0f"):
        with pytest.raises(BadName, match="visible"):
            clean_name(blank)


def test_a_skeleton_costs_linear_time() -> None:
    # confusables.normalize on a whole name is exponential (3.4 s for ten "1"): one character
    # at a time it is not.
    t0 = time.perf_counter()
    assert skeleton("1" * 24) == "i" * 24
    assert skeleton("\u0430" * 24) == "a" * 24
    assert time.perf_counter() - t0 < 0.5


def test_an_account_token_carries_its_session_and_a_guest_token_none() -> None:
    sessions = Sessions("key", 3600)
    token, session = sessions.issue_account("abc", "Ada", "sid1")
    assert sessions.verify(token) == session
    assert (session.player_id, session.sid, session.account, session.guest) == (
        "a:abc", "sid1", "abc", False)
    guest_token, guest = sessions.issue("Ada")
    assert sessions.verify(guest_token) == guest and guest.guest and guest.sid is None
    # A signed payload that claims an account's player id without its session is refused.
    forged = sessions._signer.dumps({"p": "a:abc", "n": "Ada"})
    assert sessions.verify(str(forged)) is None


# ---------------------------------------------------------------------------- the stores


@pytest.fixture(params=["memory", "redis"])
def account_store(request: pytest.FixtureRequest) -> Any:
    if request.param == "memory":
        return lambda: MemoryAccounts()
    url = request.getfixturevalue("redis_url")
    return lambda: RedisAccounts.from_url(url, f"tacct{uuid.uuid4().hex[:8]}:")


def test_the_store_keeps_one_account_per_skeleton_and_revokes_sessions(account_store: Any) -> None:
    async def go() -> None:
        store = account_store()
        try:
            a = Account("id1", "Alice", skeleton("Alice"), "h1", 1.0)
            assert await store.create(a)
            assert not await store.create(Account("id2", "ＡＬＩＣＥ", skeleton("ＡＬＩＣＥ"), "h2", 2.0))
            assert await store.by_skeleton(skeleton("\u0410lice")) == a
            assert await store.by_skeleton(skeleton("Bob")) is None
            for sid in ("s1", "s2", "s3"):
                await store.session_add(sid, "id1", 60)
            await store.session_add("other", "id9", 60)
            assert await store.sessions_alive(["s1", "s2", "nope"]) == {"s1", "s2"}
            await store.session_drop("s1", "id1")
            assert await store.session_account("s1") is None
            assert await store.session_account("s2") == "id1"
            assert await store.sessions_drop_all("id1") == ["s2", "s3"]
            assert await store.sessions_alive(["s2", "s3", "other"]) == {"other"}
        finally:
            await store.close()
    run(go())


def test_a_memory_session_expires_with_its_token(monkeypatch: pytest.MonkeyPatch) -> None:
    import server.accounts.store as store_module

    async def go() -> None:
        store = MemoryAccounts()
        await store.session_add("s1", "id1", 60)
        assert await store.session_account("s1") == "id1"
        real = time.time()
        monkeypatch.setattr(store_module.time, "time", lambda: real + 61)
        assert await store.session_account("s1") is None
        assert await store.sessions_alive(["s1"]) == set()
    run(go())


# ---------------------------------------------------------------------------- HTTP


class TestHttp:
    def test_register_login_logout_and_logout_everywhere(self, server: LiveServer) -> None:
        async def go() -> None:
            name = unique("Ada")
            async with client(server) as c:
                r = await c.post("/api/accounts", json={"name": name, "password": PASSWORD})
                assert r.status_code == 200, r.text
                first = r.json()
                assert first["guest"] is False and first["player_id"] == "a:" + first["account"]
                # Logging in again, with the name in capitals: another session, the same player.
                r = await c.post("/api/login", json={"name": name.upper(), "password": PASSWORD})
                assert r.status_code == 200, r.text
                second = r.json()
                assert second["token"] != first["token"]
                assert second["player_id"] == first["player_id"] and second["name"] == name
                third = await register(c, name)  # a third session (the helper logs in)
            async with client(server, first["token"]) as c:
                me = (await c.get("/api/me")).json()
                assert me == {k: first[k] for k in ("name", "player_id", "account", "guest")}
                assert (await c.post("/api/logout")).json() == {"revoked": 1}
                for path in ("/api/me", "/api/logout", "/api/players/me/history"):
                    r = await c.request("POST" if path == "/api/logout" else "GET", path)
                    assert r.status_code == 401 and r.json()["code"] == "session_revoked", path
                r = await c.post("/api/tables", json={"mode": "single"})
                assert r.status_code == 401 and r.json()["code"] == "session_revoked"
            async with client(server, second["token"]) as c:
                assert (await c.get("/api/me")).status_code == 200  # the others still work
                assert (await c.post("/api/logout-all")).json() == {"revoked": 2}
                assert (await c.get("/api/me")).json()["code"] == "session_revoked"
            async with client(server, third) as c:
                assert (await c.get("/api/me")).json()["code"] == "session_revoked"
            async with client(server) as c:  # the password still opens a new session
                r = await c.post("/api/login", json={"name": name, "password": PASSWORD})
                assert r.status_code == 200
        run(go())

    def test_wrong_passwords_short_passwords_and_confusable_names_are_refused(
            self, server: LiveServer) -> None:
        async def go() -> None:
            tag = uuid.uuid4().hex[:4]
            async with client(server) as c:
                r = await c.post("/api/accounts", json={"name": f"Alice{tag}", "password": PASSWORD})
                assert r.status_code == 200
                for other in ALICES[1:]:
                    r = await c.post("/api/accounts", json={"name": other + tag,
                                                            "password": PASSWORD})
                    assert (r.status_code, r.json()["code"]) == (409, "name_taken"), other
                # Too short, only spaces, far too long: the player's sentence each time.
                for odd in ("\u0301", "\u0300\u0301"):  # a name with nothing but an accent
                    r = await c.post("/api/accounts", json={"name": odd, "password": PASSWORD})
                    assert (r.status_code, r.json()["code"]) == (422, "bad_field"), odd
                for bad in ("1234567", " " * 8, "\t \u3000 " * 3, "x" * 5000, "\u200b" * 8,
                            "\x00" * 8, "\u0301" * 8):
                    r = await c.post("/api/accounts", json={"name": unique("Short"),
                                                            "password": bad})
                    assert (r.status_code, r.json()["code"]) == (422, "bad_password"), bad[:10]
                    assert "not only spaces" in r.json()["message"]
                for name, password in ((f"Alice{tag}", "wrong password"),
                                       (unique("Nobody"), PASSWORD)):
                    r = await c.post("/api/login", json={"name": name, "password": password})
                    assert (r.status_code, r.json()["code"]) == (401, "wrong_login")
                # Any look-alike spelling logs in to the one account.
                r = await c.post("/api/login", json={"name": f"\u0410lice{tag}", "password": PASSWORD})
                assert r.status_code == 200 and r.json()["name"] == f"Alice{tag}"
        run(go())

    def test_a_lone_surrogate_in_a_password_is_a_bad_password_not_a_500(
            self, server: LiveServer) -> None:
        # JSON can carry "\ud800" alone; it reached argon2 unencoded: 500, "Exception in ASGI
        # application", for registering and for logging in, to a known name or an unknown one.
        async def go() -> None:
            name = unique("Sur")
            body = '{"name": "%s", "password": "abcdefgh\\ud800"}'
            async with client(server) as c:
                await register(c, name)
                for path, who in (("/api/accounts", unique("Sur")), ("/api/login", name),
                                  ("/api/login", unique("Nobody"))):
                    r = await c.post(path, content=body % who,
                                     headers={"Content-Type": "application/json"})
                    assert (r.status_code, r.json()["code"]) == (422, "bad_password"), (path, r.text)
                    assert "broken characters" in r.json()["message"]
                # and nothing was made or spent: the account logs in, the name is free
                r = await c.post("/api/login", json={"name": name, "password": PASSWORD})
                assert r.status_code == 200
        run(go())

    def test_common_passwords_are_refused_with_a_reason(self, server: LiveServer) -> None:
        async def go() -> None:
            async with client(server) as c:
                # in any case, with spaces or invisible characters, in look-alike letters
                for common in ("password", "Password", "PASSWORD1", "iloveyou", "qwertyuiop",
                               "1234567890", "trustno1", " password", "pass word\t",
                               "password\u200b", "pass\u00adword", "\uff50\uff41\uff53\uff53word",
                               "p\u0430ssword", "\u0130LOVEYOU", "ILOVEYOU\u0301", "passw0rd"):
                    r = await c.post("/api/accounts", json={"name": unique("Com"),
                                                            "password": common})
                    assert (r.status_code, r.json()["code"]) == (422, "common_password"), common
                    assert "most common" in r.json()["message"]
                # a passphrase of common words is not itself on the list
                r = await c.post("/api/accounts", json={"name": unique("Com"),
                                                        "password": "password iloveyou"})
                assert r.status_code == 200, r.text
        run(go())

    def test_a_password_typed_in_another_unicode_form_logs_in(self, server: LiveServer) -> None:
        # "ä" typed as one character (NFC) or as "a" and a combining diaeresis (NFD, as some
        # keyboards and systems send it) is one password (RFC 8265's NFC).
        async def go() -> None:
            name = unique("Umlaut")
            async with client(server) as c:
                r = await c.post("/api/accounts", json={"name": name, "password": "gr\u00fcne r\u00f6sti"})
                assert r.status_code == 200, r.text
                r = await c.post("/api/login", json={"name": name, "password": "gru\u0308ne ro\u0308sti"})
                assert r.status_code == 200, r.text
        run(go())

    def test_guests_cannot_take_a_registered_name_nor_queue_at_the_agora(
            self, server: LiveServer) -> None:
        async def go() -> None:
            name = unique("Bea")
            async with client(server) as c:
                await register(c, name)
                for taken in (name, name.upper(), "B\u0435" + name[2:]):  # Cyrillic е
                    r = await c.post("/api/session", json={"name": taken})
                    assert (r.status_code, r.json()["code"]) == (409, "name_registered"), taken
                guest = (await c.post("/api/session", json={"name": unique("Guest")})).json()
                assert guest["guest"] is True
            async with client(server, guest["token"]) as c:
                assert (await c.get("/api/me")).json()["guest"] is True
                r = await c.post("/api/logout-all")
                assert (r.status_code, r.json()["code"]) == (403, "account_needed")
                # Guests still play friendly games.
                assert (await c.post("/api/tables", json={"mode": "single"})).status_code == 200
            p = Player(server, "guest")
            p.token = guest["token"]
            agora = await AgoraClient(p).open()
            await agora.send({"type": "join"})
            assert (await agora.next("error"))["code"] == "account_needed"
            await agora.send({"type": "ping"})
            await agora.next("pong")  # the socket stays open
            async with client(server) as c:
                assert (await c.get("/api/agora")).json()["waiting"] == 0
            await agora.close()
        run(go())


# ---------------------------------------------------------------------------- websockets


async def closed_with(ws: Any, timeout: float) -> tuple[int | None, int]:
    """The close code the server sent within ``timeout`` seconds (None: still open), and how
    many frames came before it."""
    frames = 0
    try:
        while True:
            await asyncio.wait_for(ws.recv(), timeout)
            frames += 1
    except ConnectionClosed as e:
        return (e.rcvd.code if e.rcvd is not None else None), frames
    except TimeoutError:
        return None, frames


class TestRevokedSockets:
    def test_logout_everywhere_cuts_the_accounts_live_sockets(self, server: LiveServer) -> None:
        async def go() -> None:
            name = unique("Cy")
            p = await Player(server, name).register()
            code = await p.create("single")
            await p.connect(code)
            assert p.seat == name
            agora = await AgoraClient(p).open()
            await agora.send({"type": "join"})
            await agora.next("queued")
            async with client(server) as c:
                other = await register(c, name)  # another browser of the same account
            async with client(server, other) as c:
                assert (await c.post("/api/logout-all")).json()["revoked"] == 2
            t0 = time.monotonic()
            await asyncio.wait_for(p.closed.wait(), 3)
            await asyncio.wait_for(agora.closed.wait(), 3)
            took = time.monotonic() - t0
            assert p.ws is not None and p.ws.close_code == 4402
            assert agora.ws is not None and agora.ws.close_code == 4402
            assert took < 2.5, took  # at once on this process (the sweep is 0.2 s here)
            # The revoked token cannot open a socket again (closed before anything is sent);
            # the queue let the player go.
            for url in (f"{server.ws_url}/ws/{code}?token={p.token}",
                        f"{server.ws_url}/ws/agora?token={p.token}"):
                async with connect(url, open_timeout=5, **NO_PROXY) as ws:
                    if "agora" in url:
                        with contextlib.suppress(ConnectionClosed):  # closed already: fine
                            await ws.send('{"type": "ping"}')  # a live socket would answer pong
                    assert await closed_with(ws, 3) == (4402, 0)
            async with client(server) as c:
                for _ in range(50):
                    if (await c.get("/api/agora")).json()["waiting"] == 0:
                        break
                    await asyncio.sleep(0.05)
                assert (await c.get("/api/agora")).json()["waiting"] == 0
            await p.close()
            await agora.close()
        run(go())

    def test_a_socket_of_another_session_stays_open(self, server: LiveServer) -> None:
        async def go() -> None:
            name = unique("Dee")
            p = await Player(server, name).register()
            code = await p.create("single")
            await p.connect(code)
            async with client(server) as c:
                other = await register(c, name)
            async with client(server, other) as c:
                assert (await c.post("/api/logout")).json() == {"revoked": 1}
            await asyncio.sleep(0.6)  # three revocation checks
            assert not p.closed.is_set()
            await p.send({"type": "ping"})
            await p.next(lambda f: f["type"] == "pong")
            await p.close()
        run(go())


# ---------------------------------------------------------------------------- limits


@pytest.mark.parametrize("kind", ["memory", "redis"])
def test_logins_are_rate_limited_by_address_and_by_name_and_address(
        kind: str, request: pytest.FixtureRequest) -> None:
    url = request.getfixturevalue("redis_url") if kind == "redis" else None
    settings = settings_for(kind, url, logins_per_ip_per_minute=3, registrations_per_ip_per_hour=2,
                            login_failures_per_pair_per_hour=2,
                            login_failures_per_name_per_minute=100)
    with LiveServer(settings) as server:
        async def go() -> None:
            async with client(server, ip="10.0.0.1") as c:
                # refused passwords spend none of the address's two registrations
                for bad in ("short", "password", "iloveyou"):
                    r = await c.post("/api/accounts", json={"name": "Eve", "password": bad})
                    assert r.status_code == 422, r.text
                await register(c, "Eve")
                await register(c, "Fay")
                r = await c.post("/api/accounts", json={"name": "Gus", "password": PASSWORD})
                assert (r.status_code, r.json()["code"]) == (429, "too_many_registrations")
            async with client(server, ip="10.0.0.2") as c:
                codes = [(await c.post("/api/login", json={"name": "Eve", "password": "wrong pass"})
                          ).json()["code"] for _ in range(4)]
                # two wrong passwords for Eve from here; then this address is refused for Eve
                assert codes == ["wrong_login"] * 2 + ["too_many_logins"] * 2
                # Refused before the password is checked: the right one is refused too...
                r = await c.post("/api/login", json={"name": "eve", "password": PASSWORD})
                assert (r.status_code, r.json()["code"]) == (429, "too_many_logins")
            # ...but only for that name from that address: Eve from home gets in.
            async with client(server, ip="10.0.1.1") as c:
                r = await c.post("/api/login", json={"name": "Eve", "password": PASSWORD})
                assert r.status_code == 200, r.text
            # Attempts from one address, right or wrong, any name: at most 3 a minute.
            async with client(server, ip="10.0.2.1") as c:
                statuses = [(await c.post("/api/login", json={"name": name, "password": PASSWORD})
                             ).status_code for name in ("Fay", "FAY", "fay", "Fay")]
                assert statuses == [200, 200, 200, 429]
            # IPv6 clients count by /64: a host cannot take a fresh address for each attempt.
            statuses = []
            for host in ("1", "2", "3", "4"):
                async with client(server, ip=f"2001:db8:7::{host}") as c:
                    statuses.append((await c.post("/api/login", json={
                        "name": "Fay", "password": PASSWORD})).status_code)
            assert statuses == [200, 200, 200, 429]
            async with client(server, ip="2001:db8:8::1") as c:  # another /64
                assert (await c.post("/api/login", json={"name": "Fay", "password": PASSWORD})
                        ).status_code == 200
        run(go())


@pytest.mark.parametrize("kind", ["memory", "redis"])
def test_a_name_under_attack_slows_down_but_never_locks_out_its_owner(
        kind: str, request: pytest.FixtureRequest) -> None:
    """Issue 27: ten wrong logins a minute for a name used to lock its owner out from every
    address. Now they refuse only the addresses that failed, and slow the others down."""
    url = request.getfixturevalue("redis_url") if kind == "redis" else None
    slow = 0.6
    settings = settings_for(kind, url, login_failures_per_pair_per_hour=100,
                            login_failures_per_name_per_minute=3, login_slowdown_seconds=slow)
    with LiveServer(settings) as server:
        async def login(ip: str, password: str) -> tuple[int, str, float]:
            async with client(server, ip=ip) as c:
                t0 = time.monotonic()
                r = await c.post("/api/login", json={"name": "Ida", "password": password})
                return r.status_code, r.json().get("code", ""), time.monotonic() - t0

        async def go() -> None:
            async with client(server, ip="10.9.0.1") as c:
                await register(c, "Ida")
            # Below the name's limit nobody waits; the owner mistypes once at home.
            assert (await login("10.9.9.9", PASSWORD))[:2] == (200, "")
            assert (await login("10.9.0.1", "ida's typo"))[:2] == (401, "wrong_login")
            for _ in range(3):
                assert (await login("10.6.0.1", "guess guess"))[:2] == (401, "wrong_login")
            # The name is under attack now. The attacker's address, which failed three times,
            # is refused even with the right password; the owner, from home (one typo) or from
            # an address that never failed, gets in, again and again, after the slow-down.
            assert (await login("10.6.0.1", PASSWORD))[:2] == (429, "too_many_logins")
            for ip in ("10.9.0.1", "10.9.0.1", "10.9.0.2"):
                status, code, took = await login(ip, PASSWORD)
                assert (status, code) == (200, ""), (ip, code)
                assert took >= slow * 0.9, took
            # A fresh attacker's address gets three slowed-down tries, then is refused too.
            for _ in range(3):
                status, code, took = await login("10.6.0.4", "guess again")
                assert (status, code) == (401, "wrong_login") and took >= slow * 0.9
            assert (await login("10.6.0.4", PASSWORD))[:2] == (429, "too_many_logins")
        run(go())


# ---------------------------------------------------------------------------- hashing


def test_hashing_runs_off_the_event_loop() -> None:
    """A burst of slow hashes (time_cost 3) leaves the loop free: its longest stall stays well
    under one hash's duration (a hash on the loop would stall it that long)."""
    async def go() -> None:
        hasher = Hasher(workers=2, queue=8, time_cost=3, memory_cost=24 * 1024)
        t0 = time.perf_counter()
        stored = await hasher.hash(PASSWORD)
        one = time.perf_counter() - t0
        worst = 0.0
        done = asyncio.Event()

        async def ticker() -> None:
            nonlocal worst
            last = time.perf_counter()
            while not done.is_set():
                await asyncio.sleep(0.005)
                now = time.perf_counter()
                worst = max(worst, now - last)
                last = now
        tick = asyncio.ensure_future(ticker())
        results = await asyncio.gather(*(hasher.verify(stored, PASSWORD if i % 2 else "nope")
                                         for i in range(4)))
        done.set()
        await tick
        hasher.close()
        assert results == [False, True] * 2
        assert worst < one / 2, (worst, one)
    run(go())


def test_the_hash_pool_refuses_past_its_queue() -> None:
    async def go() -> None:
        hasher = Hasher(workers=1, queue=2, time_cost=1, memory_cost=8 * 1024)
        outcomes = await asyncio.gather(*(hasher.hash(f"password {i}") for i in range(6)),
                                        return_exceptions=True)
        hasher.close()
        busy = [o for o in outcomes if isinstance(o, HasherBusy)]
        assert len(busy) == 3 and all(isinstance(o, str) for o in outcomes[:3])
        assert isinstance(busy[0], ApiError) and busy[0].status == 503
        assert busy[0].code == "accounts_busy"
    run(go())


# ---------------------------------------------------------------------------- docs


def test_the_accounts_codes_settings_and_close_code_are_documented() -> None:
    from pathlib import Path

    from server.accounts import SENTENCES
    from server.errors import CLOSE_REVOKED

    root = Path(__file__).resolve().parents[1]
    errors_md = (root / "docs" / "errors.md").read_text("utf-8")
    protocol = (root / "docs" / "protocol.md").read_text("utf-8")
    readme = (root / "README.md").read_text("utf-8")
    for code, sentence in [*SENTENCES.items(), ("accounts_busy", HasherBusy().message)]:
        assert f"`{code}`" in errors_md and sentence in errors_md, code
        assert f"`{code}`" in protocol, code
    assert f"**{CLOSE_REVOKED}**" in protocol and str(CLOSE_REVOKED) in errors_md
    for field in ("logins_per_ip_per_minute", "login_failures_per_pair_per_hour",
                  "login_failures_per_name_per_minute", "login_slowdown_seconds",
                  "registrations_per_ip_per_hour", "hash_workers", "hash_queue",
                  "revocation_check_seconds", "session_max_age"):
        assert f"MACHIAVELOX_{field.upper()}" in readme, field
        assert field in Settings.model_fields
