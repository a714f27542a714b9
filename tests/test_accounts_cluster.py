"""Revocation across processes (issue 18): the cluster of ``tests/clusterhelpers.py`` (three
real ``python -m server serve`` processes on one real Redis, HAProxy in front). An account
logs in on two processes, holds a table socket on one and an agora socket on another, and
logs out everywhere through the third: both sockets are closed with 4402 within seconds
(each process checks its sockets' sessions every ``revocation_check_seconds``, 1 s), and the
token is refused on every process."""

from __future__ import annotations

import asyncio
import json
import time
import uuid

import httpx
import pytest
from clusterhelpers import Cluster, cluster  # noqa: F401 - the shared cluster fixture
from serverhelpers import NO_PROXY, PASSWORD
from test_accounts import closed_with
from websockets.asyncio.client import connect


def post(url: str, path: str, token: str | None = None, body: object = None) -> httpx.Response:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx.post(url + path, json=body, headers=headers, trust_env=False, timeout=10)


@pytest.mark.slow
def test_logout_everywhere_closes_the_sockets_on_every_process(cluster: Cluster) -> None:  # noqa: F811
    c = cluster.ready()
    a, b, third = c.nodes
    name = f"Rex{uuid.uuid4().hex[:4]}"
    r = post(a.url, "/api/accounts", body={"name": name, "password": PASSWORD})
    assert r.status_code == 200, r.text
    token = r.json()["token"]
    r = post(b.url, "/api/login", body={"name": name, "password": PASSWORD})
    assert r.status_code == 200, r.text
    other = r.json()["token"]
    code = post(a.url, "/api/tables", token, {"mode": "single"}).json()["code"]

    async def go() -> None:
        table = await connect(f"ws://127.0.0.1:{a.port}/ws/{code}?token={token}",
                              open_timeout=10, **NO_PROXY)
        agora = await connect(f"ws://127.0.0.1:{b.port}/ws/agora?token={token}",
                              open_timeout=10, **NO_PROXY)
        try:
            await table.send(json.dumps({"type": "resume", "last_version": None}))
            assert json.loads(await asyncio.wait_for(table.recv(), 10))["type"] == "welcome"
            await agora.send(json.dumps({"type": "ping"}))
            assert json.loads(await asyncio.wait_for(agora.recv(), 10))["type"] == "pong"
            r = await asyncio.to_thread(post, third.url, "/api/logout-all", other)
            assert r.json() == {"revoked": 2}
            t0 = time.monotonic()
            codes = await asyncio.gather(closed_with(table, 5), closed_with(agora, 5))
            took = time.monotonic() - t0
            assert [code for code, _ in codes] == [4402, 4402]
            assert took < 4, took
        finally:
            await table.close()
            await agora.close()

    asyncio.run(asyncio.wait_for(go(), 40))
    for node in (a, b, third):
        r = httpx.get(node.url + "/api/me", headers={"Authorization": f"Bearer {token}"},
                      trust_env=False, timeout=10)
        assert (r.status_code, r.json()["code"]) == (401, "session_revoked")
