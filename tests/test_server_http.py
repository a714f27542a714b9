"""HTTP: health, sessions, friendly tables (create, invite code, join), the served web client,
and ``machiavelox serve`` as a real subprocess."""

from __future__ import annotations

import logging
import os
import shutil
import socket
import subprocess
import sys
import sysconfig
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from serverhelpers import LiveServer, run, seated

from server.settings import Settings

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    with LiveServer(Settings(secret="test")) as s:
        yield s


@pytest.fixture()
def http(server: LiveServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, trust_env=False, timeout=10) as c:
        yield c


def token(http: httpx.Client, name: str) -> dict[str, str]:
    r = http.post("/api/session", json={"name": name})
    assert r.status_code == 200, r.text
    return {"Authorization": f"Bearer {r.json()['token']}"}


def test_healthz(http: httpx.Client) -> None:
    r = http.get("/healthz")
    assert r.status_code == 200 and r.json() == {"status": "ok"}


class TestSessions:
    def test_a_name_gives_a_signed_token(self, http: httpx.Client) -> None:
        r = http.post("/api/session", json={"name": "  Ada   Lovelace "})
        body = r.json()
        assert r.status_code == 200 and body["name"] == "Ada Lovelace"
        assert body["token"].count(".") == 2  # itsdangerous: payload.timestamp.signature

    @pytest.mark.parametrize("name", ["", "   ", "x" * 25, "tab\x07bell"])
    def test_bad_names_are_refused(self, http: httpx.Client, name: str) -> None:
        r = http.post("/api/session", json={"name": name})
        assert r.status_code == 422 and r.json()["code"] == "bad_field"

    def test_tables_need_a_valid_token(self, http: httpx.Client) -> None:
        for headers in ({}, {"Authorization": "Bearer forged.token.here"}):
            r = http.post("/api/tables", json={"mode": "single"}, headers=headers)
            assert r.status_code == 401 and r.json()["code"] == "bad_token"


class TestFriendlyTables:
    def test_create_share_join_until_full(self, http: httpx.Client) -> None:
        ada = token(http, "Ada")
        r = http.post("/api/tables", json={"mode": "long"}, headers=ada)
        created = r.json()
        code = created["code"]
        assert r.status_code == 200 and created == {"code": code, "url": f"/t/{code}", "seat": "Ada"}
        assert len(code) == 6 and code.isalnum() and code.isupper()
        # Two more players called Ada: display names are made unique per table.
        seats = [http.post(f"/api/tables/{code}/join", headers=token(http, "Ada")).json()["seat"]
                 for _ in range(2)]
        assert seats == ["Ada 2", "Ada 3"]
        # Joining again with the same token gives back the same seat, even when full.
        again = http.post(f"/api/tables/{code.lower()}/join", headers=ada)
        assert again.status_code == 200 and again.json()["seat"] == "Ada"
        full = http.post(f"/api/tables/{code}/join", headers=token(http, "Bob"))
        assert full.status_code == 409 and full.json()["code"] == "table_full"
        summary = http.get(f"/api/tables/{code}").json()
        assert summary["seats"] == ["Ada", "Ada 2", "Ada 3"]
        assert summary["phase"] == "hand" and summary["mode"] == "long"

    def test_unknown_table(self, http: httpx.Client) -> None:
        assert http.get("/api/tables/NOSUCH").json()["code"] == "no_such_table"
        r = http.post("/api/tables/NOSUCH/join", headers=token(http, "Eve"))
        assert r.status_code == 404 and r.json()["code"] == "no_such_table"

    def test_bad_mode(self, http: httpx.Client) -> None:
        r = http.post("/api/tables", json={"mode": "forever"}, headers=token(http, "Eve"))
        assert r.status_code == 422 and r.json()["code"] == "bad_field"

    def test_stacked_deals_need_the_test_setting(self, http: httpx.Client) -> None:
        r = http.post("/api/tables", json={"mode": "single", "seed": 4}, headers=token(http, "Eve"))
        assert r.status_code == 403 and r.json()["code"] == "test_deals_off"


