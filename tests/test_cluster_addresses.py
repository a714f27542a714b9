"""Issue 27, item 1: the client address comes from the proxy only. Two real server processes on
one Redis behind real HAProxy (``deploy/haproxy.cfg``); every request carries an
``X-Forwarded-For`` the client wrote, naming a new address each time. HAProxy replaces that
header with the address it saw, so every per-address limit holds all the same: new sessions,
registrations and login attempts (counted in Redis, across the processes), tables open and
websockets (counted per process). Before the fix HAProxy appended its address to the client's
header and the servers took the client's entry: 40 sessions, each "from" another address,
were 40 x 200 instead of 30, then 429."""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from clusterhelpers import Cluster
from serverhelpers import NO_PROXY
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from server import errors

pytestmark = pytest.mark.slow

NODES = 2
LIMITS = {"SESSIONS_PER_IP_PER_MINUTE": 6, "REGISTRATIONS_PER_IP_PER_HOUR": 3,
          "LOGINS_PER_IP_PER_MINUTE": 4, "LOGINS_PER_NAME_PER_MINUTE": 1000,
          "TABLES_PER_IP": 2, "SOCKETS_PER_IP": 3, "SOCKETS_PER_IP_PER_MINUTE": 8}
_spoofed = (f"10.{i // 250}.{i % 250}.7" for i in itertools.count(1))


def spoof() -> dict[str, str]:
    """A header naming an address nobody used before (what a client may write)."""
    return {"X-Forwarded-For": next(_spoofed)}


@pytest.fixture(scope="module")
def world() -> Iterator[tuple[Cluster, str, str]]:
    """The cluster with tight per-address limits, a session token and a table to watch (made
    first: the sessions test spends the address's sessions)."""
    c = Cluster(NODES, env={f"MACHIAVELOX_{k}": str(v) for k, v in LIMITS.items()})
    try:
        token = post(c, "/api/session", {"name": "Host"}).json()["token"]
        r = post(c, "/api/tables", {"mode": "long"}, token=token)
        assert r.status_code == 200, r.text
        yield c, str(token), str(r.json()["code"])
    finally:
        c.close()


def post(c: Cluster, path: str, body: Any, token: str | None = None) -> httpx.Response:
    headers = spoof()
    if token:
        headers["Authorization"] = f"Bearer {token}"
    return httpx.post(c.url + path, json=body, headers=headers, trust_env=False, timeout=20)


def refused_within(c: Cluster, attempts: int, path: str, body: Any, code: str,
                   token: str | None = None) -> int:
    """POST ``path`` at most ``attempts`` times, each with another spoofed address; how many
    were served before the refusal ``code`` (429). The first must be served."""
    statuses = []
    for i in range(attempts):
        r = post(c, path, body(i) if callable(body) else body, token)
        if r.status_code == 429:
            assert r.json()["code"] == code, r.text
            assert statuses, f"the first {path} was refused already"
            return len(statuses)
        assert r.status_code < 500, r.text
        statuses.append(r.status_code)
    raise AssertionError(f"{attempts} x {path}, each claiming another address in "
                         f"X-Forwarded-For, none refused {code}: {statuses}")


def test_spoofed_addresses_buy_no_new_sessions(world: tuple[Cluster, str, str]) -> None:
    c, _, _ = world
    limit = LIMITS["SESSIONS_PER_IP_PER_MINUTE"]
    served = refused_within(c, limit + 1, "/api/session", {"name": "Eve"}, "too_many_sessions")
    assert served <= limit - 1  # the fixture's session counted too


def test_spoofed_addresses_buy_no_registrations(world: tuple[Cluster, str, str]) -> None:
    c, _, _ = world
    limit = LIMITS["REGISTRATIONS_PER_IP_PER_HOUR"]
    served = refused_within(c, limit + 1, "/api/accounts",
                            lambda i: {"name": f"Spoofer{i}", "password": "correct horse battery"},
                            "too_many_registrations")
    assert served == limit


def test_spoofed_addresses_buy_no_login_attempts(world: tuple[Cluster, str, str]) -> None:
    c, _, _ = world
    limit = LIMITS["LOGINS_PER_IP_PER_MINUTE"]
    served = refused_within(c, limit + 1, "/api/login",
                            lambda i: {"name": f"Victim{i}", "password": "wrong password x"},
                            "too_many_logins")
    assert served == limit


