"""Issue 27, item 3: HTTPS terminated at HAProxy. Two real server processes on one Redis behind
real HAProxy (``deploy/haproxy.cfg``) with the optional TLS listener enabled by a self-signed
certificate that ``openssl`` makes here (``MVX_TLS_CERT``), and the servers'
``MACHIAVELOX_PUBLIC_URL`` set to that https origin, as the README's "Hosting for friends" says.
Pages, the API and websockets answer over TLS; plain HTTP is redirected there; a socket from the
http origin closes with 4403; Debian's Chromium plays a draw over https and wss; a reload of
the proxy (SIGHUP to its master, what ``docker compose kill -s HUP proxy`` sends) serves a
renewed certificate and keeps the open sockets."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import ssl
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import test_web_support as web
from clusterhelpers import Cluster
from conftest import free_port
from serverhelpers import NO_PROXY
from test_web_support import expect
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from server import errors

REPO = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.slow

chromium_browser = web.chromium_browser
__all__ = ["chromium_browser"]  # fixture

POSITION = {
    "table": [["4C", "5C", "6C"]],
    "hands": {"A": ["9D", "KD"], "B": ["3H", "4H"], "C": ["2S", "3S"]},
    "stocks": {"A": ["KH", "2D", "3D", "8H", "9H"], "B": ["KS"], "C": ["QS"]},
    "drew": ["A", "B", "C"],
}


def make_cert(directory: Path, name: str) -> Path:
    """A self-signed certificate for 127.0.0.1 and its key in one PEM file (what HAProxy's
    ``crt`` reads; certbot's fullchain.pem and privkey.pem concatenated are the same)."""
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("openssl is not installed")
    key, crt = directory / f"{name}.key", directory / f"{name}.crt"
    subprocess.run([openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-keyout", str(key), "-out", str(crt), "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1"],
                   check=True, capture_output=True, timeout=60)
    pem = directory / "site.pem"
    tmp = directory / "site.pem.new"
    tmp.write_bytes(crt.read_bytes() + key.read_bytes())
    tmp.replace(pem)  # whole, as a deploy hook should write it
    return crt


class Tls:
    def __init__(self, c: Cluster, port: int, certs: Path, crt: Path) -> None:
        self.c, self.port, self.certs, self.crt = c, port, certs, crt
        self.origin = f"https://127.0.0.1:{port}"
        self.ws_origin = f"wss://127.0.0.1:{port}"

    def context(self) -> ssl.SSLContext:
        """Trusts the current certificate only (verification on, host name checked)."""
        return ssl.create_default_context(cafile=str(self.crt))

    def client(self) -> httpx.Client:
        return httpx.Client(base_url=self.origin, verify=self.context(), trust_env=False,
                            timeout=20)


@pytest.fixture(scope="module")
def tls() -> Iterator[Tls]:
    certs = Path(tempfile.mkdtemp(prefix="mvx-certs-"))
    crt = make_cert(certs, "first")
    port = free_port()
    c = Cluster(2, env={"MACHIAVELOX_PUBLIC_URL": f"https://127.0.0.1:{port}"},
                proxy_env={"MVX_TLS_CERT": str(certs / "site.pem"),
                           "MVX_TLS_LISTEN": f"127.0.0.1:{port}",
                           "MVX_PUBLIC_URL": f"https://127.0.0.1:{port}"})
    try:
        yield Tls(c, port, certs, crt)
    finally:
        c.close()
        shutil.rmtree(certs, ignore_errors=True)


def _api(t: Tls, path: str, token: str | None = None, body: Any = None) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    with t.client() as h:
        r = h.post(path, json=body or {}, headers=headers)
        for _ in range(30):  # 503 while a new table moves to the process its code routes to
            if r.status_code != 503:
                break
            time.sleep(0.2)
            r = h.post(path, json=body or {}, headers=headers)
    assert r.status_code == 200, r.text
    return dict(r.json())


def _table(t: Tls) -> tuple[dict[str, Any], str]:
    ada = _api(t, "/api/session", body={"name": "Ada"})
    code = str(_api(t, "/api/tables", ada["token"], {
        "mode": "single", "position": POSITION,
        "timers": {"absence": 600, "inactivity": 600}})["code"])
    for name in ("Bob", "Cy"):
        _api(t, f"/api/tables/{code}/join", _api(t, "/api/session", body={"name": name})["token"])
    return ada, code


def test_the_page_and_the_api_answer_over_https_and_http_is_redirected(tls: Tls) -> None:
    with tls.client() as h:
        page = h.get("/")
        assert page.status_code == 200 and "<html" in page.text.lower()
        assert h.get("/readyz").status_code == 200
    r = httpx.get(tls.c.url + "/t/ABCD?x=1", trust_env=False, timeout=10,
                  follow_redirects=False)
    assert r.status_code == 301
    assert r.headers["location"] == f"{tls.origin}/t/ABCD?x=1"
    # The proxy's own health checks and the tests' readiness probes stay on plain HTTP.
    assert httpx.get(tls.c.url + "/readyz", trust_env=False, timeout=10).status_code == 200


async def _welcome(ws: ClientConnection) -> dict[str, Any] | int:
    try:
        return dict(json.loads(await asyncio.wait_for(ws.recv(), 10)))
    except ConnectionClosed as e:
        assert e.rcvd is not None
        return e.rcvd.code


def test_websockets_from_the_https_origin_play_and_others_close_4403(tls: Tls) -> None:
    _, code = _table(tls)

    async def go() -> None:
        url = f"{tls.ws_origin}/ws/{code}"
        async with connect(url, ssl=tls.context(), origin=tls.origin,  # type: ignore[arg-type]
                           open_timeout=10, **NO_PROXY) as ws:
            first = await _welcome(ws)
            assert isinstance(first, dict) and first["type"] == "welcome", first
        # The page opened over http (or a public URL that is not the https origin): 4403.
        http_origin = f"http://127.0.0.1:{tls.port}"
        async with connect(url, ssl=tls.context(), origin=http_origin,  # type: ignore[arg-type]
                           open_timeout=10, **NO_PROXY) as ws:
            assert await _welcome(ws) == errors.CLOSE_BAD_ORIGIN
    asyncio.run(asyncio.wait_for(go(), 60))


def test_chromium_plays_over_https_and_wss(tls: Tls, chromium_browser: Any) -> None:
    ada, code = _table(tls)
    # Debian's Chromium, as the other browser tests launch it, told to accept the self-signed
    # certificate (a real one from Let's Encrypt needs no flag).
    browser = chromium_browser.browser_type.launch(
        executable_path=web.CHROMIUM, headless=True,
        args=[*web.CHROMIUM_ARGS, "--ignore-certificate-errors"])
    errors_seen: list[str] = []
    try:
        ctx = browser.new_context(viewport=web.VIEWPORT, locale="en-US")
        value = repr(json.dumps({"token": ada["token"], "name": ada["name"]}))
        ctx.add_init_script(
            f"if (!localStorage.getItem('mvx.session')) localStorage.setItem('mvx.session', {value});")
        page = ctx.new_page()
        page.on("console", lambda m: m.type == "error" and errors_seen.append(m.text))
        page.on("pageerror", lambda e: errors_seen.append(f"page error: {e}"))
        page.goto(f"{tls.origin}/t/{code}")
        assert page.evaluate("location.protocol") == "https:"
        expect(page.locator("#my-hand .card")).to_have_count(2)
        page.click("#btn-draw")  # a command over wss, answered by the table's process
        expect(page.locator("#my-hand .card")).to_have_count(3)
        web.ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(web.ARTIFACTS / "https-01-drew.png"), full_page=True)
        assert errors_seen == [], errors_seen
        ctx.close()
    finally:
        browser.close()


def renew_with_the_deploy_hook(certs: Path) -> Path:
    """A new certificate written by ``deploy/certbot-deploy-hook.sh`` from a certbot-like
    lineage (fullchain.pem, privkey.pem), as certbot runs it after a renewal; the reload is
    the test's (no docker here)."""
    lineage = certs / "live"
    lineage.mkdir(exist_ok=True)
    crt = make_cert(lineage, "renewed")
    (lineage / "fullchain.pem").write_bytes(crt.read_bytes())
    (lineage / "privkey.pem").write_bytes((lineage / "renewed.key").read_bytes())
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "RENEWED_LINEAGE": str(lineage),
           "MVX_CERTS_DIR": str(certs), "MVX_CERT_GID": str(os.getgid()), "MVX_NO_RELOAD": "1"}
    proc = subprocess.run(["sh", str(REPO / "deploy" / "certbot-deploy-hook.sh")], env=env,
                          capture_output=True, text=True, timeout=30, check=False)
    assert proc.returncode == 0, proc.stderr
    pem = certs / "site.pem"
    assert pem.stat().st_mode & 0o777 == 0o640
    assert pem.read_bytes() == crt.read_bytes() + (lineage / "renewed.key").read_bytes()
    return crt