class TestWebClient:
    def test_index_and_table_links_serve_the_client(self, http: httpx.Client) -> None:
        index = (REPO / "web" / "index.html").read_bytes()
        for path in ("/", "/t/K7QX2M"):
            r = http.get(path)
            assert r.status_code == 200 and r.content == index
            assert r.headers["content-type"].startswith("text/html")
        assert http.get("/static/index.html").content == index
        assert http.get("/static/nope.js").status_code == 404

    def test_the_packages_python_is_not_served_as_client(self, http: httpx.Client) -> None:
        # web/ is a package (web/__init__.py) and Python writes __pycache__ beside it
        assert (REPO / "web" / "__init__.py").is_file()
        (REPO / "web" / "__pycache__").mkdir(exist_ok=True)
        for path in ("/static/__init__.py", "/static/__pycache__/", "/static/__pycache__/x.pyc",
                     "/static/lang/../__init__.py"):
            r = http.get(path)
            assert r.status_code == 404, (path, r.status_code, r.text[:80])
        assert http.get("/static/app.js").status_code == 200


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_machiavelox_serve_starts_and_answers_healthz() -> None:
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("MACHIAVELOX_")}
    # The script installed beside this interpreter (the venv's), else one on PATH.
    beside = Path(sysconfig.get_path("scripts")) / "machiavelox"
    script = str(beside) if beside.exists() else shutil.which("machiavelox") or str(beside)
    # The console script `pip install -e .` made; `python -m server` is the same entry point.
    base = [script] if Path(script).exists() else [sys.executable, "-m", "server"]
    cmd = [*base, "serve", "--host", "127.0.0.1", "--port", str(port)]
    proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 20
        while True:
            assert proc.poll() is None, proc.communicate()[0]
            try:
                r = httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1, trust_env=False)
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline, "no answer from machiavelox serve"
                time.sleep(0.1)
        assert r.status_code == 200 and r.json() == {"status": "ok"}
    finally:
        proc.terminate()
        out = proc.communicate(timeout=10)[0]
    assert "MACHIAVELOX_SECRET is not set" in out


def test_tokens_in_logged_urls_are_hidden() -> None:
    from server.logs import RedactTokens

    record = logging.LogRecord("uvicorn.error", logging.INFO, __file__, 1,
                               '%s - "WebSocket %s" [accepted]',
                               ("127.0.0.1:5", "/ws/K7QX2M?token=abc.def.ghi&last_version=3"), None)
    assert RedactTokens().filter(record)
    assert record.getMessage() == \
        '127.0.0.1:5 - "WebSocket /ws/K7QX2M?token=***&last_version=3" [accepted]'


def test_a_token_in_a_log_message_itself_is_hidden() -> None:
    """A message already formatted (no arguments), as uvicorn logs some lines, is redacted too."""
    from server.logs import RedactTokens

    record = logging.LogRecord("uvicorn.error", logging.INFO, __file__, 1,
                               '127.0.0.1:5 - "WebSocket /ws/K7QX2M?token=abc.def.ghi" 403',
                               None, None)
    assert RedactTokens().filter(record)
    assert record.getMessage() == '127.0.0.1:5 - "WebSocket /ws/K7QX2M?token=***" 403'
    assert "abc.def.ghi" not in record.getMessage()


def test_idle_waiting_tables_are_forgotten() -> None:
    with LiveServer(Settings(secret="test", table_idle_ttl=0.2)) as server, \
            httpx.Client(base_url=server.url, trust_env=False, timeout=10) as http:
        code = http.post("/api/tables", json={}, headers=token(http, "Ada")).json()["code"]
        assert http.get(f"/api/tables/{code}").status_code == 200
        deadline = time.monotonic() + 5
        while http.get(f"/api/tables/{code}").status_code == 200:
            assert time.monotonic() < deadline, "the idle table was kept"
            time.sleep(0.05)
        assert http.get(f"/api/tables/{code}").json()["code"] == "no_such_table"


def test_settings_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MACHIAVELOX_PORT", "9123")
    monkeypatch.setenv("MACHIAVELOX_PLAY", "7.5")
    monkeypatch.setenv("MACHIAVELOX_SECRET", "")  # what docker compose passes when unset
    monkeypatch.setenv("MACHIAVELOX_TEST_DEALS", "1")
    s = Settings()
    assert (s.host, s.port, s.test_deals) == ("127.0.0.1", 9123, True)
    assert s.secret_generated and s.secret
    assert s.timer_overrides() == {"play": 7.5} and s.rules().play == 7.5