def test_spoofed_addresses_buy_no_tables(world: tuple[Cluster, str, str]) -> None:
    c, token, _ = world
    # Counted per process, and creations are spread round robin: past NODES x the limit, one
    # process holds more than the limit from this address.
    bound = NODES * LIMITS["TABLES_PER_IP"]
    served = refused_within(c, bound + 1, "/api/tables", {"mode": "long"},
                            "too_many_tables_open", token=token)
    assert served <= bound - 1  # the fixture's table counted too


async def _open(c: Cluster, code: str) -> ClientConnection:
    assert c.proxy is not None
    return await connect(f"{c.proxy.ws_url}/ws/{code}", additional_headers=spoof(),
                         open_timeout=10, close_timeout=2, **NO_PROXY)


async def _first_frame(ws: ClientConnection) -> dict[str, Any] | int:
    """The first frame's JSON, or the close code when the server closed the socket."""
    try:
        return dict(json.loads(await asyncio.wait_for(ws.recv(), 10)))
    except ConnectionClosed as e:
        assert e.rcvd is not None
        return e.rcvd.code


def test_spoofed_addresses_buy_no_sockets(world: tuple[Cluster, str, str]) -> None:
    c, _, code = world  # one table: every socket goes to its process
    limit = LIMITS["SOCKETS_PER_IP"]

    async def go() -> None:
        held: list[ClientConnection] = []
        try:
            for _ in range(limit + 1):
                ws = await _open(c, code)
                held.append(ws)
                first = await _first_frame(ws)
                if first == errors.CLOSE_TOO_MANY_SOCKETS:
                    assert len(held) == limit + 1, f"refused at {len(held)}"
                    return
                assert isinstance(first, dict) and first["type"] == "welcome", first
            raise AssertionError(f"{limit + 1} sockets, each claiming another address: all open")
        finally:
            for ws in held:
                await ws.close()
    asyncio.run(asyncio.wait_for(go(), 60))


def test_spoofed_addresses_buy_no_new_sockets_a_minute(world: tuple[Cluster, str, str]) -> None:
    c, _, code = world
    limit = LIMITS["SOCKETS_PER_IP_PER_MINUTE"]

    async def go() -> None:
        opened = 0
        for _ in range(limit + 1):
            try:
                ws = await _open(c, code)
            except InvalidStatus as e:
                assert e.response.status_code == 403
                assert opened, "the first socket was refused already"
                return
            opened += 1
            await _first_frame(ws)
            await ws.close()
        raise AssertionError(f"{opened} handshakes a minute, each claiming another address: "
                             "none refused")
    asyncio.run(asyncio.wait_for(go(), 60))


def test_a_client_cannot_spend_another_address_quota(world: tuple[Cluster, str, str]) -> None:
    """A client naming its victim's address in X-Forwarded-For spent the victim's sessions;
    now it spends its own. The victim connects from another loopback address (127.0.0.2)."""
    c, _, _ = world
    victim = "127.0.0.2"
    limit = LIMITS["SESSIONS_PER_IP_PER_MINUTE"]
    for _ in range(limit + 1):
        httpx.post(c.url + "/api/session", json={"name": "Eve"},
                   headers={"X-Forwarded-For": victim}, trust_env=False, timeout=20)
    transport = httpx.HTTPTransport(local_address=victim)
    with httpx.Client(transport=transport, trust_env=False, timeout=20) as h:
        r = h.post(c.url + "/api/session", json={"name": "Victim"})
    assert r.status_code == 200, r.text


def test_the_proxy_does_not_serve_the_metrics(world: tuple[Cluster, str, str]) -> None:
    """The adversarial tester read the refusal counters through the proxy; a server's own
    address still serves them, for Prometheus on the compose network."""
    c, _, _ = world
    for path in ("/metrics", "/metrics/", "/METRICS"):
        r = httpx.get(c.url + path, trust_env=False, timeout=20)
        assert r.status_code == 404, (path, r.status_code)
        assert "machiavelox_" not in r.text
    assert httpx.get(c.nodes[0].url + "/metrics", trust_env=False, timeout=20).status_code == 200
