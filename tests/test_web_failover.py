"""Issue 13: the browser client survives the death of its table's server process. Headless
Chromium plays through HAProxy in front of three real server processes on a real Redis; the
table's owner is killed (SIGKILL) between two draws: the page reconnects by itself, the new
owner has the first draw, and the second (pressed while the page was reconnecting) is carried
out once, within 30 s."""

from __future__ import annotations

import signal
import time
from typing import Any

import httpx
import test_web_support as web
from clusterhelpers import Cluster, cluster, restart_dead
from test_web_support import Browsers, expect

chromium_browser, browsers = web.chromium_browser, web.browsers
__all__ = ["chromium_browser", "browsers", "cluster"]  # fixtures

POSITION = {
    "table": [["4C", "5C", "6C"]],
    "hands": {"A": ["9D", "KD"], "B": ["3H", "4H"], "C": ["2S", "3S"]},
    "stocks": {"A": ["KH", "2D", "3D", "8H", "9H"], "B": ["KS"], "C": ["QS"]},
    "drew": ["A", "B", "C"],
}


def api(c: Cluster, path: str, token: str | None = None, body: Any = None) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    r = httpx.post(c.url + path, json=body or {}, headers=headers, trust_env=False, timeout=10)
    for _ in range(30):  # 503 while the table moves to the process its code routes to
        if r.status_code != 503:
            break
        time.sleep(0.2)
        r = httpx.post(c.url + path, json=body or {}, headers=headers, trust_env=False,
                       timeout=10)
    assert r.status_code == 200, r.text
    return dict(r.json())


def test_the_page_survives_its_owner_being_killed(cluster: Cluster, browsers: Browsers) -> None:
    c = cluster.ready()
    ada = api(c, "/api/session", body={"name": "Ada"})
    code = api(c, "/api/tables", ada["token"], {"mode": "single", "position": POSITION,
               "timers": {"absence": 600, "inactivity": 600}})["code"]
    for name in ("Bob", "Cy"):
        api(c, f"/api/tables/{code}/join", api(c, "/api/session", body={"name": name})["token"])
    page = browsers.page("ada", session={"token": ada["token"], "name": ada["name"]})
    try:
        page.goto(f"{c.url}/t/{code}")
        expect(page.locator("#my-hand .card")).to_have_count(2)
        page.click("#btn-draw")
        expect(page.locator("#my-hand .card")).to_have_count(3)
        owner = c.node_of(code)
        assert owner is not None
        owner.signal(signal.SIGKILL)
        killed = time.monotonic()
        page.wait_for_timeout(300)
        page.click("#btn-draw")  # sent on reconnection (same id: carried out once)
        expect(page.locator("#my-hand .card")).to_have_count(4, timeout=30000)
        took = time.monotonic() - killed
        new_owner = c.node_of(code)
        assert new_owner is not None and new_owner.pid != owner.pid
        # Carried out once: the table's log in Redis (the commands the owners accepted, each with
        # the page's id) holds two draws, not three: counted where the server wrote what it
        # accepted, not on the page after a sleep.
        drew = [e["id"] for _, entries in c.journal(code) for e in entries
                if e.get("c", {}).get("do") == "draw"]
        assert len(drew) == 2 and len(set(drew)) == 2, c.journal(code)
        browsers.shot(page, "failover-01-after-kill")
        print(f"the page drew again {took:.1f} s after the kill")
        # The page showed no error; a websocket to a dead server is not one.
        browsers.errors = [e for e in browsers.errors if "WebSocket" not in e]
        browsers.assert_no_console_errors()
    finally:
        restart_dead(c)