def test_clock_overrides_reach_the_game() -> None:
    with LiveServer(Settings(secret="test", play=7.5, resume_wait=0)) as server:
        async def go() -> dict:
            players = await seated(server, ["A", "B", "C"])
            game = players[0].game
            for p in players:
                await p.close()
            return game
        game = run(go())
    assert game["hand"]["timers"]["play"] == 7.5 and game["hand"]["timers"]["hold"] == 10.0


@pytest.fixture(scope="module")
def limited_server() -> Iterator[LiveServer]:
    settings = Settings(secret="test", test_deals=True, max_waiting_tables_per_player=3)
    with LiveServer(settings) as s:
        yield s


class TestLimits:
    """Found by trying to break the server as a new user would: one token cannot fill the
    server with empty tables, a stacked test position must be a legal table, and a table says
    whether the agora matched it and which seats are bots."""

    @pytest.fixture()
    def limited(self, limited_server: LiveServer) -> Iterator[httpx.Client]:
        with httpx.Client(base_url=limited_server.url, trust_env=False, timeout=10) as c:
            yield c

    def test_one_player_cannot_flood_the_server_with_waiting_tables(self, limited: httpx.Client) -> None:
        ada, bob, cy = token(limited, "Ada"), token(limited, "Bob"), token(limited, "Cy")
        codes = []
        for _ in range(3):
            r = limited.post("/api/tables", json={"mode": "single"}, headers=ada)
            assert r.status_code == 200, r.text
            codes.append(r.json()["code"])
        r = limited.post("/api/tables", json={"mode": "single"}, headers=ada)
        assert r.status_code == 429 and r.json()["code"] == "too_many_waiting_tables"
        assert "3 tables waiting" in r.json()["message"]
        # Another player is not affected.
        assert limited.post("/api/tables", json={"mode": "single"}, headers=bob).status_code == 200
        # Once one of Ada's tables fills and is dealt, she may open another.
        for who in (bob, cy):
            assert limited.post(f"/api/tables/{codes[0]}/join", headers=who).status_code == 200
        assert limited.get(f"/api/tables/{codes[0]}").json()["phase"] == "hand"
        assert limited.post("/api/tables", json={"mode": "single"}, headers=ada).status_code == 200


    def test_a_stacked_position_with_an_invalid_meld_is_refused(self, limited: httpx.Client) -> None:
        ada = token(limited, "Dee")
        bad = {"table": [["4C", "5C", "9C"]], "hands": {"A": ["7C"]}}
        r = limited.post("/api/tables", json={"mode": "single", "position": bad}, headers=ada)
        assert r.status_code == 422 and r.json()["code"] == "bad_field"
        assert "4C 5C 9C" in r.json()["message"]
        good = {"table": [["4C", "5C", "6C"]], "hands": {"A": ["7C"]}}
        r = limited.post("/api/tables", json={"mode": "single", "position": good}, headers=ada)
        assert r.status_code == 200, r.text


    def test_a_friendly_table_says_it_is_not_an_agora_table(self, limited: httpx.Client) -> None:
        r = limited.post("/api/tables", json={"mode": "long"}, headers=token(limited, "Eve"))
        info = limited.get(f"/api/tables/{r.json()['code']}").json()
        assert info["agora"] is False and info["mode"] == "long"


    def test_the_table_summary_names_the_bot_seats(self, limited: httpx.Client) -> None:
        ada = token(limited, "Flo")
        code = limited.post("/api/tables", json={"mode": "single"}, headers=ada).json()["code"]
        r = limited.post(f"/api/tables/{code}/bots", json={"level": "casual", "count": 1}, headers=ada)
        assert r.status_code == 200, r.text
        info = limited.get(f"/api/tables/{code}").json()
        assert info["bots"] == r.json()["bots"] and len(info["bots"]) == 1
        assert "Flo" in info["seats"] and "Flo" not in info["bots"]