def _served(port: int) -> bytes:
    """The certificate the TLS listener presents (DER)."""
    return ssl.PEM_cert_to_DER_cert(ssl.get_server_certificate(("127.0.0.1", port), timeout=5))


def _der(crt: Path) -> bytes:
    return ssl.PEM_cert_to_DER_cert(crt.read_text())


def test_a_reload_serves_a_renewed_certificate_and_keeps_open_sockets(tls: Tls) -> None:
    _, code = _table(tls)
    assert _served(tls.port) == _der(tls.crt)

    async def go() -> None:
        async with connect(f"{tls.ws_origin}/ws/{code}", ssl=tls.context(), origin=tls.origin,
                           open_timeout=10, **NO_PROXY) as ws:
            assert isinstance(await _welcome(ws), dict)
            new_crt = renew_with_the_deploy_hook(tls.certs)
            new = _der(new_crt)
            assert new != _der(tls.crt)
            assert tls.c.proxy is not None
            tls.c.proxy.proc.send_signal(signal.SIGHUP)  # the reload (docker compose kill -s HUP proxy)
            deadline = time.monotonic() + 15
            while _served(tls.port) != new:
                assert time.monotonic() < deadline, "the reloaded proxy serves the old certificate"
                await asyncio.sleep(0.2)
            # The socket opened before the reload still plays (the old worker keeps it).
            await ws.send(json.dumps({"type": "ping"}))
            for _ in range(20):
                if json.loads(await asyncio.wait_for(ws.recv(), 10))["type"] == "pong":
                    break
            else:
                raise AssertionError("no pong after the reload")
        tls.crt = new_crt
        with tls.client() as h:  # verified against the new certificate
            assert h.get("/readyz").status_code == 200
    asyncio.run(asyncio.wait_for(go(), 90))
